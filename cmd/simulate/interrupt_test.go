package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/experiment/env"
	"github.com/swarmsim/swarmsim/experiment/train"
	"github.com/swarmsim/swarmsim/internal/filetree"
	htmlreport "github.com/swarmsim/swarmsim/report"
	"github.com/swarmsim/swarmsim/scenarios"
)

// longEpisode is one episode that runs for tens of seconds: 20,000 parallel
// parts, 4,000 agents sharing findings.
var longEpisode = []string{"run", "tiny", "--set", "task.width=20000", "--set", "collective.agents=4000", "--episodes", "1", "--workers", "1"}

// TestInterruptInsideAnEpisode sends SIGINT while one long episode runs:
// the process ends within a second, with status 130, "interrupted", and
// no result files.
func TestInterruptInsideAnEpisode(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the simulate binary")
	}
	bin := binary(t)
	out := filepath.Join(t.TempDir(), "results", "long")
	cmd := exec.Command(bin, append(longEpisode, "--out", out)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	select {
	case err := <-exited:
		t.Fatalf("the episode ended before the interrupt: %v\n%s", err, stderr.String())
	case <-time.After(1500 * time.Millisecond):
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	sent := time.Now()
	var err error
	select {
	case err = <-exited:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("still running 10 s after SIGINT")
	}
	took := time.Since(sent)
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee), "exit status: %v", err)
	assert.Equal(t, exitInterrupt, ee.ExitCode())
	assert.Equal(t, "simulate run: interrupted\n", stderr.String())
	assert.Less(t, took, time.Second, "ended %v after SIGINT", took)
	_, statErr := os.Stat(filepath.Dir(out))
	assert.True(t, errors.Is(statErr, os.ErrNotExist), "the run leaves no directory behind: %v", statErr)
}

// TestEnvInterrupted signals a serving simulate env: it ends at once with
// the status a shell reports for a process the signal killed, as the
// other commands do, and says so on stderr.
func TestEnvInterrupted(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		want int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			cmd := exec.Command(binary(t), "env")
			stdin, err := cmd.StdinPipe()
			require.NoError(t, err)
			defer stdin.Close()
			stdout, err := cmd.StdoutPipe()
			require.NoError(t, err)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			require.NoError(t, cmd.Start())
			// The reply to a make shows that the server is serving, its
			// signals caught.
			_, err = stdin.Write(envFrame(t, map[string]any{"op": "make", "protocol": env.Protocol, "scenario": "tiny"}))
			require.NoError(t, err)
			_, err = env.NewReader(stdout).Read()
			require.NoError(t, err)
			require.NoError(t, cmd.Process.Signal(tc.sig))
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case err = <-exited:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("still running 10 s after %v", tc.sig)
			}
			var ee *exec.ExitError
			require.True(t, errors.As(err, &ee), "exit status: %v", err)
			assert.Equal(t, tc.want, ee.ExitCode())
			assert.Equal(t, "simulate env: interrupted\n", stderr.String())
		})
	}
}

