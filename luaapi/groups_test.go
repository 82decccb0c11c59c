package luaapi

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

// groupTopic creates a topic through the independent client and produces
// perPartition records to each of its partitions.
func groupTopic(t *testing.T, e *env, topic string, partitions int32, perPartition int) {
	t.Helper()
	_, err := e.adm.CreateTopic(e.ctx(), partitions, 1, nil, topic)
	require.NoError(t, err)
	groupProduce(t, e, topic, partitions, perPartition)
}

// groupProduce writes perPartition records to each partition of topic.
func groupProduce(t *testing.T, e *env, topic string, partitions int32, perPartition int) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.cluster.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, err)
	defer cl.Close()
	var recs []*kgo.Record
	for p := range partitions {
		for i := range perPartition {
			recs = append(recs, &kgo.Record{Topic: topic, Partition: p, Value: fmt.Appendf(nil, "%d-%d", p, i)})
		}
	}
	require.NoError(t, cl.ProduceSync(e.ctx(), recs...).FirstErr())
}

// groupCommit commits offsets for an empty group through the independent
// client (topic -> partition -> offset).
func groupCommit(t *testing.T, e *env, group string, offsets map[string]map[int32]int64) {
	t.Helper()
	os := kadm.Offsets{}
	for topic, ps := range offsets {
		for p, at := range ps {
			os.AddOffset(topic, p, at, -1)
		}
	}
	require.NoError(t, e.adm.CommitAllOffsets(e.ctx(), group, os))
}

// groupNames lists the cluster's groups through the independent client.
func groupNames(t *testing.T, e *env) []string {
	t.Helper()
	listed, err := e.adm.ListGroups(e.ctx())
	require.NoError(t, err)
	return listed.Groups()
}

// shortEnv is newEnv with a one-second call timeout, for tests that run
// into the deadline.
func shortEnv(t *testing.T) *env {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(3))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return newEnvOn(t, c, Options{Config: engine.Config{Timeout: time.Second}})
}

// groupMember runs a live consumer-group member on topics until the test
// ends, and waits until the group is stable with partitions assigned.
// kip848 joins with the broker-side assignor (KIP-848) instead of the
// classic protocol.
func groupMember(t *testing.T, e *env, group string, kip848 bool, topics ...string) *kgo.Client {
	t.Helper()
	opts := []kgo.Opt{kgo.SeedBrokers(e.cluster.ListenAddrs()...), kgo.ConsumerGroup(group), kgo.ConsumeTopics(topics...),
		kgo.ClientID("member-" + group), kgo.DisableAutoCommit()}
	if kip848 {
		opts = append(opts, kgo.ServerSideBalancer(), kgo.Balancers(kgo.RangeBalancer()))
	}
	cl, err := kgo.NewClient(opts...)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			cl.PollFetches(ctx)
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		cl.Close()
	})
	require.Eventually(t, func() bool {
		assigned := 0
		if kip848 {
			d, err := e.adm.DescribeConsumerGroups(context.Background(), group)
			if err != nil || d[group].State != "Stable" {
				return false
			}
			for _, m := range d[group].Members {
				assigned += len(m.Assignment)
			}
		} else {
			d, err := e.adm.DescribeGroups(context.Background(), group)
			if err != nil || d[group].State != "Stable" {
				return false
			}
			g := d[group]
			assigned = len(g.AssignedPartitions())
		}
		return assigned > 0
	}, 20*time.Second, 50*time.Millisecond, "group %s never became stable with an assignment", group)
	return cl
}

