package env_test

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/experiment/env"
	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/models/task"
)

// eachDecision steps e for steps steps with the first valid action of
// every active row, or the first of prefer that is valid, calling f on
// each pending decision before it is taken, with the row's rendering.
func eachDecision(t *testing.T, e *env.Env, steps int, f func(i int, p collective.Pending, text string), prefer ...collective.Action) {
	t.Helper()
	_, err := e.Reset(nil)
	require.NoError(t, err)
	for range steps {
		actions := make([]int32, e.NumEnvs())
		for i := range actions {
			if p, ok := e.Pending(i); ok {
				f(i, p, e.Render(i))
				actions[i] = int32(p.Mask.First())
				for _, a := range prefer {
					if p.Mask.Has(a) {
						actions[i] = int32(a)
						break
					}
				}
			}
		}
		_, err = e.Step(actions)
		require.NoError(t, err)
	}
}

// TestRenderNamesTheKind checks that a reader learns the task's kind, which
// the features carry (kind_*): exp-architecture mixes the four kinds so
// that a policy must tell them apart, and a text without it would hide
// from a language model what a learned policy sees.
func TestRenderNamesTheKind(t *testing.T) {
	e, err := env.New(env.Config{Scenario: "exp-architecture", Variant: "hybrid", NumEnvs: 8, Group: 1})
	require.NoError(t, err)
	seen := map[string]bool{}
	eachDecision(t, e, 200, func(i int, p collective.Pending, text string) {
		require.Positive(t, p.Obs.Kind, "row %d", i)
		kind := task.Kinds[p.Obs.Kind-1]
		seen[kind] = true
		assert.Contains(t, text, "\nTask: of the kind "+kind+", ", "row %d", i)
		assert.NotContains(t, text, ", .", "row %d: a kind without its description", i)
	})
	assert.Len(t, seen, len(task.Kinds), "every kind drawn: %v", seen)

	// A task drawn without a kind has no such line.
	e, err = env.New(env.Config{Scenario: "tiny", Variant: "team", NumEnvs: 2, Group: 1})
	require.NoError(t, err)
	eachDecision(t, e, 20, func(i int, p collective.Pending, text string) {
		require.Zero(t, p.Obs.Kind)
		assert.False(t, strings.Contains(text, "\nTask:"), "row %d: %s", i, text)
	})
}

// TestObjectiveInDocs checks the objective that docs/environment.md shows.
func TestObjectiveInDocs(t *testing.T) {
	shown := fromDoc(t, "For\n`latency-pressure`'s high:\n\n```\n", "\n```")
	e, err := env.New(env.Config{Scenario: "latency-pressure", Variant: "high", NumEnvs: 1, Group: 1})
	require.NoError(t, err)
	assert.Equal(t, shown, e.Objective())
}

// TestRenderSaysTheTimeLeft checks that the time left is stated and adds
// up with the time passed to the limit, at every decision of episodes
// that run long enough for the percentage to round.
func TestRenderSaysTheTimeLeft(t *testing.T) {
	e, err := env.New(env.Config{Scenario: "tiny", Variant: "split", NumEnvs: 4, Group: 1})
	require.NoError(t, err)
	re := regexp.MustCompile(`\nTime: (\S+) of virtual time has passed, \d+% of the time limit of (\S+); (\S+) left\.\n`)
	lefts := map[time.Duration]bool{}
	eachDecision(t, e, 100, func(i int, p collective.Pending, text string) {
		m := re.FindStringSubmatch(text)
		require.NotNil(t, m, "row %d: %s", i, text)
		var d [3]time.Duration
		for j := range d {
			d[j], err = time.ParseDuration(m[j+1])
			require.NoError(t, err)
		}
		assert.Equal(t, d[1], d[0]+d[2], "row %d: %s", i, m[0])
		assert.Equal(t, 2*time.Hour, d[1])
		lefts[d[2]] = true
	})
	assert.Greater(t, len(lefts), 10, "decisions at many times")

	// Without a time limit there is no time left to tell.
	e, err = env.New(env.Config{Scenario: "tiny", Variant: "split", NumEnvs: 4, Group: 1, Sets: []string{"collective.time_limit=0"}})
	require.NoError(t, err)
	eachDecision(t, e, 20, func(i int, p collective.Pending, text string) {
		assert.Regexp(t, `\nTime: \S+ of virtual time has passed; there is no time limit\.\n`, text, "row %d", i)
	})
}

