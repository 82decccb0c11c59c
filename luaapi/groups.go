package luaapi

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

func init() {
	register(
		&Func{Name: "list_groups", Area: "groups", Aliases: []string{"list_consumer_groups"},
			Options: []Field{
				{Name: "states", Type: List[string](Enum(engine.GroupStates...)), Doc: "keep groups in these states (case-insensitive)"},
				{Name: "types", Type: List[string](Enum(engine.GroupTypes...)), Doc: "keep groups of these types (case-insensitive)"},
			},
			Returns: "{{group=string, state=string, protocol_type=string, type=string, coordinator=int}...}",
			Summary: "List consumer groups (and share/streams groups), sorted by name.",
			Doc: `states keeps groups in those states (Stable, Empty, PreparingRebalance, CompletingRebalance, Dead, Assigning, Reconciling, NotReady); types keeps groups of those types (classic, consumer for KIP-848 groups, share, streams). Names are case-insensitive: "stable" is "Stable".
type is "classic" on brokers older than Kafka 3.8, which do not report it. coordinator is the id of the broker coordinating the group.`,
			Example: `for _, g in ipairs(list_groups{states = {"stable", "empty"}}) do print(g.group, g.state, g.type) end`,
			Run:     listGroups},
		&Func{Name: "describe_groups", Area: "groups", Aliases: []string{"describe_consumer_groups"}, Batch: true,
			Params:  []Param{{Name: "groups", Type: groupIDs.NonEmpty(), Doc: "the groups to describe"}},
			Returns: "{{group=string, state=string, protocol_type=string, protocol=string, coordinator=int, members={{member_id=string, instance_id=string?, client_id=string, host=string, assignment={{topic=string, partition=int}...}}...}, error=error?}...}",
			Summary: "Describe groups: state, assignor, members and their assigned partitions.",
			Doc: `groups is a group name or an array of names. Classic groups and KIP-848 consumer groups (and share groups) are described alike: the group's type, from list_groups, picks the request. A streams group fails with GROUP_ID_NOT_FOUND saying it is one: describe_streams_groups describes it (its tasks and topology have no place here). protocol is the assignor (range, cooperative-sticky, uniform...). instance_id is nil unless the member uses static membership. Members are sorted by instance_id then member_id, assignments by topic and partition.
A group that does not exist fails with GROUP_ID_NOT_FOUND (the other groups are still described: see err.results, or pass {partial=true}).`,
			Example: `local g = describe_groups("orders-processor")[1]
print(g.group, g.state, #g.members)`,
			Run: describeGroups},
		&Func{Name: "fetch_offsets", Area: "groups", Aliases: []string{"list_consumer_group_offsets"}, Batch: true,
			Params: []Param{
				{Name: "group", Type: groupID, Doc: "the group whose commits are read"},
				{Name: "topics", Type: topicNames.NonEmpty(), Optional: true, Doc: "every partition of these topics, committed or not (default: the partitions the group committed to)"},
			},
			Returns: "{{topic=string, partition=int, offset=int, leader_epoch=int, metadata=string, error=error?}...}",
			Summary: "A group's committed offsets, sorted by topic and partition.",
			Doc: `Without topics: every partition the group has committed to. With topics (a name or an array): every partition of those topics, offset -1 (and leader_epoch -1) where the group has no commit; a missing topic fails with UNKNOWN_TOPIC_OR_PARTITION.
A group that does not exist has no commits: the result is empty, as Kafka answers. COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR and COORDINATOR_NOT_AVAILABLE are retried until the deadline.`,
			Example: `for _, o in ipairs(fetch_offsets("orders-processor")) do print(o.topic, o.partition, o.offset) end`,
			Run:     fetchOffsets},
		&Func{Name: "commit_offsets", Area: "groups", Batch: true,
			Params: []Param{
				{Name: "group", Type: groupID, Doc: "the group to commit for (created if it does not exist)"},
				{Name: "offsets", Type: offsetCommits, Doc: "one record per partition, each partition once"},
			},
			Returns: "{{topic=string, partition=int, error=error?}...}",
			Summary: "Commit offsets for a group (rewind or skip ahead an idle group).",
			Doc: `offset is the next offset the group will read. Kafka only accepts an admin commit to a group without live members: stop the consumers first, or the commit fails with UNKNOWN_MEMBER_ID. Committing to a group that does not exist creates it (Kafka's semantics).
Under --dry-run nothing is committed: the group is checked to have no live members and each partition to exist.`,
			Example: `commit_offsets("orders-replay", {{topic = "orders", partition = 0, offset = 0}, {topic = "orders", partition = 1, offset = 0}})
print(fetch_offsets("orders-replay")[1].offset)`,
			Run: commitOffsets},
		&Func{Name: "delete_groups", Area: "groups", Batch: true,
			Params:  []Param{{Name: "groups", Type: groupIDs.NonEmpty(), Doc: "the groups to delete"}},
			Options: []Field{{Name: "if_exists", Type: Bool(), Doc: "a missing group is a success (missing=true)"}},
			Returns: "{{group=string, missing=bool?, error=error?}...}",
			Summary: "Delete groups and their committed offsets.",
			Doc: `A group with live members fails with NON_EMPTY_GROUP (stop its consumers first); a missing one with GROUP_ID_NOT_FOUND unless if_exists=true (missing=true). A streams group is deleted like a consumer group (once the application's instances are stopped); its internal topics (repartition and changelog topics, see describe_streams_groups) stay: kafka-streams-groups.sh --delete deletes them too, delete_topics does here.
Under --dry-run nothing is deleted: each group is checked to exist and to have no members.`,
			Example: `commit_offsets("scratch-group", {{topic = "orders", partition = 0, offset = 0}})
delete_groups("scratch-group")`,
			Run: deleteGroups},
		&Func{Name: "lag", Area: "groups", Batch: true,
			Params: []Param{{Name: "groups", Type: groupIDs.NonEmpty(), Optional: true, Doc: "the groups (default: every consumer and streams group)"}},
			Options: append([]Field{
				{Name: "time", Type: Bool(), Doc: "add the lag in time, read from the records' own timestamps (see below)"},
				{Name: "read_committed", Type: Bool(), Doc: "with time: read as a read_committed consumer does (records of aborted transactions skipped)"},
				{Name: "no_commit", Type: Enum(engine.NoCommitStart, engine.NoCommitSkip), Doc: `a partition without a commit: "start" (default) lags from its log start, "skip" has lag -1 and is left out of total_lag, as kafka-consumer-groups --describe prints "-"`},
				{Name: "only_lagging", Type: Bool(), Doc: "leave out partitions that do not lag, and groups left with none (kafkactl --only-with-lag)"},
				{Name: "sort", Type: Enum(engine.LagSortLag, engine.LagSortLagMs), Doc: `order groups and their partitions worst first: "lag" (records) or "lag_ms" (time; needs time=true)`},
				{Name: "top", Type: Count(1), Doc: "keep each group's N worst partitions (with sort; totals still count every partition)"},
				{Name: "at_risk", Type: NumberBetween(0.01, 1), Doc: "with time: the fraction of the topic's retention.ms (or retention.bytes) at which a partition is at risk (default 0.8)"},
				{Name: "observe", Type: NumberBetween(0.1, 3600), Doc: "watch the commits for this many seconds within the call: a lagging partition whose committed offset has not moved by then has stuck_ms (see below)"},
				{Name: "summary", Type: Bool(), Doc: "one row per group (total_lag, max_lag, the worst partition, counts) instead of its partitions (see below)"},
				iterateOption,
			}, groupFilterOptions...),
			CheckArgs: checkPagedLag,
			Returns:   "{{group=string, state=string, total_lag=int, max_lag=int, partition_count=int, lagging=int, worst_topic=string?, worst_partition=int?, max_lag_ms=duration?, records_lost=int, at_risk=int?, reading_remote=int?, remote_only=int?, remote_unknown=int?, odd_timestamps=int?, failed_in=string?, partitions={{topic=string, partition=int, committed=int, end_offset=int, lag=int, member_id=string?, client_id=string?, oldest_unconsumed=time?, lag_ms=duration?, behind_head_ms=duration?, timestamp_type=string?, time_unknown=string?, records_lost=int, at_risk=bool?, at_risk_by=string?, next_deletion_ms=duration?, next_deletion_records=int?, next_deletion_by=string?, next_deletion_unknown=string?, stuck_ms=duration?, reading_remote=bool?, remote_only=int?, earliest_local=int?, remote_unknown=string?, error=error?}...}?, error=error?}...}",
			Summary:   "Consumer lag per group and partition.",
			Doc: `Without groups: every consumer group (classic and KIP-848) and every streams group (Kafka Streams applications with group.protocol=streams, KIP-1071). A group's partitions are those assigned to its members, those it has committed to, and the other partitions of those topics; member_id and client_id are nil where no member is assigned. A streams group's are every partition of the topics its topology consumes (its source topics and the repartition topics it reads: those kafka-streams-groups.sh --describe lists), committed or not, a member's being those its active tasks consume.
committed is -1 where the group has no commit; lag is then counted from the partition's start offset (what a consumer starting at "earliest" would read), unless no_commit="skip": then lag is -1 and total_lag leaves it out, so that totals match kafka-consumer-groups --describe, which prints "-" for such a partition. lag is end_offset - committed, never below 0; total_lag sums the group's lags.
A partition whose end offset cannot be listed gets lag -1 and an error, and fails its group (raised unless {partial=true}); partitions of deleted topics keep their UNKNOWN_TOPIC_OR_PARTITION error without failing the group.
{time=true} adds the lag in time, exactly, from the records themselves: for each lagging partition the first record the group has not read (at its committed offset, or at the log start without a commit; after a compaction gap or a transaction marker, the next record) is read with one small Fetch per leader broker (nothing joins the group or commits). oldest_unconsumed is that record's timestamp (ms), timestamp_type says whether it is CreateTime (the producer's) or LogAppendTime (the broker's), lag_ms is now minus it, and behind_head_ms the partition's newest timestamp (ListOffsets max_timestamp) minus it. A caught-up partition has lag_ms=0; the group's max_lag_ms is the largest. Where no record can be read, time_unknown says why (only markers and aborted records up to the end; or the records were deleted unread and none is left) and the time fields stay nil: nothing is estimated. So they do where the record's timestamp says nothing of its age: a negative one (-1: a record without a timestamp, which Kafka allows; it read as 56 years) or one more than a minute ahead of this machine's clock (it read as 0, a stuck consumer as caught up); a record up to a minute ahead is taken as clock skew, lag_ms 0. The group's odd_timestamps counts those partitions; max_lag_ms leaves them out, and is nil when no other lagging partition has a lag in time. Records deleted before the group read them (records_lost) are lag: the partition's lag_ms is the age of the oldest record left, a floor, and time_unknown says the lag is more; sort = "lag_ms" puts such partitions, and their groups, first.
To look at the worst first: only_lagging=true leaves out the partitions that do not lag (and the groups left with none), sort="lag" (or "lag_ms", with time) orders the groups and their partitions worst first, and top=N keeps each group's N worst partitions; total_lag and the other totals still count every partition.
Data at risk: records_lost (with or without time) is how many records were deleted before the group read them: the log start minus the committed offset, where that is positive; the group's records_lost sums them. With time, at_risk=true marks a partition whose unread records will soon be deleted, and at_risk_by names the config: "retention.ms" when its lag in time has reached at_risk (default 0.8) of the topic's retention.ms; "retention.bytes" when the partition's size (describe_log_dirs, its largest replica) has reached at_risk of the topic's retention.bytes and the committed offset is in its oldest segment, the next one deleted (segments are not visible through the admin API: the place of the committed offset is estimated at the partition's mean record size, within segment.bytes of the log start). The group's at_risk counts them.
When and how many, on each partition at risk (estimates: Kafka deletes whole log segments, which the admin API does not show): next_deletion_ms is the time until retention next deletes the partition's oldest segment, next_deletion_by the config that deletes it, and next_deletion_records how many of the group's unread records go with it (0: none of them; a later deletion takes them). The oldest segment is taken to hold segment.bytes at the partition's mean record size, and to end before the first record stamped segment.ms after its oldest (list_offsets by timestamp); retention.ms deletes it when its newest record (read) is retention.ms old; retention.bytes once the partition holds retention.bytes besides it, at the pace it grew (its size over the span of its records' timestamps), and a partition already past the limit loses every whole segment over it. next_deletion_ms=0 means due: the broker deletes at its next retention check (log.retention.check.interval.ms, 5 minutes by default); while the oldest segment is still the one being written, each new record puts its deletion later. Where an estimate cannot be made (the partition's size and oldest timestamp unreadable, timestamps negative or in the future, no span of time to measure a pace by) it is nil and next_deletion_unknown says why: never 0.
Tiered storage (KIP-405): with time, reading_remote=true marks a partition whose first unread record is no longer on the brokers' disks, only in remote storage (below earliest_local, the partition's earliest local offset, given for topics with remote.storage.enable=true): the group reads from object storage, slower and costlier, long before it loses anything. remote_only counts the unread records that are only in remote storage. Both are nil on a topic without tiered storage, false and 0 on a partition of a tiered topic that does not lag, and nil where it cannot be known, with remote_unknown saying why (the earliest local offset or the topic's configs could not be read). The group's reading_remote counts the partitions reading from remote storage and remote_only sums theirs; its remote_unknown counts the lagging partitions of which it is not known, for which reading_remote does not speak. Data at risk is judged against the whole log, which retention.ms and retention.bytes bound (local.retention.ms and local.retention.bytes only decide what stays on disk): for a tiered partition the size against retention.bytes is the local size (describe_log_dirs counts only local segments) over its local records, times all its records, an estimate, and a partition whose local records cannot be counted is judged by time alone.
Stuck: with time, stuck_ms is how long the committed offset has not moved while the partition lags, read from the state store's samples (those lag_status took, in this process or in the --state file), where that window with this reading added is judged STALL or STOP (see lag_status); nil where the store has no earlier sample at that offset, and where it is judged OK or WARN: a consumer that keeps up stands still between its commits too. Within one call, observe=N (seconds, with or without time) reads the commits of the lagging groups again N seconds after the call began (Ctrl-C ends the wait): a lagging partition whose committed offset is still where it was has stuck_ms of at least N (the store's figure when longer), and one that moved has none, whatever the store said; the rows are the first reading's. A consumer commits every few seconds (Java's auto-commit: 5 s), so N should be longer than that. peek(topic, partition, {group = G}) shows the record it is stuck on; the skip-record runbook skips it.
At scale: the groups are listed once, and match and exclude (RE2 on the group name, unanchored) and states (as list_groups says them) choose them right there, before any group is described or any offset asked for. They are then read a page of 2,000 groups at a time (their descriptions and commits, then their topics' start and end offsets), so the requests grow with the pages, not the groups. summary=true gives one row per group instead of its partitions: group, state, total_lag, max_lag (the most a partition lags), partition_count, lagging (how many lag), worst_topic and worst_partition (the partition lagging most; nil when none lags), max_lag_ms with time, records_lost, at_risk, failed_in and error; no partitions. Each page's partitions are let go once summed: 65,000 groups of 40 partitions are 65,000 rows. sort orders the summaries worst first; only_lagging leaves out groups without lag. iterate=true returns an iterator instead (for g in lag(nil, {iterate = true}) do ... end): the rows come a page at a time, in group order (sort then orders each group's partitions only), and a loop that keeps none holds one page. A group listed but deleted before its page was read is left out (as if listed a moment later). failed_in names the phase a group's error came from (describe_groups, fetch_offsets, list_offsets, first_records): nothing of it is computed from the other phases, and the error the read raises says it too ("2 of 6 failed in fetch_offsets: g0, g2"). A coordinator that timed out on a page is not asked again in later pages of the call: its groups fail with TIMEOUT saying so, rather than each page waiting the whole timeout. observe needs every partition: not with summary or iterate.`,
			Example: `for _, g in ipairs(lag()) do print(g.group, g.state, g.total_lag) end
for _, g in ipairs(lag("orders-processor", {time = true})) do print(g.group, g.max_lag_ms .. " ms behind") end
for _, p in ipairs(lag("orders-processor", {observe = 2})[1].partitions) do
  if p.stuck_ms then print(p.topic, p.partition, "stuck at", p.committed) end
end
local worst = lag(nil, {only_lagging = true, sort = "lag", top = 1})
print(worst[1].group, worst[1].partitions[1].topic, worst[1].partitions[1].partition, worst[1].partitions[1].lag)
for g in lag(nil, {summary = true, iterate = true, match = "^orders"}) do
  print(g.group, g.total_lag, g.max_lag, g.worst_topic, g.worst_partition)
end`,
			Run: lagRun},
	)
}