func TestListGroupsFiltersCaseInsensitively(t *testing.T) {
	e := newEnv(t)
	groupTopic(t, e, "events", 2, 3)
	groupCommit(t, e, "idle", map[string]map[int32]int64{"events": {0: 1}})
	groupMember(t, e, "live", false, "events")

	out := e.json(`return list_groups()`)
	assert.Regexp(t, `^\[\{"coordinator":\d+,"group":"idle","protocol_type":"","state":"Empty","type":"classic"\},\{"coordinator":\d+,"group":"live","protocol_type":"consumer","state":"Stable","type":"classic"\}\]$`, out)
	e.run(`
		local g = list_groups{states = {"stable"}}
		assert(#g == 1 and g[1].group == "live", #g)
		g = list_groups{states = {"Empty", "STABLE"}, types = {"Classic"}}
		assert(#g == 2)
		assert(#list_groups{types = {"consumer"}} == 0)
		assert(#list_consumer_groups() == 2)
	`)
	assert.Equal(t, []string{"idle", "live"}, groupNames(t, e))

	re := e.runErr(`list_groups{states = {"stabel"}}`)
	assert.Equal(t, "INVALID_ARGUMENT", re.Code)
	assert.Contains(t, re.Message, `list_groups: options: states #1: must be "PreparingRebalance", "CompletingRebalance", "Stable"`)
	assert.Contains(t, re.Message, `got "stabel" (did you mean "Stable"?)`)
	re = e.runErr(`list_groups{kinds = {"classic"}}`)
	assert.Contains(t, re.Message, `list_groups: options: unknown key "kinds" (allowed: states, types)`)
	re = e.runErr(`list_groups{types = "clasic"}`)
	assert.Contains(t, re.Message, `list_groups: options: types: must be "classic", "consumer", "share" or "streams", got "clasic" (did you mean "classic"?)`)
	re = e.runErr(`list_groups{partial = true}`)
	assert.Contains(t, re.Message, `list_groups: options: unknown key "partial"`, "list_groups returns no per-item errors: nothing to be partial about")
}

func TestDescribeGroupsClassicMembersAndAssignments(t *testing.T) {
	e := newEnv(t)
	groupTopic(t, e, "b-topic", 2, 1)
	groupTopic(t, e, "a-topic", 3, 1)
	groupMember(t, e, "readers", false, "a-topic", "b-topic")

	e.run(`
		local d = describe_groups("readers")[1]
		assert(d.group == "readers" and d.state == "Stable", d.state)
		assert(d.protocol_type == "consumer")
		assert(d.protocol ~= nil and d.protocol ~= "", "protocol")
		assert(type(d.coordinator) == "number")
		assert(#d.members == 1, #d.members)
		local m = d.members[1]
		assert(m.client_id == "member-readers", m.client_id)
		assert(m.member_id ~= "" and m.host ~= "")
		assert(m.instance_id == nil)
		assert(#m.assignment == 5, #m.assignment)
		local want = {{"a-topic", 0}, {"a-topic", 1}, {"a-topic", 2}, {"b-topic", 0}, {"b-topic", 1}}
		for i, w in ipairs(want) do
			assert(m.assignment[i].topic == w[1] and m.assignment[i].partition == w[2], i)
		end
		assert(describe_consumer_groups{"readers"}[1].group == "readers")
	`)
	d, err := e.adm.DescribeGroups(e.ctx(), "readers")
	require.NoError(t, err)
	assert.Equal(t, e.run(`return describe_groups("readers")[1].members[1].member_id`).String(), d["readers"].Members[0].MemberID)
}

func TestDescribeGroupsMissingGroupFailsPerItem(t *testing.T) {
	e := newEnv(t)
	groupTopic(t, e, "events", 1, 1)
	groupCommit(t, e, "present", map[string]map[int32]int64{"events": {0: 1}})
	e.run(`
		local ok, err = pcall(describe_groups, {"present", "absent"})
		assert(not ok)
		assert(err.code == "GROUP_ID_NOT_FOUND", err.code)
		assert(err.resource == "absent", tostring(err.resource))
		assert(#err.results == 2)
		assert(err.results[1].group == "absent" and err.results[1].error.code == "GROUP_ID_NOT_FOUND")
		assert(err.results[2].group == "present" and err.results[2].state == "Empty" and err.results[2].error == nil)
		local r = describe_groups({"absent"}, {partial = true})
		assert(r[1].error.code == "GROUP_ID_NOT_FOUND" and #r[1].members == 0)
	`)
	re := e.runErr(`describe_groups()`)
	assert.Contains(t, re.Message, "describe_groups: groups: is required")
	re = e.runErr(`describe_groups{1}`)
	assert.Contains(t, re.Message, "describe_groups: groups #1: must be a group id, got 1")
	re = e.runErr(`describe_groups({})`)
	assert.Contains(t, re.Message, "describe_groups: groups: must name at least one")
	re = e.runErr(`describe_groups("present", {partial = "yes"})`)
	assert.Contains(t, re.Message, `describe_groups: options: partial: must be true or false, got "yes"`)
}

