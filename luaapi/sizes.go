package luaapi

import (
	"github.com/kadmin-lua/kadmin-lua/engine"
)

func init() {
	register(
		&Func{Name: "topic_sizes", Area: "logdirs",
			Params: []Param{{Name: "topics", Type: topicNames.NonEmpty(), Optional: true, Doc: "a topic or an array of them (every topic when left out)"}},
			Options: []Field{
				{Name: "per", Type: Enum("topic", "partition"), Doc: `"topic" (default): a row per topic; "partition": a row per partition`},
			},
			Returns: "{{topic=string, partition=int?, leader=int?, partitions=int, replicas=int, leaders=int, bytes=int, leader_bytes=int, largest_replica_bytes=int}...}",
			Summary: "Bytes on disk per topic (or per partition), every replica counted and the leaders' apart.",
			Doc: `From describe_log_dirs (every broker's replicas and their sizes) and the metadata (who leads each partition). bytes sums every replica, so a topic with replication factor 3 counts three times: the disk it takes; leader_bytes sums the leaders' replicas only: the data once. replicas counts the replicas measured, leaders the partitions whose leader's replica was measured (fewer than partitions when a partition has no leader), largest_replica_bytes is the biggest single replica.
Rows per topic are sorted by bytes, largest first, then by name; per="partition" gives a row per partition with its partition and leader (-1: none), sorted by topic and partition. A replica being moved between log dirs of its broker (is_future in describe_log_dirs) counts in bytes but not as a replica.
When a broker or a log dir cannot be read the call fails, naming it, since the sums would be short: broker_sizes shows every broker's state. Internal topics (__consumer_offsets) are included when no topics are named.
For a topic in tiered storage (remote.storage.enable=true) the bytes are the local segments only, what describe_log_dirs counts: describe_tiered_storage gives the local against the whole log's (estimated) and what is only in remote storage.`,
			Example: `for _, t in ipairs(topic_sizes()) do print(t.topic, t.bytes, t.leader_bytes) end
local p = topic_sizes("orders", {per = "partition"})
return #p == 6 and p[1].partition == 0`,
			Run: topicSizes},
		&Func{Name: "broker_sizes", Area: "logdirs",
			Params: []Param{{Name: "topics", Type: topicNames, Optional: true, Doc: "count only these topics' replicas (every topic when left out)"}},
			Options: []Field{
				{Name: "per", Type: Enum("broker", "dir"), Doc: `"broker" (default): a row per broker; "dir": a row per log dir`},
			},
			Batch:   true,
			Returns: "{{broker=int, rack=string, dir=string?, dirs=int, replicas=int, leaders=int, bytes=int, leader_bytes=int, total_bytes=int, usable_bytes=int, error=error?}...}",
			Summary: "Bytes on disk per broker (or per log dir): replicas, leaders, and the volumes' size and free space.",
			Doc: `From describe_log_dirs and the metadata. bytes sums the replicas on the broker (or in the dir), leader_bytes those it leads; replicas and leaders count them; dirs is the broker's log dirs; total_bytes and usable_bytes are the volumes' size and free space summed over its dirs (-1 when the broker does not say: Kafka before 3.3). rack is the broker's rack ("" for none).
Every broker is a row, one that holds nothing included. A broker that cannot be asked (or an offline log dir) gets its error, bytes -1 and, per broker, the replicas and leaders the metadata gives it; the call then raises unless {partial=true}. per="dir" gives a row per log dir, sorted by broker then dir.`,
			Example: `for _, b in ipairs(broker_sizes()) do print(b.broker, b.rack, b.replicas, b.leaders, b.bytes) end
return #broker_sizes(nil, {per = "dir"}) >= 3`,
			Run: brokerSizes},
		&Func{Name: "skew", Area: "logdirs",
			Params:  []Param{{Name: "topics", Type: topicNames, Optional: true, Doc: "only these topics (the whole cluster when left out)"}},
			Returns: "{brokers={{broker=int, rack=string, partitions=int, leaders=int, bytes=int, error=error?}...}, racks={{rack=string, brokers=int, partitions=int, leaders=int, bytes=int}...}, spread={partitions_pct=number, leaders_pct=number, bytes_pct=number}, rack_spread={partitions_pct=number, leaders_pct=number, bytes_pct=number}?}",
			Summary: "How evenly partitions, leaders and bytes are spread over the brokers and racks.",
			Doc: `A row per broker (one that holds nothing, such as a broker just added, included) with the replicas it holds (partitions), the partitions it leads (leaders) and its bytes on disk; a row per rack summing its brokers (racks is empty when no broker has a rack). spread is how uneven each is: the largest broker's over the mean, in percent, to one decimal: 100 is perfectly even, 150 a broker with half as much again as the mean (the figure kafka-ui and cruise-control call skew). rack_spread is the same over racks.
partitions and leaders come from the metadata (the assignment), bytes from describe_log_dirs. A broker whose log dirs cannot be read has bytes -1 and its error, and is left out of bytes_pct. With topics, only their partitions count: the skew of one topic, or of a set of topics.`,
			Example: `local s = skew()
for _, b in ipairs(s.brokers) do print(b.broker, b.partitions, b.leaders, b.bytes) end
print("leaders spread", s.spread.leaders_pct .. "%")
return s.spread.partitions_pct >= 100`,
			Run: skew},
	)
}

func sizesOptions(c *Call) engine.SizesOptions {
	return engine.SizesOptions{Topics: param[[]string](c, "topics"), Per: param[string](c, "per")}
}

func topicSizes(c *Call) (any, error) {
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.TopicSizes(c.Ctx(), sizesOptions(c))
}

func brokerSizes(c *Call) (any, error) {
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.BrokerSizes(c.Ctx(), sizesOptions(c))
}

func skew(c *Call) (any, error) {
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.Skew(c.Ctx(), param[[]string](c, "topics"))
}
