package luaapi

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

func init() {
	register(
		&Func{Name: "remove_group_members", Area: "groups", Mutating: true, Destructive: true,
			Args:    "(group[, members][, {partial=}])",
			Returns: "{{group=, member_id=, instance_id=, error=}...}",
			Summary: "Remove members from a group (LeaveGroup on their behalf), or all of them.",
			Doc: `members is an array of {instance_id=} (static members, KIP-345) and/or {member_id=} (dynamic members, as describe_groups shows them; Kafka 2.6+), or one such record. Without members, every current member is removed, each by its instance_id when it has one and by its member_id otherwise, as the Java Admin's removeMembersFromConsumerGroup does; a group without members gives an empty result.
A removed member's consumer, if it is still running, rejoins at once with a new member_id: this is for members that are gone but not yet expired (a crashed consumer, a static member within session.timeout.ms), or to force a rebalance. A member that is not in the group fails with UNKNOWN_MEMBER_ID (the others are still removed: see err.results, or pass {partial=true}); a group that does not exist fails with GROUP_ID_NOT_FOUND.
Under --dry-run nothing changes: the group and each member are checked to exist. Results are sorted by instance_id (static members first), then member_id.`,
			Example: `-- orders-processor has one live member; remove it (it rejoins: the demo consumer is still running).
local d = describe_groups("orders-processor")[1]
for _, r in ipairs(remove_group_members("orders-processor", {{member_id = d.members[1].member_id}})) do
  print(r.group, r.member_id, r.error)
end`,
			Run: removeGroupMembers},
		&Func{Name: "delete_group_offsets", Area: "groups", Mutating: true, Destructive: true,
			Args:    "(group, topics[, {partial=}])",
			Returns: "{{topic=, partition=, error=}...}",
			Summary: "Delete a group's committed offsets for topics (or single partitions).",
			Doc: `topics is a topic name, or an array of names (all their partitions) and/or {topic=, partition=} records. Kafka (OffsetDelete, 2.4+) drops the group's commits there, so its lag no longer counts topics it stopped reading; a partition without a commit succeeds too.
A group still consuming a topic keeps those offsets: each of its partitions fails with GROUP_SUBSCRIBED_TO_TOPIC (the others are still deleted: see err.results, or pass {partial=true}). A group with live members that is not a consumer group fails as a whole with NON_EMPTY_GROUP; a group that does not exist with GROUP_ID_NOT_FOUND. A named topic that does not exist gets one result with partition=-1 and UNKNOWN_TOPIC_OR_PARTITION; a {topic=, partition=} that does not exist fails the call before anything is deleted.
Under --dry-run nothing is deleted: the group is described and a partition of a topic assigned to one of its members is answered GROUP_SUBSCRIBED_TO_TOPIC (Kafka decides from the members' subscriptions, which describe_groups does not show).`,
			Example: `-- billing is empty; drop its commits on payments partition 2, then on all of payments.
delete_group_offsets("billing", {{topic = "payments", partition = 2}})
print(#fetch_offsets("billing"))
delete_group_offsets("billing", "payments")
print(#fetch_offsets("billing"))`,
			Run: deleteGroupOffsets},
	)
}

func removeGroupMembers(c *Call) (any, error) {
	group, err := groupArg(c, 1)
	if err != nil {
		return nil, err
	}
	var members []engine.MemberRef
	optsAt := 2
	if t, ok := c.Arg(2).(*lua.LTable); c.Arg(2) != lua.LNil && (!ok || isArray(t) || isMemberRecord(t)) {
		if members, err = memberRefs(c.Arg(2)); err != nil {
			return nil, err
		}
		optsAt = 3
	}
	if _, err := c.Options(optsAt); err != nil {
		return nil, err
	}
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	out, err := cl.RemoveGroupMembers(c.Ctx(), group, members, engine.RemoveMembersOptions{DryRun: c.DryRun()})
	if err == nil && c.DryRun() {
		for _, r := range out {
			if r.Err == nil {
				c.Plan("remove %s from group %s", memberName(r), group)
			}
		}
	}
	return out, err
}

