package luaapi

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/internal/movesim"
)

// movesEnv is a runtime on a sim of 4 brokers whose topic orders (6
// partitions of 1000 bytes) has a replica on broker 3 everywhere; each
// poll lets a second of copying pass.
func movesEnv(t *testing.T, audited bool) (*env, *movesim.Sim, string) {
	t.Helper()
	sim := movesim.New(t, 4, 250)
	var replicas [][]int32
	for p := range 6 {
		replicas = append(replicas, []int32{3, int32(p % 3), int32((p + 1) % 3)})
	}
	sim.Topic("orders", replicas, 1000)
	sim.AdvanceOnPoll(time.Second)
	o := Options{}
	path := ""
	if audited {
		o.Config.Audit, path = testAudit(t)
	}
	return newEnvOn(t, sim.C, o), sim, path
}

// reassign from Lua drains broker 3 as planned by plan_reassignment,
// never more than the cap in flight, with a throttle a function raises
// while it runs, and tells on_progress how far it got.
func TestReassignFromLua(t *testing.T) {
	e, sim, _ := movesEnv(t, true)
	out := e.json(`
		local plan = plan_reassignment{topics = {"orders"}, brokers = {0, 1, 2}}
		local polls, last = 0, nil
		local rows = reassign(plan, {max_moves_per_broker = 2, interval_ms = 1,
			throttle = function(st)
				if st.done >= 2 then return {all = 2048, [1] = 4096} end
				return 1024
			end,
			on_progress = function(st) polls = polls + 1; last = st end})
		return {rows = rows, polls = polls, last = last, moves = plan.moves}`)
	t.Log(out)
	assert.Contains(t, out, `"moves":6`)
	assert.Equal(t, 6, strings.Count(out, `"state":"done"`))
	assert.Contains(t, out, `"last":{"batches":`)
	assert.Contains(t, out, `"done":6`)
	assert.Contains(t, out, `"copied_bytes":6000`)

	md, err := e.adm.Metadata(e.ctx(), "orders")
	require.NoError(t, err)
	for p, pd := range md.Topics["orders"].Partitions {
		assert.NotContains(t, pd.Replicas, int32(3), "orders[%d]", p)
		assert.Len(t, pd.Replicas, 3)
	}
	_, per := sim.Peak()
	assert.Equal(t, 2, per[3])
	stderr := e.stderr.String()
	assert.Contains(t, stderr, "replication throttle now 2.0 KiB/s, broker 1 4.0 KiB/s")
	assert.Contains(t, stderr, "remove the replication throttle from topic:orders")
}

// What reassign refuses says which argument and why, and sends nothing.
func TestReassignRefusesBadInput(t *testing.T) {
	e, sim, _ := movesEnv(t, false)
	for src, want := range map[string]string{
		`reassign({{topic = "orders", partition = 0}})`:                                                                    "plan #1: replicas: is required",
		`reassign({{topic = "orders", partition = 0, replicas = {1, 1}}})`:                                                 "lists broker 1 twice",
		`reassign({{topic = "orders", partition = 0, replicas = {1}}}, {throttle = 0})`:                                    "throttle",
		`reassign({{topic = "orders", partition = 0, replicas = {1}}}, {order = "fast"})`:                                  `order`,
		`reassign({{topic = "orders", partition = 0, replicas = {1}}, {topic = "orders", partition = 0, replicas = {2}}})`: "orders[0]",
		`reassign(nil, {resume = true})`:                                                                                   "resume needs the audit log the run was written to (--audit-log)",
		`reassign({{topic = "orders", partition = 0, replicas = {0, 1, 2}, current = {0, 1, 2}}})`:                         "STALE_PLAN",
	} {
		re := e.runErr(src)
		assert.Contains(t, re.Error(), "reassign", src)
		assert.Contains(t, re.Error(), want, src)
	}
	sent, _ := sim.Sent()
	assert.Empty(t, sent)
}

// Under --dry-run the rows say each move's batch and bytes, a plan line
// per batch goes to stderr, and nothing is sent.
func TestReassignDryRun(t *testing.T) {
	e, sim, _ := movesEnv(t, false)
	out := e.json(`kafka.dry_run(true)
		return reassign(plan_reassignment{topics = {"orders"}, brokers = {0, 1, 2}}, {max_moves_per_broker = 2})`)
	assert.Equal(t, 2, strings.Count(out, `"batch":1`))
	assert.Equal(t, 2, strings.Count(out, `"batch":3`))
	assert.Equal(t, 6, strings.Count(out, `"bytes":1000`))
	assert.Contains(t, e.stderr.String(), "reassign: batch 3: 2 partition(s), 2.0 KiB to copy")
	sent, _ := sim.Sent()
	assert.Empty(t, sent)
}

// An interrupted run (Ctrl-C) raises CANCELED naming the run, its moves
// in flight left moving; resume = true from Lua finishes it without
// sending anything twice.
func TestReassignResumeFromLua(t *testing.T) {
	e, sim, _ := movesEnv(t, true)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e.rt.L.SetGlobal("ctrl_c", e.rt.L.NewFunction(func(*lua.LState) int { cancel(); return 0 }))
	_ = e.run(`plan = plan_reassignment{topics = {"orders"}, brokers = {0, 1, 2}}`)
	_, err := e.rt.DoString(ctx, "test", `reassign(plan, {max_moves_per_broker = 2, interval_ms = 1,
		on_progress = function(st) if st.done >= 2 then ctrl_c() end end})`)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "CANCELED")
	assert.Contains(t, err.Error(), "resume it with reassign(plan, {resume = ")
	assert.Positive(t, sim.Moving(), "the moves in flight go on")

	out := e.json(`return reassign(nil, {resume = true, interval_ms = 1})`)
	assert.Equal(t, 6, strings.Count(out, `"state":"done"`))
	sent, _ := sim.Sent()
	assert.Len(t, sent, 6)
	for tp, n := range sent {
		assert.Equal(t, 1, n, "%s sent once", tp)
	}
}

// An error the executor names itself ("reassign: ...") is not named twice.
func TestReassignErrorIsNamedOnce(t *testing.T) {
	e := newEnv(t)
	re := e.runErr(`reassign(nil, {resume = true})`)
	assert.Equal(t, "reassign: resume needs the audit log the run was written to (--audit-log)", re.Message)
}

// A callback that raises (on_progress, the throttle function) is said in a
// line with its message: error("text"), or a kadmin-lua error table by its
// code and message, never as a table's address with a traceback; once
// while it keeps failing the same way; the run goes on.
func TestReassignCallbackErrorsAreSaidReadably(t *testing.T) {
	e, _, _ := movesEnv(t, false)
	out := e.json(`
		local rows = reassign(plan_reassignment{topics = {"orders"}, brokers = {0, 1, 2}}, {interval_ms = 1,
			throttle = function(st) error("no rate today") end,
			on_progress = function(st) describe_topics("no-such-topic") end})
		return #rows`)
	assert.Equal(t, "6", strings.TrimSpace(out))
	stderr := e.stderr.String()
	assert.Contains(t, stderr, "reassign: on_progress: describe_topics: no-such-topic: UNKNOWN_TOPIC_OR_PARTITION")
	assert.Contains(t, stderr, "reassign: throttle function: ")
	assert.Contains(t, stderr, "no rate today; the throttle stays")
	assert.NotContains(t, stderr, "table: 0x")
	assert.NotContains(t, stderr, "stack traceback")
	assert.Equal(t, 1, strings.Count(stderr, "reassign: on_progress: "), "said once, not at every poll")
	assert.Equal(t, 1, strings.Count(stderr, "no rate today"))
}
