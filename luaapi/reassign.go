package luaapi

import (
	"slices"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/placement"
)

func init() {
	register(
		&Func{Name: "list_partition_reassignments", Area: "reassign",
			Params:  []Param{{Name: "topics", Type: topicNames.NonEmpty(), Optional: true, Doc: "only these topics; every reassignment in the cluster when left out"}},
			Returns: "{{topic=string, partition=int, replicas={int...}, adding_replicas={int...}, removing_replicas={int...}}...}",
			Summary: "List the partition reassignments in progress.",
			Doc:     "topics (a name or an array) keeps only those topics; without it every reassignment in the cluster is listed. replicas is the union of the old and new replicas while data moves.",
			Example: `for _, r in ipairs(list_partition_reassignments()) do print(r.topic, r.partition, #r.adding_replicas) end`,
			Run:     listReassignments},
		&Func{Name: "alter_partition_reassignments", Area: "reassign", Batch: true,
			Params: []Param{{Name: "rows", Type: reassignRows, Doc: "the partitions to move and their new replicas, or a plan from plan_reassignment"}},
			Options: []Field{{Name: "throttle", Type: Int64(1).Named("bytes per second"),
				Doc: "limit the replication of the moving replicas to this many bytes per second per broker (kafka-reassign-partitions --throttle)"}},
			Returns: "{{topic=string, partition=int, replicas={int...}?, error=error?}...}",
			Summary: "Move partitions to new replicas (data is copied to the new brokers).",
			Doc: `A row is {topic=, partition=, replicas={broker ids}}; the first replica is the preferred leader. A plan from plan_reassignment (or its partitions) is accepted as is: its rows' target is the new replicas.
The call returns once Kafka has accepted the reassignments; the data moves in the background (see list_partition_reassignments and wait_reassignments). Under --dry-run nothing moves: each partition is checked to exist and each broker to be in the cluster.
throttle=BYTES_PER_SEC sets the replication throttle first, as kafka-reassign-partitions --throttle does: leader.replication.throttled.rate and follower.replication.throttled.rate on every broker a moving replica leaves or joins, and on each moving topic leader.replication.throttled.replicas (partition:broker of the replicas copied from) and follower.replication.throttled.replicas (the new replicas), reassignments already in progress included. If the throttle cannot be set nothing is reassigned. Calling again with another throttle changes it. wait_reassignments removes the throttles once the moves are done; until then replication of those replicas stays limited.`,
			Example: `local plan = plan_reassignment{topics = {"orders"}, brokers = {0, 1, 2}}
if plan.moves > 0 then alter_partition_reassignments(plan, {throttle = 50 * 1024 * 1024}) end
wait_reassignments{topics = {"orders"}}`,
			Run: alterReassignments},
		&Func{Name: "cancel_partition_reassignments", Area: "reassign", Batch: true,
			Params:  []Param{{Name: "rows", Type: cancelRows, Doc: "the partitions whose reassignment to cancel"}},
			Returns: "{{topic=string, partition=int, error=error?}...}",
			Summary: "Cancel reassignments in progress: partitions go back to their original replicas.",
			Doc:     "A row is {topic=, partition=}. A partition that is not being reassigned fails with NO_REASSIGNMENT_IN_PROGRESS.",
			Example: `local ok, err = pcall(cancel_partition_reassignments, {{topic = "orders", partition = 0}})
print(ok or err.code)`,
			Run: cancelReassignments},
		&Func{Name: "plan_reassignment", Area: "reassign", TableCall: true,
			Options: []Field{
				{Name: "topics", Type: topicNames.NonEmpty(), Doc: "the topics to plan (required, but with drain: default every topic)"},
				{Name: "brokers", Type: brokerIDList.NonEmpty(), Doc: "the brokers to spread over (default: every broker)"},
				{Name: "racks", Type: rackMap, Doc: "each broker's rack (default: the cluster's broker racks)"},
				{Name: "by", Type: Enum(placement.ByCount, placement.ByBytes), Doc: `balance replica counts ("count", the default) or disk usage too ("bytes")`},
				{Name: "replication_factor", Type: Int16(1), Doc: "raise or lower every partition's replication factor to this"},
				{Name: "leaders_only", Type: Bool(), Doc: "move no data: balance preferred leaders by reordering replicas (with drain: a demote)"},
				{Name: "drain", Type: brokerIDList.NonEmpty(), Doc: "empty these brokers: leadership first, then their replicas"},
				{Name: "max_disk_usage", Type: NumberBetween(0.01, 1), Doc: "no broker planned above this fraction of its log dirs' capacity (default 0.85)"},
				{Name: "min_partition_bytes", Type: Int64(0).Named("bytes"), Doc: "smaller partitions (or unmeasured ones) stay put when balancing"},
				{Name: "partition_limit", Type: Count(1), Doc: "at most this many balancing moves join or leave each broker"},
			},
			Returns: "{kind=string, by=string, moves=int, leader_changes=int, bytes=int?, partitions={{topic=string, partition=int, current={int...}, target={int...}, moves=int, bytes=int?}...}, leadership={{topic=string, partition=int, current={int...}, target={int...}, moves=int, bytes=int?}...}, elect={{topic=string, partition=int}...}, brokers={{broker=int, rack=string, replicas_before=int, replicas_after=int, leaders_before=int, leaders_after=int, bytes_before=int?, bytes_after=int?, total_bytes=int?, usable_bytes=int?, usage_before=number?, usage_after=number?}...}, steps={string...}, notes={string...}}",
			Summary: "Plan a reassignment: balanced by count or bytes, rack-aware, moving the fewest replicas; or a drain, a demote, a leader balance, a replication factor change.",
			Doc: `Spreads the topics' replicas and preferred leaders (first replicas) evenly over brokers (default: every broker), keeping each partition's replication factor and every replica that can stay: among balanced assignments it picks one with (nearly) the fewest replica moves. No two replicas of a partition share a rack when the brokers span enough racks (else at most an even share per rack); racks come from the cluster's broker racks unless given as {[broker_id]="rack"}; a broker without a rack counts as its own.
by = "bytes" then evens out disk usage (each broker's log dirs' used bytes over their capacity, from DescribeLogDirs; Kafka 3.3+, else the replicas' bytes), moving or swapping the replicas whose sizes fit best, never a broker above max_disk_usage; min_partition_bytes and partition_limit limit the moves as topicmappr's size threshold and per-broker limit do. A plan whose moves would not narrow the usage spread moves nothing and says so in notes.
replication_factor = N raises or lowers every partition to N replicas: new ones go last to the least loaded brokers of racks the partition does not use; a decrease removes a replica sharing a rack, else the most loaded broker's, never the leader. leaders_only = true moves no data: replicas are reordered so that in-sync replicas lead evenly.
drain = {broker ids} (topics default to every topic) plans a decommission in two steps: leadership rows reorder the partitions the brokers lead so they come last, elect lists the partitions whose preferred leader to elect then; partitions move their replicas to the least loaded brokers left, within the rack rule. With leaders_only it is a demote: the reorders alone, as partitions.
moves counts replicas copied to a broker that did not hold them, bytes what they copy; partitions lists only the partitions that change (replicas or preferred leader): passed straight to alter_partition_reassignments, the plan reaches its end state. brokers reports every broker's replicas, leaders and bytes before and after; steps says what carrying it out does, notes what the plan could not do or did not know. Nothing changes on the cluster. A replication factor larger than the broker count fails with INVALID_REPLICATION_FACTOR.`,
			Example: `local plan = plan_reassignment{topics = {"orders", "payments"}, by = "bytes"}
print(plan.moves .. " replicas move")
for _, p in ipairs(plan.partitions) do print(p.topic, p.partition, table.concat(p.target, ",")) end
local demote = plan_reassignment{drain = {2}, leaders_only = true} -- leadership off broker 2, no data moves
for _, s in ipairs(demote.steps) do print(s) end`,
			Run: planReassignment},
		&Func{Name: "wait_reassignments", Area: "reassign",
			Options: []Field{
				{Name: "timeout", Type: reassignTimeout, Doc: "how long to wait before raising TIMEOUT (default 30m)"},
				{Name: "topics", Type: topicNames, Doc: "wait only for these topics' reassignments"},
				{Name: "interval_ms", Type: Int64(1).Between(1, maxDurationMillis).Named("poll interval in ms"), Doc: "time between polls (default 1000)"},
				{Name: "keep_throttles", Type: Bool(), Doc: "leave the replication throttles in place (kafka-reassign-partitions --preserve-throttles)"},
			},
			Returns: "{{topic=string, partition=int, replicas={int...}}...}",
			Summary: "Wait until no partition reassignment is in progress, then remove the replication throttles.",
			Doc: `Polls list_partition_reassignments (every interval_ms, default 1000) until none is in progress (of topics, when given) and returns the partitions that finished meanwhile, with their final replicas. timeout is milliseconds or a duration string like "30m" (default 30m); when it passes first the call raises TIMEOUT naming the partitions still moving.
While it waits, progress goes to stderr: a kafka.log-style line every 10 s when stderr is not a terminal (a cron log shows a move of hours going on), a line kept up to date in place on a terminal. The line says how far the data has copied, in bytes and percent, where the log dirs show it: each replica being added against its source (the largest replica not being added), and each future replica (a move between log dirs) against the one it replaces: "2 partition(s) moving: orders[0] orders[3]; 5 finished; 1.2 GiB of 3.0 GiB copied (40.0%)".
Then it removes the replication throttles, as kafka-reassign-partitions --verify does: leader/follower.replication.throttled.replicas on the topics waited for (every topic when topics is not given) and the throttle rates (leader/follower.replication.throttled.rate, replica.alter.log.dirs.io.max.bytes.per.second) on every broker, unless another reassignment is still in progress in the cluster (then the rates stay, and a line says so). Only configs set on the topic or broker itself are removed, and a line on stderr names them; keep_throttles=true leaves them; without the right to read configs a WARN line says they were not looked for. Under --dry-run it waits and only says what it would remove.`,
			Example: `local done = wait_reassignments{timeout = "10m"}
print(#done .. " partitions finished moving")`,
			Run: waitReassignments},
	)
}

