package luaapi

import (
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

func init() {
	register(
		&Func{Name: "list_offsets", Area: "offsets",
			Args:    `(topics[, at[, {partial=}]])`,
			Returns: "{{topic=, partition=, offset=, timestamp=, leader_epoch=}...}",
			Summary: "List an offset of every partition of topics: earliest, latest, at a time, ...",
			Doc: `topics is a topic name or an array of names. at is one of:
  "latest" (default): the high watermark, the offset the next record will get;
  "earliest": the log start offset;
  "committed": the last stable offset, the end a read_committed consumer sees;
  "max_timestamp": the record with the largest timestamp (and that timestamp);
  "earliest_local": the first offset still on the brokers' disks (tiered storage);
  "latest_tiered": the last offset copied to remote storage (-1 when nothing is tiered);
  {timestamp=ms}: the first offset whose record timestamp is at or after ms (milliseconds since the epoch, as kafka.now() gives).
For {timestamp=ms}, a partition with no record at or after the time answers its end offset (the high watermark) with timestamp=-1: the position a consumer seeking to that time starts from, as kafka-consumer-groups --reset-offsets --to-datetime does (Kafka's raw answer, and kafka-get-offsets' output, is -1).
timestamp is -1 unless the query was by time or max_timestamp; leader_epoch is -1 when unknown. Results are sorted by topic then partition.
A topic that does not exist fails with UNKNOWN_TOPIC_OR_PARTITION (its result has partition=-1; the other topics are still listed: see err.results, or pass {partial=true}, alone or with a timestamp: {timestamp=ms, partial=true}). Partitions whose leader is moving (LEADER_NOT_AVAILABLE, NOT_LEADER_OR_FOLLOWER) are asked again until the call's deadline.`,
			Example: `for _, o in ipairs(list_offsets("payments", "earliest")) do print(o.partition, o.offset) end
local hour_ago = kafka.now() - 3600 * 1000
local at = list_offsets({"orders"}, {timestamp = hour_ago})
print(#at, at[1].offset)`,
			Run: listOffsets},
	)
}

func listOffsets(c *Call) (any, error) {
	topics, err := c.Strings(1, "topics", false)
	if err != nil {
		return nil, err
	}
	q, err := offsetQuery(c, 2)
	if err != nil {
		return nil, err
	}
	if c.NArgs() >= 3 {
		if _, err := c.Options(3); err != nil {
			return nil, err
		}
	}
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.ListOffsets(c.Ctx(), topics, q)
}

// offsetQuery reads list_offsets' `at` argument: a name, {timestamp=ms}, or
// an options table ({partial=true}, with or without timestamp).
func offsetQuery(c *Call, n int) (engine.OffsetQuery, error) {
	switch v := c.Arg(n).(type) {
	case *lua.LNilType:
		return engine.OffsetQuery{Kind: engine.OffsetAtLatest}, nil
	case lua.LString:
		k := strings.ToLower(string(v))
		if !slices.Contains(engine.OffsetKinds, k) {
			return engine.OffsetQuery{}, argErr("at", "must be one of %s or {timestamp=ms}, got %s", strings.Join(quoted(engine.OffsetKinds), ", "), describe(v))
		}
		return engine.OffsetQuery{Kind: k}, nil
	case *lua.LTable:
		f := newFields(v, "at", "timestamp", "partial")
		c.partial = f.boolean("partial")
		q := engine.OffsetQuery{Kind: engine.OffsetAtLatest}
		if f.has("timestamp") {
			q = engine.OffsetQuery{Kind: engine.OffsetAtTimestamp, Timestamp: f.integer("timestamp", 0, 0)}
		}
		return q, f.err
	}
	return engine.OffsetQuery{}, argErr("at", "must be one of %s or {timestamp=ms}, got %s", strings.Join(quoted(engine.OffsetKinds), ", "), describe(c.Arg(n)))
}
