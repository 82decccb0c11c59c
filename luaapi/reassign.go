package luaapi

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

func init() {
	register(
		&Func{Name: "list_partition_reassignments", Area: "reassign", Args: "([topics])",
			Returns: "{{topic=, partition=, replicas=, adding_replicas=, removing_replicas=}...}",
			Summary: "List the partition reassignments in progress.",
			Doc:     "topics (a name or an array) keeps only those topics; without it every reassignment in the cluster is listed. replicas is the union of the old and new replicas while data moves.",
			Example: `for _, r in ipairs(list_partition_reassignments()) do print(r.topic, r.partition, #r.adding_replicas) end`,
			Run:     listReassignments},
		&Func{Name: "alter_partition_reassignments", Area: "reassign", Mutating: true, Destructive: true,
			Args:    "(rows[, {partial=}])",
			Returns: "{{topic=, partition=, replicas=, error=}...}",
			Summary: "Move partitions to new replicas (data is copied to the new brokers).",
			Doc: `A row is {topic=, partition=, replicas={broker ids}}; the first replica is the preferred leader. A plan from plan_reassignment (or its partitions) is accepted as is: its rows' target is the new replicas.
The call returns once Kafka has accepted the reassignments; the data moves in the background (see list_partition_reassignments and wait_reassignments). Under --dry-run nothing moves: each partition is checked to exist and each broker to be in the cluster.`,
			Example: `local plan = plan_reassignment{topics = {"orders"}, brokers = {0, 1, 2}}
if plan.moves > 0 then alter_partition_reassignments(plan) end`,
			Run: alterReassignments},
		&Func{Name: "cancel_partition_reassignments", Area: "reassign", Mutating: true, Destructive: true,
			Args:    "(rows[, {partial=}])",
			Returns: "{{topic=, partition=, error=}...}",
			Summary: "Cancel reassignments in progress: partitions go back to their original replicas.",
			Doc:     "A row is {topic=, partition=}. A partition that is not being reassigned fails with NO_REASSIGNMENT_IN_PROGRESS.",
			Example: `local ok, err = pcall(cancel_partition_reassignments, {{topic = "orders", partition = 0}})
print(ok or err.code)`,
			Run: cancelReassignments},
		&Func{Name: "plan_reassignment", Area: "reassign",
			Args:    "{topics=, [brokers=], [racks={[broker_id]=rack}]}",
			Returns: "{moves=, leader_changes=, partitions={{topic=, partition=, current=, target=, moves=}...}}",
			Summary: "Plan a balanced, rack-aware reassignment that moves the fewest replicas.",
			Doc: `Spreads the topics' replicas and preferred leaders (first replicas) evenly over brokers (default: every broker), keeping each partition's replication factor and every replica that can stay: among balanced assignments it picks one with the fewest replica moves. No two replicas of a partition share a rack when the brokers span enough racks (else at most an even share per rack); racks come from the cluster's broker racks unless given as {[broker_id]="rack"}; a broker without a rack counts as its own.
moves counts replicas copied to a broker that did not hold them; partitions lists only the partitions that change (replicas or preferred leader), so the plan can be passed straight to alter_partition_reassignments. Nothing changes on the cluster. A replication factor larger than the broker count fails with INVALID_REPLICATION_FACTOR.`,
			Example: `local plan = plan_reassignment{topics = {"orders", "payments"}}
print(plan.moves .. " replicas move")
for _, p in ipairs(plan.partitions) do print(p.topic, p.partition, table.concat(p.target, ",")) end`,
			Run: planReassignment},
		&Func{Name: "wait_reassignments", Area: "reassign",
			Args:    "([{timeout=, topics=, interval_ms=}])",
			Returns: "{{topic=, partition=, replicas=}...}",
			Summary: "Wait until no partition reassignment is in progress.",
			Doc: `Polls list_partition_reassignments (every interval_ms, default 1000) until none is in progress (of topics, when given) and returns the partitions that finished meanwhile, with their final replicas. timeout is milliseconds or a duration string like "30m" (default 30m); when it passes first the call raises TIMEOUT naming the partitions still moving.
On a terminal a progress line is written to stderr after each poll.`,
			Example: `local done = wait_reassignments{timeout = "10m"}
print(#done .. " partitions finished moving")`,
			Run: waitReassignments},
	)
}