func TestDescribeGroupsKIP848(t *testing.T) {
	e := newEnv(t)
	groupTopic(t, e, "next-gen", 3, 2)
	groupMember(t, e, "new-protocol", true, "next-gen")

	e.run(`
		local g = list_groups{types = {"consumer"}}
		assert(#g == 1 and g[1].group == "new-protocol" and g[1].type == "consumer", #g)
		local d = describe_groups("new-protocol")[1]
		assert(d.state == "Stable", d.state)
		assert(d.protocol_type == "consumer")
		assert(#d.members == 1)
		local a = d.members[1].assignment
		assert(#a == 3, #a)
		for i = 1, 3 do assert(a[i].topic == "next-gen" and a[i].partition == i - 1) end
		assert(d.members[1].client_id == "member-new-protocol")
	`)
	d, err := e.adm.DescribeConsumerGroups(e.ctx(), "new-protocol")
	require.NoError(t, err)
	assert.Equal(t, e.run(`return describe_groups("new-protocol")[1].protocol`).String(), d["new-protocol"].AssignorName)

	// Lag sees the KIP-848 member's assignment too: nothing is committed,
	// so each partition lags by its two records.
	e.run(`
		local l = lag("new-protocol")[1]
		assert(l.total_lag == 6, l.total_lag)
		for _, p in ipairs(l.partitions) do
			assert(p.committed == -1 and p.end_offset == 2 and p.lag == 2)
			assert(p.client_id == "member-new-protocol" and p.member_id ~= nil)
		end
	`)
}

func TestFetchOffsets(t *testing.T) {
	e := newEnv(t)
	groupTopic(t, e, "events", 3, 5)
	groupTopic(t, e, "other", 1, 5)
	groupCommit(t, e, "g", map[string]map[int32]int64{"events": {2: 4, 0: 3}, "other": {0: 1}})

	out := e.json(`return fetch_offsets("g")`)
	assert.Equal(t, `[{"leader_epoch":-1,"metadata":"","offset":3,"partition":0,"topic":"events"},`+
		`{"leader_epoch":-1,"metadata":"","offset":4,"partition":2,"topic":"events"},`+
		`{"leader_epoch":-1,"metadata":"","offset":1,"partition":0,"topic":"other"}]`, out)
	e.run(`
		local o = fetch_offsets("g", "events")
		assert(#o == 3)
		assert(o[1].offset == 3 and o[2].partition == 1 and o[2].offset == -1 and o[3].offset == 4)
		assert(#list_consumer_group_offsets("g", {"other"}) == 1)
		assert(#fetch_offsets("no-such-group") == 0)
		assert(#fetch_offsets("g", {partial = true}) == 3)
	`)
	re := e.runErr(`fetch_offsets("g", "missing-topic")`)
	assert.Equal(t, "UNKNOWN_TOPIC_OR_PARTITION", re.Code)
	assert.Contains(t, re.Message, "missing-topic")
	re = e.runErr(`fetch_offsets(42)`)
	assert.Contains(t, re.Message, "fetch_offsets: group: must be a group id, got 42")
	re = e.runErr(`fetch_offsets("g", "events", {partial = true}, 1)`)
	assert.Contains(t, re.Message, "fetch_offsets: takes at most 3 arguments")
	re = e.runErr(`fetch_offsets("g", {partal = true})`)
	assert.Contains(t, re.Message, `fetch_offsets: options: unknown key "partal" (did you mean "partial"?)`, "a table with a misspelled option names the option meant")
}

func TestFetchOffsetsRetriesCoordinatorLoading(t *testing.T) {
	e := newEnv(t)
	groupTopic(t, e, "events", 1, 2)
	groupCommit(t, e, "loading", map[string]map[int32]int64{"events": {0: 2}})
	h := e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.OffsetFetch}, Err: kerr.CoordinatorLoadInProgress, Count: 3})
	defer h.Remove()
	e.run(`local o = fetch_offsets("loading"); assert(#o == 1 and o[1].offset == 2)`)
	assert.Equal(t, 3, h.Hits())

	for _, ke := range []*kerr.Error{kerr.NotCoordinator, kerr.CoordinatorNotAvailable} {
		h := e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.OffsetFetch}, Err: ke, Count: 2})
		e.run(`assert(fetch_offsets("loading")[1].offset == 2)`)
		assert.Equal(t, 2, h.Hits(), ke.Message)
		h.Remove()
	}
}