func listReassignments(c *Call) (any, error) {
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.ListPartitionReassignments(c.Ctx(), param[[]string](c, "topics"))
}

// reassignReplicas is a row's new replica list: broker ids, the first the
// preferred leader, each at most once.
var reassignReplicas = Custom("non-empty array of broker ids", "{1}", func(r *reader, v lua.LValue, at string) (any, error) {
	x, err := List[int32](brokerID).ArrayOnly().NonEmpty().read(r, v, at)
	if err != nil {
		return nil, err
	}
	ids := x.([]int32)
	for i, b := range ids {
		if slices.Contains(ids[:i], b) {
			return nil, argErr(at, "lists broker %d twice", b)
		}
	}
	return ids, nil
}, lua.LTTable).Like(List[int32](brokerID).ArrayOnly())

// reassignFields are a reassignment row's keys: {topic=, partition=,
// replicas=}, or a plan_reassignment row {topic=, partition=, current=,
// target=, moves=} whose target is the new replicas.
var reassignFields = []Field{
	{Name: "topic", Type: topicName, Required: true},
	{Name: "partition", Type: partitionNum, Required: true},
	{Name: "replicas", Type: reassignReplicas, Doc: "the new replicas; the first is the preferred leader"},
	{Name: "target", Type: reassignReplicas, Doc: "a plan row's new replicas (instead of replicas)"},
	{Name: "current", Type: List[int32](brokerID).ArrayOnly(), Doc: "a plan row's current replicas (not sent)"},
	{Name: "moves", Type: Count(0), Doc: "a plan row's count of moved replicas (not sent)"},
	{Name: "bytes", Type: Int64(0), Doc: "a plan row's partition size (not sent)"},
}

