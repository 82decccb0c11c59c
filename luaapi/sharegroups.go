package luaapi

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

func init() {
	register(
		&Func{Name: "describe_share_groups", Area: "sharegroups", Args: "(groups)",
			Returns: "{{group=, state=, coordinator=, group_epoch=, assignment_epoch=, assignor=, members={{member_id=, client_id=, host=, rack=, member_epoch=, subscribed_topics=, assignment={{topic=, partition=}...}}...}}...}",
			Summary: "Describe share groups (KIP-932 queues): state and members with their assignments.",
			Doc:     "groups is a group name or an array. An unknown group fails with GROUP_ID_NOT_FOUND (see err.results, or pass {partial=true}).",
			Example: `local ok, err = pcall(describe_share_groups, "orders-queue")
print(ok or err.code)`,
			Run: describeShareGroups},
		&Func{Name: "describe_share_group_offsets", Area: "sharegroups", Args: "(groups)",
			Returns: "{{group=, topic=, partition=, start_offset=, leader_epoch=, lag=, error=}...}",
			Summary: "List share groups' start offsets per partition.",
			Doc:     "One row per group and partition, sorted by group, topic and partition. start_offset is where the share group's records start (records before it are done); lag is -1 when the broker does not know it. A group that fails gets one row with its error.",
			Example: `for _, o in ipairs(describe_share_group_offsets("orders-queue")) do print(o.topic, o.partition, o.start_offset) end`,
			Run:     describeShareGroupOffsets},
		&Func{Name: "alter_share_group_offsets", Area: "sharegroups", Mutating: true, Destructive: true,
			Args:    "(group, offsets[, {partial=}])",
			Returns: "{{topic=, partition=, offset=, error=}...}",
			Summary: "Reset a share group's start offsets (the group must have no members).",
			Doc:     "offsets is an array of {topic=, partition=, offset=}. Like a consumer group offset reset: records before the new start offset are skipped, records after it are delivered again. Kafka refuses while the group has members. Under --dry-run nothing changes.",
			Example: `alter_share_group_offsets("orders-queue", {{topic = "orders", partition = 0, offset = 0}})`,
			Run:     alterShareGroupOffsets},
		&Func{Name: "delete_share_group_offsets", Area: "sharegroups", Mutating: true, Destructive: true,
			Args:    "(group, topics[, {partial=}])",
			Returns: "{{topic=, error=}...}",
			Summary: "Delete a share group's offsets for whole topics (the group must have no members).",
			Doc:     "topics is a topic name or an array. The group forgets its progress on those topics. Under --dry-run nothing changes.",
			Example: `alter_share_group_offsets("orders-queue", {{topic = "orders", partition = 0, offset = 0}})
delete_share_group_offsets("orders-queue", "orders")`,
			Run: deleteShareGroupOffsets},
	)
}

func describeShareGroups(c *Call) (any, error) {
	return namesCall(c, "groups", false, func(cl *engine.Client, groups []string) (any, error) {
		return cl.DescribeShareGroups(c.Ctx(), groups)
	})
}

func describeShareGroupOffsets(c *Call) (any, error) {
	return namesCall(c, "groups", false, func(cl *engine.Client, groups []string) (any, error) {
		return cl.DescribeShareGroupOffsets(c.Ctx(), groups)
	})
}

// namesCall reads (names[, {partial=}]) and calls fn with the client.
func namesCall(c *Call, what string, optional bool, fn func(*engine.Client, []string) (any, error)) (any, error) {
	names, err := c.Strings(1, what, optional)
	if err != nil {
		return nil, err
	}
	cl, err := c.clientAfterOptions(2)
	if err != nil {
		return nil, err
	}
	return fn(cl, names)
}

// groupArg reads a required group name at argument n.
func alterShareGroupOffsets(c *Call) (any, error) {
	group, err := groupArg(c, 1)
	if err != nil {
		return nil, err
	}
	t, ok := c.Arg(2).(*lua.LTable)
	if !ok {
		return nil, argErr("offsets", "must be an array of {topic=, partition=, offset=}, got %s", describe(c.Arg(2)))
	}
	if err := onlyArray(t, "offsets"); err != nil {
		return nil, err
	}
	var offsets []engine.ShareOffsetResult
	for i := 1; i <= t.Len(); i++ {
		f := newFields(t.RawGetInt(i), fmt.Sprintf("offset #%d", i), "topic", "partition", "offset")
		o := engine.ShareOffsetResult{Topic: f.str("topic", true), Partition: int32(f.integer("partition", 0, 0)), Offset: f.integer("offset", 0, 0)}
		for _, k := range []string{"partition", "offset"} {
			if f.err == nil && !f.has(k) {
				f.fail(k, "is required")
			}
		}
		if f.err != nil {
			return nil, f.err
		}
		offsets = append(offsets, o)
	}
	if len(offsets) == 0 {
		return nil, argErr("offsets", "must name at least one partition")
	}
	cl, err := c.clientAfterOptions(3)
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
	group, err := groupArg(c, 1)
	if err != nil {
		return nil, err
	}
	topics, err := c.Strings(2, "topics", false)
	if err != nil {
		return nil, err
	}
	cl, err := c.clientAfterOptions(3)
	if err != nil {
		return nil, err
	}
	if c.DryRun() {
		var out []engine.ShareTopicResult
		for _, t := range dedup(topics) {
			c.Plan("delete %s offsets of topic %s", group, t)
			out = append(out, engine.ShareTopicResult{Topic: t})
		}
		return out, nil
	}
	return cl.DeleteShareGroupOffsets(c.Ctx(), group, topics)
}