func TestFetchOffsetsGivesUpAtTheDeadline(t *testing.T) {
	e := shortEnv(t)
	groupTopic(t, e, "events", 1, 1)
	groupCommit(t, e, "stuck", map[string]map[int32]int64{"events": {0: 1}})
	h := e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.OffsetFetch}, Err: kerr.CoordinatorLoadInProgress, Count: -1})
	defer h.Remove()
	re := e.runErr(`fetch_offsets("stuck")`)
	assert.Equal(t, "TIMEOUT", re.Code)
	assert.Contains(t, re.Message, "COORDINATOR_LOAD_IN_PROGRESS")
}

func TestDeleteGroups(t *testing.T) {
	e := newEnv(t)
	groupTopic(t, e, "events", 2, 3)
	groupCommit(t, e, "old", map[string]map[int32]int64{"events": {0: 1}})
	groupCommit(t, e, "older", map[string]map[int32]int64{"events": {1: 1}})
	groupMember(t, e, "live", false, "events")

	out := e.json(`return delete_groups{"old", "older"}`)
	assert.Equal(t, `[{"group":"old"},{"group":"older"}]`, out)
	assert.Equal(t, []string{"live"}, groupNames(t, e))

	e.run(`
		local ok, err = pcall(delete_groups, {"live", "old"})
		assert(not ok)
		assert(#err.results == 2)
		assert(err.results[1].group == "live" and err.results[1].error.code == "NON_EMPTY_GROUP", err.results[1].error.code)
		assert(err.results[2].group == "old" and err.results[2].error.code == "GROUP_ID_NOT_FOUND")
		local r = delete_groups({"old"}, {if_exists = true})
		assert(r[1].missing == true and r[1].error == nil)
	`)
	assert.Equal(t, []string{"live"}, groupNames(t, e), "the live group is still there")

	// if_exists is true or false: a 1 or a "yes" is refused, not ignored.
	groupCommit(t, e, "kept", map[string]map[int32]int64{"events": {0: 1}})
	for src, want := range map[string]string{
		`delete_groups({"kept"}, {if_exists = 1})`:     `delete_groups: options: if_exists: must be true or false, got 1`,
		`delete_groups({"kept"}, {if_exists = "yes"})`: `delete_groups: options: if_exists: must be true or false, got "yes"`,
		`delete_groups({"kept"}, {if_exist = true})`:   `delete_groups: options: unknown key "if_exist" (did you mean "if_exists"?)`,
		`delete_groups({"kept", ""})`:                  `delete_groups: groups #2: must not be empty`,
		`delete_groups({"kept"}, {}, "again")`:         `delete_groups: takes at most 2 arguments`,
	} {
		re := e.runErr(src)
		assert.Equal(t, "INVALID_ARGUMENT", re.Code, src)
		assert.Contains(t, re.Message, want, src)
	}
	assert.Equal(t, []string{"kept", "live"}, groupNames(t, e), "a refused call deletes nothing")
}

func TestDeleteGroupsTimedOutLooksBeforeRetrying(t *testing.T) {
	e := newEnv(t)
	groupTopic(t, e, "events", 1, 1)
	groupCommit(t, e, "doomed", map[string]map[int32]int64{"events": {0: 1}})
	// kfake deletes the group and still answers REQUEST_TIMED_OUT: asking
	// again would say GROUP_ID_NOT_FOUND; looking first says it is gone.
	h := e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.DeleteGroups}, Err: kerr.RequestTimedOut, Count: 1})
	defer h.Remove()
	e.run(`local r = delete_groups("doomed"); assert(r[1].error == nil and r[1].missing == nil)`)
	assert.NotContains(t, groupNames(t, e), "doomed")
}