// rowTarget is the key that holds a row's new replicas: replicas or
// target, exactly one of them.
func rowTarget(rec Rec, at string) (string, error) {
	switch {
	case rec.Has("replicas") && rec.Has("target"):
		return "", argErr(subPath(at, "target"), "cannot be combined with replicas (give one of them)")
	case rec.Has("target"):
		return "target", nil
	case !rec.Has("replicas"):
		return "", argErr(subPath(at, "replicas"), "is required (the new replicas: broker ids)")
	}
	return "replicas", nil
}

// reassignRow is one partition's move. It reads as a one-element
// []engine.PartitionTarget (a plan reads as many).
var reassignRow = Record(reassignFields...).Then(func(rec Rec, at string) (any, error) {
	key, err := rowTarget(rec, at)
	if err != nil {
		return nil, err
	}
	return []engine.PartitionTarget{{Topic: get[string](rec, "topic"), Partition: get[int32](rec, "partition"),
		Replicas: get[[]int32](rec, key)}}, nil
}).Sample(`{topic = "t", partition = 0, replicas = {1}}`)

// reassignPlan is plan_reassignment's result passed as it is: its
// partitions are the rows.
var reassignPlan = Record(
	Field{Name: "moves", Type: Count(0)},
	Field{Name: "leader_changes", Type: Count(0)},
	Field{Name: "partitions", Type: List[[]engine.PartitionTarget](reassignRow).ArrayOnly(), Required: true},
	// The plan's report, read past: only its partitions are sent.
	Field{Name: "kind", Type: AnyType{}}, Field{Name: "by", Type: AnyType{}}, Field{Name: "bytes", Type: AnyType{}},
	Field{Name: "leadership", Type: AnyType{}}, Field{Name: "elect", Type: AnyType{}}, Field{Name: "brokers", Type: AnyType{}},
	Field{Name: "steps", Type: AnyType{}}, Field{Name: "notes", Type: AnyType{}},
).Then(func(rec Rec, at string) (any, error) {
	return slices.Concat(get[[][]engine.PartitionTarget](rec, "partitions")...), nil
})

