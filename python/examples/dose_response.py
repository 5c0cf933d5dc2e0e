#!/usr/bin/env python3
"""The flagship's dose-response from the learners' CSV rows, with its test.

Reads the rows that reinforce_numpy.py (or reinforce_torch.py) writes, one
per (seed, variant), and reports for each variant the median and the
interquartile mean over seeds of the last tenth's parallelism and finish
time, each with a 95% percentile bootstrap interval (10,000 resamples of the
seeds), then tests the ordering the flagship claims, none < low < medium <
high in learned parallelism:

  - Page's L test for ordered alternatives, blocks = seeds (every seed trains
    all four weights on the same task instances), one-sided, its p-value by
    100,000 permutations of the ranks within each block; alpha = 0.01.
  - Each adjacent pair (none < low, low < medium, medium < high), a one-sided
    exact Wilcoxon signed-rank test paired by seed, Holm-corrected over the
    three at a family-wise alpha = 0.05.

The claim holds when Page's test rejects at 0.01 and all three pairs reject
after Holm; the exit status is 0 then and 1 otherwise, and 2 for input it
cannot read (a missing file, a column missing, a value that is no number).

    python3 python/examples/dose_response.py /tmp/np.csv [more.csv ...]
"""

import argparse
import csv
import sys

import numpy as np

ORDER = ["none", "low", "medium", "high"]
RESAMPLES = 10_000
PERMUTATIONS = 100_000
ALPHA_TREND, ALPHA_PAIRS = 0.01, 0.05


def iqm(x, axis=-1):
    """The interquartile mean: the mean of the middle half (the sorted values
    from index floor(n/4) to n - floor(n/4))."""
    x = np.sort(x, axis=axis)
    n = x.shape[axis]
    cut = n // 4
    return np.take(x, range(cut, n - cut), axis=axis).mean(axis=axis)


def bootstrap(x, stat, rng):
    """stat(x) and the 95% percentile interval over resamples of x."""
    idx = rng.integers(0, len(x), size=(RESAMPLES, len(x)))
    boots = stat(x[idx], axis=1)
    return stat(x, axis=-1), np.percentile(boots, 2.5), np.percentile(boots, 97.5)


def ranks(a):
    """Ranks 1..k along the last axis, ties averaged."""
    order = np.argsort(a, axis=-1, kind="stable")
    r = np.empty_like(a, dtype=float)
    np.put_along_axis(r, order, np.arange(1, a.shape[-1] + 1, dtype=float)[None, :].repeat(a.shape[0], 0), axis=-1)
    for i in range(a.shape[0]):  # average ties, block by block (few blocks)
        for v in np.unique(a[i]):
            tied = a[i] == v
            r[i, tied] = r[i, tied].mean()
    return r


def page_test(y, rng):
    """Page's L for y (blocks, treatments in the hypothesised increasing
    order): L and its one-sided permutation p-value."""
    r = ranks(y)
    weights = np.arange(1, y.shape[1] + 1)
    L = float((r.sum(axis=0) * weights).sum())
    perm = rng.permuted(np.broadcast_to(r, (PERMUTATIONS,) + r.shape), axis=2)
    Ls = (perm.sum(axis=1) * weights).sum(axis=1)
    return L, (1 + np.count_nonzero(Ls >= L - 1e-9)) / (PERMUTATIONS + 1)


def wilcoxon_greater(d):
    """One-sided exact Wilcoxon signed-rank test of d > 0 (zeros dropped,
    ties given average ranks): T+ and P(T+ >= observed) over all 2^n sign
    assignments."""
    d = d[d != 0]
    n = len(d)
    if n == 0:
        return 0.0, 1.0
    r = ranks(np.abs(d)[None, :])[0]
    t = r[d > 0].sum()
    signs = (np.arange(1 << n)[:, None] >> np.arange(n)) & 1
    ts = signs @ r
    return float(t), float(np.mean(ts >= t - 1e-9))


def holm(ps):
    """Holm-adjusted p-values."""
    ps = np.asarray(ps)
    order = np.argsort(ps)
    adj = np.empty_like(ps)
    running = 0.0
    for i, j in enumerate(order):
        running = max(running, (len(ps) - i) * ps[j])
        adj[j] = min(1.0, running)
    return adj


COLUMNS = ["seed", "variant", "parallelism", "finish_time", "success"]


class InputError(Exception):
    """A file this script cannot read as the learners' rows."""