func TestGroupsDryRunChangesNothing(t *testing.T) {
	e := newEnv(t)
	groupTopic(t, e, "events", 2, 3)
	groupCommit(t, e, "idle", map[string]map[int32]int64{"events": {0: 1}})
	groupMember(t, e, "live", false, "events")
	e.run(`
		kafka.dry_run(true)
		local r = commit_offsets("idle", {{topic = "events", partition = 1, offset = 3}, {topic = "events", partition = 0, offset = 2}})
		assert(r[1].dry_run == true and r[1].partition == 0 and r[2].partition == 1)
		local ok, err = pcall(commit_offsets, "live", {{topic = "events", partition = 0, offset = 0}})
		assert(not ok and err.code == "UNKNOWN_MEMBER_ID", tostring(err))
		ok, err = pcall(commit_offsets, "idle", {{topic = "events", partition = 9, offset = 0}})
		assert(not ok and err.code == "UNKNOWN_TOPIC_OR_PARTITION", tostring(err))
		commit_offsets("brand-new", {{topic = "events", partition = 0, offset = 0}})

		r = delete_groups("idle")
		assert(r[1].dry_run == true and r[1].error == nil)
		ok, err = pcall(delete_groups, "live")
		assert(not ok and err.code == "NON_EMPTY_GROUP", tostring(err))
		ok, err = pcall(delete_groups, "ghost")
		assert(not ok and err.code == "GROUP_ID_NOT_FOUND", tostring(err))
		assert(delete_groups({"ghost"}, {if_exists = true})[1].missing == true)
	`)
	assert.Equal(t, []string{"idle", "live"}, groupNames(t, e))
	fetched, err := e.adm.FetchOffsets(e.ctx(), "idle")
	require.NoError(t, err)
	o, _ := fetched.Lookup("events", 0)
	assert.Equal(t, int64(1), o.At)
	_, ok := fetched.Lookup("events", 1)
	assert.False(t, ok)
	stderr := e.stderr.String()
	assert.Contains(t, stderr, "dry-run: commit_offsets: commit idle events[0] offset 2")
	assert.Contains(t, stderr, "dry-run: commit_offsets: group brand-new does not exist: the commit would create it")
	assert.Contains(t, stderr, "dry-run: delete_groups: delete group idle (state Empty) and its committed offsets")
}

func TestLag(t *testing.T) {
	e := newEnv(t)
	groupTopic(t, e, "events", 3, 10)
	groupTopic(t, e, "audit", 1, 4)
	// An idle group that committed to two of three partitions.
	groupCommit(t, e, "idle", map[string]map[int32]int64{"events": {0: 10, 1: 4}})
	// A live group consuming audit, with a commit at 1.
	groupCommit(t, e, "live", map[string]map[int32]int64{"audit": {0: 1}})
	groupMember(t, e, "live", false, "audit")

	out := e.json(`return lag("idle")`)
	assert.Equal(t, `[{"group":"idle","lagging":2,"max_lag":10,"partition_count":3,"partitions":[`+
		`{"committed":10,"end_offset":10,"lag":0,"partition":0,"records_lost":0,"topic":"events"},`+
		`{"committed":4,"end_offset":10,"lag":6,"partition":1,"records_lost":0,"topic":"events"},`+
		`{"committed":-1,"end_offset":10,"lag":10,"partition":2,"records_lost":0,"topic":"events"}],`+
		`"records_lost":0,"state":"Empty","total_lag":16,"worst_partition":2,"worst_topic":"events"}]`, out)

	e.run(`
		local all = lag()
		assert(#all == 2 and all[1].group == "idle" and all[2].group == "live")
		local l = all[2]
		assert(l.state == "Stable" and l.total_lag == 3, l.total_lag)
		local p = l.partitions[1]
		assert(p.topic == "audit" and p.committed == 1 and p.end_offset == 4 and p.lag == 3)
		assert(p.client_id == "member-live" and type(p.member_id) == "string")
		assert(lag{partial = true}[1].group == "idle")
	`)
	// The numbers match an independent computation with kadm.
	lags, err := e.adm.Lag(e.ctx(), "idle", "live")
	require.NoError(t, err)
	assert.Equal(t, lags["idle"].Lag.Total(), int64(16))
	assert.Equal(t, lags["live"].Lag.Total(), int64(3))

	// Lag counts an uncommitted partition from its start offset.
	_, err = e.adm.DeleteRecords(e.ctx(), kadm.Offsets{"events": {2: {Topic: "events", Partition: 2, At: 7}}})
	require.NoError(t, err)
	e.run(`local p = lag("idle")[1].partitions[3]; assert(p.committed == -1 and p.lag == 3, p.lag)`)

	re := e.runErr(`lag{"idle", "ghost"}`)
	assert.Equal(t, "GROUP_ID_NOT_FOUND", re.Code)
	assert.Contains(t, re.Message, "lag: ghost: GROUP_ID_NOT_FOUND")
	re = e.runErr(`lag({"idle"}, {bogus = 1})`)
	assert.Contains(t, re.Message, `lag: options: unknown key "bogus"`)
	re = e.runErr(`lag({"idle"}, {partal = true})`)
	assert.Contains(t, re.Message, `lag: options: unknown key "partal" (did you mean "partial"?)`)
	re = e.runErr(`lag{partial = 1}`)
	assert.Contains(t, re.Message, `lag: options: partial: must be true or false, got 1`, "options in place of the groups are read as options")
	re = e.runErr(`lag("idle", {}, 3)`)
	assert.Contains(t, re.Message, `lag: takes at most 2 arguments`)
	re = e.runErr(`lag{"idle", 7}`)
	assert.Contains(t, re.Message, `lag: groups #2: must be a group id, got 7`)
}