// reassignRows is alter_partition_reassignments' argument: rows, one row,
// or a plan. A table with partitions= and no topic= is a plan.
var reassignRows = uniqueRows(List[[]engine.PartitionTarget](Custom(
	"{topic=, partition=, replicas=} or a plan from plan_reassignment",
	reassignRow.sample(),
	func(r *reader, v lua.LValue, at string) (any, error) {
		if t, ok := v.(*lua.LTable); ok && t.RawGetString("partitions") != lua.LNil && t.RawGetString("topic") == lua.LNil {
			return reassignPlan.read(r, v, at)
		}
		return reassignRow.read(r, v, at)
	}, lua.LTTable).Like(reassignRow)).NonEmpty(), func(x any) []engine.PartitionTarget {
	return slices.Concat(x.([][]engine.PartitionTarget)...)
})

// cancelRows is cancel_partition_reassignments' argument.
var cancelRows = uniqueRows(List[engine.PartitionTarget](Record(
	Field{Name: "topic", Type: topicName, Required: true},
	Field{Name: "partition", Type: partitionNum, Required: true},
).Then(func(rec Rec, at string) (any, error) {
	return engine.PartitionTarget{Topic: get[string](rec, "topic"), Partition: get[int32](rec, "partition")}, nil
})).NonEmpty(), func(x any) []engine.PartitionTarget { return x.([]engine.PartitionTarget) })

// uniqueRows reads rows with list and refuses a partition named twice
// (which move would win?).
func uniqueRows(list *ListType, rows func(any) []engine.PartitionTarget) *CustomType {
	return Custom(list.Doc(), list.sample(), func(r *reader, v lua.LValue, at string) (any, error) {
		x, err := list.read(r, v, at)
		if err != nil {
			return nil, err
		}
		out := rows(x)
		if tp, dup := engine.RepeatedPartition(out, targetPartition); dup {
			return nil, givenTwice(at, tp)
		}
		return out, nil
	}, lua.LTTable).Like(list)
}

func targetPartition(t engine.PartitionTarget) engine.TopicPartition {
	return engine.TopicPartition{Topic: t.Topic, Partition: t.Partition}
}

