package luaapi

import (
	"regexp"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

func init() {
	register(
		&Func{Name: "list_offsets", Area: "offsets", Batch: true,
			Params: []Param{
				{Name: "topics", Type: offsetTargetsType, Optional: true, Doc: "every partition of these topics (every topic when nil), or {topic = {[partition] = ms}}: each partition at its own time"},
				{Name: "at", Type: offsetAtType, Optional: true, Doc: `which offset (default "latest"; see below)`},
			},
			Options: append([]Field{iterateOption}, topicFilterOptions...),
			Returns: "{{topic=string, partition=int, offset=int, timestamp=time, leader_epoch=int, error=error?}...}",
			Summary: "List an offset of every partition of topics: earliest, latest, at a time, ...",
			Doc: `topics is a topic name or an array of names. at is one of:
  "latest" (default): the high watermark, the offset the next record will get;
  "earliest": the log start offset;
  "committed": the last stable offset, the end a read_committed consumer sees;
  "max_timestamp": the record with the largest timestamp (and that timestamp);
  "earliest_local": the first offset still on the brokers' disks (tiered storage);
  "latest_tiered": the last offset copied to remote storage (-1 when nothing is tiered);
  "earliest_pending_upload": the first offset not yet copied to remote storage (KIP-1023, Kafka 4.2+; -1 when the topic is not tiered; older brokers answer UNSUPPORTED_VERSION);
  {timestamp=ms}: the first offset whose record timestamp is at or after ms (milliseconds since the epoch, as kafka.now() gives).
For {timestamp=ms}, a partition with no record at or after the time answers its end offset (the high watermark) with timestamp=-1: the position a consumer seeking to that time starts from, as kafka-consumer-groups --reset-offsets --to-datetime does (Kafka's raw answer, and kafka-get-offsets' output, is -1).
timestamp is -1 unless the query was by time or max_timestamp; leader_epoch is -1 when unknown. Results are sorted by topic then partition.
topics may instead give each partition its own time, {orders = {[0] = ms, [3] = ms}, payments = {[1] = ms}}: those partitions only, each listed at its time (as {timestamp=ms} does for one), in one request per leader broker; at is then not given.
A topic that does not exist fails with UNKNOWN_TOPIC_OR_PARTITION (its result has partition=-1; the other topics are still listed: see err.results, or pass {partial=true}, alone or with a timestamp: {timestamp=ms, partial=true}). Partitions whose leader is moving (LEADER_NOT_AVAILABLE, NOT_LEADER_OR_FOLLOWER) are asked again until the call's deadline.
At scale: topics nil lists every partition of the cluster (internal topics included); iterate=true returns an iterator over the rows instead (for o in list_offsets(nil, "latest", {iterate = true}) do ... end), the partitions described and listed a page of about 20,000 at a time, each page within the call's timeout, so no table of every partition is held. match and exclude (RE2 on the topic name, unanchored) leave topics out before their partitions are listed.`,
			Example: `for _, o in ipairs(list_offsets("payments", "earliest")) do print(o.partition, o.offset) end
local hour_ago = kafka.now() - 3600 * 1000
local at = list_offsets({"orders"}, {timestamp = hour_ago})
print(#at, at[1].offset)
local each = list_offsets{orders = {[0] = hour_ago, [1] = kafka.now() - 60 * 1000}}
print(each[1].partition, each[1].offset, each[2].partition, each[2].offset)`,
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
	targets := param[offsetTargets](c, "topics")
	o := engine.TopicsOptions{Match: param[*regexp.Regexp](c, "match"), Exclude: param[*regexp.Regexp](c, "exclude")}
	streamed := param[bool](c, "iterate") || o.Match != nil || o.Exclude != nil
	if targets.Times != nil {
		if c.Given("at") {
			return nil, argErr("at", "is not given with per-partition times: each partition's time is in topics")
		}
		if streamed {
			return nil, argErr("topics", "is a topic or topics with iterate, match or exclude, not per-partition times")
		}
		return cl.ListOffsetsAt(c.Ctx(), targets.Times)
	}
	if !streamed {
		return cl.ListOffsets(c.Ctx(), targets.Topics, at.Query)
	}
	if !param[bool](c, "iterate") {
		cur, err := cl.OpenOffsets(c.Ctx(), targets.Topics, at.Query, o)
		if err != nil {
			return nil, err
		}
		return readAll(cur.Next, cur.Close)
	}
	cur, err := cl.OpenOffsets(c.iterCtx(), targets.Topics, at.Query, o)
	if err != nil {
		return nil, err
	}
	return rowIterator(c, "partitions", cur.Next, cur.Close), nil
}
