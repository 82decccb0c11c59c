package luaapi

import (
	"fmt"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

func init() {
	register(
		&Func{Name: "reset_offsets", Area: "groups", DryRunKey: "dry_run", TableCall: true, Batch: true,
			Options: []Field{
				{Name: "group", Type: groupID, Required: true, Doc: "the group whose offsets move (created if it does not exist)"},
				{Name: "to", Type: resetTargetType, Required: true, Doc: "where to move them (see below)"},
				{Name: "topics", Type: topicScopeType, Doc: "whole topics (by name) and single partitions ({topic=, partition=}) to reset"},
				{Name: "dry_run", Type: Bool(), Doc: "return the plan and commit nothing"},
				{Name: "force", Type: Bool(), Doc: "remove the group's members first (see below)"},
			},
			Returns: "{{topic=string, partition=int, current=int, target=int, clamped=bool?, error=error?}...}",
			Summary: "Reset a group's offsets: to earliest, latest, an offset, a shift, a time, another group's, a file's.",
			Doc: `to is one of:
  "earliest": the log start offset; "latest": the end (high watermark);
  "current": the committed offset (the end where nothing is committed, as kafka-consumer-groups does);
  {offset=N}: offset N on every partition; {shift=N}: the committed offset moved by N (negative goes back; a partition without a commit fails);
  {timestamp=ms}: the first offset whose record is at or after ms (milliseconds since the epoch); the end where no record is that recent;
  {datetime="2026-11-30T10:00:00Z"}: the same for an RFC 3339 time (the zone is required);
  {duration="-1h"}: the same for now minus a duration, in Go's syntax ("-1h30m", "90m") or ISO-8601's ("PT1H", "P1DT2H"); the sign is optional and the time is always in the past, as kafka-consumer-groups --by-duration;
  {group="other-group"}: the other group's committed offsets;
  {file="offsets.csv"}: a CSV of topic,partition,offset lines (kafka-consumer-groups --export output; an optional header line, # comments). A relative path is relative to the current directory.
topics is a topic name, or an array of names (all their partitions) and/or {topic=, partition=} records. Without topics: the partitions in the other group or the file for {group=} and {file=}, else the partitions the group has committed offsets for. Every partition in scope needs a target: one missing from the file or the other group fails with NOT_FOUND.
Every target is clamped to the partition's [earliest, latest] (clamped=true says it was). current is the committed offset before the reset (-1 where none); target is -1 where none could be worked out (see the row's error).
The plan is worked out completely before anything changes; if any row has no target, nothing is committed and the call raises that row's error (with partial=true it returns the plan instead, the failed rows carrying their error). Otherwise the targets are committed (creating the group if it does not exist) and each row carries its commit's error. dry_run=true (or --dry-run, kafka.dry_run(true)) returns the plan and commits nothing.
A group with live members is refused with NON_EMPTY_GROUP before anything is worked out (under dry-run too): Kafka rejects admin commits to it (UNKNOWN_MEMBER_ID), and kafka-consumer-groups refuses as well. force=true removes the members first (as remove_group_members(group) does), waits until the group is empty, then commits. It is meant for members whose consumers are gone but not yet expired (crashed consumers, static members within session.timeout.ms). Consumers still running learn of their removal at their next heartbeat, their commits under the old member id are refused, and they rejoin and resume from the reset offsets, dropping whatever they were processing; one that rejoins before the commit makes the call fail (TIMEOUT waiting for the group to empty, or UNKNOWN_MEMBER_ID on the commit). Stopping the consumers first remains the safe way.
A streams group (a Kafka Streams application, KIP-1071) is reset the same way once the application's instances are stopped, as kafka-streams-groups.sh --reset-offsets requires; force cannot remove its members (Kafka has no admin request for that). Its state stores are not reset with it: kafka-streams-groups.sh --execute also deletes the application's internal topics, which here is delete_topics' work (the topics are in describe_streams_groups), and the instances' local state is theirs (KafkaStreams#cleanUp).`,
			Example: `-- billing is empty: rewind it on payments by 5 records, then look at the plan for "earliest" without committing.
for _, r in ipairs(reset_offsets{group = "billing", topics = "payments", to = {shift = -5}}) do
  print(r.topic, r.partition, r.current, "->", r.target, r.clamped and "(clamped)" or "")
end
local plan = reset_offsets{group = "billing", to = "earliest", dry_run = true}
print(#plan, plan[1].target)
-- Copy billing's offsets to a new group.
reset_offsets{group = "billing-replay", to = {group = "billing"}}
print(fetch_offsets("billing-replay")[1].offset)`,
			Run: resetOffsets},
	)
}

func resetOffsets(c *Call) (any, error) {
	scope := param[topicScope](c, "topics")
	o := engine.ResetOptions{Group: param[string](c, "group"), To: param[engine.ResetTarget](c, "to"),
		Topics: scope.Topics, Partitions: scope.Partitions, Force: param[bool](c, "force"), DryRun: c.DryRun()}
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	res, err := cl.ResetOffsets(c.Ctx(), o)
	if e, ok := err.(*engine.Error); ok && e.Code == engine.CodeInvalidArgument {
		// The arguments were checked before anything was sent: what the
		// engine still refuses is the group's state (nothing committed and
		// no topics named), which is not a bad argument.
		nf := *e
		nf.Code = engine.CodeNotFound
		err = &nf
	}
	if err != nil {
		return nil, err
	}
	if first, failed := engine.FirstFailure(res.Rows); first != nil && !res.Committed && !c.partial {
		// No row was committed: say so, rather than let the batch error
		// list the rows with a target as applied.
		e := *first
		e.Message = fmt.Sprintf("%s (%d of %d partitions have no target; nothing was committed: pass partial=true for the plan)", e.Message, failed, len(res.Rows))
		return nil, &e
	}
	if c.DryRun() {
		if res.Members > 0 {
			c.Plan("remove the %d live member(s) of group %s first (force=true)", res.Members, o.Group)
		}
		for _, r := range res.Rows {
			if r.Err == nil {
				clamped := ""
				if r.Clamped {
					clamped = " (clamped)"
				}
				c.Plan("reset %s %s: %d -> %d%s", o.Group, r.Key(), r.Current, r.Target, clamped)
			}
		}
	}
	return res.Rows, nil
}
