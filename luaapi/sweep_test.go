package luaapi

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/engine/demo"
	"github.com/kadmin-lua/kadmin-lua/engine/schemas"
	"github.com/kadmin-lua/kadmin-lua/engine/undo"
)

// The requests that change a cluster: every write API Kafka has that an
// admin function could send, Produce included.
var mutatingKeys = []kmsg.Key{
	kmsg.Produce, kmsg.OffsetCommit, kmsg.LeaveGroup, kmsg.InitProducerID, kmsg.EndTxn, kmsg.WriteTxnMarkers,
	kmsg.TxnOffsetCommit, kmsg.AddPartitionsToTxn, kmsg.AddOffsetsToTxn,
	kmsg.CreateTopics, kmsg.DeleteTopics, kmsg.DeleteRecords, kmsg.CreatePartitions,
	kmsg.CreateACLs, kmsg.DeleteACLs, kmsg.AlterConfigs, kmsg.IncrementalAlterConfigs, kmsg.AlterReplicaLogDirs,
	kmsg.CreateDelegationToken, kmsg.RenewDelegationToken, kmsg.ExpireDelegationToken,
	kmsg.DeleteGroups, kmsg.OffsetDelete, kmsg.ElectLeaders, kmsg.AlterPartitionAssignments,
	kmsg.AlterClientQuotas, kmsg.AlterUserSCRAMCredentials, kmsg.UpdateFeatures, kmsg.UnregisterBroker,
	kmsg.AlterShareGroupOffsets, kmsg.DeleteShareGroupOffsets, kmsg.AddRaftVoter, kmsg.RemoveRaftVoter,
}

// validateOnly reports a request that asks the broker only to check.
func validateOnly(req kmsg.Request) bool {
	switch r := req.(type) {
	case *kmsg.CreateTopicsRequest:
		return r.ValidateOnly
	case *kmsg.CreatePartitionsRequest:
		return r.ValidateOnly
	case *kmsg.AlterConfigsRequest:
		return r.ValidateOnly
	case *kmsg.IncrementalAlterConfigsRequest:
		return r.ValidateOnly
	case *kmsg.AlterClientQuotasRequest:
		return r.ValidateOnly
	case *kmsg.UpdateFeaturesRequest:
		return r.ValidateOnly
	}
	return false
}

// sentMutation is a mutating request as the broker saw it, and the intent
// lines on disk then that had no outcome yet.
type sentMutation struct {
	key          kmsg.Key
	validateOnly bool
	pending      []string // ops of intents without an outcome
}

// watchMutations records every mutating request c receives from now on;
// auditPath, when set, is read as each one arrives.
func watchMutations(t *testing.T, c *kfake.Cluster, auditPath string) func() []sentMutation {
	var mu sync.Mutex
	var seen []sentMutation
	for _, k := range mutatingKeys {
		c.ControlKey(int16(k), func(req kmsg.Request) (kmsg.Response, error, bool) {
			c.KeepControl()
			m := sentMutation{key: k, validateOnly: validateOnly(req)}
			if auditPath != "" {
				m.pending = pendingIntents(t, auditPath)
			}
			mu.Lock()
			seen = append(seen, m)
			mu.Unlock()
			return nil, nil, false
		})
	}
	return func() []sentMutation {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(seen)
	}
}

// pendingIntents reads the audit log as a crash now would leave it: the
// ops of the intents with no outcome line.
func pendingIntents(t *testing.T, path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	open := map[string]string{}
	for _, line := range bytes.Split(b, []byte("\n")) {
		var rec auditlog.Record
		if json.Unmarshal(line, &rec) != nil {
			continue
		}
		switch rec.Type {
		case auditlog.TypeIntent:
			open[rec.ID] = rec.Op
		case auditlog.TypeOutcome:
			delete(open, rec.ID)
		}
	}
	var out []string
	for _, op := range open {
		out = append(out, op)
	}
	return out
}

