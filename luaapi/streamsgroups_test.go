package luaapi

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/undo"
	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

// streamsEnv is a kfake cluster with the recorded word count's topics
// (words-in and its repartition topic, 3 partitions, 10 records each),
// commits for group wc1 and kafkatest.FakeStreams answering for streams
// groups: wc1 running (one member, every task) unless stopped.
func streamsEnv(t *testing.T, stopped bool, o ...Options) (*env, *kafkatest.FakeStreams) {
	t.Helper()
	e := newEnv(t)
	e.run(`create_topics{{name = "words-in", partitions = 3}, {name = "wc1-by-word-repartition", partitions = 3}, {name = "wc1-counts-changelog", partitions = 3}}
		for _, topic in ipairs{"words-in", "wc1-by-word-repartition"} do
			local rs = {}
			for p = 0, 2 do for i = 1, 10 do rs[#rs + 1] = {value = "w", partition = p} end end
			produce(topic, rs)
		end
		commit_offsets("wc1", {{topic = "words-in", partition = 0, offset = 10}, {topic = "words-in", partition = 1, offset = 4},
			{topic = "wc1-by-word-repartition", partition = 2, offset = 7}})
		commit_offsets("plain", {{topic = "words-in", partition = 0, offset = 1}})`)
	recorded := "stable"
	if stopped {
		recorded = "empty"
	}
	// A new runtime: the one above connected before the fake advertised
	// StreamsGroupDescribe.
	fresh := newEnvOn(t, e.cluster, append(o, Options{})[0])
	fake := kafkatest.NewFakeStreams(t, e.cluster, nil, kafkatest.RecordedStreamsGroup(t, recorded, "wc1"))
	return fresh, fake
}

func TestStreamsGroupsFromLua(t *testing.T) {
	e, _ := streamsEnv(t, false)
	e.run(`
		local g = describe_streams_groups("wc1")[1]
		assert(g.group == "wc1" and g.state == "Stable" and g.topology_ready, kafka.json.encode(g))
		assert(g.group_epoch == 3 and g.target_assignment_epoch == 3 and g.topology_epoch == 0)
		assert(#g.subtopologies == 2)
		local s0, s1 = g.subtopologies[1], g.subtopologies[2]
		assert(s0.subtopology == "0" and s0.source_topics[1] == "words-in" and s0.repartition_sink_topics[1] == "wc1-by-word-repartition")
		assert(s1.repartition_source_topics[1].topic == "wc1-by-word-repartition" and s1.repartition_source_topics[1].partitions == 3)
		assert(s1.changelog_topics[1].topic == "wc1-counts-changelog")
		assert(#g.members == 1)
		local m = g.members[1]
		assert(m.process_id == "a70e4083-f72b-4704-ab5e-6ad3deed7f28" and m.member_protocol == "streams" and m.member_epoch == 3)
		assert(#m.active_tasks == 2 and m.active_tasks[2].subtopology == "1" and #m.active_tasks[2].partitions == 3)
		assert(#m.standby_tasks == 0 and #m.warmup_tasks == 0 and #m.target_active_tasks == 2)
		assert(#m.assignment == 6 and m.assignment[1].topic == "wc1-by-word-repartition")
		assert(m.instance_id == nil and m.user_endpoint == nil)
	`)

	// lag takes it by name, and without names as a group like the others.
	e.run(`
		local all = lag()
		assert(#all == 2 and all[1].group == "plain" and all[2].group == "wc1", kafka.json.encode(all))
		local g = lag("wc1")[1]
		assert(g.state == "Stable" and #g.partitions == 6, kafka.json.encode(g))
		assert(g.total_lag == 39, tostring(g.total_lag))   -- words-in 0 + 6 + 10 (no commit), repartition 10 + 10 (no commits) + 3
		for _, p in ipairs(g.partitions) do assert(p.member_id ~= nil and p.client_id ~= nil) end
		local t = lag("wc1", {time = true})[1]
		assert(t.max_lag_ms ~= nil)
		assert(#fetch_offsets("wc1") == 3)
	`)

	// Asked for as the other type: a message naming it.
	re := e.runErr(`describe_groups("wc1")`)
	assert.Equal(t, "GROUP_ID_NOT_FOUND", re.Code)
	assert.Contains(t, re.Message, "describe_groups: wc1: GROUP_ID_NOT_FOUND: wc1 is a streams group, not a consumer group: describe it with describe_streams_groups")
	re = e.runErr(`describe_streams_groups("plain")`)
	assert.Equal(t, "GROUP_ID_NOT_FOUND", re.Code)
	assert.Contains(t, re.Message, "describe_streams_groups: plain: GROUP_ID_NOT_FOUND: plain is a classic consumer group, not a streams group: describe it with describe_groups")
	re = e.runErr(`remove_group_members("wc1")`)
	assert.Contains(t, re.Message, "wc1 is a streams group, not a consumer group")
}