func alterReassignments(c *Call) (any, error) {
	return reassignCall(c, param[[]engine.PartitionTarget](c, "rows"), true)
}

func cancelReassignments(c *Call) (any, error) {
	return reassignCall(c, param[[]engine.PartitionTarget](c, "rows"), false)
}

func reassignCall(c *Call, rows []engine.PartitionTarget, alter bool) (any, error) {
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 { // a plan with nothing to change
		c.Plan("the plan changes nothing")
		return []engine.ReassignResult{}, nil
	}
	if alter && c.Given("throttle") {
		if err := throttleReassignment(c, cl, rows); err != nil {
			return nil, err
		}
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
		res, err := cl.AlterPartitionReassignments(c.Ctx(), rows)
		if err == nil {
			demoNote(c)
		}
		return res, err
	}
	return cl.CancelPartitionReassignments(c.Ctx(), rows)
}

// rackMap is plan_reassignment's racks={[broker_id] = "rack"}.
var rackMap = MapOf[int32, string](brokerID, NonEmptyStr().Checked("rack name", nil).Sample("r1")).
	Described(`{[broker_id] = "rack", ...}`)

func planReassignment(c *Call) (any, error) {
	o := engine.PlanOptions{Topics: param[[]string](c, "topics"), Brokers: param[[]int32](c, "brokers"),
		Racks: param[map[int32]string](c, "racks"), Drain: param[[]int32](c, "drain"),
		Options: placement.Options{By: param[string](c, "by"), ReplicationFactor: int(param[int16](c, "replication_factor")),
			LeadersOnly: param[bool](c, "leaders_only"), MaxDiskUsage: param[float64](c, "max_disk_usage"),
			MinPartitionBytes: param[int64](c, "min_partition_bytes"), PartitionLimit: param[int](c, "partition_limit")}}
	if !c.Given("topics") && !c.Given("drain") {
		return nil, argErr("topics", "is required (the topics to plan), unless drain is given")
	}
	if err := o.Check(len(o.Drain) > 0); err != nil {
		return nil, err
	}
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	plan, err := cl.PlanReassignmentOn(c.Ctx(), o)
	// The arguments were all checked before: a refusal now depends on the
	// cluster (a broker it does not have), which Kafka calls an invalid
	// replica assignment.
	if e, ok := err.(*engine.Error); ok && e != nil && e.Code == engine.CodeInvalidArgument {
		e.Code = "INVALID_REPLICA_ASSIGNMENT"
	}
	return plan, err
}

// reassignTimeout is wait_reassignments' timeout: milliseconds or a Go
// duration string.
var reassignTimeout = Custom(`integer ms >= 1, or a duration string like "30m"`, `"30m"`,
	func(_ *reader, v lua.LValue, at string) (any, error) {
		switch v := v.(type) {
		case lua.LNumber:
			if n, ok := exactInt(v); ok && n >= 1 && n <= maxDurationMillis {
				return time.Duration(n) * time.Millisecond, nil
			}
		case lua.LString:
			if len(v) > 64 {
				return nil, argErr(at, "is %d bytes long; a duration is at most 64", len(v))
			}
			if d, err := time.ParseDuration(string(v)); err == nil && d > 0 {
				return d, nil
			}
		}
		return nil, argErr(at, `must be positive milliseconds or a duration like "10m", got %s`, describe(v))
	}, lua.LTNumber, lua.LTString)

func waitReassignments(c *Call) (any, error) {
	o := engine.WaitOptions{Topics: param[[]string](c, "topics"), Timeout: 30 * time.Minute, Interval: time.Second}
	if c.Given("timeout") {
		o.Timeout = param[time.Duration](c, "timeout")
	}
	if c.Given("interval_ms") {
		o.Interval = time.Duration(param[int64](c, "interval_ms")) * time.Millisecond
	}
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	done, err := cl.WaitReassignments(c.Ctx(), o)
	if err != nil {
		return nil, err
	}
	if !param[bool](c, "keep_throttles") {
		if err := removeThrottles(c, cl, o.Topics); err != nil {
			return nil, err
		}
	}
	return done, nil
}
