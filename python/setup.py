"""The package carries the simulate binary (bin/simulate), built for one
operating system and architecture, and no compiled Python: its wheel is
tagged py3-none-<platform>, for any Python 3 on the platform it is built
on, rather than as pure Python, which would install anywhere and fail at
the first VecEnv. Everything else is in pyproject.toml."""

import os

from setuptools import setup

try:  # setuptools 70.1 and later
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # the wheel package's, as Debian 12 has it
    from wheel.bdist_wheel import bdist_wheel

BINARY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "swarmsim", "bin", "simulate")


class PlatformWheel(bdist_wheel):
    """A wheel for any Python 3 of the build's platform."""

    def finalize_options(self):
        super().finalize_options()
        self.root_is_pure = False  # not a pure wheel: it holds a binary

    def get_tag(self):
        _, _, platform = super().get_tag()
        return "py3", "none", platform


if not os.access(BINARY, os.X_OK):
    raise SystemExit(
        "swarmsim: no simulate binary to install at " + BINARY + "; build it first, from the repository root:\n"
        "    CGO_ENABLED=0 go build -o python/swarmsim/bin/simulate ./cmd/simulate")

setup(cmdclass={"bdist_wheel": PlatformWheel})
