"""The fixed organizations of models/policy/fixed.go, written again over
what VecEnv gives a client (the features and the mask), so that the tests
can drive the environment with a built-in organization's choices."""

import numpy as np

# Fixed.Decide's switches, by organization (models/policy.Organizations).
ORGANIZATIONS = {
    "sequential": dict(checks=True, fanout=False, attempts=False, shares=False),
    "independent": dict(checks=False, fanout=False, attempts=True, shares=False),
    "split": dict(checks=True, fanout=True, attempts=False, shares=False),
    "team": dict(checks=True, fanout=True, attempts=False, shares=True),
}


class Fixed:
    """A vectorised Fixed.Decide: the same preferences, read from the
    features (unshared, unchecked, main_x_start, ready_frac, has_ready,
    complete, main, complete_x_no_pending), which carry exactly the
    observation fields Decide reads."""

    def __init__(self, name, env):
        self.org = ORGANIZATIONS[name]
        f = {n: i for i, n in enumerate(env.feature_names)}
        self.f = f
        self.a = {n: i for i, n in enumerate(env.action_names)}

    def __call__(self, obs, mask):
        f, a, org = self.f, self.a, self.org
        n = obs.shape[0]
        out = np.full(n, -1, dtype=np.int32)

        def choose(cond, action):
            pick = (out < 0) & cond
            out[pick] = action

        has = lambda name: mask[:, a[name]]
        feat = lambda name: obs[:, f[name]] > 0.5
        ready = obs[:, f["ready_frac"]] * 8  # min(ready, 8): exact in float32
        if org["shares"]:
            choose(feat("unshared") & has("share"), a["share"])
        if org["checks"]:
            choose(feat("unchecked") & has("check"), a["check"])
        if org["attempts"]:
            choose(feat("main_x_start") & has("attempt"), a["attempt"])
        if org["fanout"]:
            choose((ready > 1.5) & has("delegate"), a["delegate"])
        choose(ready > 0.5, a["work"])
        complete, main = feat("complete"), feat("main")
        # Complete and (not main or no attempt pending): pick(submit).
        finishing = complete & (~main | feat("complete_x_no_pending"))
        rest = out < 0
        first_valid = np.argmax(mask, axis=1)
        prefs = np.where(finishing, a["submit"], a["wait"])
        ok = mask[np.arange(n), prefs]
        fallback = np.where(~finishing & has("submit"), a["submit"], first_valid)
        out[rest] = np.where(ok, prefs, fallback)[rest]
        return out