func listReassignments(c *Call) (any, error) {
	return namesCall(c, "topics", true, func(cl *engine.Client, topics []string) (any, error) {
		return cl.ListPartitionReassignments(c.Ctx(), topics)
	})
}

// partitionRows reads an array of {topic=, partition=, ...} rows; withReplicas
// also reads replicas= (or a plan row's target=). A plan table
// {moves=, partitions={...}} stands for its partitions.
func partitionRows(v lua.LValue, withReplicas bool) ([]engine.PartitionTarget, error) {
	t, ok := v.(*lua.LTable)
	if !ok {
		return nil, argErr("rows", "must be an array of {topic=, partition=...} rows, got %s", describe(v))
	}
	fromPlan := false
	if parts, ok := t.RawGetString("partitions").(*lua.LTable); ok && t.RawGetString("topic") == lua.LNil {
		t, fromPlan = parts, true
	}
	if err := onlyArray(t, "rows"); err != nil {
		return nil, err
	}
	var out []engine.PartitionTarget
	for i := 1; i <= t.Len(); i++ {
		where := fmt.Sprintf("row #%d", i)
		allowed := []string{"topic", "partition"}
		if withReplicas {
			allowed = append(allowed, "replicas", "target", "current", "moves")
		}
		f := newFields(t.RawGetInt(i), where, allowed...)
		pt := engine.PartitionTarget{Topic: f.str("topic", true), Partition: int32(f.integer("partition", 0, -1))}
		if f.err == nil && !f.has("partition") {
			f.fail("partition", "is required")
		}
		if withReplicas {
			key := "replicas"
			if !f.has(key) && f.has("target") {
				key = "target"
			}
			pt.Replicas = brokerIDs(f, key)
		}
		if f.err != nil {
			return nil, f.err
		}
		out = append(out, pt)
	}
	if len(out) == 0 && !fromPlan { // a plan with nothing to change is fine
		return nil, argErr("rows", "must name at least one partition")
	}
	return out, nil
}

// brokerIDs reads a required non-empty array of broker ids.
func brokerIDs(f *fields, key string) []int32 {
	bt, ok := f.get(key).(*lua.LTable)
	if !ok || bt.Len() == 0 {
		f.fail(key, "must be a non-empty array of broker ids, got %s", describe(f.get(key)))
		return nil
	}
	var out []int32
	for i := 1; i <= bt.Len(); i++ {
		b, ok := toInt(bt.RawGetInt(i))
		if !ok || b < 0 {
			f.fail(key, "broker ids must be non-negative integers, got %s", describe(bt.RawGetInt(i)))
			return nil
		}
		out = append(out, int32(b))
	}
	return out
}

func alterReassignments(c *Call) (any, error) {
	return reassignCall(c, true)
}

func cancelReassignments(c *Call) (any, error) {
	return reassignCall(c, false)
}

func reassignCall(c *Call, alter bool) (any, error) {
	rows, err := partitionRows(c.Arg(1), alter)
	if err != nil {
		return nil, err
	}
	cl, err := c.clientAfterOptions(2)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		c.Plan("the plan changes nothing")
		return []engine.ReassignResult{}, nil
	}
	if c.DryRun() {
		for _, r := range rows {
			if alter {
				c.Plan("move %s[%d] to brokers %v", r.Topic, r.Partition, r.Replicas)
			} else {
				c.Plan("cancel the reassignment of %s[%d]", r.Topic, r.Partition)
			}
		}
		return cl.CheckReassignTargets(c.Ctx(), rows, !alter)
	}
	if alter {
		return cl.AlterPartitionReassignments(c.Ctx(), rows)
	}
	return cl.CancelPartitionReassignments(c.Ctx(), rows)
}