// TestRenderSaysWhatAPartHeldIs checks the words on a finished part that
// an agent holds: unchecked, unshared, and after how many retries, where
// there were any (tiny's checks send some parts back).
func TestRenderSaysWhatAPartHeldIs(t *testing.T) {
	e, err := env.New(env.Config{Scenario: "tiny", Variant: "team", NumEnvs: 16, Group: 1})
	require.NoError(t, err)
	held := regexp.MustCompile(`\nYour part: you hold a finished part, (.*)\.\n`)
	seen := map[string]int{}
	eachDecision(t, e, 300, func(i int, p collective.Pending, text string) {
		m := held.FindStringSubmatch(text)
		if m == nil {
			return
		}
		retries := regexp.MustCompile(`after (\d+) retr(y|ies)`).FindStringSubmatch(m[1])
		if p.Obs.Retries == 0 {
			assert.Nil(t, retries, "row %d: %s", i, m[0])
			seen["no retry"]++
		} else {
			require.NotNil(t, retries, "row %d: %s", i, m[0])
			assert.Equal(t, fmt.Sprint(p.Obs.Retries), retries[1])
			seen["retried"]++
		}
	}, collective.Check)
	assert.Positive(t, seen["no retry"], "no part held without a retry")
	assert.Positive(t, seen["retried"], "no part held after a retry")
}

// TestRenderTellsTheResult checks that a row whose episode ended, waiting
// for reset, tells how it ended and what it scored, as its episode's
// metrics say.
func TestRenderTellsTheResult(t *testing.T) {
	// A ranking that a variant of latency weight 0 shares with one that
	// weighs it (a penalty no variant weighs is refused at load).
	ranked := filepath.Join(t.TempDir(), "ranked.yaml")
	require.NoError(t, os.WriteFile(ranked, []byte("name: ranked\ntask: {shape: fork-join, width: 3, stages: 1, work: exp(5m), difficulty: 0.2}\n"+
		"collective: {agents: 3, time_limit: 2h}\npolicy: {organization: split}\nreward: {penalty: group-relative}\n"+
		"variants:\n  - {name: unweighed}\n  - {name: weighed, set: {reward.latency: 0.5}}\n"), 0o644))
	for _, tc := range []struct {
		scenario, variant string // tiny's split if empty
		sets              []string
		want              string
		seen              string // the start of an outcome that some row must end with
	}{
		{"", "", nil, "Its reward is ", ""},
		{"", "", []string{"reward.penalty=group-relative", "reward.latency=0.5"}, "Its reward scored alone is ", ""},
		// A ranking of weight 0 adds nothing: the reward paid is the row's own.
		{ranked, "unweighed", nil, "Its reward is ", ""},
		{ranked, "weighed", nil, "Its reward scored alone is ", ""},
		{"", "", []string{"collective.token_budget=6000"}, "Its reward is ", "The token budget ran out at "},
	} {
		scenario, variant := cmp.Or(tc.scenario, "tiny"), cmp.Or(tc.variant, "split")
		e, err := env.New(env.Config{Scenario: scenario, Variant: variant, NumEnvs: 8, Group: 2, Sets: tc.sets})
		require.NoError(t, err)
		out, err := e.Reset(nil)
		require.NoError(t, err)
		outcomes := map[string]bool{}
		for k := 0; slices.Contains(out.Active, 1); k++ {
			require.Less(t, k, 10000)
			out, err = e.Step(uniformActions(t, e))
			require.NoError(t, err)
			for i := range e.NumEnvs() {
				if _, ok := e.Pending(i); ok {
					continue
				}
				f, ok := e.Finished(i)
				require.True(t, ok)
				text := e.Render(i)
				at := time.Duration(math.Round(f.Metrics.Finish.Seconds())) * time.Second
				outcome := map[bool]string{true: "is acceptable.", false: "is not acceptable."}[f.Metrics.Acceptable]
				switch {
				case f.Metrics.TimedOut:
					outcome = "The time limit cut it off at " + at.String()
				case f.Metrics.Stalled:
					outcome = "It stopped at " + at.String() + " without a submission"
				case f.Metrics.BudgetExhausted:
					outcome = "The token budget ran out at " + at.String() + ", before a submission; judged on the work complete by then, its result " + outcome
				default:
					assert.Contains(t, text, "submitted at "+at.String()+" of virtual time", "row %d", i)
				}
				outcomes[outcome] = true
				assert.Contains(t, text, outcome, "row %d", i)
				assert.Contains(t, text, fmt.Sprintf("%s%.3f", tc.want, f.Reward), "row %d", i)
			}
		}
		assert.Greater(t, len(outcomes), 1, "episodes that ended differently: %v", outcomes)
		if tc.seen != "" {
			assert.True(t, slices.ContainsFunc(slices.Collect(maps.Keys(outcomes)), func(o string) bool { return strings.HasPrefix(o, tc.seen) }), "no %q in %v", tc.seen, outcomes)
		}
	}
}

