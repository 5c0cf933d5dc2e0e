"""Tests of the swarmsim Python package (run from python/:
python3 -m unittest discover).

They need numpy and a simulate binary. PyPI may be out of reach, so an
interpreter without numpy borrows Debian's python3-numpy when it is built
for the same Python version; with no binary found as VecEnv finds it, one
is built with go into a temporary directory, once for the whole run.
"""

import atexit
import os
import shutil
import subprocess
import sys
import tempfile

import swarmsim  # noqa: F401,E402  (makes numpy importable where it can)

# The examples and clients the tests start import numpy first: they get the
# same path.
if "/usr/lib/python3/dist-packages" in sys.path:
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (os.environ.get("PYTHONPATH"), "/usr/lib/python3/dist-packages") if p)

_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_bundled = os.path.join(_root, "python", "swarmsim", "bin", "simulate")
if not os.environ.get("SWARMSIM_SIMULATE") and not os.path.exists(_bundled) and shutil.which("go"):
    _dir = tempfile.mkdtemp(prefix="swarmsim-tests-")
    atexit.register(shutil.rmtree, _dir, True)
    _bin = os.path.join(_dir, "simulate")
    subprocess.run(["go", "build", "-o", _bin, "./cmd/simulate"], cwd=_root, check=True)
    os.environ["SWARMSIM_SIMULATE"] = _bin