func listGroups(c *Call) (any, error) {
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.ListGroups(c.Ctx(), engine.ListGroupsOptions{States: param[[]string](c, "states"), Types: param[[]string](c, "types")})
}

func describeGroups(c *Call) (any, error) {
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.DescribeGroups(c.Ctx(), param[[]string](c, "groups"))
}

func fetchOffsets(c *Call) (any, error) {
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.FetchOffsets(c.Ctx(), param[string](c, "group"), param[[]string](c, "topics"))
}

func commitOffsets(c *Call) (any, error) {
	group, offsets := param[string](c, "group"), param[[]engine.OffsetCommit](c, "offsets")
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	if c.DryRun() {
		return planCommitOffsets(c, cl, group, offsets)
	}
	return cl.CommitOffsets(c.Ctx(), group, offsets)
}

// groupMembers describes one group for a dry-run check: its live member
// count, whether it exists, or the error that stops the check.
func groupMembers(c *Call, cl *engine.Client, group string) (members int, exists bool, err error) {
	d, err := cl.DescribeAnyGroups(c.Ctx(), []string{group})
	if err != nil {
		return 0, false, err
	}
	switch {
	case d[0].Err == nil:
		return len(d[0].Members), true, nil
	case d[0].Err.Code == "GROUP_ID_NOT_FOUND":
		return 0, false, nil
	}
	return 0, false, d[0].Err
}

