package collective_test

import (
	"math/bits"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/collective"
)

// actionSeeds are names as scenario files give them: each action's, and
// near misses of case, spacing and spelling.
var actionSeeds = []string{"work", "delegate", "attempt", "share", "check", "wait", "submit", "Work", " wait", "wrk", "", "Action(7)"}

// FuzzParseAction: a string is read as the action whose name it is, and
// only an action's name is read; any other string is refused with an
// error that quotes it and lists every action's name as allowed.
func FuzzParseAction(f *testing.F) {
	for _, s := range actionSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := collective.ParseAction(s)
		if err != nil {
			for b := range collective.Action(collective.NumActions) {
				require.NotEqual(t, b.String(), s, "an action's name is refused")
			}
			requireNamesAllowed(t, err, s)
			return
		}
		require.Less(t, int(a), collective.NumActions)
		require.Equal(t, s, a.String())
	})
}

// FuzzParseMask: a list of names (here comma-separated, as Mask.List
// writes them) is read as the mask of exactly those actions, which List
// writes in a form that reads back to the same mask. A list is refused
// at its first name that is not an action's, or that repeats an earlier
// one, and the error gives its position, quotes it and says what is wrong.
func FuzzParseMask(f *testing.F) {
	for _, s := range actionSeeds {
		f.Add(s)
	}
	f.Add("delegate,work")
	f.Add("work,delegate,attempt,share,check,wait,submit")
	f.Add("work,wait,work")
	f.Add("work,,wait")
	f.Fuzz(func(t *testing.T, s string) {
		names := split(s)
		m, err := collective.ParseMask(names)
		if err != nil {
			at, msg, ok := strings.Cut(err.Error(), "]: ")
			i, aerr := strconv.Atoi(strings.TrimPrefix(at, "["))
			require.True(t, ok && strings.HasPrefix(at, "[") && aerr == nil && 0 <= i && i < len(names), "%v for %q", err, names)
			_, before := collective.ParseMask(names[:i])
			require.NoError(t, before, "%q is refused at [%d], not before", names, i)
			if _, bad := collective.ParseAction(names[i]); bad != nil {
				requireNamesAllowed(t, err, names[i])
				return
			}
			require.Contains(t, names[:i], names[i], "%v for %q", err, names)
			require.Equal(t, strconv.Quote(names[i])+" is listed twice", msg)
			return
		}
		require.Less(t, int(m), 1<<collective.NumActions)
		require.Equal(t, len(names), bits.OnesCount8(uint8(m)), "%q read as %s", names, m.List())
		for _, n := range names {
			a, err := collective.ParseAction(n)
			require.NoError(t, err)
			require.True(t, m.Has(a), "%q read as %s", names, m.List())
		}
		back, err := collective.ParseMask(split(m.List()))
		require.NoError(t, err, "%q", m.List())
		require.Equal(t, m, back, "%q", m.List())
	})
}

// split splits a comma-separated list, the empty string being no names.
func split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// requireNamesAllowed requires err to quote the refused name s and to
// list every action's name as allowed, in parentheses that a suggestion
// of the nearest name may follow.
func requireNamesAllowed(t *testing.T, err error, s string) {
	t.Helper()
	msg := err.Error()
	require.Contains(t, msg, strconv.Quote(s))
	i := strings.LastIndex(msg, "(allowed: ")
	require.GreaterOrEqual(t, i, 0, "%v", err)
	list, _, closed := strings.Cut(msg[i+len("(allowed: "):], ")")
	require.True(t, closed, "%v", err)
	allowed := strings.Split(list, ", ")
	for a := range collective.Action(collective.NumActions) {
		require.Contains(t, allowed, a.String(), "%v", err)
	}
}
