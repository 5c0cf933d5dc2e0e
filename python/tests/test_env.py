"""VecEnv against the real server, `simulate env`.

The binary is found as VecEnv finds it (SWARMSIM_SIMULATE, then
python/swarmsim/bin/simulate, then PATH); without one these tests are
skipped, and .ci/run sets SWARMSIM_SIMULATE so that there they cannot be."""

import contextlib
import csv
import gc
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import numpy as np

from swarmsim import EnvError, ServerError, VecEnv, find_simulate
from swarmsim import _wire as swarmsim_wire

from .fixed import Fixed
from .gofmt import go_g

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def setUpModule():
    simulate()  # skips the module without a binary


def simulate():
    try:
        return find_simulate()
    except ServerError as e:
        raise unittest.SkipTest(str(e)) from None


def cli(*args):
    return subprocess.run([simulate(), *args], capture_output=True, text=True, timeout=120)


def run_episodes(env, policy, per_row):
    """Steps env with policy until every row has finished per_row episodes;
    returns {(row, k): {metric: value}} of each row's k-th episode. With
    env.decide "main", checks that only the main agent's decisions came."""
    done = {}
    count = np.zeros(env.num_envs, dtype=int)
    obs, info = env.reset()
    for _ in range(100_000):
        if count.min() >= per_row:
            return done
        if env.decide == "main":
            assert (info["agent"][info["active"]] == 0).all(), info["agent"]
        obs, reward, term, trunc, info = env.step(policy(obs, info["action_mask"]))
        for i in np.flatnonzero(term | trunc):
            if count[i] < per_row:
                done[(i, count[i])] = {k: v[i] for k, v in info["episode"].items()} | {"_reward": reward[i]}
                count[i] += 1
    raise AssertionError("episodes did not end")


def cell(text, value):
    """value as episodes.csv writes the column whose cell is text."""
    if text in ("true", "false"):
        return "true" if value == 1 else "false" if value == 0 else repr(value)
    if any(c in text for c in ".eNI"):
        return go_g(value)
    return str(int(value)) if value == int(value) else go_g(value)


class FixedOrganizationsTest(unittest.TestCase):
    def test_episodes_are_those_of_simulate_run(self):
        # Each fixed organization, driven from Python by Fixed (a replica of
        # models/policy/fixed.go over the features), must give byte for byte
        # the cells of `simulate run`'s episodes.csv: with group 1, episode k
        # of row i is task instance k*num_envs + i, which run numbers the same.
        # The environment refuses a policy section set from outside (it would
        # do nothing), so each organization comes from a variant that names it.
        rows, per_row, seed = 3, 3, 11
        # With decide "main" the variant's organization decides for the
        # helpers and attempts, and the client for the main agent alone.
        cases = [("sequential", "organizations", "sequential", "all"), ("independent", "organizations", "independent", "all"),
                 ("team", "organizations", "team", "all"), ("split", "tiny", "split", "all"), ("team", "tiny", "team", "all"),
                 ("independent", "organizations", "independent", "main"), ("team", "organizations", "team", "main")]
        for org, scenario, variant, decide in cases:
            with self.subTest(organization=org, scenario=scenario, decide=decide), tempfile.TemporaryDirectory() as tmp:
                res = cli("run", scenario, "--seed", str(seed), "--episodes", str(rows * per_row), "--workers", "1",
                          "--charts=false", "--out", tmp)
                self.assertEqual(res.returncode, 0, res.stderr)
                with open(os.path.join(tmp, "episodes.csv"), newline="") as f:
                    want = [r for r in csv.DictReader(f) if r["variant"] == variant]
                self.assertEqual(len(want), rows * per_row)
                with VecEnv(scenario, variant=variant, num_envs=rows, seed=seed, decide=decide) as env:
                    self.assertEqual(env.decide, decide)
                    got = run_episodes(env, Fixed(org, env), per_row)
                    columns = [c for c in want[0] if c not in ("variant", "episode", "comm_changed_outcome")]
                    # The environment reports the shared-server and hand-off
                    # columns always; episodes.csv where the scenario has them.
                    self.assertLessEqual(set(columns), set(env.episode_metrics))
                acted = set()
                for (i, k), metrics in got.items():
                    # Row i's k-th episode is run's episode k*rows + i, and says so.
                    self.assertEqual(metrics["episode"], k * rows + i)
                    w = want[k * rows + i]
                    self.assertEqual(w["episode"], str(k * rows + i))
                    line = {c: cell(w[c], metrics[c]) for c in columns}
                    self.assertEqual(line, {c: w[c] for c in columns}, f"row {i}, episode {k}")
                    self.assertEqual(go_g(metrics["_reward"]), w["reward"])
                    acted |= {c for c in columns if c.startswith("actions_") and w[c] != "0"}
                # The organization made its own kind of decision, so the
                # comparison saw it (attempts for independent, shares for team).
                want_action = {"independent": "actions_attempt", "team": "actions_share",
                               "split": "actions_delegate", "sequential": "actions_check"}[org]
                self.assertIn(want_action, acted)