// sweepCalls stand in for the examples that change nothing on a fresh
// demo cluster (no hanging transaction, no move to make, validate_only):
// calls that do reach mutate there, failing or not.
var sweepCalls = map[string]string{
	"abort_transaction": `pcall(abort_transaction, {topic = "orders", partition = 0, producer_id = 7, producer_epoch = 0, coordinator_epoch = 0})`,
	"update_features": `for _, f in ipairs(describe_features()) do
		if f.feature == "transaction.version" then pcall(update_features, {{feature = f.feature, max_version_level = f.supported_max}}) end
	end`,
	"alter_partition_reassignments": `local p = describe_topics{"orders"}[1].partitions[1]
		local to = {}
		for _, b in ipairs(describe_cluster().brokers) do
			if b.id ~= p.replicas[1] and #to < #p.replicas then to[#to + 1] = b.id end
		end
		alter_partition_reassignments{{topic = "orders", partition = p.partition, replicas = to}}`,
	"wait_reassignments": `alter_configs{{topic = "orders", set = {["leader.replication.throttled.replicas"] = "0:0"}}}
		wait_reassignments{topics = {"orders"}}`,
	// The demo's plan moves nothing; a new preferred leader is a move
	// kfake takes and never makes (the run says so, and ends).
	"reassign": `local p = describe_topics{"orders"}[1].partitions[1]
		local to = {p.replicas[2], p.replicas[1]}
		for i = 3, #p.replicas do to[i] = p.replicas[i] end
		reassign({{topic = "orders", partition = p.partition, replicas = to}}, {interval_ms = 1, partial = true})`,
}

// sweepClusters make the demo cluster able to answer what a function
// needs (Func.Needs) where kfake cannot: kfake implements no
// UnregisterBroker, so the sweep's cluster advertises it and answers as a
// KRaft broker does for an id it does not know.
var sweepClusters = map[string]func(t *testing.T, c *kfake.Cluster){
	"add_raft_voter":    sweepDynamicQuorum,
	"remove_raft_voter": sweepDynamicQuorum,
	"unregister_broker": func(t *testing.T, c *kfake.Cluster) {
		advertise(t, c, kmsg.UnregisterBroker)
		c.ControlKey(int16(kmsg.UnregisterBroker), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
			c.KeepControl()
			resp := kreq.ResponseKind().(*kmsg.UnregisterBrokerResponse)
			resp.ErrorCode = kerr.BrokerIDNotRegistered.Code
			return resp, nil, true
		})
	},
}

// sweepDynamicQuorum: kfake implements no AddRaftVoter/RemoveRaftVoter and
// finalizes no kraft.version; the sweep's cluster advertises both (a
// dynamic quorum, kraft.version 1) and accepts every change.
func sweepDynamicQuorum(t *testing.T, c *kfake.Cluster) {
	advertiseFeatures(t, c, 1, kmsg.AddRaftVoter, kmsg.RemoveRaftVoter)
	for _, key := range []kmsg.Key{kmsg.AddRaftVoter, kmsg.RemoveRaftVoter} {
		c.ControlKey(int16(key), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
			c.KeepControl()
			return kreq.ResponseKind(), nil, true
		})
	}
}

// sweepRun runs f's example on a fresh demo cluster with cfg's safety
// settings, watching what reaches the broker.
type sweepRun struct {
	cluster *demo.Cluster
	sent    []sentMutation
	prompts []string
	err     error
	stderr  string
}

func runSweep(t *testing.T, f *Func, cfg engine.Config, auditPath string) sweepRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := demo.Start(ctx)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	sent := watchMutations(t, c.Fake(), auditPath)
	if prepare, ok := sweepClusters[f.Name]; ok { // after the watcher, which passes requests on
		prepare(t, c.Fake())
	}
	var stdout, stderr bytes.Buffer
	var prompts []string
	cfg.Brokers, cfg.Timeout, cfg.Registry = c.Addrs, 15*time.Second, &schemas.Config{URLs: []string{c.RegistryURL}}
	rt := New(Options{Config: cfg, Stdout: &stdout, Stderr: &stderr, Stdin: strings.NewReader(""),
		Env:     func(string) string { return "" },
		Confirm: func(p string) bool { prompts = append(prompts, p); return true }})
	defer rt.Close()
	script := f.Example
	if s, ok := sweepCalls[f.Name]; ok {
		script = s
	}
	_, err = rt.DoString(ctx, f.Name+" example", script)
	return sweepRun{cluster: c, sent: sent(), prompts: prompts, err: err, stderr: stderr.String()}
}

