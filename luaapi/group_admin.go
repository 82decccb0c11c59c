package luaapi

import (
	"fmt"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

func init() {
	register(
		&Func{Name: "remove_group_members", Area: "groups", Batch: true,
			Params: []Param{
				{Name: "group", Type: groupID, Doc: "the group"},
				{Name: "members", Type: memberRefs, Optional: true, Doc: "the members to remove (default: every current member)"},
			},
			Returns: "{{group=string, member_id=string, instance_id=string?, error=error?}...}",
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
		&Func{Name: "delete_group_offsets", Area: "groups", Batch: true,
			Params: []Param{
				{Name: "group", Type: groupID, Doc: "the group whose commits are deleted"},
				{Name: "topics", Type: topicScopeType, Doc: "whole topics (by name) and single partitions ({topic=, partition=})"},
			},
			Returns: "{{topic=string, partition=int, error=error?}...}",
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
	group, members := param[string](c, "group"), param[[]engine.MemberRef](c, "members")
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

func memberName(r engine.RemovedMember) string {
	if r.InstanceID != nil {
		return fmt.Sprintf("static member %s (member_id %s)", *r.InstanceID, r.MemberID)
	}
	return "member " + r.MemberID
}

func deleteGroupOffsets(c *Call) (any, error) {
	group, scope := param[string](c, "group"), param[topicScope](c, "topics")
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	out, err := cl.DeleteGroupOffsets(c.Ctx(), group, scope.Topics, scope.Partitions, engine.DeleteOffsetsOptions{DryRun: c.DryRun()})
	if err == nil && c.DryRun() {
		for _, r := range out {
			if r.Err == nil {
				c.Plan("delete group %s's offset for %s", group, r.Key())
			}
		}
	}
	return out, err
}
