package luaapi

import (
	"fmt"
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

func init() {
	register(
		&Func{Name: "list_groups", Area: "groups", Aliases: []string{"list_consumer_groups"},
			Args:    "([{states={..}, types={..}}])",
			Returns: "{{group=, state=, protocol_type=, type=, coordinator=}...}",
			Summary: "List consumer groups (and share/streams groups), sorted by name.",
			Doc: `states keeps groups in those states (Stable, Empty, PreparingRebalance, CompletingRebalance, Dead, Assigning, Reconciling, NotReady); types keeps groups of those types (classic, consumer for KIP-848 groups, share, streams). Names are case-insensitive: "stable" is "Stable".
type is "classic" on brokers older than Kafka 3.8, which do not report it. coordinator is the id of the broker coordinating the group.`,
			Example: `for _, g in ipairs(list_groups{states = {"stable", "empty"}}) do print(g.group, g.state, g.type) end`,
			Run:     listGroups},
		&Func{Name: "describe_groups", Area: "groups", Aliases: []string{"describe_consumer_groups"},
			Args:    "(groups[, {partial=}])",
			Returns: "{{group=, state=, protocol_type=, protocol=, coordinator=, members={{member_id=, instance_id=, client_id=, host=, assignment={{topic=, partition=}...}}...}}...}",
			Summary: "Describe groups: state, assignor, members and their assigned partitions.",
			Doc: `groups is a group name or an array of names. Classic groups and KIP-848 consumer groups (and share groups) are described alike: the group's type, from list_groups, picks the request. protocol is the assignor (range, cooperative-sticky, uniform...). instance_id is nil unless the member uses static membership. Members are sorted by instance_id then member_id, assignments by topic and partition.
A group that does not exist fails with GROUP_ID_NOT_FOUND (the other groups are still described: see err.results, or pass {partial=true}).`,
			Example: `local g = describe_groups("orders-processor")[1]
print(g.group, g.state, #g.members)`,
			Run: describeGroups},
		&Func{Name: "fetch_offsets", Area: "groups", Aliases: []string{"list_consumer_group_offsets"},
			Args:    "(group[, topics][, {partial=}])",
			Returns: "{{topic=, partition=, offset=, leader_epoch=, metadata=}...}",
			Summary: "A group's committed offsets, sorted by topic and partition.",
			Doc: `Without topics: every partition the group has committed to. With topics (a name or an array): every partition of those topics, offset -1 (and leader_epoch -1) where the group has no commit; a missing topic fails with UNKNOWN_TOPIC_OR_PARTITION.
A group that does not exist has no commits: the result is empty, as Kafka answers. COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR and COORDINATOR_NOT_AVAILABLE are retried until the deadline.`,
			Example: `for _, o in ipairs(fetch_offsets("orders-processor")) do print(o.topic, o.partition, o.offset) end`,
			Run:     fetchOffsets},
		&Func{Name: "commit_offsets", Area: "groups", Mutating: true,
			Args:    "(group, {{topic=, partition=, offset=[, leader_epoch=, metadata=]}...}[, {partial=}])",
			Returns: "{{topic=, partition=, error=}...}",
			Summary: "Commit offsets for a group (rewind or skip ahead an idle group).",
			Doc: `offset is the next offset the group will read. Kafka only accepts an admin commit to a group without live members: stop the consumers first, or the commit fails with UNKNOWN_MEMBER_ID. Committing to a group that does not exist creates it (Kafka's semantics).
Under --dry-run nothing is committed: the group is checked to have no live members and each partition to exist.`,
			Example: `commit_offsets("orders-replay", {{topic = "orders", partition = 0, offset = 0}, {topic = "orders", partition = 1, offset = 0}})
print(fetch_offsets("orders-replay")[1].offset)`,
			Run: commitOffsets},
		&Func{Name: "delete_groups", Area: "groups", Mutating: true, Destructive: true,
			Args:    "(groups[, {if_exists=, partial=}])",
			Returns: "{{group=, error=}...}",
			Summary: "Delete groups and their committed offsets.",
			Doc: `A group with live members fails with NON_EMPTY_GROUP (stop its consumers first); a missing one with GROUP_ID_NOT_FOUND unless if_exists=true (missing=true).
Under --dry-run nothing is deleted: each group is checked to exist and to have no members.`,
			Example: `commit_offsets("scratch-group", {{topic = "orders", partition = 0, offset = 0}})
delete_groups("scratch-group")`,
			Run: deleteGroups},
		&Func{Name: "lag", Area: "groups",
			Args:    "([groups][, {partial=}])",
			Returns: "{{group=, state=, total_lag=, partitions={{topic=, partition=, committed=, end_offset=, lag=, member_id=, client_id=}...}}...}",
			Summary: "Consumer lag per group and partition.",
			Doc: `Without groups: every consumer group (classic and KIP-848). A group's partitions are those assigned to its members, those it has committed to, and the other partitions of those topics; member_id and client_id are nil where no member is assigned.
committed is -1 where the group has no commit; lag is then counted from the partition's start offset (what a consumer starting at "earliest" would read). lag is end_offset - committed, never below 0; total_lag sums the group's lags.
A partition whose end offset cannot be listed gets lag -1 and an error, and fails its group (raised unless {partial=true}); partitions of deleted topics keep their UNKNOWN_TOPIC_OR_PARTITION error without failing the group.`,
			Example: `for _, g in ipairs(lag()) do print(g.group, g.state, g.total_lag) end`,
			Run:     lagRun},
	)
}

// nameFilter reads an option listing names from known (matched without
// regard to case).
func nameFilter(f *fields, key, what string, known []string) []string {
	out := f.strings(key)
	for _, s := range out {
		if !slices.ContainsFunc(known, func(k string) bool { return strings.EqualFold(k, s) }) {
			f.fail(key, "unknown group %s %q (known: %s)", what, s, strings.Join(known, ", "))
		}
	}
	return out
}

func listGroups(c *Call) (any, error) {
	f, err := c.Options(1, "states", "types")
	if err != nil {
		return nil, err
	}
	o := engine.ListGroupsOptions{States: nameFilter(f, "states", "state", engine.GroupStates), Types: nameFilter(f, "types", "type", engine.GroupTypes)}
	if f.err != nil {
		return nil, f.err
	}
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.ListGroups(c.Ctx(), o)
}

func describeGroups(c *Call) (any, error) {
	groups, err := c.Strings(1, "groups", false)
	if err != nil {
		return nil, err
	}
	cl, err := c.clientAfterOptions(2)
	if err != nil {
		return nil, err
	}
	return cl.DescribeGroups(c.Ctx(), groups)
}

// groupArg reads argument n as one group name.
func groupArg(c *Call, n int) (string, error) {
	s, ok := c.Arg(n).(lua.LString)
	if !ok || s == "" {
		return "", argErr("group", "must be a non-empty string, got %s", describe(c.Arg(n)))
	}
	return string(s), nil
}

// optionalNames reads an optional name or array of names at argument n and
// the options table after it; the names may be left out, with the options
// table coming at n: lag{partial=true}.
func optionalNames(c *Call, n int, what string) ([]string, error) {
	if t, ok := c.Arg(n).(*lua.LTable); ok && !isArray(t) {
		if c.NArgs() > n {
			return nil, argErr(what, "must be a name or an array of names, got a table with key %s", describe(firstKey(t)))
		}
		_, err := c.Options(n)
		return nil, err
	}
	names, err := c.Strings(n, what, true)
	if err != nil {
		return nil, err
	}
	_, err = c.Options(n + 1)
	return names, err
}

func firstKey(t *lua.LTable) lua.LValue {
	k, _ := t.Next(lua.LNil)
	return k
}

func fetchOffsets(c *Call) (any, error) {
	group, err := groupArg(c, 1)
	if err != nil {
		return nil, err
	}
	topics, err := optionalNames(c, 2, "topics")
	if err != nil {
		return nil, err
	}
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.FetchOffsets(c.Ctx(), group, topics)
}

func commitOffsets(c *Call) (any, error) {
	group, err := groupArg(c, 1)
	if err != nil {
		return nil, err
	}
	offsets, err := offsetCommits(c.Arg(2))
	if err != nil {
		return nil, err
	}
	cl, err := c.clientAfterOptions(3)
	if err != nil {
		return nil, err
	}
	if c.DryRun() {
		return planCommitOffsets(c, cl, group, offsets)
	}
	return cl.CommitOffsets(c.Ctx(), group, offsets)
}

// offsetCommits reads commit_offsets' second argument: an array of
// {topic=, partition=, offset=[, leader_epoch=, metadata=]} (or one such
// record).
func offsetCommits(v lua.LValue) ([]engine.OffsetCommit, error) {
	t, ok := v.(*lua.LTable)
	if !ok {
		return nil, argErr("offsets", "must be an array of {topic=, partition=, offset=}, got %s", describe(v))
	}
	list := []lua.LValue{t}
	if t.RawGetString("topic") == lua.LNil {
		if err := onlyArray(t, "offsets"); err != nil {
			return nil, err
		}
		list = list[:0]
		for i := 1; i <= t.Len(); i++ {
			list = append(list, t.RawGetInt(i))
		}
	}
	if len(list) == 0 {
		return nil, argErr("offsets", "must name at least one partition")
	}
	seen := map[engine.TopicPartition]bool{}
	out := make([]engine.OffsetCommit, 0, len(list))
	for i, item := range list {
		f := newFields(item, fmt.Sprintf("offsets #%d", i+1), "topic", "partition", "offset", "leader_epoch", "metadata")
		for _, k := range []string{"partition", "offset"} {
			if f.err == nil && !f.has(k) && f.has("topic") {
				f.fail(k, "is required")
			}
		}
		o := engine.OffsetCommit{
			Topic:       f.str("topic", true),
			Partition:   int32(f.integer("partition", 0, 0)),
			Offset:      f.integer("offset", 0, 0),
			LeaderEpoch: int32(f.integer("leader_epoch", -1, -1)),
			Metadata:    f.str("metadata", false),
		}
		tp := engine.TopicPartition{Topic: o.Topic, Partition: o.Partition}
		if f.err == nil && seen[tp] {
			f.fail("partition", "%s[%d] is given twice", o.Topic, o.Partition)
		}
		if f.err != nil {
			return nil, f.err
		}
		seen[tp] = true
		out = append(out, o)
	}
	return out, nil
}

// groupMembers describes one group for a dry-run check: its live member
// count, whether it exists, or the error that stops the check.
func groupMembers(c *Call, cl *engine.Client, group string) (members int, exists bool, err error) {
	d, err := cl.DescribeGroups(c.Ctx(), []string{group})
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
	described, err := cl.DescribeTopics(c.Ctx(), dedup(topics))
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
	groups, err := c.Strings(1, "groups", false)
	if err != nil {
		return nil, err
	}
	f, err := c.Options(2, "if_exists")
	if err != nil {
		return nil, err
	}
	o := engine.DeleteGroupsOptions{IfExists: f.boolean("if_exists")}
	if f.err != nil {
		return nil, f.err
	}
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
	described, err := cl.DescribeGroups(c.Ctx(), groups)
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
	groups, err := optionalNames(c, 1, "groups")
	if err != nil {
		return nil, err
	}
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.Lag(c.Ctx(), groups)
}
