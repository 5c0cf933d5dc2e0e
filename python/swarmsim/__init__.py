"""swarmsim: a thin client of `simulate env`, swarmsim's environment protocol
(swarmsim-env/2, docs/environment.md). The simulation runs in Go; this
package only frames requests and replies as numpy arrays.

    from swarmsim import VecEnv
    with VecEnv("latency-pressure", variant="high", num_envs=64, group=8, seed=1) as env:
        obs, info = env.reset()
        ...

It needs the simulate binary: build it once from the repository root with
`CGO_ENABLED=0 go build -o python/swarmsim/bin/simulate ./cmd/simulate` (or point
SWARMSIM_SIMULATE at one).
"""

import os as _os
import sys as _sys

try:
    import numpy as _numpy  # noqa: F401
except ImportError:
    # PyPI may be out of reach: borrow Debian's python3-numpy, which serves
    # an interpreter of its Python version (a pyenv 3.11 beside Debian's),
    # and only that: its compiled modules are tagged with the version.
    import glob as _glob

    _debian = "/usr/lib/python3/dist-packages"
    _tag = "cpython-%d%d-" % _sys.version_info[:2]
    # numpy 2 keeps them in _core, numpy 1 in core.
    _built = [p for d in ("_core", "core") for p in _glob.glob(_os.path.join(_debian, "numpy", d, "*." + _tag + "*.so"))]
    if _built and _debian not in _sys.path:
        _sys.path.append(_debian)

from . import spaces
from ._wire import ProtocolError
from .env import PROTOCOL, EnvError, ServerError, VecEnv, find_simulate

__all__ = ["VecEnv", "EnvError", "ServerError", "ProtocolError", "PROTOCOL", "find_simulate", "spaces"]
__version__ = "0.1.0"