func TestLagRetriesListOffsets(t *testing.T) {
	e := newEnv(t)
	groupTopic(t, e, "events", 2, 3)
	groupCommit(t, e, "g", map[string]map[int32]int64{"events": {0: 1, 1: 2}})
	h := e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.ListOffsets}, Err: kerr.LeaderNotAvailable, Count: 2})
	defer h.Remove()
	e.run(`local l = lag("g")[1]; assert(l.total_lag == 3 and l.partitions[2].lag == 1, l.total_lag)`)
	assert.Equal(t, 2, h.Hits())
}

func TestLagPartitionErrors(t *testing.T) {
	e := shortEnv(t)
	groupTopic(t, e, "kept", 1, 2)
	groupTopic(t, e, "stale", 1, 2)
	groupTopic(t, e, "stuck", 1, 2)
	groupCommit(t, e, "g", map[string]map[int32]int64{"kept": {0: 1}, "stale": {0: 1}})
	groupCommit(t, e, "h", map[string]map[int32]int64{"kept": {0: 0}, "stuck": {0: 1}})
	// A topic the broker says does not exist (stale commits of a deleted
	// topic) does not fail its group; a partition whose end offset cannot
	// be listed until the deadline does.
	gone := e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.ListOffsets}, Topic: "stale", Err: kerr.UnknownTopicOrPartition, Count: -1})
	defer gone.Remove()
	stuck := e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.ListOffsets}, Topic: "stuck", Err: kerr.LeaderNotAvailable, Count: -1})
	defer stuck.Remove()
	e.run(`
		local ok, err = pcall(lag, {"g", "h"})
		assert(not ok)
		assert(err.code == "LEADER_NOT_AVAILABLE" and err.resource == "h: stuck[0]", tostring(err))
		local g, h = err.results[1], err.results[2]
		assert(g.group == "g" and g.error == nil and g.total_lag == 1, g.total_lag)
		assert(g.partitions[1].topic == "kept" and g.partitions[1].lag == 1)
		assert(g.partitions[2].topic == "stale" and g.partitions[2].lag == -1 and g.partitions[2].committed == 1)
		assert(g.partitions[2].error.code == "UNKNOWN_TOPIC_OR_PARTITION")
		assert(h.error.code == "LEADER_NOT_AVAILABLE" and h.total_lag == 2)
		assert(h.partitions[2].topic == "stuck" and h.partitions[2].lag == -1 and h.partitions[2].end_offset == -1)
	`)
	assert.Positive(t, stuck.Hits())
}

// lag{observe = N} from Lua: the still partition has stuck_ms of at least
// N seconds; a bad N is refused with the option's name.
func TestLagObserveFromLua(t *testing.T) {
	e := newEnv(t)
	groupTopic(t, e, "events", 1, 10)
	groupCommit(t, e, "still", map[string]map[int32]int64{"events": {0: 4}})
	e.run(`
		local p = lag("still", {observe = 0.3})[1].partitions[1]
		assert(p.lag == 6 and p.stuck_ms and p.stuck_ms >= 300, tostring(p.stuck_ms))
		assert(lag("still")[1].partitions[1].stuck_ms == nil, "only when watched or with the store")
	`)
	re := e.runErr(`lag("still", {observe = 0})`)
	assert.Contains(t, re.Message, `lag: options: observe:`)
	re = e.runErr(`lag("still", {observe = "30s"})`)
	assert.Contains(t, re.Message, `lag: options: observe:`)
}