func TestMemoryBound(t *testing.T) {
	// Refused before running: the graphs alone pass the bound.
	out := filepath.Join(t.TempDir(), "r")
	_, stderr, code := simulate(t, "run", "tiny", "--set", "task.width=1000000", "--max-memory", "64MiB", "--workers", "2", "--out", out)
	assert.Equal(t, exitFail, code)
	assert.Contains(t, stderr, `variant "split": a team of 3 agents (collective.agents) on task graphs of up to 1000002 subtasks (task.width, task.stages) needs about 511.2MiB per episode and 1022.4MiB for 2 at once, above --max-memory 64MiB; make the team or the task smaller (collective.agents; task.width, task.stages), lower --workers, or raise the bound (--max-memory 1GiB, or 0 for none)`)
	assert.NoDirExists(t, out)

	// A task kind fixes the size too, where its preset's parameters apply.
	_, stderr, code = simulate(t, "run", "tiny", "--set", "task.shape=", "--set", "task.kind=decomposable", "--set", "task.width=1000000", "--max-memory", "64MiB", "--workers", "2", "--out", out)
	assert.Equal(t, exitFail, code)
	assert.Contains(t, stderr, "(task.kind, task.width, task.stages)")
	assert.NoDirExists(t, out)

	// Stopped while running: the estimate (71.6MiB) fits, but what the
	// episode builds beyond it (messages) passes the bound.
	_, stderr, code = simulate(t, "run", "tiny", "--set", "task.width=20000", "--set", "collective.agents=400", "--episodes", "1", "--workers", "1",
		"--max-memory", "100MiB", "--out", out)
	assert.Equal(t, exitFail, code)
	assert.Contains(t, stderr, "memory bound reached: the heap holds")
	assert.Contains(t, stderr, "above --max-memory 100MiB (raise it")
	assert.NoDirExists(t, out)

	_, stderr, code = simulate(t, "run", "tiny", "--max-memory", "lots")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--max-memory lots: want a size such as 512MiB, 16GiB or 0\n", "the value is named once")
}

// runSweep is a sweep of command run over tiny: two trials of five episodes.
var runSweep = []string{"sweep", "tiny", "--set", "sweep={command: run, grid: {collective.agents: [1, 2]}}", "--variant", "team", "--charts=false"}

// TestEventLimitSaysHowToRaiseIt: every command that runs episodes takes
// --max-events; an episode past it fails the command, names the flag and
// leaves no result; the default bound lets the same command finish.
// TestMemoryEstimate: the estimate counts every episode held at once
// (one per worker for an evaluation, an iteration's batch × group with
// their recorded decisions for training), and each episode's agents and
// the findings they read; a refusal names the settings to lower.
func TestMemoryEstimate(t *testing.T) {
	sc, err := scenarios.Load(testScenario, []string{"task.width=100000", "train.batch=4", "train.group=2"})
	require.NoError(t, err)
	v := &sc.Variants[0]
	tests := []struct {
		name       string
		bound      byteSize
		train      bool
		concurrent int
		want       string // "" when the work is accepted
	}{
		{"one episode fits", 64 << 20, false, 1, ""},
		{"two do not", 64 << 20, false, 2, `variant "split": a team of 3 agents (collective.agents) on task graphs of up to 100002 subtasks (task.width, task.stages) needs about 51.1MiB per episode and 102.2MiB for 2 at once, above --max-memory 64MiB; make the team or the task smaller (collective.agents; task.width, task.stages), lower --workers, or raise the bound (--max-memory 128MiB, or 0 for none)`},
		{"a training iteration's rollouts", 1 << 30, true, 1, `needs about 225.1MiB per episode and 1.8GiB for 8 at once (8 rollouts, batch × group, per worker, with their recorded decisions), above --max-memory 1GiB; make the team or the task smaller (collective.agents; task.width, task.stages), lower train.batch or train.group, or raise the bound (--max-memory 2GiB, or 0 for none)`},
		{"on each worker", 2 << 30, true, 2, "3.5GiB for 16 at once (8 rollouts, batch × group, per worker, with their recorded decisions), above --max-memory 2GiB; make the team or the task smaller (collective.agents; task.width, task.stages), lower --workers, train.batch or train.group, or raise"},
		// A trace's one episode: nothing to lower but the team and the task.
		{"one episode does not", 32 << 20, false, 1, "51.1MiB for one episode, above --max-memory 32MiB; make the team or the task smaller (collective.agents; task.width, task.stages), or raise the bound (--max-memory 64MiB, or 0 for none)"},
		{"training that fits", 2 << 30, true, 1, ""},
		{"no bound", 0, true, 64, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := limitOptions{maxMemory: tt.bound}
			err := o.check([]workload{variantWorkload(v, tt.train)}, tt.concurrent)
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tt.want)
		})
	}

	// train refuses before anything is written.
	out := filepath.Join(t.TempDir(), "t")
	_, stderr, code := simulate(t, "train", testScenario, "--set", "task.width=100000", "--max-memory", "1GiB", "--workers", "1", "--out", out)
	assert.Equal(t, exitFail, code)
	assert.Contains(t, stderr, "14.1GiB for 64 at once (64 rollouts, batch × group, per worker, with their recorded decisions), above --max-memory 1GiB")
	assert.NoDirExists(t, out)

	// A huge team on a wide task is refused by the default bound, before
	// any work, naming both settings.
	_, stderr, code = simulate(t, "train", "latency-pressure", "--set", "collective.agents=100000", "--set", "task.width=100000",
		"--seeds", "1", "--workers", "1", "--out", out)
	assert.Equal(t, exitFail, code)
	assert.Contains(t, stderr, `variant "none": a team of 100000 agents (collective.agents) on task graphs of up to 100002 subtasks (task.width, task.stages) needs about 74.9GiB per episode`)
	assert.Contains(t, stderr, "above --max-memory 8GiB")
	assert.NoDirExists(t, out)

	// A team larger than its work: at most one agent per subtask works at
	// once, so the findings read are counted for 2,000 agents, not 10⁵
	// (which would be 1.5GiB).
	sc, err = scenarios.Load(testScenario, []string{"collective.agents=100000", "task.width=2000"})
	require.NoError(t, err)
	o := limitOptions{maxMemory: 256 << 20}
	assert.NoError(t, o.check(variantWorkloads(sc, false), 1))
}