class GroupsTest(unittest.TestCase):
    def test_rows_of_a_group_share_instance_and_draws(self):
        # organizations' needle searches fail often (difficulty 0.8), so
        # outcomes depend on the attempt draws: identical episodes under
        # identical decisions show that a group shares its random streams.
        with VecEnv("organizations", variant="sequential", num_envs=6, group=3, seed=4) as env:
            obs, _ = env.reset()
            got = run_episodes(env, Fixed("sequential", env), 1)
        np.testing.assert_array_equal(obs[0], obs[1])
        np.testing.assert_array_equal(obs[0], obs[2])
        np.testing.assert_array_equal(obs[3], obs[5])
        same = lambda a, b: {k: go_g(v) for k, v in a.items()} == {k: go_g(v) for k, v in b.items()}
        for g in (0, 3):
            for i in (g + 1, g + 2):
                self.assertTrue(same(got[(g, 0)], got[(i, 0)]), f"rows {g} and {i}: {got[(g, 0)]} against {got[(i, 0)]}")
        self.assertNotEqual(got[(0, 0)]["finish_time"], got[(3, 0)]["finish_time"])

    def test_finished_rows_wait_for_reset(self):
        with VecEnv("latency-pressure", variant="high", num_envs=4, group=2, seed=2) as env:
            obs, info = env.reset()
            fixed = Fixed("split", env)
            seen_inactive = False
            for _ in range(10_000):
                active = info["active"]
                if not active.any():
                    break
                a = fixed(obs, info["action_mask"])
                a[~active] = 99  # ignored: any value is allowed for an inactive row
                obs, r, term, trunc, info = env.step(a)
                ended = term | trunc
                self.assertTrue((~info["active"][ended]).all(), "a finished row stays inactive")
                off = ~info["active"]
                if off.any():
                    seen_inactive = True
                    self.assertTrue((obs[off] == 0).all())
                    self.assertFalse(info["action_mask"][off].any())
                    self.assertTrue(np.isnan(info["episode"]["finish_time"][off & ~ended]).all())
            self.assertTrue(seen_inactive)
            self.assertFalse(info["active"].any())
            again, info = env.reset()
            self.assertTrue(info["active"].all())
            self.assertFalse(np.array_equal(again, np.zeros_like(again)))

    def test_group_one_resets_in_the_same_step(self):
        with VecEnv("latency-pressure", variant="high", num_envs=3, seed=6) as env:
            f = {n: i for i, n in enumerate(env.feature_names)}
            obs, info = env.reset()
            fixed = Fixed("split", env)
            ended_rows = 0
            for _ in range(10_000):
                obs, r, term, trunc, info = env.step(fixed(obs, info["action_mask"]))
                self.assertTrue(info["active"].all())
                ended = term | trunc
                ep = info["episode"]
                self.assertTrue(np.isfinite(ep["finish_time"][ended]).all())
                self.assertTrue(np.isnan(ep["finish_time"][~ended]).all())
                self.assertTrue((r[~ended] == 0).all())
                np.testing.assert_array_equal(r[ended], ep["reward"][ended])
                for i in np.flatnonzero(ended):
                    # The returned obs is the next episode's first decision: the
                    # main agent at time 0.
                    self.assertEqual(obs[i, f["main_x_start"]], 1)
                    self.assertEqual(obs[i, f["time_used"]], 0)
                    ended_rows += 1
                if ended_rows >= 4:
                    return
            self.fail("no episode ended")


class WithoutAChoiceTest(unittest.TestCase):
    def test_an_episode_without_a_choice_is_reported_by_the_next_step(self):
        # tiny with check and submit to choose between: some episodes give
        # no agent two valid actions, and end where they begin.
        n = 16
        with VecEnv("tiny", variant="team", num_envs=n, seed=1, set={"train.actions": ["check", "submit"]}) as env:
            obs, info = env.reset()
            episodes = [[] for _ in range(n)]
            choiceless = 0
            for _ in range(300):
                inactive = ~info["active"]
                np.testing.assert_array_equal(info["agent"][inactive], -1)
                self.assertFalse(info["action_mask"][inactive].any())
                # Any action will do for an inactive row: it is ignored.
                actions = np.where(inactive, 99, info["action_mask"].argmax(axis=1))
                obs, r, term, trunc, info = env.step(actions)
                ended = term | trunc
                self.assertTrue(ended[inactive].all(), "an inactive row of group 1 reports its episode at once")
                choiceless += int(inactive.sum())
                for i in np.flatnonzero(ended):
                    episodes[i].append(int(info["episode"]["episode"][i]))
            self.assertGreater(choiceless, 0, "no episode without a choice: the test tests nothing")
            for i, eps in enumerate(episodes):
                self.assertEqual(eps, [k * n + i for k in range(len(eps))], f"row {i}: every episode, in order")

    def test_no_choice_anywhere_is_an_error(self):
        with VecEnv("tiny", variant="team", num_envs=4, seed=1, set={"train.actions": ["work", "submit"]}) as env:
            with self.assertRaisesRegex(EnvError, "the scenario leaves its agents no choice"):
                env.reset()


class WorkersTest(unittest.TestCase):
    def test_workers_change_nothing_and_draws_are_given(self):
        runs = []
        for workers in (1, 3):
            with VecEnv("latency-pressure", variant="high", num_envs=6, group=2, seed=9, workers=workers) as env:
                self.assertEqual(env.workers, workers)
                obs, info = env.reset()
                steps = [(obs, info["u"])]
                fixed = Fixed("split", env)
                while info["active"].any():
                    obs, r, term, trunc, info = env.step(fixed(obs, info["action_mask"]))
                    u, active = info["u"], info["active"]
                    self.assertTrue(((u >= 0) & (u < 1)).all())
                    self.assertTrue((u[~active] == 0).all())
                    self.assertTrue((info["agent"][~active] == -1).all())
                    steps.append((obs, u, r))
                runs.append(steps)
        self.assertEqual(len(runs[0]), len(runs[1]))
        for a, b in zip(*runs):
            for x, y in zip(a, b):
                np.testing.assert_array_equal(x, y)