// TestRenderOrchestratorChecks checks the words of check.by orchestrator
// (exp-architecture's centralized): a helper's check hands its part back,
// and the main agent's unchecked part may be a helper's, accepted
// unchecked by any other action. The words of a maker's own check would
// mislead both.
func TestRenderOrchestratorChecks(t *testing.T) {
	e, err := env.New(env.Config{Scenario: "exp-architecture", Variant: "centralized", NumEnvs: 4, Group: 1})
	require.NoError(t, err)
	seen := map[bool]int{}
	eachDecision(t, e, 300, func(i int, p collective.Pending, text string) {
		if !p.Mask.Has(collective.Check) || p.Obs.Alone {
			return
		}
		seen[p.Obs.Main]++
		assert.NotContains(t, text, "- check: verify your last part", "row %d", i)
		if p.Obs.Main {
			assert.Contains(t, text, "\nChecks: you check the team's parts here; ", "row %d", i)
			assert.Contains(t, text, "any action but check accepts the parts waiting unchecked", "row %d", i)
			assert.NotContains(t, text, "not yet checked", "row %d", i)
			assert.Contains(t, text, "\n- check: verify your own unchecked part, or else the next part a helper handed back", "row %d", i)
		} else {
			assert.Contains(t, text, "\n- check: hand your last part back to the main agent", "row %d", i)
		}
	}, collective.Delegate, collective.Check)
	assert.Positive(t, seen[true], "main agent's checks")
	assert.Positive(t, seen[false], "helpers' checks")
}

// TestRenderTellsTheLastEpisodeWithGroupOne: with group 1 a row's next
// episode starts in the step that ends one, so the first decision's text
// tells how the last ended and what it paid; no later decision's does.
func TestRenderTellsTheLastEpisodeWithGroupOne(t *testing.T) {
	e, err := env.New(env.Config{Scenario: "tiny", Variant: "split", NumEnvs: 4, Group: 1})
	require.NoError(t, err)
	out, err := e.Reset(nil)
	require.NoError(t, err)
	const head = "This row's last episode ended in the last step. "
	for i := range e.NumEnvs() {
		assert.NotContains(t, e.Render(i), head, "no episode before the first")
	}
	ends := 0
	for range 400 {
		require.NotContains(t, out.Active, uint8(0), "with group 1 every row is always active")
		out, err = e.Step(uniformActions(t, e))
		require.NoError(t, err)
		for i := range e.NumEnvs() {
			text := e.Render(i)
			if out.Terminated[i]+out.Truncated[i] == 0 {
				assert.NotContains(t, text, head, "row %d", i)
				continue
			}
			ends++
			f, ok := e.Finished(i)
			require.True(t, ok)
			assert.True(t, strings.HasPrefix(text, head), "row %d: %s", i, text)
			assert.Contains(t, text, fmt.Sprintf("Its reward is %.3f. A new episode, on a new task, starts here.\nYou are agent ", out.Reward[i]), "row %d", i)
			assert.Equal(t, out.Reward[i], f.Reward, "row %d", i)
		}
	}
	assert.Greater(t, ends, 20)
}

// uniformActions returns an action for each active row, uniform over its
// valid ones by the row's U: episodes that end in every way.
func uniformActions(t *testing.T, e *env.Env) []int32 {
	t.Helper()
	actions := make([]int32, e.NumEnvs())
	for i := range actions {
		if p, ok := e.Pending(i); ok {
			valid := strings.Split(p.Mask.List(), ",")
			a, err := collective.ParseAction(valid[int(p.U*float64(len(valid)))])
			require.NoError(t, err)
			actions[i] = int32(a)
		}
	}
	return actions
}