// TestEveryMutationIsAuditedDryRunAndConfirmed sweeps every admin
// function, whatever is registered, through its example on a fresh demo
// cluster, and checks the safety promises from what reached the broker:
//   - every mutating request arrives while its intent line is on disk (a
//     function with no row in the operations table that sent one directly
//     would arrive with none; through mutate it would fail INTERNAL);
//   - every intent line's op has a row, and the function's own op (or the
//     ops it goes through) is among them;
//   - a destructive function asks first;
//   - undo reverts what it did, or says the row's reason why not;
//   - under dry-run, no mutating request but a validate_only one arrives
//     and nothing is written to the audit log.
func TestEveryMutationIsAuditedDryRunAndConfirmed(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two demo clusters per admin function; run without -short")
	}
	for _, f := range Funcs() {
		if !f.IsAdmin() {
			continue
		}
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			audit, path := testAudit(t)
			run := runSweep(t, f, engine.Config{Audit: audit}, path)
			require.NoError(t, run.err, "the example runs with an audit log\n%s", run.stderr)
			changes := readChanges(t, path)
			for _, m := range run.sent {
				if !m.validateOnly {
					assert.NotEmpty(t, m.pending, "%s reached the broker with its intent line on disk", m.key.Name())
				}
			}
			if f.Operation == nil {
				for _, p := range run.prompts {
					assert.False(t, strings.HasPrefix(p, f.Name+"("), "a function that changes nothing asks nothing")
				}
				return
			}
			ops := []string{f.Name}
			if f.Operation.Via != nil {
				ops = f.Operation.Via
			}
			var mine int
			for _, ch := range changes {
				op := engine.LookupOperation(ch.Intent.Op)
				require.NotNil(t, op, "intent op %s has a row", ch.Intent.Op)
				assert.Nil(t, op.Via, "intent lines are written by the ops themselves")
				if slices.Contains(ops, ch.Intent.Op) {
					mine++
				}
			}
			assert.NotZero(t, mine, "the example's %v calls are written ahead", ops)
			if f.Destructive {
				assert.True(t, slices.ContainsFunc(run.prompts, func(p string) bool { return strings.HasPrefix(p, f.Name+"(") }),
					"destructive %s asks first; asked: %q", f.Name, run.prompts)
			}
			assertUndone(t, run.cluster, changes, ops)

			daudit, dpath := testAudit(t)
			dry := runSweep(t, f, engine.Config{Audit: daudit, DryRun: true}, dpath)
			for _, m := range dry.sent {
				assert.True(t, m.validateOnly, "under dry-run %s reached the broker without validate_only", m.key.Name())
			}
			assert.Empty(t, readChanges(t, dpath), "a dry run writes no audit line")
			if f.Destructive {
				assert.Empty(t, dry.prompts, "a dry run asks nothing: it changes nothing")
			}
		})
	}
}

func readChanges(t *testing.T, path string) []auditlog.Change {
	t.Helper()
	changes, problems, err := auditlog.ReadFile(path, auditlog.Options{})
	require.NoError(t, err)
	require.Empty(t, problems)
	return changes
}

// assertUndone runs undo on the changes of ops: an undoable op's applied
// items are reverted (or skipped as already undone or absent), and an op
// that cannot be undone says its row's reason.
func assertUndone(t *testing.T, c *demo.Cluster, changes []auditlog.Change, ops []string) {
	t.Helper()
	cl, err := engine.New(engine.Config{Brokers: c.Addrs, Timeout: 15 * time.Second, Registry: &schemas.Config{URLs: []string{c.RegistryURL}}})
	require.NoError(t, err)
	defer cl.Close()
	steps, err := undo.Run(context.Background(), cl, changes, undo.Options{Confirm: func(string) bool { return true }})
	require.NoError(t, err)
	require.NotEmpty(t, steps)
	for _, s := range steps {
		if !slices.Contains(ops, s.Op) {
			continue
		}
		row := engine.LookupOperation(s.Op)
		assert.NotContains(t, s.Message, "does not know", "%s: undo knows every op", s.Op)
		assert.NotEqual(t, engine.UndoFailed, s.Action, "%s %s: %s", s.Op, s.Resource, s.Message)
		if s.Action == engine.UndoImpossible {
			assert.False(t, row.Undoable(), "%s: an undoable op is reverted: %s", s.Op, s.Message)
			assert.Equal(t, row.Undo, s.Message)
		}
	}
}
