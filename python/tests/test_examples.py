"""The examples' algorithm and statistics, and a smoke run of the learner."""

import csv
import importlib.util
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

from swarmsim import ServerError, find_simulate

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")


def load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(EXAMPLES, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


rf = load("reinforce_numpy")
dr = load("dose_response")


class GradientTest(unittest.TestCase):
    def test_policy_gradient_is_the_surrogates(self):
        # Central finite differences of sum_d w (A log pi(a|x) + beta H) over
        # the decisions with a choice, w = 1/(all decisions, 30 here: 12
        # with a choice and 18 without).
        rng = np.random.default_rng(3)
        n, A, F = 12, 5, 4
        x = rng.normal(size=(n, F))
        mask = rng.random((n, A)) < 0.6
        mask[:, :2] = True
        a = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        row = rng.integers(0, 3, n)
        adv = rng.normal(size=3)
        theta = rng.normal(size=(A, F))
        beta = 0.3

        def surrogate(th):
            logp = rf.masked_log_softmax(x @ th.T, mask)
            p = np.exp(logp)
            h = -(p * np.where(mask, logp, 0)).sum(axis=1)
            return (adv[row] * logp[np.arange(n), a] + beta * h).sum() / 30

        grad = rf.policy_gradient(theta, rf.Batch(x, mask, a, row, 30), adv, beta)
        num = np.zeros_like(theta)
        for idx in np.ndindex(theta.shape):
            d = np.zeros_like(theta)
            d[idx] = 1e-6
            num[idx] = (surrogate(theta + d) - surrogate(theta - d)) / 2e-6
        np.testing.assert_allclose(grad, num, atol=1e-7)

    def test_group_advantage(self):
        adv = rf.group_advantage(np.array([1.0, 3.0, 5.0, 5.0]), 2)
        np.testing.assert_allclose(adv, [-1, 1, 0, 0], atol=1e-7)


class RolloutsTest(unittest.TestCase):
    def test_group_relative_rewards_reach_every_row(self):
        # Under reward.penalty group-relative a group's rewards come in the
        # step its last row ends, also to the rows that ended before (then
        # inactive): the rollouts count every row's.
        from swarmsim import VecEnv

        with VecEnv("exp-penalties", variant="group-relative", num_envs=16, group=8, seed=1) as env:
            theta = np.zeros((env.num_actions, env.num_features))
            _, reward, metrics = rf.rollouts(env, theta, np.random.default_rng(0))
        self.assertEqual(len(reward), 16)
        self.assertTrue(np.all(reward != 0), reward)
        self.assertFalse(np.isnan(metrics["finish_time"]).any(), "every row ended once")


class TorchTest(unittest.TestCase):
    def test_torch_learner_takes_the_numpy_learners_steps(self):
        try:
            import torch  # Debian's python3-torch; not installed in CI
        except ImportError:
            self.skipTest("no torch (apt-get install -y python3-torch)")
        sys.path.insert(0, EXAMPLES)
        try:
            rt = load("reinforce_torch")
        finally:
            sys.path.remove(EXAMPLES)
        rng = np.random.default_rng(5)
        n, A, F = 40, 7, 6
        args = rf.Args(iterations=4, lr=0.1, clip_grad=0.05)  # the clip binds
        learners = [rf.NumpyLearner(A, F, args), rt.TorchLearner(A, F, args)]
        for it in range(4):
            x = rng.normal(size=(n, F))
            mask = rng.random((n, A)) < 0.5
            mask[:, 4:6] = True
            a = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
            row = rng.integers(0, 4, n)
            adv = rng.normal(size=4)
            for lr in learners:
                lr.update(rf.Batch(x, mask, a, row, n + 7), adv, it)
        # torch clips by max_norm / (norm + 1e-6): a relative 1e-6 apart.
        np.testing.assert_allclose(learners[1].theta(), learners[0].theta(), rtol=1e-5, atol=1e-9)
        self.assertGreater(np.abs(learners[0].theta()).max(), 0.01)


class StatisticsTest(unittest.TestCase):
    def test_wilcoxon_exact(self):
        # All ten differences positive: P = 2^-10. Ranks 1..5 with rank 2
        # negative: T+ = 13, P(T+ >= 13) = P(T+ <= 2) = 3/32.
        self.assertEqual(dr.wilcoxon_greater(np.arange(1, 11.0)), (55.0, 1 / 1024))
        self.assertEqual(dr.wilcoxon_greater(np.array([1.0, -2, 3, 4, 5])), (13.0, 3 / 32))

    def test_holm(self):
        np.testing.assert_allclose(dr.holm([0.01, 0.04, 0.03]), [0.03, 0.06, 0.06])

    def test_page(self):
        rng = np.random.default_rng(0)
        _, p = dr.page_test(np.tile([1.0, 2, 3, 4], (6, 1)), rng)
        self.assertLess(p, 1e-4)
        _, p = dr.page_test(np.tile([4.0, 3, 2, 1], (6, 1)), rng)
        self.assertGreater(p, 0.99)

    def test_iqm(self):
        self.assertEqual(dr.iqm(np.array([100.0, 1, 2, 3, 4, 5, 6, -50])), 3.5)


class DoseResponseExitTest(unittest.TestCase):
    def rows(self, tmp, par):
        """A CSV of seeds' rows with parallelism par[seed][variant]."""
        path = os.path.join(tmp, "rows.csv")
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["seed", "variant", "parallelism", "finish_time", "success"])
            for seed, ps in enumerate(par):
                for v, p in zip(dr.ORDER, ps):
                    w.writerow([seed, v, p, 100, 1])
        return path

    def run_dr(self, path):
        return subprocess.run([sys.executable, os.path.join(EXAMPLES, "dose_response.py"), path],
                              capture_output=True, text=True, timeout=120)

    def test_the_exit_status_says_whether_the_claim_holds(self):
        with tempfile.TemporaryDirectory() as tmp:
            # Twelve seeds, each strictly increasing: every test rejects.
            up = [[1 + s / 100 + j for j in range(4)] for s in range(12)]
            res = self.run_dr(self.rows(tmp, up))
            self.assertIn("claim none < low < medium < high: holds", res.stdout)
            self.assertEqual(res.returncode, 0, res.stderr)
            # The same seeds decreasing: nothing rejects.
            res = self.run_dr(self.rows(tmp, [p[::-1] for p in up]))
            self.assertIn("NOT shown", res.stdout)
            self.assertEqual(res.returncode, 1)


    def test_input_it_cannot_read_is_named_with_status_2(self):
        with tempfile.TemporaryDirectory() as tmp:
            nocol = os.path.join(tmp, "nocol.csv")
            with open(nocol, "w") as f:
                f.write("seed,variant,parallelism\n1,none,2\n")
            notnum = os.path.join(tmp, "notnum.csv")
            with open(notnum, "w") as f:
                f.write("seed,variant,parallelism,finish_time,success\n1,none,2,3,1\n1,low,x,3,1\n")
            binary = os.path.join(tmp, "binary.csv")
            with open(binary, "wb") as f:
                f.write(b"\xff\xfeseed\n")
            bom = os.path.join(tmp, "bom.csv")
            with open(bom, "w", encoding="utf-8-sig") as f:
                f.write("seed,variant,parallelism,finish_time,success\n1,none,x,3,1\n")
            for path, msg in [(os.path.join(tmp, "absent.csv"), "absent.csv: No such file or directory"),
                              (binary, "binary.csv: not text in UTF-8 (byte 0: invalid start byte)"),
                              (bom, "bom.csv:2: want an integer seed and numbers"),
                              (nocol, "nocol.csv: no column finish_time, success; want the rows reinforce_numpy.py --out writes"),
                              (notnum, "notnum.csv:3: want an integer seed and numbers in parallelism, finish_time, success, "
                                       "got seed=1 variant=low parallelism=x")]:
                res = self.run_dr(path)
                self.assertEqual(res.returncode, 2, res.stderr)
                self.assertIn(msg, res.stderr)
                self.assertNotIn("Traceback", res.stderr)
            res = subprocess.run([sys.executable, os.path.join(EXAMPLES, "dose_response.py")],
                                 capture_output=True, text=True, timeout=120)
            self.assertEqual(res.returncode, 2)
            self.assertIn("usage: dose_response.py", res.stderr)


