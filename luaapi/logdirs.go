package luaapi

import (
	"fmt"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

func init() {
	register(
		&Func{Name: "describe_log_dirs", Area: "logdirs", Batch: true,
			Params: []Param{{Name: "query", Optional: true, Doc: "which brokers and topics (every one when left out)", Type: Record(
				Field{Name: "brokers", Type: brokerIDList, Doc: "a broker id or an array of them"},
				Field{Name: "topics", Type: topicNames, Doc: "a topic or an array of them: all their partitions"},
			).Then(func(rec Rec, _ string) (any, error) {
				return engine.LogDirsQuery{Brokers: get[[]int32](rec, "brokers"), Topics: get[[]string](rec, "topics")}, nil
			})}},
			Returns: "{{broker=int, dir=string, total_bytes=int, usable_bytes=int, partitions={{topic=string, partition=int, size=int, offset_lag=int, is_future=bool}...}, error=error?}...}",
			Summary: "Describe brokers' log directories and the replicas in them: a row per broker and dir.",
			Doc: `brokers (an id or array of ids) defaults to every broker, topics (a name or array: all their partitions) to every partition. Rows are sorted by broker then dir, partitions by topic then partition.
size is in bytes; offset_lag is how far a replica is behind its log end (for a future replica: behind the replica it replaces); is_future marks a replica being moved into this dir by alter_replica_log_dirs. total_bytes and usable_bytes are -1 from brokers older than Kafka 3.3.
A broker that fails (or is not in the cluster: BROKER_NOT_AVAILABLE) gets a row with dir "" and its error; an offline dir (KAFKA_STORAGE_ERROR) a row with its error.`,
			Example: `for _, d in ipairs(describe_log_dirs{topics = "orders"}) do print(d.broker, d.dir, #d.partitions) end`,
			Run:     describeLogDirs},
		&Func{Name: "alter_replica_log_dirs", Area: "logdirs", Batch: true,
			Params:  []Param{{Name: "moves", Doc: "the replicas to move", Type: logDirMoves}},
			Returns: "{{topic=string, partition=int, broker=int, dir=string, error=error?}...}",
			Summary: "Move replicas between log directories of their brokers (JBOD).",
			Doc: `moves is one move or an array of moves {topic=, partition=, broker=, dir=}: broker moves its replica of topic[partition] into dir, an absolute path among its log.dirs. The broker copies in the background; describe_log_dirs shows the copy as is_future until it takes over.
Declared destructive: it moves data and loads the broker's disks. Kafka has no validate-only mode: under --dry-run each move is checked (the broker exists and has that dir) and nothing moves.`,
			Example: `local d = describe_log_dirs{brokers = 0, topics = "orders"}[1]
alter_replica_log_dirs{{topic = "orders", partition = 0, broker = 0, dir = d.dir}}`,
			Run: alterReplicaLogDirs},
	)
}

// logDirMoves reads alter_replica_log_dirs' moves.
var logDirMoves = List[engine.LogDirMove](Record(
	Field{Name: "topic", Type: topicName, Required: true},
	Field{Name: "partition", Type: partitionNum, Required: true},
	Field{Name: "broker", Type: brokerID, Required: true, Doc: "the broker whose replica moves"},
	Field{Name: "dir", Type: NonEmptyStr(), Required: true, Doc: "an absolute path among the broker's log.dirs"},
).Then(func(rec Rec, _ string) (any, error) {
	return engine.LogDirMove{Topic: get[string](rec, "topic"), Partition: get[int32](rec, "partition"),
		Broker: get[int32](rec, "broker"), Dir: get[string](rec, "dir")}, nil
})).Items("move").NonEmpty()

func describeLogDirs(c *Call) (any, error) {
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.DescribeLogDirs(c.Ctx(), param[engine.LogDirsQuery](c, "query"))
}

func alterReplicaLogDirs(c *Call) (any, error) {
	moves := param[[]engine.LogDirMove](c, "moves")
	cl, err := c.Client()
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