@contextlib.contextmanager
def interrupted_reads():
    """Every reply read raises KeyboardInterrupt, as a Ctrl-C there would."""
    real = swarmsim_wire.read

    def interrupted(*args):
        raise KeyboardInterrupt

    swarmsim_wire.read = interrupted
    try:
        yield
    finally:
        swarmsim_wire.read = real


def sampled(obs_mask_u):
    """The action each row's u draws uniformly among its valid ones."""
    mask, u = obs_mask_u
    counts = mask.sum(axis=1)
    k = np.minimum((u * counts).astype(int), np.maximum(counts - 1, 0))
    return np.array([np.flatnonzero(m)[j] if c else 0 for m, j, c in zip(mask, k, counts)], dtype=np.int32)


class AsyncTest(unittest.TestCase):
    def test_steps_of_slices_are_whole_steps(self):
        # Each round steps the slices, all sent before any reply is read,
        # last first or first first, and cut two ways in turn (slices that
        # start alike and end apart), and must give each row what the whole
        # step gives it.
        for group, cutss in ((1, ((0, 2, 3, 6), (0, 3, 6))), (2, ((0, 4, 6), (0, 2, 6)))):
            with self.subTest(group=group), \
                    VecEnv("latency-pressure", variant="high", num_envs=6, group=group, seed=4) as whole, \
                    VecEnv("latency-pressure", variant="high", num_envs=6, group=group, seed=4) as parted:
                obs, info = whole.reset()
                parted.reset()
                ended = 0
                for round in range(300):
                    if not info["active"].any():
                        obs, info = whole.reset()
                        parted.reset()
                        continue
                    actions = sampled((info["action_mask"], info["u"]))
                    want = whole.step(actions)
                    obs, info = want[0], want[4]
                    cuts = cutss[round % 2]
                    slices = [slice(lo, hi) for lo, hi in zip(cuts, cuts[1:])][::1 if round % 4 < 2 else -1]
                    for rows in slices:
                        parted.step_async(actions[rows], rows=rows)
                    got = {}
                    for rows in slices:
                        g = parted.step_wait()
                        self.assertEqual(g[4]["rows"], rows)
                        got[rows.start] = g
                    for k in range(4):
                        np.testing.assert_array_equal(np.concatenate([got[lo][k] for lo in cuts[:-1]]), want[k])
                    for key in ("action_mask", "agent", "active", "u"):
                        np.testing.assert_array_equal(np.concatenate([got[lo][4][key] for lo in cuts[:-1]]), want[4][key])
                    for m, v in want[4]["episode"].items():
                        np.testing.assert_array_equal(np.concatenate([got[lo][4]["episode"][m] for lo in cuts[:-1]]), v)
                    ended += int((want[2] | want[3]).sum())
                self.assertGreater(ended, 0, "no episode ended: the metrics went unchecked")

    def test_misuse_is_refused(self):
        with VecEnv("tiny", variant="split", num_envs=4, group=2, seed=1) as env:
            obs, info = env.reset()
            acts = Fixed("split", env)(obs, info["action_mask"])
            for rows, field in ((slice(1, 3), "rows"), (slice(0, 3), "rows"), (slice(0, 0), "rows"), (slice(0, 4, 2), "rows"), ([0, 1], "rows")):
                with self.subTest(rows=rows), self.assertRaises(EnvError) as e:
                    env.step_async(acts[:2], rows=rows)
                self.assertEqual(e.exception.field, field)
            with self.assertRaises(EnvError) as e:
                env.step_wait()
            self.assertIn("step_async first", str(e.exception))
            self.assertEqual(e.exception.field, "op")
            env.step_async(acts[2:], rows=slice(2, 4))
            with self.assertRaises(EnvError) as e:
                env.step_async(acts[:4], rows=slice(0, 4))
            self.assertIn("overlap rows 2:4", str(e.exception))
            for call in (env.reset, env.render, lambda: env.step(acts)):
                with self.assertRaises(EnvError) as e:
                    call()
                self.assertIn("step_wait first", str(e.exception))
            env.step_async(acts[:2], rows=slice(0, 2))
            self.assertEqual(env.step_wait()[4]["rows"], slice(2, 4))
            self.assertEqual(env.step_wait()[4]["rows"], slice(0, 2))
            obs, info = env.reset()  # every reply taken: the calls work again
            env.step(Fixed("split", env)(obs, info["action_mask"]))

    def test_replies_read_ahead_keep_their_steps(self):
        # With no room for requests in flight, each step_async reads the
        # replies before it: a refusal still comes from its own step_wait,
        # and each reply is its step's.
        import swarmsim.env as swarmsim_env
        real = swarmsim_env._IN_FLIGHT
        swarmsim_env._IN_FLIGHT = 1
        try:
            with VecEnv("tiny", variant="split", num_envs=4, seed=1) as env, \
                    VecEnv("tiny", variant="split", num_envs=4, seed=1) as twin:
                obs, info = env.reset()
                twin.reset()
                acts = Fixed("split", env)(obs, info["action_mask"])
                bad = acts.copy()
                bad[0] = env.action_names.index("submit")
                env.step_async(bad[:2], rows=slice(0, 2))
                env.step_async(acts[2:], rows=slice(2, 4))  # reads the first reply ahead
                self.assertIsNotNone(env._pending[0].reply, "the first reply was read ahead")
                with self.assertRaises(EnvError) as e:
                    env.step_wait()
                self.assertEqual(e.exception.field, "actions[0]")
                got = env.step_wait()
                self.assertEqual(got[4]["rows"], slice(2, 4))
                twin.step_async(acts[2:], rows=slice(2, 4))
                want = twin.step_wait()
                for g, w in zip(got[:4], want[:4]):
                    np.testing.assert_array_equal(g, w)
        finally:
            swarmsim_env._IN_FLIGHT = real

    def test_large_requests_in_flight_do_not_block(self):
        # Two steps by name of 12,288 rows each: each request is larger than
        # a pipe, and each reply too. Sent one behind the other, they would
        # block both processes for good unless the first reply is read
        # before the second request is written.
        child = subprocess.run([sys.executable, "-c", (
            "import sys; sys.path.insert(0, sys.argv[1]); import numpy as np; from swarmsim import VecEnv\n"
            "with VecEnv('tiny', variant='split', num_envs=24576, seed=1) as env:\n"
            "    obs, info = env.reset()\n"
            "    names = [env.action_names[m.argmax()] for m in info['action_mask']]\n"
            "    h = env.num_envs // 2\n"
            "    env.step_async(names[h:], rows=slice(h, None)); env.step_async(names[:h], rows=slice(0, h))\n"
            "    print(env.step_wait()[4]['rows'].start, env.step_wait()[4]['rows'].start)"), PYTHON_DIR],
            capture_output=True, text=True, timeout=120)
        self.assertEqual(child.returncode, 0, child.stderr)
        self.assertEqual(child.stdout.split(), ["12288", "0"])

    def test_an_interrupted_wait_ends_the_server(self):
        # Ctrl-C while a reply is read leaves the stream mid-message, with
        # another step in flight: the environment must not hand that step's
        # reply to a later call.
        env = VecEnv("tiny", variant="split", num_envs=4, seed=1)
        obs, info = env.reset()
        acts = Fixed("split", env)(obs, info["action_mask"])
        env.step_async(acts[:2], rows=slice(0, 2))
        env.step_async(acts[2:], rows=slice(2, 4))
        with interrupted_reads(), self.assertRaises(KeyboardInterrupt):
            env.step_wait()
        self.assertIsNotNone(env._proc.poll())
        for call in (env.step_wait, env.reset, lambda: env.step_async(acts[:2], rows=slice(0, 2))):
            with self.assertRaises(ServerError):
                call()

    def test_close_with_steps_pending(self):
        env = VecEnv("tiny", variant="split", num_envs=2, seed=1)
        obs, info = env.reset()
        env.step_async(Fixed("split", env)(obs, info["action_mask"]))
        proc = env._proc
        env.close()
        self.assertEqual(proc.wait(timeout=5), 0)