class SeedListTest(unittest.TestCase):
    def test_lists_and_ranges(self):
        self.assertEqual(rf.seed_list("1"), [1])
        self.assertEqual(rf.seed_list("1,3-5,9"), [1, 3, 4, 5, 9])

    def test_bad_specs_say_what_is_wrong(self):
        for spec, msg in [("1-x", "'1-x' is not a seed"), ("x", "'x' is not a seed"), ("", "'' is not a seed"),
                          ("5-3", "ends before it starts"), ("-2", "'-2' is not a seed")]:
            with self.assertRaisesRegex(ValueError, msg):
                rf.seed_list(spec)


def run_example(*args):
    """Runs reinforce_numpy.py with args; returns the finished process."""
    return subprocess.run([sys.executable, os.path.join(EXAMPLES, "reinforce_numpy.py"), *args],
                          capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=os.pathsep.join(
                              p for p in (os.path.dirname(EXAMPLES), os.environ.get("PYTHONPATH")) if p)))


class LearnerArgsTest(unittest.TestCase):
    def test_bad_numbers_are_refused(self):
        for flag, value, msg in [("--iterations", "0", "--iterations 0: want a whole number of 1 or more"),
                                 ("--group", "-2", "--group -2: want a whole number"),
                                 ("--lr", "0", "--lr 0.0: want a finite number above 0"),
                                 ("--clip-grad", "nan", "--clip-grad nan: want a finite number")]:
            res = run_example(flag, value)
            self.assertEqual(res.returncode, 2, res.stderr)
            self.assertIn(msg, res.stderr)


class LearnerSmokeTest(unittest.TestCase):
    def setUp(self):
        try:
            find_simulate()
        except ServerError as e:
            self.skipTest(str(e))

    def test_a_failed_run_leaves_the_out_file_as_it_was(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "np.csv")
            with open(out, "w") as f:
                f.write("earlier results\n")
            res = run_example("--variants", "hgh", "--iterations", "1", "--batch", "1", "--group", "1", "--out", out)
            self.assertEqual(res.returncode, 1, res.stderr)
            self.assertIn('no variant "hgh"', res.stderr)
            with open(out) as f:
                self.assertEqual(f.read(), "earlier results\n")
            self.assertEqual(os.listdir(tmp), ["np.csv"], "no partial file left")

    def test_a_few_iterations_run(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "out", "np.csv")  # a directory that does not exist yet
            res = run_example("--variants", "none,high", "--iterations", "3", "--batch", "2", "--group", "2", "--out", out)
            self.assertEqual(res.returncode, 0, res.stderr)
            with open(out, newline="") as f:
                rows = list(csv.DictReader(f))
            self.assertEqual([r["variant"] for r in rows], ["none", "high"])
            for r in rows:
                self.assertGreaterEqual(float(r["parallelism"]), 0.5)
                self.assertGreater(int(r["decisions"]), 0)


if __name__ == "__main__":
    unittest.main()
