package luaapi

import (
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

// shareNeeds: share group requests came with Kafka 4.1 (4.0 kept them
// unstable, unadvertised), and a broker answers them only once the
// share.version feature is finalized (the default from Kafka 4.2 on).
func shareNeeds(key kmsg.Key, v int16) []engine.Need {
	return []engine.Need{engine.NeedAPI(key, v, "4.1"), engine.NeedFeature("share.version", 1, "share groups")}
}

func init() {
	register(
		&Func{Name: "describe_share_groups", Area: "sharegroups", Batch: true,
			Needs:   shareNeeds(kmsg.ShareGroupDescribe, 1),
			Params:  []Param{{Name: "groups", Type: groupIDs.NonEmpty(), Doc: "the share groups to describe"}},
			Returns: "{{group=string, state=string, coordinator=int, group_epoch=int, assignment_epoch=int, assignor=string, members={{member_id=string, client_id=string, host=string, rack=string?, member_epoch=int, subscribed_topics={string...}, assignment={{topic=string, partition=int}...}}...}, error=error?}...}",
			Summary: "Describe share groups (KIP-932 queues): state and members with their assignments.",
			Doc:     "groups is a group name or an array. An unknown group fails with GROUP_ID_NOT_FOUND (see err.results, or pass {partial=true}).",
			Example: `local ok, err = pcall(describe_share_groups, "orders-queue")
print(ok or err.code)`,
			Run: describeShareGroups},
		&Func{Name: "describe_share_group_offsets", Area: "sharegroups", Batch: true,
			Needs:   shareNeeds(kmsg.DescribeShareGroupOffsets, 0),
			Params:  []Param{{Name: "groups", Type: groupIDs.NonEmpty(), Doc: "the share groups whose offsets are listed"}},
			Returns: "{{group=string, topic=string, partition=int, start_offset=int, leader_epoch=int, lag=int, error=error?}...}",
			Summary: "List share groups' start offsets per partition.",
			Doc:     "One row per group and partition, sorted by group, topic and partition. start_offset is where the share group's records start (records before it are done); lag is -1 when the broker does not know it. A group that fails gets one row with its error.",
			Example: `for _, o in ipairs(describe_share_group_offsets("orders-queue")) do print(o.topic, o.partition, o.start_offset) end`,
			Run:     describeShareGroupOffsets},
		&Func{Name: "alter_share_group_offsets", Area: "sharegroups", Batch: true,
			Needs: shareNeeds(kmsg.AlterShareGroupOffsets, 0),
			Params: []Param{
				{Name: "group", Type: groupID, Doc: "the share group"},
				{Name: "offsets", Type: shareOffsets, Doc: "one record per partition, each partition once"},
			},
			Returns: "{{topic=string, partition=int, offset=int, error=error?}...}",
			Summary: "Reset a share group's start offsets (the group must have no members).",
			Doc:     "offsets is an array of {topic=, partition=, offset=}. Like a consumer group offset reset: records before the new start offset are skipped, records after it are delivered again. Kafka refuses while the group has members. Under --dry-run nothing changes.",
			Example: `alter_share_group_offsets("orders-queue", {{topic = "orders", partition = 0, offset = 0}})`,
			Run:     alterShareGroupOffsets},
		&Func{Name: "delete_share_group_offsets", Area: "sharegroups", Batch: true,
			Needs: shareNeeds(kmsg.DeleteShareGroupOffsets, 0),
			Params: []Param{
				{Name: "group", Type: groupID, Doc: "the share group"},
				{Name: "topics", Type: topicNames.NonEmpty(), Doc: "the topics whose offsets are deleted"},
			},
			Returns: "{{topic=string, error=error?}...}",
			Summary: "Delete a share group's offsets for whole topics (the group must have no members).",
			Doc:     "topics is a topic name or an array. The group forgets its progress on those topics. Under --dry-run nothing changes.",
			Example: `alter_share_group_offsets("orders-queue", {{topic = "orders", partition = 0, offset = 0}})
delete_share_group_offsets("orders-queue", "orders")`,
			Run: deleteShareGroupOffsets},
	)
}

func describeShareGroups(c *Call) (any, error) {
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.DescribeShareGroups(c.Ctx(), param[[]string](c, "groups"))
}

func describeShareGroupOffsets(c *Call) (any, error) {
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.DescribeShareGroupOffsets(c.Ctx(), param[[]string](c, "groups"))
}

func alterShareGroupOffsets(c *Call) (any, error) {
	group, offsets := param[string](c, "group"), param[[]engine.ShareOffsetResult](c, "offsets")
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	if c.DryRun() {
		for _, o := range offsets {
			c.Plan("set %s start offset of %s to %d", group, o.Key(), o.Offset)
		}
		return offsets, nil
	}
	return cl.AlterShareGroupOffsets(c.Ctx(), group, offsets)
}

func deleteShareGroupOffsets(c *Call) (any, error) {
	group, topics := param[string](c, "group"), param[[]string](c, "topics")
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	if c.DryRun() {
		var out []engine.ShareTopicResult
		for _, t := range slices.Compact(slices.Sorted(slices.Values(topics))) {
			c.Plan("delete %s offsets of topic %s", group, t)
			out = append(out, engine.ShareTopicResult{Topic: t})
		}
		return out, nil
	}
	return cl.DeleteShareGroupOffsets(c.Ctx(), group, topics)
}
