package luaapi

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A dry run's plan is shown once: the dry-run lines say it, and table
// output does not repeat the returned rows; machine outputs keep them.
func TestDryRunPlanShownOnce(t *testing.T) {
	e := newEnv(t)
	src := `kafka.dry_run(true); local r = create_topics{{name = "planned", partitions = 3}}; kafka.dry_run(false); return r`
	e.stderr.Reset()
	out := e.format(src, "table")
	assert.Equal(t, "(dry run: 1 row, as the dry-run lines say; --output json prints the rows)\n", out)
	assert.Equal(t, 1, strings.Count(e.stderr.String(), "planned"), "the plan names the topic once: %s", e.stderr)
	assert.Contains(t, e.stderr.String(), "dry-run: create_topics: create topic planned (partitions 3,")
	assert.NotContains(t, e.topics(), "planned", "a dry run creates nothing")

	assert.Contains(t, e.format(src, "json"), `"name": "planned"`)
	assert.Contains(t, e.format(src, "ndjson"), `"dry_run":true`)

	// The same call for real prints its table.
	real := e.format(`return create_topics{{name = "planned", partitions = 3}}`, "table")
	assert.Contains(t, real, "planned")
	assert.Contains(t, real, "PARTITIONS")
	assert.Contains(t, e.topics(), "planned")
}
