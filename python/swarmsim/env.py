"""VecEnv: a batch of swarmsim episodes stepped from Python through
`simulate env` (the swarmsim-env/2 protocol, docs/environment.md)."""

import atexit
import collections
import json
import operator
import os
import shutil
import subprocess
import tempfile
import warnings
import weakref

import numpy as np

from . import _wire
from .spaces import Box, Discrete, MultiDiscrete

PROTOCOL = "swarmsim-env/2"
BUILD = "CGO_ENABLED=0 go build -o python/swarmsim/bin/simulate ./cmd/simulate"


class EnvError(ValueError):
    """The server refused a request: bad input. field names what was wrong
    (such as "set.reward.latency" or "actions[3]"); the message is the
    server's, the same words as the command line's for the same mistake."""

    def __init__(self, message, field=""):
        super().__init__(message)
        self.field = field


class ServerError(RuntimeError):
    """The server could not be started, or went away."""


def find_simulate():
    """Returns the path of the `simulate` binary: $SWARMSIM_SIMULATE, else
    the one built into the package (bin/simulate), else `simulate` on PATH."""
    env = os.environ.get("SWARMSIM_SIMULATE")
    if env:
        if not os.access(env, os.X_OK):
            raise ServerError(f"swarmsim: SWARMSIM_SIMULATE={env} is not an executable file")
        return env
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "simulate")
    if os.access(here, os.X_OK):
        return here
    found = shutil.which("simulate")
    if found:
        return found
    raise ServerError(
        "swarmsim: no simulate binary found (looked at $SWARMSIM_SIMULATE, "
        f"{here} and PATH); build it from the repository root with\n    {BUILD}\n"
        "or set SWARMSIM_SIMULATE to a simulate binary")


# Every open environment, so that their servers end with the interpreter.
_open = weakref.WeakSet()


@atexit.register
def _close_all():
    for env in list(_open):
        env.close()