func isMemberRecord(t *lua.LTable) bool {
	return t.RawGetString("member_id") != lua.LNil || t.RawGetString("instance_id") != lua.LNil
}

func memberName(r engine.RemovedMember) string {
	if r.InstanceID != nil {
		return fmt.Sprintf("static member %s (member_id %s)", *r.InstanceID, r.MemberID)
	}
	return "member " + r.MemberID
}

// memberRefs reads remove_group_members' members: an array of
// {member_id=} / {instance_id=} records, or one record.
func memberRefs(v lua.LValue) ([]engine.MemberRef, error) {
	t, ok := v.(*lua.LTable)
	if !ok {
		return nil, argErr("members", "must be an array of {member_id=} or {instance_id=}, got %s", describe(v))
	}
	list := []lua.LValue{t}
	if !isMemberRecord(t) {
		list = list[:0]
		for i := 1; i <= t.Len(); i++ {
			list = append(list, t.RawGetInt(i))
		}
	}
	if len(list) == 0 {
		return nil, argErr("members", "must name at least one member (leave members out to remove them all)")
	}
	out := make([]engine.MemberRef, 0, len(list))
	for i, item := range list {
		f := newFields(item, fmt.Sprintf("members #%d", i+1), "member_id", "instance_id")
		m := engine.MemberRef{MemberID: f.str("member_id", false), InstanceID: f.str("instance_id", false)}
		if f.err == nil && m.MemberID == "" && m.InstanceID == "" {
			f.fail("member_id", "or instance_id is required")
		}
		if f.err != nil {
			return nil, f.err
		}
		out = append(out, m)
	}
	return out, nil
}

func deleteGroupOffsets(c *Call) (any, error) {
	group, err := groupArg(c, 1)
	if err != nil {
		return nil, err
	}
	if c.Arg(2) == lua.LNil {
		return nil, argErr("topics", "is required")
	}
	topics, partitions, err := topicsOrPartitions(c.Arg(2), "topics")
	if err != nil {
		return nil, err
	}
	cl, err := c.clientAfterOptions(3)
	if err != nil {
		return nil, err
	}
	out, err := cl.DeleteGroupOffsets(c.Ctx(), group, topics, partitions, engine.DeleteOffsetsOptions{DryRun: c.DryRun()})
	if err == nil && c.DryRun() {
		for _, r := range out {
			if r.Err == nil {
				c.Plan("delete group %s's offset for %s", group, r.Key())
			}
		}
	}
	return out, err
}

// topicsOrPartitions reads a topic name, or an array of names and/or
// {topic=, partition=} records.
func topicsOrPartitions(v lua.LValue, where string) ([]string, []engine.TopicPartition, error) {
	if s, ok := v.(lua.LString); ok {
		return []string{string(s)}, nil, nil
	}
	t, ok := v.(*lua.LTable)
	if !ok {
		return nil, nil, argErr(where, "must be a topic name or an array of names and {topic=, partition=}, got %s", describe(v))
	}
	list := []lua.LValue{t}
	if t.RawGetString("topic") == lua.LNil {
		if err := onlyArray(t, where); err != nil {
			return nil, nil, err
		}
		list = list[:0]
		for i := 1; i <= t.Len(); i++ {
			list = append(list, t.RawGetInt(i))
		}
	}
	if len(list) == 0 {
		return nil, nil, argErr(where, "must name at least one topic")
	}
	var names []string
	var tps []engine.TopicPartition
	for i, item := range list {
		at := fmt.Sprintf("%s #%d", where, i+1)
		if s, ok := item.(lua.LString); ok {
			if s == "" {
				return nil, nil, argErr(at, "must be a non-empty topic name")
			}
			names = append(names, string(s))
			continue
		}
		f := newFields(item, at, "topic", "partition")
		if f.err == nil && !f.has("partition") {
			f.fail("partition", "is required (or give the topic's name to mean all its partitions)")
		}
		tp := engine.TopicPartition{Topic: f.str("topic", true), Partition: int32(f.integer("partition", 0, 0))}
		if f.err != nil {
			return nil, nil, f.err
		}
		tps = append(tps, tp)
	}
	return names, tps, nil
}
