package luaapi

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// staleStaticMembers joins static members (one per instance id) to group,
// waits until the group is stable with all of them, then closes their
// clients. Static members do not leave on close, so the group keeps them
// until their session times out (45 s): members whose consumers are gone.
func staleStaticMembers(t *testing.T, e *env, group, topic string, instances ...string) {
	t.Helper()
	var clients []*kgo.Client
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{}, len(instances))
	for _, id := range instances {
		cl, err := kgo.NewClient(kgo.SeedBrokers(e.cluster.ListenAddrs()...), kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic),
			kgo.InstanceID(id), kgo.ClientID("static-"+id), kgo.DisableAutoCommit(),
			kgo.Balancers(kgo.RangeBalancer())) // eager: a cooperative member that revoked leaves on close
		require.NoError(t, err)
		clients = append(clients, cl)
		go func() {
			defer func() { done <- struct{}{} }()
			for ctx.Err() == nil {
				cl.PollFetches(ctx)
			}
		}()
	}
	require.Eventually(t, func() bool {
		d, err := e.adm.DescribeGroups(context.Background(), group)
		return err == nil && d[group].State == "Stable" && len(d[group].Members) == len(instances)
	}, 20*time.Second, 50*time.Millisecond, "group %s never became stable with %d members", group, len(instances))
	cancel()
	for range instances {
		<-done
	}
	for _, cl := range clients {
		cl.Close()
	}
}

// memberIDs describes group through the independent client.
func memberIDs(t *testing.T, e *env, group string) (ids []string, instances []string) {
	t.Helper()
	d, err := e.adm.DescribeGroups(e.ctx(), group)
	require.NoError(t, err)
	for _, m := range d[group].Members {
		ids = append(ids, m.MemberID)
		if m.InstanceID != nil {
			instances = append(instances, *m.InstanceID)
		}
	}
	return ids, instances
}

func TestRemoveGroupMembersStatic(t *testing.T) {
	e := newEnv(t)
	groupTopic(t, e, "events", 2, 1)
	staleStaticMembers(t, e, "static", "events", "pod-a", "pod-b")
	_, instances := memberIDs(t, e, "static")
	require.ElementsMatch(t, []string{"pod-a", "pod-b"}, instances, "the closed static members stay")

	e.run(`
		local r = remove_group_members("static", {{instance_id = "pod-b"}})
		assert(#r == 1 and r[1].group == "static" and r[1].instance_id == "pod-b", #r)
		assert(type(r[1].member_id) == "string" and r[1].member_id ~= "" and r[1].error == nil)
	`)
	_, instances = memberIDs(t, e, "static")
	assert.Equal(t, []string{"pod-a"}, instances)

	e.run(`
		local ok, err = pcall(remove_group_members, "static", {{instance_id = "pod-b"}, {instance_id = "pod-a"}})
		assert(not ok and err.code == "UNKNOWN_MEMBER_ID", tostring(err))
		assert(#err.results == 2)
		assert(err.results[1].instance_id == "pod-a" and err.results[1].error == nil)
		assert(err.results[2].instance_id == "pod-b" and err.results[2].error.code == "UNKNOWN_MEMBER_ID")
	`)
	ids, _ := memberIDs(t, e, "static")
	assert.Empty(t, ids, "pod-a was removed even though pod-b failed")
}