// planCommitOffsets is commit_offsets under dry-run: Kafka has no
// validate-only commit, so check the group has no live members and each
// partition exists, and change nothing.
func planCommitOffsets(c *Call, cl *engine.Client, group string, offsets []engine.OffsetCommit) (any, error) {
	members, exists, err := groupMembers(c, cl, group)
	if err != nil {
		return nil, err
	}
	var topics []string
	for _, o := range offsets {
		topics = append(topics, o.Topic)
	}
	described, err := cl.DescribeTopics(c.Ctx(), slices.Compact(slices.Sorted(slices.Values(topics))))
	if err != nil {
		return nil, err
	}
	counts := map[string]int{}
	for _, t := range described {
		if t.Err == nil {
			counts[t.Name] = len(t.Partitions)
		}
	}
	if !exists {
		c.Plan("group %s does not exist: the commit would create it", group)
	}
	out := make([]engine.CommitResult, 0, len(offsets))
	for _, o := range offsets {
		r := engine.CommitResult{Topic: o.Topic, Partition: o.Partition}
		key := fmt.Sprintf("%s[%d]", o.Topic, o.Partition)
		switch {
		case members > 0:
			r.Err = &engine.Error{Code: "UNKNOWN_MEMBER_ID", Resource: key,
				Message: fmt.Sprintf("group %s has %d live member(s): Kafka refuses an admin commit; stop the consumers first", group, members)}
		case int(o.Partition) >= counts[o.Topic]:
			r.Err = &engine.Error{Code: "UNKNOWN_TOPIC_OR_PARTITION", Resource: key, Message: "This server does not host this topic-partition."}
		default:
			c.Plan("commit %s %s offset %d", group, key, o.Offset)
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b engine.CommitResult) int {
		if c := strings.Compare(a.Topic, b.Topic); c != 0 {
			return c
		}
		return int(a.Partition) - int(b.Partition)
	})
	return out, nil
}

