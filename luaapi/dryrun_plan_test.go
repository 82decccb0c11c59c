package luaapi

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

// A dry run says what it would do once: the plan lines, then only the items
// the validation refused; the rows returned carry dry_run=true.
func TestDryRunPrintsThePlanOnce(t *testing.T) {
	e := newEnv(t)
	_, err := e.adm.CreateTopic(e.ctx(), 1, 1, nil, "exists")
	require.NoError(t, err)
	e.run(`kafka.dry_run(true)`)
	e.run(`
		local rows = create_topics({"fresh", "exists"}, {partial = true})
		assert(rows[1].dry_run and rows[2].dry_run)
		assert(rows[1].name == "exists" and rows[1].error.code == "TOPIC_ALREADY_EXISTS")`)
	onCluster := regexp.MustCompile(` \(on 127\.0\.0\.1:\d+,\.\.\.\)$`) // each line names its cluster
	lines := strings.Split(strings.TrimSpace(e.stderr.String()), "\n")
	for i, l := range lines {
		assert.Regexp(t, onCluster, l)
		lines[i] = onCluster.ReplaceAllString(l, "")
	}
	assert.Equal(t, []string{
		"dry-run: create_topics: create topic fresh (partitions broker default, replication factor broker default, 0 configs)",
		"dry-run: create_topics: create topic exists (partitions broker default, replication factor broker default, 0 configs)",
		"dry-run: create_topics: exists: would fail: TOPIC_ALREADY_EXISTS: Topic with this name already exists.",
	}, lines)
	assert.NotContains(t, e.stderr.String(), "would apply")
	assert.NotContains(t, e.topics(), "fresh")

	e.stderr.Reset()
	e.run(`cancel_partition_reassignments({{topic = "exists", partition = 0}}, {partial = true})`)
	assert.Equal(t, "dry-run: cancel_partition_reassignments: cancel the reassignment of exists[0]\n"+
		"dry-run: cancel_partition_reassignments: exists[0]: would fail: NO_REASSIGNMENT_IN_PROGRESS: "+
		"No partition reassignment is in progress.\n", regexp.MustCompile(` \(on [^)]*\)\n`).ReplaceAllString(e.stderr.String(), "\n"))

	// A function that writes no plan line of its own: each item's verdict.
	e.stderr.Reset()
	e.rt.printPlan(&Call{Fn: &Func{Name: "f"}}, []engine.Item{engine.DeletedTopic{Name: "a"},
		engine.DeletedTopic{Name: "b", Err: &engine.Error{Code: "X", Message: "no", Resource: "b"}}})
	assert.Equal(t, "dry-run: f: a: would apply\ndry-run: f: b: would fail: X: no\n", e.stderr.String())
	e.stderr.Reset()
	e.rt.printPlan(&Call{Fn: &Func{Name: "f"}}, nil)
	assert.Equal(t, "dry-run: f: nothing changed\n", e.stderr.String())
}