func TestRemoveGroupMembersAllAndDynamic(t *testing.T) {
	e := newEnv(t)
	groupTopic(t, e, "events", 2, 1)
	staleStaticMembers(t, e, "stale", "events", "pod-1", "pod-2", "pod-3")
	out := e.json(`local r = remove_group_members("stale")
		for _, m in ipairs(r) do m.member_id = nil end
		return r`)
	assert.Equal(t, `[{"group":"stale","instance_id":"pod-1"},{"group":"stale","instance_id":"pod-2"},{"group":"stale","instance_id":"pod-3"}]`, out)
	ids, _ := memberIDs(t, e, "stale")
	assert.Empty(t, ids)
	assert.Equal(t, "0", e.run(`return #remove_group_members("stale")`).String(), "nothing left to remove")

	// A dynamic member is removed by its member id; its consumer, still
	// running, rejoins with a new one.
	groupMember(t, e, "live", false, "events")
	old, _ := memberIDs(t, e, "live")
	require.Len(t, old, 1)
	e.run(`
		local id = describe_groups("live")[1].members[1].member_id
		local r = remove_group_members("live", {member_id = id})
		assert(#r == 1 and r[1].member_id == id and r[1].instance_id == nil and r[1].error == nil)
	`)
	require.Eventually(t, func() bool {
		ids, _ := memberIDs(t, e, "live")
		return len(ids) == 1 && ids[0] != old[0]
	}, 20*time.Second, 50*time.Millisecond, "the removed member never rejoined with a new id")

	re := e.runErr(`remove_group_members("no-such-group")`)
	assert.Equal(t, "GROUP_ID_NOT_FOUND", re.Code)
}

func TestRemoveGroupMembersDryRunAndBadArguments(t *testing.T) {
	e := newEnv(t)
	groupTopic(t, e, "events", 1, 1)
	staleStaticMembers(t, e, "stale", "events", "pod-1")
	e.run(`
		kafka.dry_run(true)
		local r = remove_group_members("stale")
		assert(#r == 1 and r[1].dry_run == true and r[1].instance_id == "pod-1" and r[1].member_id ~= "")
		local ok, err = pcall(remove_group_members, "stale", {{instance_id = "pod-9"}})
		assert(not ok and err.code == "UNKNOWN_MEMBER_ID", tostring(err))
		kafka.dry_run(false)
	`)
	_, instances := memberIDs(t, e, "stale")
	assert.Equal(t, []string{"pod-1"}, instances, "the dry run removed nothing")
	assert.Contains(t, e.stderr.String(), "dry-run: remove_group_members: remove static member pod-1 (member_id ")

	for src, want := range map[string]string{
		`remove_group_members()`:                                                  `remove_group_members: group: is required`,
		`remove_group_members("stale", {})`:                                       `remove_group_members: members: must name at least one member (leave members out to remove them all)`,
		`remove_group_members("stale", "pod-1")`:                                  `remove_group_members: members: must be {member_id=} or {instance_id=}, or an array of them, got "pod-1"`,
		`remove_group_members("stale", {{client_id = "x"}})`:                      `remove_group_members: members #1: unknown key "client_id"`,
		`remove_group_members("stale", {{member_id = 5}})`:                        `remove_group_members: members #1: member_id: must be a non-empty string, got 5`,
		`remove_group_members("stale", {{}})`:                                     `remove_group_members: members #1: needs member_id or instance_id`,
		`remove_group_members("stale", {{instance_id = ""}})`:                     `remove_group_members: members #1: instance_id: must not be empty`,
		`remove_group_members("stale", {{instance_id = "a"}}, {x=1})`:             `remove_group_members: options: unknown key "x"`,
		`remove_group_members("stale", {{instance_id = "a"}}, {partial = "yes"})`: `remove_group_members: options: partial: must be true or false, got "yes"`,
		// A table that is not all options is read as members.
		`remove_group_members("stale", {force = true})`: `remove_group_members: members #1: unknown key "force" (allowed: member_id, instance_id)`,
	} {
		re := e.runErr(src)
		assert.Equal(t, "INVALID_ARGUMENT", re.Code, src)
		assert.Contains(t, re.Message, want, src)
	}
	_, instances = memberIDs(t, e, "stale")
	assert.Equal(t, []string{"pod-1"}, instances)
}