// TestSweepMemoryBound: a sweep whose largest trial would pass
// --max-memory is refused before anything is written, naming the trial.
func TestSweepMemoryBound(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s")
	_, stderr, code := simulate(t, "sweep", "tiny", "--set", "sweep={command: run, grid: {task.width: [3, 1000000]}}", "--variant", "team",
		"--max-memory", "64MiB", "--workers", "2", "--out", out)
	assert.Equal(t, exitFail, code)
	assert.Regexp(t, `simulate sweep: trial [0-9a-f]{16} \(task.width=1000000, variant team, seed 7\): a team of 3 agents \(collective.agents\) on task graphs of up to 1000002 subtasks \(task.width, task.stages\) needs about 511.2MiB per episode and 1022.4MiB for 2 at once, above --max-memory 64MiB; make the team`, stderr)
	assert.NoDirExists(t, out)
	_, stderr, code = simulate(t, "sweep", "tiny", "--max-memory", "lots")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--max-memory lots: want a size such as 512MiB, 16GiB or 0\n")
}

func TestEventLimitSaysHowToRaiseIt(t *testing.T) {
	tests := []struct {
		name string
		args []string
		// gone is what must not be in the output directory after the
		// failure; "" when the directory itself must not be there. A
		// train keeps its checkpoints and a sweep its finished trials,
		// to resume.
		gone string
	}{
		{"run", []string{"run", "tiny", "--episodes", "1", "--charts=false"}, ""},
		{"train", []string{"train", "tiny", "--seeds", "1", "--set", "train.iterations=2", "--charts=false"}, "manifest.json"},
		{"sweep", runSweep, "manifest.json"},
		{"trace", []string{"trace", "tiny"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "r")
			args := append(slices.Clone(tt.args), "--out", out)
			_, stderr, code := simulate(t, append(args, "--max-events", "50")...)
			assert.Equal(t, exitFail, code, stderr)
			assert.Contains(t, stderr, "simulate "+tt.name+": ")
			assert.Contains(t, stderr, "sim: event limit reached: 50 events processed")
			assert.Contains(t, stderr, "(the episode's bound: 50 events, as set); --max-events raises the bound")
			if tt.gone == "" {
				assert.NoFileExists(t, out)
				assert.NoDirExists(t, out)
			} else {
				assert.NoFileExists(t, filepath.Join(out, tt.gone))
				assert.NoFileExists(t, filepath.Join(out, "trials.csv"))
				assert.NoFileExists(t, filepath.Join(out, "iterations.csv"))
			}
			mustSimulate(t, args...)
		})
	}
}