// TestRenderTellsTheLastEpisodeAfterAnotherPartSteps: with steps of parts
// (StepRows, step's first and count) a row's text tells how its last
// episode ended until the row itself steps again, whatever other parts
// step meanwhile: a client that steps the halves and then renders every
// row must not lose the first half's news.
func TestRenderTellsTheLastEpisodeAfterAnotherPartSteps(t *testing.T) {
	e, err := env.New(env.Config{Scenario: "tiny", Variant: "split", NumEnvs: 4, Group: 1})
	require.NoError(t, err)
	_, err = e.Reset(nil)
	require.NoError(t, err)
	const head = "This row's last episode ended in the last step. "
	ends := 0
	for range 400 {
		actions := uniformActions(t, e)
		ended := map[int]bool{}
		for _, half := range [][2]int{{0, 2}, {2, 4}} {
			out, err := e.StepRows(half[0], half[1], actions[half[0]:half[1]])
			require.NoError(t, err)
			for _, i := range out.Ended {
				ended[int(i)] = true
			}
		}
		for i := range e.NumEnvs() {
			text := e.Render(i)
			if !ended[i] {
				assert.NotContains(t, text, head, "row %d", i)
				continue
			}
			ends++
			assert.True(t, strings.HasPrefix(text, head), "row %d, after both halves stepped: %s", i, text)
		}
	}
	assert.Greater(t, ends, 20)
}

// TestRenderCompleteAddsUp checks the words on a result that can be
// completed against the percentage of the work done: an agent that
// holds the last part left, not yet handed on, sees its work missing from
// the percentage, and must not read that every subtask is done.
func TestRenderCompleteAddsUp(t *testing.T) {
	progress := regexp.MustCompile(`\nProgress: (\d+)% of the task's work`)
	for _, tc := range []struct {
		scenario, variant string
	}{
		{"tiny", "team"},
		{"organizations", "independent"},
		{"exp-architecture", "hybrid"},
	} {
		t.Run(tc.scenario+"/"+tc.variant, func(t *testing.T) {
			e, err := env.New(env.Config{Scenario: tc.scenario, Variant: tc.variant, NumEnvs: 8, Group: 1})
			require.NoError(t, err)
			lastHeld := 0
			eachDecision(t, e, 150, func(i int, p collective.Pending, text string) {
				m := progress.FindStringSubmatch(text)
				require.NotNil(t, m, "row %d: %s", i, text)
				if strings.Contains(text, "; every subtask is done") {
					require.Equal(t, "100", m[1], "row %d: every subtask done, yet the work done is short of it: %s", i, text)
				}
				if p.Obs.Complete && p.Obs.Progress < 1 {
					lastHeld++
					require.Contains(t, text, "the part you hold is the last", "row %d: %s", i, text)
				}
			}, collective.Check, collective.Work, collective.Wait)
			require.Positive(t, lastHeld, "some decision holds the last part")
		})
	}
}

// TestRenderSaysADelegationIsADuplicate checks the words on delegate with
// no subtask ready, which collective.handoff.duplicates allows (exp-parl):
// it hands on a duplicate of the last delegation, whose result is never
// used, not a next ready subtask that the same text says there is none of.
func TestRenderSaysADelegationIsADuplicate(t *testing.T) {
	for _, tc := range []struct {
		scenario, variant string
		dup               bool
	}{
		{"exp-parl", "no-shaping", true},
		{"tiny", "team", false},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			e, err := env.New(env.Config{Scenario: tc.scenario, Variant: tc.variant, NumEnvs: 8, Group: 1})
			require.NoError(t, err)
			dups := 0
			eachDecision(t, e, 150, func(i int, p collective.Pending, text string) {
				if !p.Mask.Has(collective.Delegate) {
					return
				}
				if p.Obs.Ready == 0 {
					dups++
					require.Contains(t, text, "\n- delegate: hand a duplicate of the last subtask you delegated", "row %d: %s", i, text)
					return
				}
				require.Contains(t, text, "\n- delegate: hand the next ready subtask", "row %d: %s", i, text)
			}, collective.Delegate, collective.Wait)
			require.Equal(t, tc.dup, dups > 0, "decisions with a duplicate to delegate: %d", dups)
		})
	}
}