class ScenarioFileTest(unittest.TestCase):
    def test_a_yaml_path_is_a_scenario(self):
        library = os.path.join(os.path.dirname(PYTHON_DIR), "scenarios", "library", "tiny.yaml")
        with open(library) as f:
            text = f.read().replace("width: 3", "width: 5")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "wider.yaml")
            with open(path, "w") as f:
                f.write(text)
            with VecEnv(path, variant="split", num_envs=1, seed=1) as env, \
                    VecEnv("tiny", variant="split", num_envs=1, seed=1) as lib:
                f = env.feature_names.index("ready_frac")
                # The main agent's first work releases the root: five parts
                # become ready in the file's task, three in the library's.
                for e, want in ((env, 5), (lib, 3)):
                    obs, info = e.reset()
                    for _ in range(50):
                        if obs[0, f] * 8 > 1.5:
                            break
                        obs, *_, info = e.step(Fixed("split", e)(obs, info["action_mask"]))
                    self.assertEqual(round(obs[0, f] * 8), want, e.scenario)


class ResetTest(unittest.TestCase):
    def test_a_seed_restarts_the_instances(self):
        with VecEnv("latency-pressure", variant="high", num_envs=4, group=2, seed=5) as env:
            first, _ = env.reset()
            second, _ = env.reset()  # the next instances
            self.assertFalse(np.array_equal(first, second))
            again, _ = env.reset(seed=5)
            np.testing.assert_array_equal(again, first)
            other, _ = env.reset(seed=6)
            self.assertFalse(np.array_equal(other, first))


