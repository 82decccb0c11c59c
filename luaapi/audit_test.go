package luaapi

import (
	"context"
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
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
	audit, path := testAudit(t)
	e := newEnvOn(t, c, Options{Config: engine.Config{Audit: audit}})
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
	entries, problems, err := auditlog.Read(f, path)
	require.NoError(t, err)
	require.Empty(t, problems)
	require.Len(t, entries, 2)
	assert.Equal(t, "create_topics", entries[0].Intent.Op)
	assert.Equal(t, "alter_configs", entries[1].Intent.Op)
	require.NotNil(t, entries[1].Outcome)
	assert.True(t, entries[1].Outcome.Items[0].Applied())
	assert.JSONEq(t, `[{"type":"topic","name":"t","configs":{"retention.ms":{"value":"604800000","source":"DEFAULT_CONFIG"}}}]`, string(entries[1].Intent.Before))
}

// The runtime's dry-run floor holds against the script: kafka.dry_run(false)
// lowers it only back to the configuration's, and every client the script
// makes (kafka.connect) has the default one's audit log and floor.
func TestDryRunFloorAndAuditHoldForEveryClient(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	audit, path := testAudit(t)

	dry := newEnvOn(t, c, Options{Config: engine.Config{Audit: audit, DryRun: true}})
	v := dry.run(`
		local was = kafka.dry_run(false)
		local r = create_topics{"x"}
		local other = kafka.connect{}
		local r2 = other:create_topics{"y"}
		return was and r[1].dry_run and r2[1].dry_run
	`)
	assert.Equal(t, lua.LTrue, v, "kafka.dry_run(false) returns the setting in force: still on")
	assert.Contains(t, dry.stderr.String(), "kafka.dry_run: stays on: the command line's --dry-run cannot be turned off from inside the run")
	assert.NotContains(t, dry.topics(), "x")
	assert.NotContains(t, dry.topics(), "y")
	assert.Empty(t, readChanges(t, path), "a dry run writes no audit line")

	// Without the floor, a kafka.connect client writes to the same log.
	live := newEnvOn(t, c, Options{Config: engine.Config{Audit: audit}})
	live.run(`kafka.dry_run(true); kafka.dry_run(false); kafka.connect{}:create_topics{"z"}`)
	assert.Contains(t, live.topics(), "z")
	changes := readChanges(t, path)
	require.Len(t, changes, 1)
	assert.Equal(t, "create_topics", changes[0].Intent.Op)
}

// A runtime on a shared client (loop mode, fleets) takes the shared
// client's audit log and dry-run floor as its own.
func TestSharedClientCarriesAuditAndDryRun(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	audit, path := testAudit(t)
	shared := NewSharedClient(engine.Config{Brokers: c.ListenAddrs(), Timeout: 10 * time.Second, Audit: audit})
	t.Cleanup(shared.Close)
	for i, name := range []string{"a", "b"} {
		rt := New(Options{Shared: shared, Stdout: io.Discard, Stderr: io.Discard})
		_, err := rt.DoString(context.Background(), "run", fmt.Sprintf(`create_topics{%q}`, name))
		require.NoError(t, err, "run %d", i)
		rt.Close()
	}
	changes := readChanges(t, path)
	require.Len(t, changes, 2, "each run's change is written ahead")

	dryShared := NewSharedClient(engine.Config{Brokers: c.ListenAddrs(), Timeout: 10 * time.Second, Audit: audit, DryRun: true})
	t.Cleanup(dryShared.Close)
	rt := New(Options{Shared: dryShared, Stdout: io.Discard, Stderr: io.Discard})
	defer rt.Close()
	v, err := rt.DoString(context.Background(), "run", `kafka.dry_run(false) return create_topics{"never"}[1].dry_run`)
	require.NoError(t, err)
	assert.Equal(t, lua.LTrue, v[0])
	assert.Len(t, readChanges(t, path), 2)
}