// TestSweepEventLimitResumes: a sweep stopped by the event bound keeps its
// finished trials and resumes under a higher bound, which is not part of
// the sweep.
// Started with --fresh, the advice leaves it out: it would clear the
// trial kept.
func TestSweepEventLimitResumes(t *testing.T) {
	for _, tc := range []struct {
		flags []string
		again string
	}{
		{nil, "run it again with a higher --max-events to resume"},
		{[]string{"--fresh"}, "run it again with a higher --max-events and without --fresh to resume"},
	} {
		out := filepath.Join(t.TempDir(), "s")
		// One agent alone needs about 100 events an episode, two need more.
		_, stderr, code := simulate(t, append(append(slices.Clone(runSweep), tc.flags...), "--out", out, "--workers", "1", "--max-events", "150")...)
		require.Equal(t, exitFail, code, stderr)
		assert.Contains(t, stderr, "1 of 2 trials done; "+tc.again+"\n", tc.flags)
		assert.Len(t, trialFiles(t, out), 1)
		got := mustSimulate(t, append(slices.Clone(runSweep), "--out", out, "--max-events", "100000")...)
		assert.Contains(t, got, "2 trials, 1 run now, 1 done before")
	}
}

// TestByteSizeSet: --max-memory's sizes, in every unit, rounded to whole
// bytes, and what is not a size (NaN among them, which ParseFloat reads,
// and a fraction of a byte, which the runtime would take as a bound of 0).
func TestByteSizeSet(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want byteSize
	}{
		{"0", 0}, {"512", 512}, {"512B", 512}, {"1.5KiB", 1536}, {"2K", 2048}, {" 3 MB ", 3 << 20},
		{"16GiB", 16 << 30}, {"1T", 1 << 40}, {"7e2", 700}, {"0.6", 1}, {"1.0001KiB", 1024}, {"-0", 0},
	} {
		var b byteSize
		require.NoError(t, b.Set(tt.in), "%q", tt.in)
		assert.Equal(t, tt.want, b, "%q", tt.in)
	}
	for _, in := range []string{"", "lots", "-1", "-1GiB", "NaN", "nanMiB", "Inf", "+InfGiB", "1e400", "9e18GiB", "1KiBB", "MiB", ".1", "1e-300GiB", "-0.3"} {
		var b byteSize
		assert.Error(t, b.Set(in), "%q", in)
	}
}

// TestTrainInterruptSaysHowToResume sends SIGINT to a training, also
// after its last iteration: the note gives the command that resumes it,
// and says iterations are kept only when checkpoints hold some.
func TestTrainInterruptSaysHowToResume(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the simulate binary")
	}
	bin := binary(t)
	cases := []struct {
		name string
		args []string
		// ready reports whether to send SIGINT now, given --out.
		ready func(out string) bool
		want  string
	}{
		{
			// A first iteration of tens of seconds (one rollout, 660MiB
			// estimated; a group of one has no group baseline, so the
			// advantage is the reward): none is checkpointed.
			name: "none kept",
			args: []string{"train", "tiny", "--set", "task.width=20000", "--set", "collective.agents=4000", "--set", "train.iterations=2",
				"--set", "train.batch=1", "--set", "train.group=1", "--set", "train.advantage=none", "--seeds", "1", "--workers", "1", "--charts=false"},
			ready: func(string) bool { return true },
			want:  "simulate train: no iteration was checkpointed, so nothing is kept; to start again, run: simulate train tiny",
		},
		{
			name: "some kept",
			args: []string{"train", "tiny", "--set", "train.iterations=100000", "--seeds", "1", "--workers", "1", "--charts=false"},
			ready: func(out string) bool {
				parts, _ := filepath.Glob(filepath.Join(out, train.CheckpointDir, "*.gob"))
				return len(parts) > 0
			},
			want: " of 100000 iterations are kept in ", // tiny's two variants train once
		},
		{
			// Trained, and drawing the learning curves (about 3 s here,
			// after 1.6 s of training and tables): every iteration is kept.
			name: "in the charts",
			args: []string{"train", "latency-pressure", "--set", "train.iterations=20", "--seeds", "10", "--workers", "1"},
			ready: func(out string) bool {
				_, err := os.Stat(filepath.Join(out, "iterations.csv"))
				return err == nil
			},
			want: "simulate train: 800 of 800 iterations are kept in ",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "train")
			args := append(c.args, "--out", out)
			stderr := interruptWhen(t, exec.Command(bin, args...), func() bool { return c.ready(out) })
			assert.Contains(t, stderr.String(), c.want)
			assert.Contains(t, stderr.String(), "run: simulate "+strings.Join(args, " ")+"\n")
			assert.NotContains(t, stderr.String(), "finished iterations are kept")
		})
	}
}

