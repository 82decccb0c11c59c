package luaapi

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

func init() {
	register(
		&Func{Name: "delete_records", Area: "records", Batch: true,
			Params:  []Param{{Name: "deletions", Type: recordsDeletions, Doc: "each partition and the offset below which its records go"}},
			Returns: "{{topic=string, partition=int, low_watermark=int, error=error?}...}",
			Summary: "Delete a partition's records below an offset (move its log start offset).",
			Doc: `Each entry deletes the records of one partition below offset; offset=-1 means below the high watermark (everything written so far), as in Kafka. A single entry table is accepted without the outer array.
low_watermark is the partition's new log start offset. An offset above the high watermark fails with OFFSET_OUT_OF_RANGE; a missing topic or partition with UNKNOWN_TOPIC_OR_PARTITION. Results are sorted by topic then partition; if any partition fails the call raises after deleting the others (err.results).
Deleting below an offset is idempotent, so retriable errors (even REQUEST_TIMED_OUT) are retried until the deadline; with offset=-1 a retry deletes up to the high watermark of that moment.
Kafka has no validate-only delete: under --dry-run each partition is checked to exist and its offset to be at most the high watermark, the plan says how many records would go, low_watermark is the one it would get, and nothing is deleted. An offset at or below the current low watermark deletes nothing (Kafka accepts it).
In the REPL this asks for confirmation unless --yes.`,
			Example: `create_topics({{name = "scratch-records", partitions = 1}}, {if_not_exists = true})
local r = delete_records{{topic = "scratch-records", partition = 0, offset = -1}}
print(r[1].topic, r[1].partition, r[1].low_watermark)`,
			Run: deleteRecords},
	)
}

func deleteRecords(c *Call) (any, error) {
	dels := param[[]engine.RecordsDeletion](c, "deletions")
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	if c.DryRun() {
		res, plan, err := cl.PlanDeleteRecords(c.Ctx(), dels)
		for _, p := range plan {
			c.Plan("%s", p)
		}
		return res, err
	}
	return cl.DeleteRecords(c.Ctx(), dels)
}

// recordsDeletion is one entry {topic=, partition=, offset=}: the offset
// is an int64 (-1: the high watermark), the partition an int32, so a
// partition of 2^32+1 is refused rather than read as 1.
var recordsDeletion = Record(
	Field{Name: "topic", Type: topicName, Required: true},
	Field{Name: "partition", Type: partitionNum, Required: true},
	Field{Name: "offset", Type: Int64(-1).Named("record offset"), Required: true, Doc: "delete the records below it; -1: below the high watermark"},
).Then(func(rec Rec, at string) (any, error) {
	return engine.RecordsDeletion{Topic: get[string](rec, "topic"), Partition: get[int32](rec, "partition"),
		Offset: get[int64](rec, "offset")}, nil
})

// recordsDeletions is delete_records' argument: entries (one entry is
// accepted without the outer array), each partition at most once.
var recordsDeletions = Custom("{topic=, partition=, offset=}, or an array of them", "{{topic = \"t\", partition = 0, offset = 1}}",
	func(r *reader, v lua.LValue, at string) (any, error) {
		x, err := List[engine.RecordsDeletion](recordsDeletion).NonEmpty().read(r, v, at)
		if err != nil {
			return nil, err
		}
		dels := x.([]engine.RecordsDeletion)
		if tp, dup := engine.RepeatedPartition(dels, func(d engine.RecordsDeletion) engine.TopicPartition {
			return engine.TopicPartition{Topic: d.Topic, Partition: d.Partition}
		}); dup {
			return nil, givenTwice(at, tp)
		}
		return dels, nil
	}, lua.LTTable).Like(List[engine.RecordsDeletion](recordsDeletion))