// While the application runs, the mutations are refused as Kafka refuses
// them, dry runs included, and nothing is sent.
func TestRunningStreamsGroupRefusesChanges(t *testing.T) {
	e, _ := streamsEnv(t, false)
	before := fetchCommitted(t, e, "wc1")
	mutations := countKeys(e.cluster, kmsg.OffsetCommit, kmsg.DeleteGroups, kmsg.OffsetDelete)

	re := e.runErr(`reset_offsets{group = "wc1", to = "earliest", force = true}`)
	assert.Equal(t, "NON_EMPTY_GROUP", re.Code)
	assert.Contains(t, re.Message, "streams group wc1 has 1 live member(s): stop the application's instances first")

	e.run(`
		kafka.dry_run(true)
		local r = delete_groups("wc1", {partial = true})
		assert(r[1].error.code == "NON_EMPTY_GROUP", tostring(r[1].error))
		r = commit_offsets("wc1", {{topic = "words-in", partition = 0, offset = 0}}, {partial = true})
		assert(r[1].error.code == "UNKNOWN_MEMBER_ID", tostring(r[1].error))
		r = delete_group_offsets("wc1", "words-in", {partial = true})
		assert(r[1].error.code == "GROUP_SUBSCRIBED_TO_TOPIC", tostring(r[1].error))
		kafka.dry_run(false)
	`)
	assert.Zero(t, mutations.Load(), "no mutating request was sent")
	assert.Equal(t, before, fetchCommitted(t, e, "wc1"))
}

// Stopped, its offsets reset in every form reset_offsets takes, and the
// group is deleted.
func TestStoppedStreamsGroupResetsAndDeletes(t *testing.T) {
	e, _ := streamsEnv(t, true)
	e.run(`
		local r = reset_offsets{group = "wc1", to = "earliest", topics = {"words-in"}, dry_run = true}
		assert(#r == 3 and r[1].target == 0)
	`)
	assert.Equal(t, map[string]int64{"words-in/0": 10, "words-in/1": 4, "wc1-by-word-repartition/2": 7}, fetchCommitted(t, e, "wc1"), "a dry run commits nothing")

	for _, tc := range []struct {
		call string
		want map[string]int64
	}{
		{`reset_offsets{group = "wc1", to = "earliest", topics = {"words-in"}}`, map[string]int64{"words-in/0": 0, "words-in/1": 0, "words-in/2": 0, "wc1-by-word-repartition/2": 7}},
		{`reset_offsets{group = "wc1", to = "latest"}`, map[string]int64{"words-in/0": 10, "words-in/1": 10, "words-in/2": 10, "wc1-by-word-repartition/2": 10}},
		{`reset_offsets{group = "wc1", to = {shift = -2}}`, map[string]int64{"words-in/0": 8, "words-in/1": 8, "words-in/2": 8, "wc1-by-word-repartition/2": 8}},
		{`reset_offsets{group = "wc1", to = {offset = 5}, topics = {{topic = "words-in", partition = 1}}}`, map[string]int64{"words-in/0": 8, "words-in/1": 5, "words-in/2": 8, "wc1-by-word-repartition/2": 8}},
		{`reset_offsets{group = "wc1", to = {timestamp = 0}, topics = {"wc1-by-word-repartition"}}`, map[string]int64{"words-in/0": 8, "words-in/1": 5, "words-in/2": 8,
			"wc1-by-word-repartition/0": 0, "wc1-by-word-repartition/1": 0, "wc1-by-word-repartition/2": 0}},
		{`reset_offsets{group = "wc1", to = {group = "plain"}}`, map[string]int64{"words-in/0": 1, "words-in/1": 5, "words-in/2": 8,
			"wc1-by-word-repartition/0": 0, "wc1-by-word-repartition/1": 0, "wc1-by-word-repartition/2": 0}},
	} {
		e.run(tc.call)
		assert.Equal(t, tc.want, fetchCommitted(t, e, "wc1"), tc.call)
	}

	e.run(`delete_group_offsets("wc1", "wc1-by-word-repartition")`)
	assert.Equal(t, map[string]int64{"words-in/0": 1, "words-in/1": 5, "words-in/2": 8}, fetchCommitted(t, e, "wc1"))
	e.run(`assert(delete_groups("wc1")[1].error == nil)`)
	listed, err := e.adm.ListGroups(e.ctx())
	require.NoError(t, err)
	assert.NotContains(t, listed.Groups(), "wc1")
}

