package luaapi

import (
	"github.com/kadmin-lua/kadmin-lua/engine"
)

func init() {
	register(
		&Func{Name: "list_offsets", Area: "offsets", Batch: true,
			Params: []Param{
				{Name: "topics", Type: topicNames.NonEmpty(), Doc: "every partition of these topics"},
				{Name: "at", Type: offsetAtType, Optional: true, Doc: `which offset (default "latest"; see below)`},
			},
			Returns: "{{topic=string, partition=int, offset=int, timestamp=time, leader_epoch=int, error=error?}...}",
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
	at := offsetAt{Query: engine.OffsetQuery{Kind: engine.OffsetAtLatest}}
	if c.Given("at") {
		at = param[offsetAt](c, "at")
	}
	// {timestamp=ms, partial=true} in at's place asks for partial results
	// as the options table does.
	c.partial = c.partial || at.Partial
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.ListOffsets(c.Ctx(), param[[]string](c, "topics"), at.Query)
}