// TestForcedTrainingInterrupted sends SIGINT to a forced training over a
// complete one once it has checkpoints: the old training comes back as
// it was, byte for byte, with nothing of the new one, and the note says
// so.
func TestForcedTrainingInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the simulate binary")
	}
	bin := binary(t)
	out := filepath.Join(t.TempDir(), "train")
	mustSimulate(t, "train", "tiny", "--set", "train.iterations=3", "--seeds", "1", "--out", out)
	before := filetree.Snapshot(t, out)
	args := []string{"train", "tiny", "--set", "train.iterations=100000", "--seeds", "1", "--workers", "1", "--charts=false", "--force", "--out", out}
	var pageDuring bool
	stderr := interruptWhen(t, exec.Command(bin, args...), func() bool {
		parts, _ := filepath.Glob(filepath.Join(out, train.CheckpointDir, "*.gob"))
		_, err := os.Stat(filepath.Join(out, htmlreport.Name))
		pageDuring = err == nil
		return len(parts) > 0
	})
	assert.False(t, pageDuring, "the old training's page is set aside with it while the new one trains")
	assert.Contains(t, stderr.String(), "simulate train: "+out+" still holds the training this one was to replace, and nothing of this one is kept; to train again, run: simulate "+strings.Join(args, " ")+"\n")
	assert.Equal(t, before, filetree.Snapshot(t, out), "the old training, byte for byte")
}

func TestShellJoin(t *testing.T) {
	cases := []struct {
		argv []string
		want string
	}{
		{[]string{"simulate", "train", "tiny", "--set", "task.work=exp(5m)"}, `simulate train tiny --set 'task.work=exp(5m)'`},
		{[]string{"simulate", "train", "my file.yaml", "--out", "it's"}, `simulate train 'my file.yaml' --out 'it'\''s'`},
		{[]string{"simulate", "run", "", "--set", "a.b=1,2"}, `simulate run '' --set a.b=1,2`},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, shellJoin(c.argv), "%q", c.argv)
	}
}

// interruptWhen starts cmd, sends it SIGINT once ready reports true (and
// not before 1.5 s, well after the signal handler is installed: a SIGINT
// before it would kill the process silently), waits for it to end, and
// returns what it wrote on stderr. The command must not end before.
func interruptWhen(t *testing.T, cmd *exec.Cmd, ready func() bool) *bytes.Buffer {
	t.Helper()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.After(60 * time.Second)
	for wait := time.After(1500 * time.Millisecond); wait != nil || !ready(); {
		select {
		case err := <-exited:
			t.Fatalf("%v ended before the interrupt: %v\n%s", cmd.Args, err, stderr.String())
		case <-deadline:
			cmd.Process.Kill()
			t.Fatal("not ready to interrupt after 60 s")
		case <-wait:
			wait = nil
		case <-time.After(20 * time.Millisecond):
		}
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("still running 10 s after SIGINT")
	}
	return &stderr
}