// Without StreamsGroupDescribe the function says what it needs, before
// sending anything.
func TestDescribeStreamsGroupsNeeds(t *testing.T) {
	e := newEnv(t)
	describes := countKeys(e.cluster, kmsg.StreamsGroupDescribe)
	re := e.runErr(`describe_streams_groups("wc1")`)
	assert.Equal(t, "UNSUPPORTED_VERSION", re.Code)
	assert.Contains(t, re.Message, "describe_streams_groups: UNSUPPORTED_VERSION: needs Kafka 4.2+ (StreamsGroupDescribe): this cluster's brokers do not advertise StreamsGroupDescribe")
	assert.Zero(t, describes.Load())
}

// fetchCommitted is a group's commits as "topic/partition" -> offset, read
// by a client of the test's own.
func fetchCommitted(t *testing.T, e *env, group string) map[string]int64 {
	t.Helper()
	os, err := e.adm.FetchOffsets(e.ctx(), group)
	require.NoError(t, err)
	out := map[string]int64{}
	os.Each(func(o kadm.OffsetResponse) {
		out[o.Topic+"/"+itoa(o.Partition)] = o.At
	})
	return out
}

// A streams group's reset is audited with the offsets before, confirmed
// first, and undone by committing them again.
func TestStreamsGroupResetIsAuditedAndUndone(t *testing.T) {
	audit, path := testAudit(t)
	var prompts []string
	e, _ := streamsEnv(t, true, Options{Config: engine.Config{Audit: audit},
		Confirm: func(p string) bool { prompts = append(prompts, p); return true }})
	before := fetchCommitted(t, e, "wc1")
	e.run(`reset_offsets{group = "wc1", to = "earliest"}`)
	assert.Equal(t, map[string]int64{"words-in/0": 0, "words-in/1": 0, "wc1-by-word-repartition/2": 0}, fetchCommitted(t, e, "wc1"))
	require.Len(t, prompts, 1, "destructive: asked first")
	assert.Contains(t, prompts[0], "reset_offsets(")

	changes := readChanges(t, path)
	require.Len(t, changes, 1)
	assert.Equal(t, "reset_offsets", changes[0].Intent.Op)
	assert.Contains(t, string(changes[0].Intent.Before), `"group":"wc1"`)
	cl, err := engine.New(engine.Config{Brokers: e.cluster.ListenAddrs(), Timeout: 10 * time.Second})
	require.NoError(t, err)
	defer cl.Close()
	steps, err := undo.Run(context.Background(), cl, changes, undo.Options{Confirm: func(string) bool { return true }})
	require.NoError(t, err)
	require.NotEmpty(t, steps)
	for _, s := range steps {
		assert.Equal(t, engine.UndoReverted, s.Action, "%+v", s)
	}
	assert.Equal(t, before, fetchCommitted(t, e, "wc1"), "undo put the offsets back")
}

// watch shows a streams group's lag as a consumer group's.
func TestWatchShowsStreamsGroups(t *testing.T) {
	e, _ := streamsEnv(t, false)
	e.rt.watchClock, e.rt.watchScreen = newFakeClock(), pipedScreen
	e.run(`watch("lag()", 2, {count = 1})`)
	out := e.stdout.String()
	assert.Contains(t, out, "plain  Empty  total lag 29")
	assert.Contains(t, out, "wc1  Stable  total lag 39")
	assert.Contains(t, out, "  wc1-by-word-repartition  2          3")
}
