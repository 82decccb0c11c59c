package luaapi

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

func init() {
	register(
		&Func{Name: "describe_log_dirs", Area: "logdirs", Args: "([{brokers=, topics=}])",
			Returns: "{{broker=, dir=, total_bytes=, usable_bytes=, partitions={{topic=, partition=, size=, offset_lag=, is_future=}...}, error=}...}",
			Summary: "Describe brokers' log directories and the replicas in them: a row per broker and dir.",
			Doc: `brokers (an id or array of ids) defaults to every broker, topics (a name or array: all their partitions) to every partition. Rows are sorted by broker then dir, partitions by topic then partition.
size is in bytes; offset_lag is how far a replica is behind its log end (for a future replica: behind the replica it replaces); is_future marks a replica being moved into this dir by alter_replica_log_dirs. total_bytes and usable_bytes are -1 from brokers older than Kafka 3.3.
A broker that fails (or is not in the cluster: BROKER_NOT_AVAILABLE) gets a row with dir "" and its error; an offline dir (KAFKA_STORAGE_ERROR) a row with its error.`,
			Example: `for _, d in ipairs(describe_log_dirs{topics = "orders"}) do print(d.broker, d.dir, #d.partitions) end`,
			Run:     describeLogDirs},
		&Func{Name: "alter_replica_log_dirs", Area: "logdirs", Mutating: true, Destructive: true,
			Args:    "(moves[, {partial=}])",
			Returns: "{{topic=, partition=, broker=, dir=, error=}...}",
			Summary: "Move replicas between log directories of their brokers (JBOD).",
			Doc: `moves is one move or an array of moves {topic=, partition=, broker=, dir=}: broker moves its replica of topic[partition] into dir, an absolute path among its log.dirs. The broker copies in the background; describe_log_dirs shows the copy as is_future until it takes over.
Declared destructive: it moves data and loads the broker's disks. Kafka has no validate-only mode: under --dry-run each move is checked (the broker exists and has that dir) and nothing moves.`,
			Example: `local d = describe_log_dirs{brokers = 0, topics = "orders"}[1]
alter_replica_log_dirs{{topic = "orders", partition = 0, broker = 0, dir = d.dir}}`,
			Run: alterReplicaLogDirs},
	)
}

// int32List reads an integer or an array of integers no smaller than min.
func int32List(v lua.LValue, what string, min int64) ([]int32, error) {
	if n, ok := toInt(v); ok && n >= min {
		return []int32{int32(n)}, nil
	}
	t, ok := v.(*lua.LTable)
	if !ok {
		return nil, argErr(what, "must be an id or an array of ids, got %s", describe(v))
	}
	if err := onlyArray(t, what); err != nil {
		return nil, err
	}
	var out []int32
	for i := 1; i <= t.Len(); i++ {
		n, ok := toInt(t.RawGetInt(i))
		if !ok || n < min {
			return nil, argErr(fmt.Sprintf("%s #%d", what, i), "must be a non-negative integer, got %s", describe(t.RawGetInt(i)))
		}
		out = append(out, int32(n))
	}
	return out, nil
}

func describeLogDirs(c *Call) (any, error) {
	var q engine.LogDirsQuery
	if v := c.Arg(1); v != lua.LNil {
		f := newFields(v, "query", "brokers", "topics")
		q.Topics = f.strings("topics")
		if f.err != nil {
			return nil, f.err
		}
		if f.has("brokers") {
			var err error
			if q.Brokers, err = int32List(f.get("brokers"), "query: brokers", 0); err != nil {
				return nil, err
			}
		}
	}
	_, cl, err := c.optionsAndClient(2)
	if err != nil {
		return nil, err
	}
	return cl.DescribeLogDirs(c.Ctx(), q)
}

func alterReplicaLogDirs(c *Call) (any, error) {
	list, err := recordList(c.Arg(1), "moves")
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, argErr("moves", "must name at least one move")
	}
	var moves []engine.LogDirMove
	for i, item := range list {
		f := newFields(item, fmt.Sprintf("move #%d", i+1), "topic", "partition", "broker", "dir")
		m := engine.LogDirMove{Topic: f.str("topic", true), Partition: int32(f.integer("partition", 0, -1)),
			Broker: int32(f.integer("broker", 0, -1)), Dir: f.str("dir", true)}
		for _, k := range []string{"partition", "broker"} {
			if f.err == nil && !f.has(k) {
				f.fail(k, "is required")
			}
		}
		if f.err == nil && m.Dir == "" {
			f.fail("dir", "must not be empty")
		}
		if f.err != nil {
			return nil, f.err
		}
		moves = append(moves, m)
	}
	_, cl, err := c.optionsAndClient(2)
	if err != nil {
		return nil, err
	}
	if c.DryRun() {
		return planLogDirMoves(c, cl, moves)
	}
	return cl.AlterReplicaLogDirs(c.Ctx(), moves)
}

// planLogDirMoves is alter_replica_log_dirs under dry-run: each move's
// broker must exist and have the dir.
func planLogDirMoves(c *Call, cl *engine.Client, moves []engine.LogDirMove) (any, error) {
	var brokers []int32
	for _, m := range moves {
		brokers = append(brokers, m.Broker)
	}
	dirs, err := cl.DescribeLogDirs(c.Ctx(), engine.LogDirsQuery{Brokers: brokers})
	if err != nil {
		return nil, err
	}
	var out []engine.MovedReplica
	for _, m := range moves {
		r := engine.MovedReplica{Topic: m.Topic, Partition: m.Partition, Broker: m.Broker, Dir: m.Dir,
			Err: &engine.Error{Code: "LOG_DIR_NOT_FOUND", Message: fmt.Sprintf("broker %d has no log dir %s", m.Broker, m.Dir), Resource: m.String()}}
		for _, d := range dirs {
			switch {
			case d.Broker == m.Broker && d.Err != nil && d.Dir == "":
				r.Err = d.Err
			case d.Broker == m.Broker && d.Dir == m.Dir:
				r.Err = nil
				c.Plan("move %s", m)
			}
		}
		out = append(out, r)
	}
	return out, nil
}