func TestDeleteGroupOffsets(t *testing.T) {
	e := newEnv(t)
	groupTopic(t, e, "events", 3, 5)
	groupTopic(t, e, "other", 2, 5)
	groupCommit(t, e, "idle", map[string]map[int32]int64{"events": {0: 1, 1: 2, 2: 3}, "other": {0: 4, 1: 5}})

	out := e.json(`return delete_group_offsets("idle", "events")`)
	assert.Equal(t, `[{"partition":0,"topic":"events"},{"partition":1,"topic":"events"},{"partition":2,"topic":"events"}]`, out)
	fetched, err := e.adm.FetchOffsets(e.ctx(), "idle")
	require.NoError(t, err)
	assert.Equal(t, []string{"other"}, fetched.Offsets().TopicsSet().Topics())

	e.run(`
		local r = delete_group_offsets("idle", {{topic = "other", partition = 1}})
		assert(#r == 1 and r[1].topic == "other" and r[1].partition == 1 and r[1].error == nil)
	`)
	fetched, err = e.adm.FetchOffsets(e.ctx(), "idle")
	require.NoError(t, err)
	_, ok := fetched.Lookup("other", 1)
	assert.False(t, ok)
	o, ok := fetched.Lookup("other", 0)
	require.True(t, ok)
	assert.Equal(t, int64(4), o.At)

	// A named topic that does not exist fails its own row; the rest is done.
	e.run(`
		local ok, err = pcall(delete_group_offsets, "idle", {"ghost", "other"})
		assert(not ok and err.code == "UNKNOWN_TOPIC_OR_PARTITION", tostring(err))
		assert(#err.results == 3 and err.results[1].topic == "ghost" and err.results[1].partition == -1)
		assert(err.results[2].error == nil and err.results[3].error == nil)
	`)
	fetched, err = e.adm.FetchOffsets(e.ctx(), "idle")
	require.NoError(t, err)
	assert.Empty(t, fetched.Offsets().TopicsSet().Topics())

	re := e.runErr(`delete_group_offsets("no-such-group", "events")`)
	assert.Equal(t, "GROUP_ID_NOT_FOUND", re.Code)
	re = e.runErr(`delete_group_offsets("idle", {{topic = "events", partition = 7}})`)
	assert.Equal(t, "UNKNOWN_TOPIC_OR_PARTITION", re.Code)
	assert.Contains(t, re.Message, "events[7]: UNKNOWN_TOPIC_OR_PARTITION: topic events has 3 partition(s)")
}

