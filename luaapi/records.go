package luaapi

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

func init() {
	register(
		&Func{Name: "delete_records", Area: "records", Mutating: true, Destructive: true,
			Args:    "({{topic=, partition=, offset=}...}[, {partial=}])",
			Returns: "{{topic=, partition=, low_watermark=, error=}...}",
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
	dels, err := recordsDeletions(c.Arg(1))
	if err != nil {
		return nil, err
	}
	cl, err := c.clientAfterOptions(2)
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

// recordsDeletions reads {{topic=, partition=, offset=}...} or one such
// table.
func recordsDeletions(v lua.LValue) ([]engine.RecordsDeletion, error) {
	t, ok := v.(*lua.LTable)
	if !ok {
		return nil, argErr("deletions", "must be an array of {topic=, partition=, offset=}, got %s", describe(v))
	}
	var list []lua.LValue
	if t.RawGetString("topic") != lua.LNil {
		list = []lua.LValue{t}
	} else {
		if err := onlyArray(t, "deletions"); err != nil {
			return nil, err
		}
		for i := 1; i <= t.Len(); i++ {
			list = append(list, t.RawGetInt(i))
		}
	}
	if len(list) == 0 {
		return nil, argErr("deletions", "must name at least one partition")
	}
	out := make([]engine.RecordsDeletion, 0, len(list))
	for i, item := range list {
		where := fmt.Sprintf("deletion #%d", i+1)
		f := newFields(item, where, "topic", "partition", "offset")
		d := engine.RecordsDeletion{Topic: f.str("topic", true)}
		if f.err == nil && d.Topic == "" {
			f.fail("topic", "must not be empty")
		}
		if !f.has("partition") {
			f.fail("partition", "is required")
		}
		d.Partition = int32(f.integer("partition", 0, 0))
		if !f.has("offset") {
			f.fail("offset", "is required (-1 for the high watermark)")
		}
		d.Offset = f.integer("offset", -1, 0)
		if f.err != nil {
			return nil, f.err
		}
		out = append(out, d)
	}
	return out, nil
}