func deleteGroups(c *Call) (any, error) {
	groups := param[[]string](c, "groups")
	o := engine.DeleteGroupsOptions{IfExists: param[bool](c, "if_exists")}
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	if c.DryRun() {
		return planDeleteGroups(c, cl, groups, o)
	}
	return cl.DeleteGroups(c.Ctx(), groups, o)
}

// planDeleteGroups is delete_groups under dry-run: check each group exists
// and has no members, and change nothing.
func planDeleteGroups(c *Call, cl *engine.Client, groups []string, o engine.DeleteGroupsOptions) (any, error) {
	described, err := cl.DescribeAnyGroups(c.Ctx(), groups)
	if err != nil {
		return nil, err
	}
	out := make([]engine.DeletedGroup, 0, len(described))
	for _, d := range described {
		r := engine.DeletedGroup{Group: d.Group}
		switch {
		case d.Err != nil && d.Err.Code == "GROUP_ID_NOT_FOUND" && o.IfExists:
			r.Missing = true
		case d.Err != nil:
			r.Err = d.Err
		case len(d.Members) > 0:
			r.Err = &engine.Error{Code: "NON_EMPTY_GROUP", Resource: d.Group,
				Message: fmt.Sprintf("The group has %d live member(s): stop its consumers first.", len(d.Members))}
		default:
			c.Plan("delete group %s (state %s) and its committed offsets", d.Group, d.State)
		}
		out = append(out, r)
	}
	return out, nil
}