func planReassignment(c *Call) (any, error) {
	if _, ok := c.Arg(1).(*lua.LTable); !ok {
		return nil, argErr("argument #1", "must be a table {topics=, brokers=, racks=}, got %s", describe(c.Arg(1)))
	}
	f := newFields(c.Arg(1), "options", "topics", "brokers", "racks")
	o := engine.PlanOptions{Topics: f.strings("topics")}
	if f.err == nil && len(o.Topics) == 0 {
		f.fail("topics", "is required (a topic name or an array of names)")
	}
	if f.has("brokers") {
		o.Brokers = brokerIDs(f, "brokers")
	}
	if f.has("racks") {
		o.Racks = rackMap(f)
	}
	if f.err != nil {
		return nil, f.err
	}
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.PlanReassignmentOn(c.Ctx(), o)
}

// rackMap reads racks={[1]="a", [2]="b"}.
func rackMap(f *fields) map[int32]string {
	t, ok := f.get("racks").(*lua.LTable)
	if !ok {
		f.fail("racks", "must be a table {[broker_id]=\"rack\"}, got %s", describe(f.get("racks")))
		return nil
	}
	out := map[int32]string{}
	t.ForEach(func(k, v lua.LValue) {
		b, ok := toInt(k)
		if !ok || b < 0 {
			f.fail("racks", "keys must be broker ids, got %s", describe(k))
			return
		}
		s, ok := v.(lua.LString)
		if !ok {
			f.fail(fmt.Sprintf("racks[%d]", b), "must be a rack name, got %s", describe(v))
			return
		}
		out[int32(b)] = string(s)
	})
	return out
}

func waitReassignments(c *Call) (any, error) {
	f, err := c.Options(1, "timeout", "topics", "interval_ms")
	if err != nil {
		return nil, err
	}
	o := engine.WaitOptions{Topics: f.strings("topics"), Timeout: 30 * time.Minute,
		Interval: time.Duration(f.integer("interval_ms", 1, 1000)) * time.Millisecond}
	if f.has("timeout") {
		o.Timeout = durationArg(f, "timeout")
	}
	if f.err != nil {
		return nil, f.err
	}
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	if isTerminal(c.rt.opts.Stderr) {
		w := c.rt.opts.Stderr
		o.Progress = func(moving []engine.Reassignment, finished int, elapsed time.Duration) {
			writeProgress(w, moving, finished, elapsed)
		}
	}
	return cl.WaitReassignments(c.Ctx(), o)
}

func writeProgress(w io.Writer, moving []engine.Reassignment, finished int, elapsed time.Duration) {
	var names []string
	for i, r := range moving {
		if i == 5 {
			names = append(names, fmt.Sprintf("+%d more", len(moving)-5))
			break
		}
		names = append(names, fmt.Sprintf("%s[%d]", r.Topic, r.Partition))
	}
	fmt.Fprintf(w, "wait_reassignments: %s: %d moving, %d finished %s\n",
		elapsed.Round(time.Second), len(moving), finished, strings.Join(names, " "))
}

// durationArg reads milliseconds (a number) or a Go duration string.
func durationArg(f *fields, key string) time.Duration {
	switch v := f.get(key).(type) {
	case lua.LNumber:
		if n, ok := toInt(v); ok && n > 0 {
			return time.Duration(n) * time.Millisecond
		}
	case lua.LString:
		if d, err := time.ParseDuration(string(v)); err == nil && d > 0 {
			return d
		}
	}
	f.fail(key, "must be positive milliseconds or a duration like \"10m\", got %s", describe(f.get(key)))
	return 0
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	file, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := file.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