class ActionsTest(unittest.TestCase):
    def test_invalid_action_names_row_action_and_mask(self):
        with VecEnv("latency-pressure", variant="low", num_envs=4, seed=1) as env, \
                VecEnv("latency-pressure", variant="low", num_envs=4, seed=1) as twin:
            obs, info = env.reset()
            twin.reset()
            mask = info["action_mask"]
            good = Fixed("split", env)(obs, mask)
            bad = good.copy()
            bad[2] = int(np.flatnonzero(~mask[2])[0])
            with self.assertRaises(EnvError) as e:
                env.step(bad)
            self.assertEqual(e.exception.field, "actions[2]")
            msg = str(e.exception)
            self.assertIn("row 2", msg)
            self.assertIn(env.action_names[bad[2]], msg)
            for a in np.flatnonzero(mask[2]):
                self.assertIn(env.action_names[a], msg)
            for wrong, field in [(99, "actions[1]"), (-1, "actions[1]")]:
                bad = good.copy()
                bad[1] = wrong
                with self.assertRaises(EnvError) as e:
                    env.step(bad)
                self.assertEqual(e.exception.field, field)
            names = [env.action_names[a] for a in good]
            names[3] = "fly"
            with self.assertRaises(EnvError) as e:
                env.step(names)
            self.assertIn("fly", str(e.exception))
            self.assertIn("3", e.exception.field)
            with self.assertRaises(EnvError) as e:
                env.step(good[:3])
            self.assertEqual(e.exception.field, "actions")
            # No refused step moved anything: the environment is where its twin is.
            a = env.step(good)
            b = twin.step(good)
            for x, y in zip(a[:4], b[:4]):
                np.testing.assert_array_equal(x, y)

    def test_actions_by_name_are_actions_by_index(self):
        with VecEnv("latency-pressure", variant="medium", num_envs=4, group=2, seed=8) as env, \
                VecEnv("latency-pressure", variant="medium", num_envs=4, group=2, seed=8) as twin:
            (obs, info), _ = env.reset(), twin.reset()
            rng = np.random.default_rng(0)
            sent_none = False
            for i in range(5000):
                mask, active = info["action_mask"], info["active"]
                if not active.any():
                    break
                sent_none |= not active.all()
                a = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in mask])
                names = [env.action_names[x] if on else None for x, on in zip(a, active)]
                obs, r, term, trunc, info = env.step(a)
                obs2, r2, term2, trunc2, _ = twin.step(np.array(names) if i % 2 else names)
                np.testing.assert_array_equal(obs, obs2)
                np.testing.assert_array_equal(r, r2)
            self.assertFalse(info["active"].any())
            self.assertTrue(sent_none, "no step named None for an inactive row")

    def test_objective_states_the_reward(self):
        # The words are what a language model is told it is scored by:
        # they must name latency-pressure's weights, which its variants
        # differ in alone, and the rewards paid must follow them.
        with VecEnv("latency-pressure", variant="none", num_envs=1) as env:
            self.assertNotIn("finish time over", env.objective)
        with VecEnv("latency-pressure", variant="high", num_envs=4, seed=1) as env:
            self.assertIn("1 if the submitted result is acceptable, else 0; minus 1 × the finish time over 6h0m0s; "
                          "minus 1 × the total busy time of all agents over 6h0m0s.", env.objective)
            limit = 6 * 3600
            obs, info = env.reset()
            ended = 0
            while ended < 4:
                obs, r, term, trunc, info = env.step(Fixed("split", env)(obs, info["action_mask"]))
                ep = info["episode"]
                for i in np.flatnonzero(info["_episode"]):
                    want = ep["acceptable"][i] - ep["finish_time"][i] / limit - ep["agent_time"][i] / limit
                    self.assertAlmostEqual(r[i], want, places=9)
                    ended += 1

    def test_render_names_the_valid_actions(self):
        with VecEnv("latency-pressure", variant="high", num_envs=3, seed=1) as env:
            obs, info = env.reset()
            obs, *_, info = env.step(Fixed("split", env)(obs, info["action_mask"]))
            texts = env.render()
            self.assertEqual(len(texts), 3)
            for text, mask in zip(texts, info["action_mask"]):
                for a in np.flatnonzero(mask):
                    self.assertIn(env.action_names[a], text)
            self.assertEqual(len(env.render(rows=[1])), 1)
            with self.assertRaises(EnvError) as e:
                env.render(rows=[0, 3])
            self.assertEqual(e.exception.field, "rows[1]")


class BadInputTest(unittest.TestCase):
    def test_errors_are_the_command_lines(self):
        cases = [
            ("no-such-scenario", None, {}, ["run", "no-such-scenario"]),
            ("latency-pressure", "high", {"reward.nosuch": 1}, ["run", "latency-pressure", "--set", "reward.nosuch=1"]),
            ("latency-pressure", "high", {"collective.agents": "many"}, ["run", "latency-pressure", "--set", "collective.agents=many"]),
            # high sets reward.latency to 1 itself: a set of 5 changes nothing.
            ("latency-pressure", "high", {"reward.latency": 5}, ["run", "latency-pressure", "--variant", "high", "--set", "reward.latency=5"]),
        ]
        for scenario, variant, sets, args in cases:
            with self.subTest(args=args), tempfile.TemporaryDirectory() as tmp:
                with self.assertRaises(EnvError) as e:
                    VecEnv(scenario, variant=variant, num_envs=2, seed=1, set=sets)
                res = cli(*args, "--episodes", "1", "--out", tmp)
                self.assertNotEqual(res.returncode, 0)
                self.assertTrue(e.exception.field)
                self.assertIn(str(e.exception), res.stderr)

    def test_a_set_of_none_is_refused(self):
        # Sent as the string "None", it named the scenario "None".
        with self.assertRaises(EnvError) as e:
            VecEnv("tiny", variant="team", num_envs=1, seed=1, set={"name": None})
        self.assertEqual(e.exception.field, "set.name")
        self.assertIn("(got null)", str(e.exception))

    def test_a_server_of_another_protocol_says_how_to_rebuild(self):
        # A stand-in for a simulate built before this client: it refuses
        # the protocol as such a server does.
        with tempfile.TemporaryDirectory() as tmp:
            old = os.path.join(tmp, "simulate")
            with open(old, "w") as f:
                f.write(f"""#!{sys.executable}
import json, struct, sys
n, = struct.unpack("<I", sys.stdin.buffer.read(4))
sys.stdin.buffer.read(n)
h = json.dumps({{"ok": False, "field": "protocol",
                 "error": 'protocol: "swarmsim-env/2" is not served (allowed: swarmsim-env/1)'}}).encode()
sys.stdout.buffer.write(struct.pack("<I", len(h)) + h)
sys.stdout.buffer.flush()
""")
            os.chmod(old, 0o755)
            with self.assertRaises(EnvError) as e:
                VecEnv("latency-pressure", variant="high", simulate=old)
        self.assertEqual(e.exception.field, "protocol")
        self.assertIn("(allowed: swarmsim-env/1)", str(e.exception))
        self.assertIn(f"{old} speaks another protocol", str(e.exception))
        self.assertIn("CGO_ENABLED=0 go build -o python/swarmsim/bin/simulate ./cmd/simulate", str(e.exception))

    def test_counts_must_be_integers(self):
        with self.assertRaisesRegex(TypeError, r"^swarmsim: num_envs must be an integer, not float 2\.5$"):
            VecEnv("latency-pressure", variant="high", num_envs=2.5)
        with self.assertRaisesRegex(TypeError, "^swarmsim: group must be an integer"):
            VecEnv("latency-pressure", variant="high", group="2")
        with VecEnv("latency-pressure", variant="high", num_envs=2) as env:
            with self.assertRaisesRegex(TypeError, r"^swarmsim: seed must be an integer, not float 1\.5$"):
                env.reset(seed=1.5)
        with VecEnv("latency-pressure", variant="high", num_envs=np.int64(2), seed=np.uint32(3)) as env:
            self.assertEqual(env.num_envs, 2)

    def test_positional_arguments_keep_their_places(self):
        # decide came after simulate: a call written before it, with every
        # argument in place, still names the binary.
        with VecEnv("latency-pressure", "high", 2, 1, 3, None, None, find_simulate()) as env:
            self.assertEqual((env.variant, env.num_envs, env.decide), ("high", 2, "all"))

    def test_variant_and_sizes_are_checked(self):
        for kwargs, field in [
            (dict(variant=None), "variant"),
            (dict(variant="extreme"), "variant"),
            (dict(variant="high", num_envs=6, group=4), "group"),
            (dict(variant="high", num_envs=0), "num_envs"),
            (dict(variant="high", decide="helpers"), "decide"),
        ]:
            with self.subTest(**kwargs), self.assertRaises(EnvError) as e:
                VecEnv("latency-pressure", **{"num_envs": 2, "seed": 1, **kwargs})
            self.assertEqual(e.exception.field, field)


