package scenarios

import (
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmsim/swarmsim/models/rlcr"
)

// TestNeverDelegate: the hand-off reason names each organization once, as
// a list read aloud.
func TestNeverDelegate(t *testing.T) {
	const tail = ", so no hand-off can be misunderstood (centralized, decentralized, hybrid, split and team do)"
	for _, tt := range []struct {
		names []string
		want  string
	}{
		{[]string{"sequential"}, `the fixed organization "sequential" never delegates`},
		{[]string{"independent", "sequential"}, `the fixed organizations "independent" and "sequential" never delegate`},
		{[]string{"a", "b", "c"}, `the fixed organizations "a", "b" and "c" never delegate`},
	} {
		assert.Equal(t, tt.want+tail, neverDelegate(tt.names))
	}
}

// TestDefaultTextRestoresTheDefault checks the remedy that an unused value's
// error gives, --set PATH=DEFAULT: for every rule's field it sets the
// default, so that a library scenario's value, which no one can remove, is
// no longer given.
func TestDefaultTextRestoresTheDefault(t *testing.T) {
	for _, r := range inertRules {
		text := strings.Trim(defaultText(r.path), "'") // the shell's quotes
		sc, err := Load("tiny", []string{r.path + "=" + text})
		require.NoError(t, err, "--set %s=%s", r.path, text)
		got := reflect.ValueOf(&sc.Variants[0].Spec).Elem().FieldByIndex(ruleFields()[r.path].index).Interface()
		assert.Equal(t, ruleFields()[r.path].def, got, "--set %s=%s", r.path, text)
	}
}

// TestInert: a field is inert where a rule says its value does nothing
// under the spec (λ beside an advantage other than ppo-gae), and not
// where it acts or no rule names it.
func TestInert(t *testing.T) {
	gae, flat := defaultSpec, defaultSpec
	gae.Train.Advantage, flat.Train.Advantage = rlcr.PPOGAE, rlcr.FlatCollective
	for _, tt := range []struct {
		name string
		spec Spec
		path string
		want string // a part of the reason; "" for none
	}{
		{"lambda under ppo-gae", gae, "train.lambda", ""},
		{"lambda under flat-collective", flat, "train.lambda", "only the ppo-gae advantage reads it"},
		{"std_norm under flat-collective", flat, "train.std_norm", ""},
		{"no rule", flat, "train.lr", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := Inert(&tt.spec, tt.path)
			if tt.want == "" {
				assert.Empty(t, got)
			} else {
				assert.Contains(t, got, tt.want)
			}
		})
	}
}