def load(paths):
    """Reads the learners' rows: the seeds that have all four variants, and
    their parallelism, finish time and success as (seeds, variants) arrays.
    Raises InputError naming the file, line and column of what is wrong."""
    rows = {}
    for p in paths:
        try:
            # utf-8-sig: a CSV saved by a spreadsheet starts with a byte-order mark.
            with open(p, newline="", encoding="utf-8-sig") as f:
                reader = csv.DictReader(f)
                missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
                if missing:
                    raise InputError(f"{p}: no column {', '.join(missing)}; want the rows reinforce_numpy.py --out writes "
                                     f"(columns {', '.join(COLUMNS)}, ...)")
                for r in reader:
                    try:
                        key = (int(r["seed"]), r["variant"])
                        rows[key] = {c: float(r[c]) for c in COLUMNS[2:]}
                    except (TypeError, ValueError):
                        got = " ".join(f"{c}={r[c]!r}" if r[c] is None or "\n" in r[c] else f"{c}={r[c]}" for c in COLUMNS)
                        raise InputError(f"{p}:{reader.line_num}: want an integer seed and numbers in "
                                         f"{', '.join(COLUMNS[2:])}, got {got}") from None
        except OSError as e:
            raise InputError(f"{p}: {e.strerror}") from None
        except UnicodeDecodeError as e:
            raise InputError(f"{p}: not text in UTF-8 (byte {e.start}: {e.reason}); want the CSV rows reinforce_numpy.py --out writes") from None
        except csv.Error as e:
            raise InputError(f"{p}: not a CSV file ({e})") from None
    seeds = sorted({s for s, v in rows if all((s, w) in rows for w in ORDER)})
    if not seeds:
        raise InputError(f"no seed has all four variants {', '.join(ORDER)} in {', '.join(paths)}")
    get = lambda col: np.array([[rows[(s, v)][col] for v in ORDER] for s in seeds])
    return seeds, get("parallelism"), get("finish_time"), get("success")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="+", metavar="ROWS.csv", help="rows of reinforce_numpy.py --out (or reinforce_torch.py)")
    args = ap.parse_args()
    try:
        seeds, par, fin, succ = load(args.files)
    except InputError as e:
        ap.exit(2, f"dose_response: {e}\n")
    rng = np.random.default_rng(0)
    print(f"{len(seeds)} seeds: {seeds[0]}..{seeds[-1]}; last tenth of training; 95% bootstrap intervals")
    print(f"{'variant':8} {'parallelism median':>26} {'parallelism IQM':>26} {'finish (s) IQM':>26} {'success IQM':>12}")
    cell = lambda t, d=2: f"{t[0]:.{d}f} [{t[1]:.{d}f}, {t[2]:.{d}f}]"
    for j, v in enumerate(ORDER):
        print(f"{v:8} {cell(bootstrap(par[:, j], np.median, rng)):>26} {cell(bootstrap(par[:, j], iqm, rng)):>26} "
              f"{cell(bootstrap(fin[:, j], iqm, rng), 0):>26} {iqm(succ[:, j]):12.2f}")
    print("means over seeds: " + ", ".join(f"{v} {par[:, j].mean():.2f}" for j, v in enumerate(ORDER)))
    L, p = page_test(par, rng)
    shown = f"p = {p:.2g}" if p > 1 / PERMUTATIONS else f"p < {1 / PERMUTATIONS:.0e} (no permutation reached L)"
    print(f"Page's L test (none < low < medium < high, blocks = seeds): L = {L:.1f}, {shown} (alpha {ALPHA_TREND})")
    pairs = [(j, j + 1) for j in range(len(ORDER) - 1)]
    tests = [wilcoxon_greater(par[:, b] - par[:, a]) for a, b in pairs]
    adj = holm([t[1] for t in tests])
    for (a, b), (t, pv), pa in zip(pairs, tests, adj):
        wins = int(np.sum(par[:, b] > par[:, a]))
        print(f"  {ORDER[a]} < {ORDER[b]}: higher in {wins}/{len(seeds)} seeds, Wilcoxon T+ = {t:.1f}, p = {pv:.3g}, Holm {pa:.3g}")
    holds = p <= ALPHA_TREND and all(adj <= ALPHA_PAIRS)
    print("claim none < low < medium < high:", "holds" if holds else "NOT shown")
    # A script or CI that checks the claim reads the exit status.
    sys.exit(0 if holds else 1)


if __name__ == "__main__":
    main()