class SetTest(unittest.TestCase):
    def test_sequences_are_lists_whatever_their_type(self):
        # A tuple or an array is as natural a list in Python as a list;
        # str() spells neither as YAML reads a list.
        for actions in (["work", "delegate"], ("work", "delegate"), np.array(["work", "delegate"])):
            with self.subTest(actions=type(actions).__name__), \
                    VecEnv("latency-pressure", variant="high", num_envs=2, group=2, seed=1, set={"train.actions": actions}) as env:
                obs, info = env.reset()
                allowed = np.zeros(env.num_actions, dtype=bool)
                for _ in range(50):
                    allowed |= info["action_mask"].any(axis=0)
                    obs, reward, term, trunc, info = env.step(np.argmax(info["action_mask"], axis=1))
                self.assertEqual([env.action_names[a] for a in np.flatnonzero(allowed)], ["work", "delegate"])


class SettingTest(unittest.TestCase):
    def test_a_0d_array_is_its_scalar(self):
        # str() spelled it as its scalar before lists were sent as YAML.
        from swarmsim.env import _setting
        self.assertEqual(_setting(np.array(3)), "3")
        self.assertEqual(_setting(np.asarray(np.float32(0.1))), "0.1")
        self.assertEqual(_setting(np.array(True)), "true")
        self.assertEqual(_setting(np.array([[1, 2], [3, 4]])), "[[1, 2], [3, 4]]")


