"""The package carries the simulate binary (bin/simulate), built for one
operating system and architecture: the wheel is tagged for that platform
rather than as pure Python, which would install it anywhere and fail at
the first VecEnv. Everything else is in pyproject.toml."""

import os

from setuptools import setup
from setuptools.dist import Distribution

BINARY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "swarmsim", "bin", "simulate")


class BinaryDistribution(Distribution):
    """A distribution with platform-specific content: setuptools tags its
    wheel with the platform it is built on."""

    def has_ext_modules(self):
        return True


if not os.access(BINARY, os.X_OK):
    raise SystemExit(
        "swarmsim: no simulate binary to install at " + BINARY + "; build it first, from the repository root:\n"
        "    CGO_ENABLED=0 go build -o python/swarmsim/bin/simulate ./cmd/simulate")

setup(distclass=BinaryDistribution)