func TestDeleteGroupOffsetsSubscribedTopic(t *testing.T) {
	e := newEnv(t)
	groupTopic(t, e, "events", 2, 5)
	groupTopic(t, e, "old", 1, 5)
	groupCommit(t, e, "live", map[string]map[int32]int64{"events": {0: 1, 1: 1}, "old": {0: 3}})
	groupMember(t, e, "live", false, "events")

	// Dry run first: nothing deleted, the subscribed topic already refused.
	e.run(`
		kafka.dry_run(true)
		local r = delete_group_offsets("live", {"events", "old"}, {partial = true})
		assert(#r == 3 and r[1].dry_run == true)
		assert(r[1].error.code == "GROUP_SUBSCRIBED_TO_TOPIC" and r[2].error.code == "GROUP_SUBSCRIBED_TO_TOPIC")
		assert(r[3].topic == "old" and r[3].error == nil)
		kafka.dry_run(false)
	`)
	assert.Contains(t, e.stderr.String(), "dry-run: delete_group_offsets: delete group live's offset for old[0]")
	fetched, err := e.adm.FetchOffsets(e.ctx(), "live")
	require.NoError(t, err)
	_, ok := fetched.Lookup("old", 0)
	assert.True(t, ok, "the dry run deleted nothing")

	e.run(`
		local ok, err = pcall(delete_group_offsets, "live", {"events", "old"})
		assert(not ok and err.code == "GROUP_SUBSCRIBED_TO_TOPIC", tostring(err))
		assert(#err.results == 3 and err.results[3].topic == "old" and err.results[3].error == nil)
	`)
	fetched, err = e.adm.FetchOffsets(e.ctx(), "live")
	require.NoError(t, err)
	_, ok = fetched.Lookup("old", 0)
	assert.False(t, ok, "the unsubscribed topic's offset is gone")
	o, ok := fetched.Lookup("events", 0)
	require.True(t, ok, "the subscribed topic's offsets are kept")
	assert.Equal(t, int64(1), o.At)

	for src, want := range map[string]string{
		`delete_group_offsets("live")`:                                                `delete_group_offsets: topics: is required`,
		`delete_group_offsets("live", {})`:                                            `delete_group_offsets: topics: must name at least one`,
		`delete_group_offsets("live", 5)`:                                             `delete_group_offsets: topics: must be a topic name or {topic=, partition=}, or an array of them, got 5`,
		`delete_group_offsets("live", {{topic = "events"}})`:                          `delete_group_offsets: topics #1: partition: is required (or give the topic's name to mean all its partitions)`,
		`delete_group_offsets("live", {{topic = "events", partition = -1}})`:          `delete_group_offsets: topics #1: partition: must be a partition between 0 and 2147483647, got -1`,
		`delete_group_offsets("live", {"old", {topic = "events", partition = 2^32}})`: `delete_group_offsets: topics #2: partition: must be a partition between 0 and 2147483647, got 4294967296`,
		`delete_group_offsets("live", {topic = "old", partition = 0, extra = 1})`:     `delete_group_offsets: topics: unknown key "extra"`,
		`delete_group_offsets("live", {"bad topic"})`:                                 `delete_group_offsets: topics #1: "bad topic" has ' '`,
		`delete_group_offsets("live", "events", {if_exists = true})`:                  `delete_group_offsets: options: unknown key "if_exists"`,
		`delete_group_offsets("live", "old", {}, 1)`:                                  `delete_group_offsets: takes at most 3 arguments`,
	} {
		re := e.runErr(src)
		assert.Equal(t, "INVALID_ARGUMENT", re.Code, src)
		assert.Contains(t, re.Message, want, src)
	}
	assert.Equal(t, "events[0]=1 events[1]=1", committed(t, e, "live"), "refused calls delete nothing")
}

func TestGroupAdminRetriesCoordinatorErrors(t *testing.T) {
	e := newEnv(t)
	groupTopic(t, e, "events", 2, 3)
	staleStaticMembers(t, e, "stale", "events", "pod-1", "pod-2")

	h := e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.LeaveGroup}, Err: kerr.CoordinatorLoadInProgress, TopLevel: true, Count: 2})
	e.run(`assert(remove_group_members("stale", {instance_id = "pod-1"})[1].error == nil)`)
	assert.Equal(t, 2, h.Hits())
	h.Remove()
	// A timed-out request is sent again (kfake answers a TopLevel fault
	// before acting, so this is the not-applied case of an unknown outcome).
	h = e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.LeaveGroup}, Err: kerr.RequestTimedOut, TopLevel: true, Count: 1})
	e.run(`assert(remove_group_members("stale", {instance_id = "pod-2"})[1].error == nil)`)
	assert.Equal(t, 1, h.Hits())
	h.Remove()
	ids, _ := memberIDs(t, e, "stale")
	assert.Empty(t, ids)

	groupCommit(t, e, "idle", map[string]map[int32]int64{"events": {0: 1, 1: 2}})
	h = e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.OffsetDelete}, Err: kerr.CoordinatorLoadInProgress, TopLevel: true, Count: 2})
	defer h.Remove()
	e.run(`local r = delete_group_offsets("idle", "events"); assert(#r == 2 and r[1].error == nil and r[2].error == nil)`)
	assert.Equal(t, 2, h.Hits())
	fetched, err := e.adm.FetchOffsets(e.ctx(), "idle")
	require.NoError(t, err)
	assert.Empty(t, fetched.Offsets().TopicsSet().Topics())
}