class LifetimeTest(unittest.TestCase):
    def test_close_ends_the_server(self):
        with VecEnv("tiny", variant="split", num_envs=2, seed=1) as env:
            proc = env._proc
            self.assertIsNone(proc.poll())
        self.assertIsNotNone(proc.poll())
        with self.assertRaises(ServerError):
            env.reset()
        env.close()  # twice is fine

    def test_a_binary_that_cannot_start_is_a_server_error(self):
        # ServerError is the server that could not be started: a caller
        # catching it must not get an OSError from subprocess instead.
        with tempfile.TemporaryDirectory() as d:
            text = os.path.join(d, "simulate")
            with open(text, "w") as f:
                f.write("not a program")
            for path in (os.path.join(d, "missing"), text, d):
                with self.assertRaises(ServerError) as cm:
                    VecEnv("tiny", variant="split", simulate=path)
                self.assertIn(path, str(cm.exception))

    def test_garbage_collection_ends_the_server(self):
        env = VecEnv("tiny", variant="split", num_envs=2, seed=1)
        proc = env._proc
        del env
        gc.collect()
        self.assertIsNotNone(proc.wait(timeout=5))

    def test_an_interrupted_step_ends_the_server(self):
        # Ctrl-C between a request and its reply leaves the stream
        # mid-message: the environment must not answer the next call with
        # the rest of the old reply.
        env = VecEnv("tiny", variant="split", num_envs=2, seed=1)
        obs, info = env.reset()
        with interrupted_reads(), self.assertRaises(KeyboardInterrupt):
            env.step(Fixed("split", env)(obs, info["action_mask"]))
        self.assertIsNotNone(env._proc.poll())
        with self.assertRaises(ServerError):
            env.reset()

    def test_an_interrupt_of_the_client_spares_the_server(self):
        # Ctrl-C at a terminal, and a Jupyter kernel's interrupt, send
        # SIGINT to the client's whole process group: while the client is
        # in its own code (choosing actions), not in a call, the server
        # must live on, so that a caught KeyboardInterrupt can go on
        # stepping (as in a notebook). The child takes SIGINT as an
        # interactive Python does even where it started with SIGINT ignored
        # (a shell's background job, as CI may run the tests in).
        child = subprocess.Popen([sys.executable, "-c", (
            "import signal, sys, time; signal.signal(signal.SIGINT, signal.default_int_handler)\n"
            "sys.path.insert(0, sys.argv[1]); from swarmsim import VecEnv\n"
            "env = VecEnv('tiny', variant='split', num_envs=2, seed=1); obs, info = env.reset()\n"
            "try:\n    print('ready', flush=True); time.sleep(60)\nexcept KeyboardInterrupt:\n    pass\n"
            "time.sleep(0.3)\n"
            "env.step([m.nonzero()[0][0] for m in info['action_mask']]); env.close(); print('stepped', flush=True)"), PYTHON_DIR],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            self.assertEqual(child.stdout.readline(), "ready\n")
            os.killpg(child.pid, signal.SIGINT)  # the group, as the terminal's Ctrl-C
            out, err = child.communicate(timeout=60)
            self.assertEqual((child.returncode, out), (0, "stepped\n"), err)
        finally:
            child.kill()
            child.wait()
            child.stdout.close()
            child.stderr.close()

    def test_a_server_that_went_says_why_at_every_call(self):
        # After an interrupted call, or a server that died, the next calls
        # must not say "closed", as if the caller had closed it: they say
        # what ended it. close() stays quiet, and then calls say closed.
        env = VecEnv("tiny", variant="split", num_envs=2, seed=1)
        obs, info = env.reset()
        with interrupted_reads(), self.assertRaises(KeyboardInterrupt):
            env.step(Fixed("split", env)(obs, info["action_mask"]))
        for call in (env.reset, lambda: env.step([0, 0]), env.step_wait, env.render):
            with self.assertRaisesRegex(ServerError, "interrupted .*KeyboardInterrupt"):
                call()
        env.close()
        env = VecEnv("tiny", variant="split", num_envs=2, seed=1)
        env.reset()
        env._proc.kill()
        env._proc.wait()
        for _ in range(2):
            with self.assertRaisesRegex(ServerError, r"stopped \(exit status -9\)"):
                env.step([0, 0])
        env.close()
        with self.assertRaisesRegex(ServerError, "closed$"):
            env.reset()

    def test_a_forked_copy_leaves_the_server_alone(self):
        # A process forked from the client holds a copy of the VecEnv: its
        # exit (atexit), or its dropping the copy (garbage collection),
        # must not close the server the parent goes on using, and a call
        # from it must not write into the parent's stream.
        child = subprocess.run([sys.executable, "-c", (
            "import gc, os, sys; sys.path.insert(0, sys.argv[1]); from swarmsim import VecEnv, ServerError\n"
            "env = VecEnv('tiny', variant='split', num_envs=2, seed=1); obs, info = env.reset()\n"
            "pid = os.fork()\n"
            "if pid == 0:\n"
            "    try:\n        env.reset()\n    except ServerError as e:\n        print('child:', e, flush=True)\n"
            "    sys.exit(0)\n"  # atexit runs here
            "os.waitpid(pid, 0)\n"
            "if os.fork() == 0:\n    del env; gc.collect(); os._exit(0)\n"
            "os.wait()\n"
            "env.step([m.nonzero()[0][0] for m in info['action_mask']]); env.close(); print('parent stepped')"), PYTHON_DIR],
            capture_output=True, text=True, timeout=60)
        self.assertEqual(child.returncode, 0, child.stderr)
        lines = child.stdout.splitlines()
        self.assertEqual(lines[-1], "parent stepped")
        self.assertRegex(lines[0], r"^child: .*belongs to process \d+")

    def test_an_interrupted_close_ends_the_server(self):
        # Ctrl-C while close() reads the last replies: the server must still
        # end, not live on for as long as the closed VecEnv is referenced.
        env = VecEnv("tiny", variant="split", num_envs=2, seed=1)
        obs, info = env.reset()
        env.step_async(Fixed("split", env)(obs, info["action_mask"]))
        with interrupted_reads(), self.assertRaises(KeyboardInterrupt):
            env.close()
        self.assertIsNotNone(env._proc.poll())
        self.assertTrue(env._proc.stdin.closed and env._proc.stdout.closed)
        with self.assertRaisesRegex(ServerError, "closed$"):
            env.reset()

    def test_killed_client_leaves_no_server(self):
        child = subprocess.Popen([sys.executable, "-c", (
            "import sys, time; sys.path.insert(0, sys.argv[1]); from swarmsim import VecEnv\n"
            "env = VecEnv('tiny', variant='split', num_envs=2, seed=1); env.reset()\n"
            "print(env._proc.pid, flush=True); time.sleep(120)"), PYTHON_DIR],
            stdout=subprocess.PIPE, text=True)
        try:
            pid = int(child.stdout.readline())
            self.assertTrue(alive(pid), "the server should run while its client lives")
            child.kill()
            child.wait()
            deadline = time.monotonic() + 5
            while alive(pid) and time.monotonic() < deadline:
                time.sleep(0.05)
            self.assertFalse(alive(pid), f"simulate env (pid {pid}) outlived its killed client")
        finally:
            child.kill()
            child.wait()
            child.stdout.close()


def alive(pid):
    """Whether pid runs (a zombie waiting for its reaper does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


class GymnasiumNamesTest(unittest.TestCase):
    """The attributes and info keys that code written against Gymnasium's
    vector environments reads."""

    def test_spaces_and_metadata(self):
        from swarmsim import spaces

        for group, mode in ((1, "SameStep"), (2, "Disabled")):
            with VecEnv("tiny", variant="split", num_envs=4, group=group, seed=1) as env:
                self.assertEqual(env.single_action_space, spaces.Discrete(env.num_actions))
                self.assertEqual(env.single_observation_space.shape, (env.num_features,))
                self.assertEqual(env.single_observation_space.dtype, np.float32)
                self.assertEqual(env.observation_space.shape, (4, env.num_features))
                np.testing.assert_array_equal(env.action_space.nvec, [env.num_actions] * 4)
                self.assertEqual(env.metadata["autoreset_mode"], mode)
                obs, info = env.reset()
                self.assertIn(obs, env.observation_space)
                self.assertIn(obs[0], env.single_observation_space)
                # A draw under the mask is a valid step.
                env.action_space.seed(3)
                acts = env.action_space.sample(mask=info["action_mask"])
                self.assertIn(acts, env.action_space)
                self.assertTrue(info["action_mask"][np.arange(4), acts].all())
                env.step(acts)

    def test_episode_mask(self):
        with VecEnv("tiny", variant="split", num_envs=4, seed=2) as env:
            obs, info = env.reset()
            policy = Fixed("split", env)
            seen = 0
            while seen < 4:
                obs, r, term, trunc, info = env.step(policy(obs, info["action_mask"]))
                ended = term | trunc
                np.testing.assert_array_equal(info["_episode"], ended)
                np.testing.assert_array_equal(~np.isnan(info["episode"]["finish_time"]), ended)
                seen += int(ended.sum())

    def test_seed_per_row_is_refused(self):
        with VecEnv("tiny", variant="split", num_envs=2) as env:
            with self.assertRaises(ValueError) as e:
                env.reset(seed=[1, 2])
            self.assertIn("one integer for every row", str(e.exception))

    def test_unsigned_actions_out_of_int32(self):
        with VecEnv("tiny", variant="split", num_envs=2) as env:
            env.reset()
            with self.assertRaises(EnvError) as e:
                env.step(np.array([2**32 - 1, 0], np.uint32))
            self.assertEqual(e.exception.field, "actions")
            self.assertIn("outside int32", str(e.exception))

    def test_render_of_a_large_table(self):
        # The texts travel in reply headers of 16 MiB at most: every row's
        # text of 24,576 rows of tiny (some 18 MB) must come back, and the
        # environment go on, not end over a reply the client refuses.
        with VecEnv("tiny", variant="team", num_envs=24576, group=24576, seed=1) as env:
            env.reset()
            texts = env.render()
            self.assertEqual(len(texts), env.num_envs)
            self.assertGreater(sum(map(len, texts)), 16 << 20)
            self.assertEqual(texts[-1], env.render(env.num_envs - 1)[0])
            # An error names the row's place in the caller's list.
            with self.assertRaises(EnvError) as cm:
                env.render(list(range(3000)) + [env.num_envs])
            self.assertEqual(cm.exception.field, "rows[3000]")
            self.assertTrue(str(cm.exception).startswith("rows[3000]: row 24576 is out of range"), str(cm.exception))

    def test_render_keeps_the_rows(self):
        with VecEnv("latency-pressure", variant="high", num_envs=4, group=4, seed=1) as env:
            obs, info = env.reset()
            policy = Fixed("split", env)
            while info["active"].all():
                obs, *_, info = env.step(policy(obs, info["action_mask"]))
            texts = env.render()
            self.assertEqual(len(texts), 4, "one text per row")
            for i, text in enumerate(texts):
                self.assertEqual(info["active"][i], "waits for reset" not in text, text)
            self.assertEqual(env.render(rows=slice(1, 3)), texts[1:3])
            self.assertEqual(env.render(rows=2), texts[2:3])
            self.assertEqual(env.render(rows=np.array([3, 0])), [texts[3], texts[0]])
            # A boolean mask picks its rows, not rows 0 and 1.
            self.assertEqual(env.render(rows=info["active"]), [t for t, a in zip(texts, info["active"]) if a])
            self.assertEqual(env.render(rows=[False, True, False, True]), [texts[1], texts[3]])
            with self.assertRaises(EnvError) as e:
                env.render(rows=np.array([True, False]))
            self.assertEqual((e.exception.field, str(e.exception)),
                             ("rows", "swarmsim: a boolean mask of rows has shape (2,), want (4,)"))
            with self.assertRaisesRegex(TypeError, "^swarmsim: rows must be an integer, not str 'a'$"):
                env.render(rows="a")

    def test_step_info_is_over_the_rows(self):
        # step_wait's info["rows"] says which slice a reply is; step's is
        # every row, and info holds arrays over them alone.
        with VecEnv("latency-pressure", variant="high", num_envs=4, seed=1) as env:
            obs, info = env.reset()
            obs, _, _, _, info = env.step(info["action_mask"].argmax(axis=1))
            self.assertNotIn("rows", info)
            env.step_async(info["action_mask"].argmax(axis=1))
            self.assertEqual(env.step_wait()[4]["rows"], slice(0, 4))

    def test_actions_mixing_names_and_integers_are_refused(self):
        with VecEnv("latency-pressure", variant="high", num_envs=2, seed=1) as env:
            env.reset()
            for actions in (["work", 0], [0, None]):
                with self.subTest(actions=actions), self.assertRaises(EnvError) as e:
                    env.step(actions)
                self.assertEqual(e.exception.field, "actions")
                self.assertIn("mix action names (or None) with other values", str(e.exception))


if __name__ == "__main__":
    unittest.main()
