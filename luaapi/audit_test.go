package luaapi

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

// A dry run changes nothing, and its batch error says so: what would be
// applied, and what was refused in validation; never "applied".
func TestDryRunBatchErrorNeverSaysApplied(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{"orders"}`)
	e.run(`kafka.dry_run(true)`)
	re := e.runErr(`delete_topics{"orders", "nope"}`)
	assert.Equal(t, "UNKNOWN_TOPIC_OR_PARTITION", re.Code)
	assert.NotContains(t, re.Message, "applied: orders")
	assert.Contains(t, re.Message, "dry run, nothing changed: 1 of 2 refused in validation: nope; would apply: orders")
	assert.Contains(t, e.topics(), "orders")

	re = e.runErr(`create_topics{"orders", "fresh"}`)
	assert.Equal(t, "TOPIC_ALREADY_EXISTS", re.Code)
	assert.Contains(t, re.Message, "would apply: fresh")
	assert.NotContains(t, e.topics(), "fresh")
}

// Lua calls are audited by the engine: one intent and one outcome line per
// mutation, none for a refused call, a dry run or a read.
func TestLuaMutationsAreWrittenAhead(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	audit, err := engine.OpenAuditLog(path)
	require.NoError(t, err)
	t.Cleanup(func() { _ = audit.Close() })
	e := newEnvOn(t, c, Options{Audit: audit})
	e.run(`
		create_topics{{name = "t", partitions = 1}}
		list_topics()
		pcall(create_topics, {{name = "bad", partitions = "x"}})
		kafka.dry_run(true)
		delete_topics{"t"}
		kafka.dry_run(false)
		alter_configs{{topic = "t", set = {["retention.ms"] = "1000"}}}
	`)
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	entries, problems, err := engine.ReadAuditLog(f, path)
	require.NoError(t, err)
	require.Empty(t, problems)
	require.Len(t, entries, 2)
	assert.Equal(t, "create_topics", entries[0].Intent.Op)
	assert.Equal(t, "alter_configs", entries[1].Intent.Op)
	require.NotNil(t, entries[1].Outcome)
	assert.True(t, entries[1].Outcome.Items[0].Applied())
	assert.JSONEq(t, `[{"type":"topic","name":"t","configs":{"retention.ms":{"value":"604800000","source":"DEFAULT_CONFIG"}}}]`, string(entries[1].Intent.Before))
}
