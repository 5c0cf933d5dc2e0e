package policy

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	c "github.com/swarmsim/swarmsim/models/collective"
)

// TestFileLayoutDocumented: docs/scenarios.md describes the policy file
// of this build: every feature in its table, the actions in order, and
// the number of a linear policy's parameters. A feature added, renamed or
// dropped without the docs fails here.
func TestFileLayoutDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/scenarios.md")
	require.NoError(t, err)
	doc := string(b)
	start := strings.Index(doc, "### Policy files (`swarmsim-policy/1`)")
	require.GreaterOrEqual(t, start, 0, "docs/scenarios.md has no section on policy files")
	section := doc[start:]
	if end := strings.Index(section[1:], "\n## "); end >= 0 {
		section = section[:end+1]
	}
	for _, f := range FeatureNames() {
		assert.Contains(t, section, "`"+f+"`", "feature %s", f)
	}
	assert.Contains(t, section, fmt.Sprintf("%q", actionNames()[0]))
	quoted := make([]string, c.NumActions)
	for i, a := range actionNames() {
		quoted[i] = fmt.Sprintf("%q", a)
	}
	assert.Contains(t, section, "["+strings.Join(quoted, ", ")+"]", "the actions in order")
	assert.Contains(t, section, fmt.Sprintf("W, %d rows (one per action, in `actions` order) of %d weights", c.NumActions, NumFeatures))
	assert.Contains(t, section, fmt.Sprintf("%d values", len(NewLinear().Params())))
	assert.Contains(t, section, fmt.Sprintf("1 to `policy.MaxHidden`): W1, H rows of %d; then W2, %d rows of H; then b2, %d values", NumFeatures, c.NumActions, c.NumActions))
}
