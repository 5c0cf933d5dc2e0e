"""The spaces of a VecEnv, under the names and attributes of Gymnasium's
(gymnasium.spaces: Box, Discrete, MultiDiscrete), so that code written
against Gymnasium's vector environments reads them as it would there
(env.single_action_space.n, env.single_observation_space.shape) without
this package depending on Gymnasium. They describe; the server checks the
actions (a mask says which are valid at each decision)."""

import numpy as np


class _Space:
    """What the three spaces share: a shape, a dtype, and a generator for
    sample() that seed() restarts."""

    def __init__(self, shape, dtype, seed=None):
        self.shape = tuple(int(n) for n in shape)
        self.dtype = np.dtype(dtype)
        self.np_random = np.random.default_rng(seed)

    def seed(self, seed=None):
        """Restarts sample()'s generator; returns [seed]."""
        self.np_random = np.random.default_rng(seed)
        return [seed]

    def __contains__(self, x):
        return self.contains(x)

    def _array(self, x):
        """x as an array of the space's shape, or None."""
        try:
            a = np.asarray(x)
        except (TypeError, ValueError):
            return None
        return a if a.shape == self.shape else None


class Box(_Space):
    """Real vectors between low and high (here -inf and inf: the features are
    roughly in [0, 1], with no bound promised)."""

    def __init__(self, low, high, shape, dtype=np.float32, seed=None):
        super().__init__(shape, dtype, seed)
        self.low = np.full(self.shape, low, dtype=self.dtype)
        self.high = np.full(self.shape, high, dtype=self.dtype)

    def sample(self):
        """A draw in the box: uniform where both ends are finite, normal
        where neither is, and shifted exponential where one is."""
        lo, hi = self.low.astype(np.float64), self.high.astype(np.float64)
        x = self.np_random.normal(size=self.shape)
        both = np.isfinite(lo) & np.isfinite(hi)
        x[both] = self.np_random.uniform(lo[both], hi[both])
        below = np.isfinite(lo) & ~np.isfinite(hi)
        x[below] = lo[below] + self.np_random.exponential(size=int(below.sum()))
        above = ~np.isfinite(lo) & np.isfinite(hi)
        x[above] = hi[above] - self.np_random.exponential(size=int(above.sum()))
        return x.astype(self.dtype)

    def contains(self, x):
        a = self._array(x)
        return a is not None and a.dtype.kind in "iuf" and bool(np.all((a >= self.low) & (a <= self.high)))

    def __repr__(self):
        return f"Box({self.low.min()}, {self.high.max()}, {self.shape}, {self.dtype})"

    def __eq__(self, other):
        return (isinstance(other, Box) and self.shape == other.shape and self.dtype == other.dtype
                and np.array_equal(self.low, other.low) and np.array_equal(self.high, other.high))


class Discrete(_Space):
    """The integers 0 to n-1: one decision's action."""

    def __init__(self, n, seed=None):
        super().__init__((), np.int64, seed)
        self.n = int(n)

    def sample(self, mask=None):
        """A uniform draw among the actions, or among those mask (bool or
        0/1, length n) allows; with none allowed, 0."""
        if mask is None:
            return int(self.np_random.integers(self.n))
        allowed = np.flatnonzero(np.asarray(mask))
        return int(self.np_random.choice(allowed)) if len(allowed) else 0

    def contains(self, x):
        a = self._array(x)
        return a is not None and a.dtype.kind in "iu" and 0 <= int(a) < self.n

    def __repr__(self):
        return f"Discrete({self.n})"

    def __eq__(self, other):
        return isinstance(other, Discrete) and self.n == other.n


class MultiDiscrete(_Space):
    """One integer per row, row i's from 0 to nvec[i]-1: a step's actions."""

    def __init__(self, nvec, seed=None):
        self.nvec = np.asarray(nvec, dtype=np.int64)
        super().__init__(self.nvec.shape, np.int64, seed)

    def sample(self, mask=None):
        """One uniform draw per row, or, with mask (bool, rows by actions),
        among each row's allowed actions (0 where none is)."""
        if mask is None:
            return self.np_random.integers(self.nvec)
        mask = np.asarray(mask, dtype=bool)
        out = np.zeros(self.shape, dtype=np.int64)
        for i, row in enumerate(mask):
            allowed = np.flatnonzero(row)
            if len(allowed):
                out[i] = self.np_random.choice(allowed)
        return out

    def contains(self, x):
        a = self._array(x)
        return a is not None and a.dtype.kind in "iu" and bool(np.all((a >= 0) & (a < self.nvec)))

    def __repr__(self):
        return f"MultiDiscrete({self.nvec.tolist()})"

    def __eq__(self, other):
        return isinstance(other, MultiDiscrete) and np.array_equal(self.nvec, other.nvec)