func lagRun(c *Call) (any, error) {
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	groups := param[[]string](c, "groups")
	o := engine.LagOptions{
		Time: param[bool](c, "time"), ReadCommitted: param[bool](c, "read_committed"), AtRisk: param[float64](c, "at_risk"), NoCommit: param[string](c, "no_commit"),
		OnlyLagging: param[bool](c, "only_lagging"), Sort: param[string](c, "sort"), Top: param[int](c, "top"),
		Observe: time.Duration(param[float64](c, "observe") * float64(time.Second))}
	groupFilters(c, &o)
	summary := param[bool](c, "summary")
	if !param[bool](c, "iterate") {
		if summary {
			return cl.LagSummary(c.Ctx(), groups, o)
		}
		return cl.LagWith(c.Ctx(), groups, o)
	}
	cur, err := cl.OpenLag(c.iterCtx(), groups, o)
	if err != nil {
		return nil, err
	}
	if !summary {
		return rowIterator(c, "groups", cur.Next, cur.Close), nil
	}
	return rowIterator(c, "groups", func() ([]engine.GroupLag, error) {
		rows, err := cur.Next()
		if rows == nil {
			return nil, err
		}
		out := rows[:0]
		for i := range rows {
			if !o.OnlyLagging || rows[i].Err != nil || rows[i].Lagging > 0 {
				out = append(out, rows[i].Summary())
			}
		}
		return out, nil
	}, cur.Close), nil
}

// groupFilterOptions choose the groups of a whole-cluster read right after
// listing them.
var groupFilterOptions = []Field{
	{Name: "match", Type: regexpType, Doc: "keep groups whose name matches this RE2 regular expression (unanchored), chosen before anything else is asked"},
	{Name: "exclude", Type: regexpType, Doc: "leave out groups whose name matches this RE2 regular expression (unanchored)"},
	{Name: "states", Type: List[string](Enum(engine.GroupStates...)), Doc: "keep groups in these states as list_groups says them (case-insensitive)"},
}

// groupFilters reads groupFilterOptions into o.
func groupFilters(c *Call, o *engine.LagOptions) {
	o.Match, o.Exclude, o.States = param[*regexp.Regexp](c, "match"), param[*regexp.Regexp](c, "exclude"), param[[]string](c, "states")
}

// checkPagedLag refuses what a paged read cannot do: observe watches every
// partition of the call at once.
func checkPagedLag(c *Call) error {
	if c.Given("observe") && (param[bool](c, "summary") || param[bool](c, "iterate")) {
		return argErr("options: observe", "watches every partition's commits at once: not with summary or iterate")
	}
	return nil
}