// TestRenderMessagesAgree checks the words on unread messages in number:
// one message is read as "it", more as "them".
func TestRenderMessagesAgree(t *testing.T) {
	e, err := env.New(env.Config{Scenario: "tiny", Variant: "team", NumEnvs: 16, Group: 1})
	require.NoError(t, err)
	seen := map[int]bool{}
	eachDecision(t, e, 200, func(i int, p collective.Pending, text string) {
		want := "\nMessages: none unread.\n"
		switch {
		case p.Obs.Unread == 1:
			want = "\nMessages: 1 message waiting to be read (you read it in your next model call).\n"
		case p.Obs.Unread > 1:
			want = fmt.Sprintf("\nMessages: %d messages waiting to be read (you read them in your next model call).\n", p.Obs.Unread)
		}
		seen[min(p.Obs.Unread, 2)] = true
		require.Contains(t, text, want, "row %d", i)
	}, collective.Delegate, collective.Share, collective.Wait)
	require.Len(t, seen, 3, "none, one and several unread: %v", seen)
}

// TestRenderSaysTheTokensLeft checks the line on a token budget: what
// is spent and left adds up to the budget, it never falls within an
// episode, and it is no more than the episode ends up having spent; a
// scenario without a budget has no such line.
func TestRenderSaysTheTokensLeft(t *testing.T) {
	tokens := regexp.MustCompile(`\nTokens: (\d+) of the team's budget of (\d+) spent, (\d+) left \((\d+)%\)\.\n`)
	e, err := env.New(env.Config{Scenario: "exp-architecture", Variant: "centralized", NumEnvs: 8, Group: 1})
	require.NoError(t, err)
	last := make([]int64, e.NumEnvs())
	spent, ends := 0, 0
	eachDecision(t, e, 300, func(i int, p collective.Pending, text string) {
		m := tokens.FindStringSubmatch(text)
		require.NotNil(t, m, "row %d: %s", i, text)
		used, budget, left := atoi(t, m[1]), atoi(t, m[2]), atoi(t, m[3])
		require.Equal(t, int64(1_000_000), budget)
		require.Equal(t, budget, used+left, "row %d: spent and left add up to the budget", i)
		require.Equal(t, fmt.Sprintf("%.0f", 100*float64(left)/float64(budget)), m[4], "row %d: the share left", i)
		if strings.Contains(text, "A new episode, on a new task, starts here") {
			f, ok := e.Finished(i)
			require.True(t, ok)
			require.GreaterOrEqual(t, f.Metrics.BudgetUsed, last[i], "row %d: the finished episode spent at least what its last decision read", i)
			ends++
			last[i] = 0
		}
		require.GreaterOrEqual(t, used, last[i], "row %d: spent never falls within an episode", i)
		last[i] = used
		if used > 0 {
			spent++
		}
	}, collective.Delegate, collective.Work, collective.Wait)
	require.Positive(t, spent, "some decision comes after tokens were spent")
	require.Positive(t, ends, "some episode ended")

	e, err = env.New(env.Config{Scenario: "tiny", Variant: "team", NumEnvs: 2, Group: 1})
	require.NoError(t, err)
	eachDecision(t, e, 20, func(i int, _ collective.Pending, text string) {
		require.NotContains(t, text, "\nTokens:", "row %d: no budget, no line", i)
	})
}

func atoi(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	require.NoError(t, err)
	return n
}

// TestRenderAnAttemptSpawnsNone: an agent on an independent attempt reads
// the collective's room to spawn as the main team's, since it has no
// delegate; the main team's agents read it as theirs.
func TestRenderAnAttemptSpawnsNone(t *testing.T) {
	e, err := env.New(env.Config{Scenario: "organizations", Variant: "independent", NumEnvs: 8, Group: 1})
	require.NoError(t, err)
	alone, team := 0, 0
	eachDecision(t, e, 150, func(i int, p collective.Pending, text string) {
		if p.Obs.Alone {
			alone++
			require.False(t, p.Mask.Has(collective.Delegate), "row %d: an attempt delegates", i)
			require.Contains(t, text, "can still be spawned by the main team, not by you.\n", "row %d", i)
			return
		}
		team++
		require.NotContains(t, text, "not by you", "row %d", i)
	}, collective.Attempt, collective.Work)
	require.Positive(t, alone, "some decision on an attempt")
	require.Positive(t, team, "some decision of the main team")
}
