package scripts_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/internal/movesim"
	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

// The runbooks that move data, on the demo cluster, which accepts
// reassignments but copies no data: the plans under --dry-run and the
// refusals, each changing nothing. The real moves are in integration/four.

// A demote of broker 2 plans it leading nothing, its replicas kept; the
// batches go to stderr; a drain that leaves no broker, an unknown broker
// and bad flags are refused.
func TestDrainBroker(t *testing.T) {
	e := newEnv(t)
	before := e.topics()["orders"].Partitions

	r := e.ok(true, "drain-broker.lua", "2", "--demote-only", "--max-moves-per-broker", "2")
	require.Len(t, r.rows, 1)
	assert.Equal(t, 2.0, r.rows[0]["broker"])
	assert.Equal(t, 0.0, r.rows[0]["leaders"], "planned: broker 2 leads nothing")
	assert.Equal(t, r.rows[0]["replicas_before"], r.rows[0]["replicas"], "a demote keeps the replicas")
	assert.Positive(t, r.rows[0]["leaders_before"])
	assert.Contains(t, r.stderr, "dry-run: reassign: batch 1:")
	assert.Contains(t, r.stderr, "dry-run: step 1, leadership:")
	assert.Empty(t, r.checks)

	e.usage("drain-broker.lua", "broker 9 is not in the cluster (brokers: 0, 1, 2)", "9")
	e.usage("drain-broker.lua", "--throttle must be bytes per second", "1", "--throttle", "fast")
	e.usage("drain-broker.lua", "--unregister empties the brokers first", "1", "--demote-only", "--unregister")
	e.usage("drain-broker.lua", "--max-moves-per-broker must be a positive integer", "1", "--max-moves-per-broker", "0")
	// --resume: under --dry-run it plans from the cluster as it is; for real it
	// needs the audit log the run was written to, and says so before anything moves.
	r = e.ok(true, "drain-broker.lua", "2", "--demote-only", "--resume")
	assert.Contains(t, r.stderr, "the interrupted run is not resumed under --dry-run")
	assert.Equal(t, 0.0, r.rows[0]["leaders"])
	r = e.run(false, "drain-broker.lua", "2", "--demote-only", "--resume")
	require.NotNil(t, r.err)
	assert.Contains(t, r.err.Message, "resume needs the audit log the run was written to (--audit-log)")
	r = e.run(false, "drain-broker.lua", "0", "1", "2")
	require.NotNil(t, r.err)
	assert.Contains(t, r.err.Message, "draining brokers 0, 1, 2 leaves no broker for their replicas; nothing changed")
	assert.Equal(t, before, e.topics()["orders"].Partitions, "nothing changed")
}

// Balanced topics are nothing to do (a row per broker, as planned); a bad
// --by is refused.
func TestRebalance(t *testing.T) {
	e := newEnv(t)
	r := e.ok(true, "rebalance.lua", "orders", "payments")
	assert.Contains(t, r.stderr, "already balanced: nothing to move")
	assert.Len(t, r.rows, 3, "a row per broker")
	e.usage("rebalance.lua", `--by must be count or bytes, got "disk"`, "orders", "--by", "disk")
}

// A lower factor under --dry-run lists each partition's replicas before
// and after, the leader kept; more replicas than brokers, and fewer than
// min.insync.replicas without --force, are refused.
func TestSetReplicationFactor(t *testing.T) {
	e := newEnv(t)
	r := e.ok(true, "set-replication-factor.lua", "payments", "2", "--throttle", "50MiB")
	require.Len(t, r.rows, 3)
	for _, row := range r.rows {
		assert.Len(t, row["replicas_before"], 3)
		assert.Len(t, row["replicas"], 2)
		assert.Equal(t, row["replicas_before"].([]any)[0], row["replicas"].([]any)[0], "the leader is kept")
	}
	assert.Contains(t, r.stderr, "dry-run: replication factor: 3 partition(s) in")

	e.usage("set-replication-factor.lua", "N must be a positive integer", "orders", "0")
	r = e.run(false, "set-replication-factor.lua", "orders", "4")
	require.NotNil(t, r.err)
	assert.Contains(t, r.err.Message, "orders: a replication factor of 4 needs 4 brokers; the cluster has 3; nothing changed")
	r = e.run(false, "set-replication-factor.lua", "orders", "1")
	require.NotNil(t, r.err)
	assert.Contains(t, r.err.Message, "orders: min.insync.replicas is 2: with 1 replica(s) producers with acks=all fail (NOT_ENOUGH_REPLICAS); lower min.insync.replicas first, or give --force; nothing changed")
	for _, topic := range []string{"orders", "payments"} {
		for p, d := range e.topics()[topic].Partitions {
			assert.Len(t, d.Replicas, 3, "%s[%d]: nothing changed", topic, p)
		}
	}
}

// When the run ends but a partition does not show N replicas (here the
// sim moves the replicas while describe_topics, which it does not model,
// still shows three), the check fails the run (exit 4) and the runbook
// does not also say every partition has N replicas.
func TestSetReplicationFactorSaysNoSuccessOverAFailedCheck(t *testing.T) {
	sim := movesim.New(t, 4, 1000)
	var replicas [][]int32
	for p := range 3 {
		replicas = append(replicas, []int32{int32(p % 4), int32((p + 1) % 4), int32((p + 2) % 4)})
	}
	sim.Topic("orders", replicas, 1000)
	var stdout, stderr bytes.Buffer
	rt := luaapi.New(luaapi.Options{Config: engine.Config{Brokers: sim.Addrs, Timeout: 5 * time.Second}, Stdout: &stdout, Stderr: &stderr, Output: "json"})
	defer rt.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := rt.DoFile(ctx, "set-replication-factor.lua", []string{"orders", "2"})
	require.NoError(t, err)
	for p := range int32(3) {
		assert.Len(t, sim.Replicas("orders", p), 2, "orders[%d] moved", p)
	}
	assert.Len(t, rt.CheckFailures(), 3, "describe_topics shows 3 replicas: exit 4")
	assert.Contains(t, stderr.String(), "orders[0] has 3 replicas, not 2")
	assert.NotContains(t, stderr.String(), "every partition has 2 replicas")
}