class VecEnv:
    """num_envs episodes of a scenario's variant, stepped together.

    Follows Gymnasium's vector environments: reset() -> (obs, info) and
    step(actions) -> (obs, reward, terminated, truncated, info), with obs
    float32 (num_envs, num_features) and info["action_mask"] bool
    (num_envs, num_actions), info["agent"] int32 (which agent of the row
    decides), info["active"] bool; single_observation_space,
    single_action_space, observation_space, action_space (swarmsim.spaces)
    and metadata["autoreset_mode"] as Gymnasium names them. Rewards are 0
    until a row's episode ends, then the scenario's collective reward (with
    reward.penalty group-relative, in the step where its group's last row
    ends: sum a row's rewards over the steps); info["episode"] then holds
    that episode's metrics as float64 arrays over the rows, NaN where no
    episode ended, and info["_episode"] says which rows ended. An episode
    ends between decisions: there is no final observation.

    With group == 1 a finished row resets itself in the same step (its obs
    is the new episode's first). With group = G > 1, each G consecutive rows
    share one task instance and its random streams (train.crn), and a
    finished row stays inactive (its action ignored) until reset(). An
    episode that gives no agent a choice ends where it begins: its row is
    inactive, and its next step reports the episode. Row i's
    k-th episode plays task instance k*(num_envs/G) + i//G, the episode that
    `simulate run --seed S` numbers so; info["episode"]["episode"] says which.

    info["u"] is each row's uniform decision draw in [0, 1), the number
    simulate's own sampling policies draw their action with (0 where
    inactive); info["agent"] is -1 where inactive.

    step_async(actions, rows) sends the step of a slice of whole groups
    without waiting for it, and step_wait() waits for the oldest sent, so
    that the client chooses one slice's actions while the server steps
    another's: rows are independent, so the episodes are those of whole
    steps.

    scenario is a library name or a YAML path; set maps keys to values as
    `--set key=value` takes them; seed None is the scenario's; workers is
    how many threads step the rows (outputs do not depend on it; default
    1); decide "main" puts only the main agent's decisions to the caller,
    the variant's policy section deciding for the other agents (default
    "all": every agent's). The scenario's warnings, as the command line prints them, are in
    env.warnings and issued as Python warnings. The server is
    a `simulate env` child process of the binary simulate (default:
    find_simulate()); close() ends it, as do leaving a with block, garbage
    collection and interpreter exit.
    """

    def __init__(self, scenario, variant=None, num_envs=1, group=1, seed=None, set=None, workers=None, simulate=None, decide=None):
        self._proc = None
        self._closed = True
        self._ended = ""  # what ended the server, where close() did not
        make = {"op": "make", "protocol": PROTOCOL, "scenario": str(scenario),
                "num_envs": _integer("num_envs", num_envs), "group": _integer("group", group)}
        if variant is not None:
            make["variant"] = str(variant)
        if seed is not None:
            make["seed"] = _integer("seed", seed)
        if workers is not None:
            make["workers"] = _integer("workers", workers)
        if decide is not None:
            make["decide"] = str(decide)
        if set is not None:
            if not isinstance(set, dict):
                raise TypeError(f"swarmsim: set must be a dict of key -> value, not {type(set).__name__}")
            make["set"] = {str(k): _setting(v) for k, v in set.items()}
        path = simulate or find_simulate()
        self._headers = {}  # parsed reply headers, for _wire.read
        self._pending = collections.deque()  # the steps sent and not yet waited for (_Step), oldest first
        self._stderr = tempfile.TemporaryFile()
        try:
            # A session of its own: Ctrl-C at a terminal and a Jupyter
            # kernel's interrupt signal the client's whole process group,
            # and would end the server while the client catches the
            # KeyboardInterrupt and goes on. The client's end still ends
            # it: the server exits at the end of its standard input.
            self._proc = subprocess.Popen([path, "env"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
                                          bufsize=1 << 16, start_new_session=True)
        except OSError as e:
            # Not found, not executable, not a program: the server could
            # not be started, which is what ServerError says.
            self._stderr.close()
            raise ServerError(f"swarmsim: cannot start {path} env: {e}") from e
        self._owner = os.getpid()  # a process forked from this one holds a copy, not the server
        self._closed = False
        _open.add(self)
        try:
            reply, _ = self._call(make)
        except EnvError as e:
            self.close()
            if e.field != "protocol":
                raise
            # A binary built before or after this client: say how to match them.
            raise EnvError(f"{e}\nswarmsim: {path} speaks another protocol than this client ({PROTOCOL}); "
                           f"rebuild it from the repository root with\n    {BUILD}", e.field) from None
        except BaseException:
            self.close()
            raise
        self.num_envs = int(reply["num_envs"])
        self.group = int(reply["group"])
        self.num_features = int(reply["num_features"])
        self.num_actions = int(reply["num_actions"])
        self.action_names = list(reply["action_names"])
        self.feature_names = list(reply["feature_names"])
        self.episode_metrics = list(reply.get("episode_metrics", []))
        self.scenario = reply.get("scenario", str(scenario))
        self.variant = reply.get("variant", variant)
        self.version = reply.get("version", "")
        self.workers = int(reply.get("workers", 1))
        self.decide = str(reply.get("decide", "all"))
        self.warnings = list(reply.get("warnings") or [])
        # How an episode is scored, in words: a policy that reads (a
        # language model) needs it in its prompt, as the decisions' texts
        # of variants that differ in their reward alone are the same.
        self.objective = reply.get("objective", "")
        for w in self.warnings:
            warnings.warn(f"swarmsim: {self.scenario}: {w}", stacklevel=2)
        # Gymnasium's names for the same facts (swarmsim.spaces). The
        # features have no promised bounds; a mask says which actions are
        # valid at each decision. autoreset_mode is the value of
        # gymnasium.vector.AutoresetMode that the rows follow.
        self.single_observation_space = Box(-np.inf, np.inf, (self.num_features,), np.float32)
        self.single_action_space = Discrete(self.num_actions)
        self.observation_space = Box(-np.inf, np.inf, (self.num_envs, self.num_features), np.float32)
        self.action_space = MultiDiscrete([self.num_actions] * self.num_envs)
        self.metadata = {"autoreset_mode": "SameStep" if self.group == 1 else "Disabled", "render_modes": ["ansi"]}
        self.render_mode = "ansi"
        # A step request's header is the same for every step of the same
        # rows: encoded once for each slice.
        self._step_heads = {}

    def reset(self, seed=None, options=None):
        """Draws the next task instances for every row and runs each to its
        first decision. seed restarts the sequence of instances. Returns
        (obs, info) with info's action_mask, agent and active."""
        if options:
            raise ValueError(f"swarmsim: reset takes no options (got {sorted(options)})")
        req = {"op": "reset"}
        if isinstance(seed, (list, tuple, np.ndarray)):
            # Gymnasium's vector environments take a seed per sub-env; the
            # rows here draw their task instances from one sequence.
            raise ValueError("swarmsim: reset's seed is one integer for every row (the rows draw their task "
                             f"instances from one sequence, row i's k-th from instance k*num_envs/group + i//group), not {type(seed).__name__}")
        if seed is not None:
            req["seed"] = _integer("seed", seed)
        _, a = self._call(req)
        return a["obs"], self._info(a)

    def step(self, actions):
        """Takes one action per row: an int array of shape (num_envs,), or a
        list of action names (str, or None for inactive rows). Returns (obs,
        reward, terminated, truncated, info)."""
        self._none_pending("step")
        self.step_async(actions)
        obs, reward, terminated, truncated, info = self.step_wait()
        del info["rows"]  # every row: info's other values are arrays over them
        return obs, reward, terminated, truncated, info

    def step_async(self, actions, rows=None):
        """Sends the step of the rows in rows, a slice of whole groups
        (default: every row), with one action per row of it as step takes
        them, and returns without waiting for the step; step_wait returns
        its reply, and raises its refusal (an invalid action, say). Steps of
        other rows may be sent before that: the server steps them in the
        order sent. Rows of a step not yet waited for cannot be stepped
        again, and reset, render and step need every reply taken. When the
        requests in flight would outgrow a pipe, it first waits for the
        oldest replies, which it keeps for step_wait."""
        lo, hi = self._rows(rows)
        if self._closed:
            raise self._closed_error()
        for e in self._pending:
            if lo < e.hi and e.lo < hi:
                raise EnvError(f"swarmsim: rows {lo}:{hi} overlap rows {e.lo}:{e.hi}, whose step is not waited for (step_wait first)", "rows")
        n = hi - lo
        if isinstance(actions, np.ndarray) and actions.dtype.kind in "UO":
            actions = actions.tolist()
        named = isinstance(actions, (list, tuple)) and [x is None or isinstance(x, str) for x in actions]
        if named and any(named) and not all(named):
            raise EnvError("swarmsim: actions mix action names (or None) with other values: give every row a name "
                           "(None for an inactive row) or every row an integer", "actions")
        if named and all(named):
            if len(actions) != n:
                raise EnvError(f"swarmsim: {len(actions)} action names for {n} rows", "action_names")
            msg = _wire.encode({"op": "step", "action_names": [None if x is None else str(x) for x in actions], **self._range(lo, hi)})
        else:
            acts = np.asarray(actions)
            if acts.shape != (n,):
                raise EnvError(f"swarmsim: actions have shape {acts.shape}, want ({n},)", "actions")
            if acts.dtype.kind not in "iu":
                raise EnvError(f"swarmsim: actions have dtype {acts.dtype}, want integers (or a list of action names)", "actions")
            # Wider integers, and unsigned ones of 4 bytes, hold values
            # that int32 would wrap round.
            if (acts.dtype.itemsize > 4 or acts.dtype.kind == "u" and acts.dtype.itemsize == 4) and acts.size and \
                    (acts.min() < -(1 << 31) or acts.max() >= 1 << 31):
                raise EnvError("swarmsim: an action is outside int32", "actions")
            head = self._step_heads.get((lo, hi))
            if head is None:
                head = _wire.encode({"op": "step", "arrays": [{"name": "actions", "dtype": "i4", "shape": [n]}], **self._range(lo, hi)})
                self._step_heads[(lo, hi)] = head
            msg = head + acts.astype("<i4", copy=False).tobytes()
        # A server writing a reply that its pipe cannot hold reads no
        # request until the reply is read, and a client writing a request
        # that its pipe cannot hold reads no reply: the requests whose
        # replies are not read yet must fit in a pipe, so replies are read
        # ahead, for step_wait, until they do.
        unread = [e for e in self._pending if e.reply is None]
        while unread and sum(e.size for e in unread) + len(msg) > _IN_FLIGHT:
            e = unread.pop(0)
            self._exchange(lambda p: setattr(e, "reply", _wire.read(p.stdout, self._headers)))

        def write(p):
            p.stdin.write(msg)
            p.stdin.flush()
            self._pending.append(_Step(lo, hi, len(msg)))

        self._exchange(write)

    def step_wait(self):
        """Waits for the reply to the oldest step sent with step_async and
        returns it: (obs, reward, terminated, truncated, info) over its
        rows, as step returns them over every row; info["rows"] is the
        slice of rows."""
        if self._closed:
            raise self._closed_error()
        if not self._pending:
            raise EnvError("swarmsim: step_wait without a step sent (step_async first)", "op")
        e = self._pending[0]

        def read(p):
            reply = e.reply if e.reply is not None else _wire.read(p.stdout, self._headers)
            self._pending.popleft()
            return reply

        header, a = self._exchange(read)
        self._check(header)
        info = self._info(a)
        info["episode"] = self._episodes(a["episode_rows"] - e.lo, a["episode"], e.hi - e.lo)
        # Gymnasium's mask of the rows whose info["episode"] holds values.
        info["_episode"] = a["terminated"].view(np.bool_) | a["truncated"].view(np.bool_)
        info["rows"] = slice(e.lo, e.hi)
        return a["obs"], a["reward"], a["terminated"].view(np.bool_), a["truncated"].view(np.bool_), info

    def _rows(self, rows):
        """rows as (lo, hi): a slice of whole groups, or every row."""
        if rows is None:
            return 0, self.num_envs
        if not isinstance(rows, (slice, range)) or rows.step not in (None, 1):
            raise EnvError(f"swarmsim: rows must be a slice of consecutive rows, such as slice(0, {self.num_envs // 2}), not {rows!r}", "rows")
        lo, hi, _ = slice(rows.start, rows.stop).indices(self.num_envs)
        if lo >= hi or lo % self.group or hi % self.group:
            raise EnvError(f"swarmsim: rows {lo}:{hi} are not whole groups of {self.group} (a nonempty slice whose ends are multiples of group)", "rows")
        return lo, hi

    def _range(self, lo, hi):
        """A step request's fields for the rows [lo, hi)."""
        if (lo, hi) == (0, self.num_envs):
            return {}
        return {"first": lo, "count": hi - lo}

    def render(self, rows=None):
        """Returns the rows' decisions in words (what each deciding agent
        sees, the valid actions by name), one text per row asked for, in
        their order: rows is a row, a slice or range, a list of rows, or a
        boolean mask over the rows such as info["active"] (default: every
        row). An inactive row's text says it waits for reset (or for the
        step that reports an episode without a choice), how its
        episode ended and its reward."""
        if rows is None:
            rows = range(self.num_envs)
        elif isinstance(rows, slice):
            rows = range(*rows.indices(self.num_envs))
        elif not isinstance(rows, (range, list, tuple, np.ndarray)):
            rows = [rows]
        if not isinstance(rows, range) and len(rows) and np.asarray(rows).dtype == np.bool_:
            # A mask, not rows 0 and 1: True would index row 1.
            mask = np.asarray(rows)
            if mask.shape != (self.num_envs,):
                raise EnvError(f"swarmsim: a boolean mask of rows has shape {mask.shape}, want ({self.num_envs},)", "rows")
            rows = np.flatnonzero(mask)
        rows = [_integer("rows", r) for r in rows]
        # The texts travel in a reply's header, which holds 16 MiB at most:
        # a large table's texts come in several requests.
        texts = []
        for at in range(0, max(len(rows), 1), _RENDER_ROWS):
            try:
                h, _ = self._call({"op": "render", "rows": rows[at:at + _RENDER_ROWS]})
            except EnvError as e:
                if not (at and e.field.startswith("rows[")):
                    raise
                # rows[j] of this request is rows[at + j] of the caller's.
                field = f"rows[{at + int(e.field[5:-1])}]"
                raise EnvError(str(e).replace(e.field, field, 1), field) from None
            texts += h["text"]
        return texts

    def close(self):
        """Ends the server; safe to call more than once. The replies to
        steps not waited for are dropped."""
        self._ended = ""  # later calls say closed, as the caller did
        if self._closed:
            return
        self._closed = True
        _open.discard(self)
        p = self._proc
        if os.getpid() != self._owner:
            # A copy made by fork (at its exit, or collected): the server
            # is the parent's, which goes on using it. Only this process's
            # ends of the pipes close, so that the server still sees the
            # end of its input when the parent goes.
            for f in (p.stdin, p.stdout):
                try:
                    f.close()
                except (OSError, ValueError):
                    pass
            self._pending.clear()
            return
        try:
            p.stdin.write(_wire.encode({"op": "close"}))
            p.stdin.flush()
            for _ in range(sum(e.reply is None for e in self._pending) + 1):
                _wire.read(p.stdout)
        except (OSError, ValueError, _wire.ProtocolError):
            pass
        finally:
            # Interrupted too (Ctrl-C): the server ends, rather than live
            # for as long as this closed environment is referenced.
            self._pending.clear()
            self._release(wait=5)

    def _release(self, wait):
        """Closes the pipes and the stderr file and reaps the server,
        killing it if it has not ended within wait seconds."""
        p = self._proc
        for f in (p.stdin, p.stdout):
            try:
                f.close()
            except OSError:
                pass
        try:
            p.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        self._stderr.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if not getattr(self, "_closed", True):
            self.close()

    def _info(self, a):
        info = {"action_mask": a["action_mask"].view(np.bool_), "agent": a["agent"], "active": a["active"].view(np.bool_)}
        if "u" in a:
            info["u"] = a["u"]
        return info

    def _episodes(self, rows, values, n):
        """info["episode"] from the reply's metrics of the rows that ended
        (values[j] is row rows[j]'s of the step's n): per metric an array
        over the n rows, NaN where no episode ended, each a row of one
        fresh table."""
        # empty + fill and list() are the cheapest ways numpy has to a
        # fresh NaN table and its rows' views: half the time of np.full and
        # of indexing row by row.
        table = np.empty((len(self.episode_metrics), n))
        table.fill(np.nan)
        if len(rows):
            table.T[rows] = values
        return dict(zip(self.episode_metrics, list(table)))

    def _none_pending(self, op):
        if self._closed:
            raise self._closed_error()
        if self._pending:
            raise EnvError(f"swarmsim: {op} with {len(self._pending)} step(s) sent and not waited for (step_wait first)", "op")

    def _call(self, header):
        """Sends one request and returns its reply, with no step pending."""
        self._none_pending(header["op"])
        msg = _wire.encode(header)

        def call(p):
            p.stdin.write(msg)
            p.stdin.flush()
            return _wire.read(p.stdout, self._headers)

        header, arrays = self._exchange(call)
        self._check(header)
        return header, arrays

    @staticmethod
    def _check(header):
        """Raises EnvError for a refusal."""
        if not header.get("ok"):
            raise EnvError(header.get("error", "swarmsim: the server refused the request without a reason"), header.get("field", ""))

    def _exchange(self, f):
        """Returns f(server process), which writes or reads and keeps the
        steps in flight in step with what it did; raises ServerError when
        the server is gone."""
        if self._closed:
            raise self._closed_error()
        if os.getpid() != self._owner:
            raise ServerError(f"swarmsim: this environment's server belongs to process {self._owner}, which made the VecEnv; "
                              "a process forked from it makes a VecEnv of its own")
        p = self._proc
        try:
            return f(p)
        except (OSError, _wire.ProtocolError) as e:
            raise self._gone(e) from None
        except BaseException as e:
            # Interrupted mid-message (Ctrl-C): the stream cannot be
            # resynchronised, so the server goes.
            self._closed = True
            self._ended = (f"swarmsim: the environment's server was ended when a call to it was interrupted "
                           f"({type(e).__name__}) mid-message; make a new VecEnv")
            self._pending.clear()
            _open.discard(self)
            p.kill()
            self._release(wait=5)
            raise

    def _gone(self, cause):
        """The error for a server that stopped answering, with its stderr."""
        p = self._proc
        try:
            rc = p.wait(timeout=2)
        except subprocess.TimeoutExpired:
            p.kill()
            rc = p.wait()
        self._stderr.seek(0)
        err = self._stderr.read().decode(errors="replace").strip()
        self._closed = True
        self._pending.clear()
        _open.discard(self)
        self._release(wait=0)
        msg = f"swarmsim: `simulate env` stopped (exit status {rc}): {cause}"
        if err:
            msg += "\n" + err[-4000:]
        self._ended = msg
        return ServerError(msg)

    def _closed_error(self):
        """The error for a call after the server ended: closed by close(),
        or what ended it otherwise, which the caller did not do."""
        return ServerError(self._ended or "swarmsim: the environment is closed")


# The rows whose texts render asks for in one request: a decision's text
# takes a few KiB at most, and a reply's header 16 MiB.
_RENDER_ROWS = 1024

# The bytes of requests whose replies are not read yet that a client
# sends before it reads a reply: the smallest pipe buffer of the systems
# served (macOS's 16 KiB; Linux's is 64 KiB). Two steps of 256 rows by
# number take 2 KiB.
_IN_FLIGHT = 16 << 10


class _Step:
    """A step sent and not yet waited for: its rows, the request's size
    and its reply, once read ahead."""

    __slots__ = ("lo", "hi", "size", "reply")

    def __init__(self, lo, hi, size):
        self.lo, self.hi, self.size, self.reply = lo, hi, size, None


def _integer(name, v):
    """v as an int. A float, which a count or seed would silently
    truncate, or any other type is refused naming the argument."""
    try:
        return operator.index(v)
    except TypeError:
        raise TypeError(f"swarmsim: {name} must be an integer, not {type(v).__name__} {v!r}") from None


def _setting(v):
    """A --set value as the command line would spell it: a list or a map
    as YAML's flow text. None travels as null, which the server refuses
    naming the set (str() would send "None", a string that a text field
    such as description takes without a word)."""
    if v is None:
        return None
    if isinstance(v, (bool, np.bool_, list, tuple, dict, np.ndarray)):
        return _flow(v)
    return str(v)


def _flow(v):
    """v in YAML's flow style. str() would not do: it writes a tuple in
    parentheses and np.bool_ as True, which YAML reads as strings, and
    an array without commas. Numbers keep str()'s spelling, the shortest
    for their type (np.float32(0.1) is 0.1)."""
    if v is None:
        return "null"
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, np.ndarray) and v.ndim == 0:
        # A 0-d array (np.asarray(0.5), a 0-d tensor's .numpy()) is a
        # scalar, which does not iterate.
        return _flow(v[()])
    if isinstance(v, (list, tuple, np.ndarray)):
        return "[" + ", ".join(_flow(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_flow(str(k))}: {_flow(x)}" for k, x in v.items()) + "}"
    return str(v)
