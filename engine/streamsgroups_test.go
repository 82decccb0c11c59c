package engine

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

// The streams groups tests run on kfake with kafkatest.FakeStreams, which
// answers StreamsGroupDescribe (kfake has no streams groups) with answers
// Apache Kafka 4.1.2 gave for a word-count application: group wc1 reads
// words-in (3 partitions) in subtopology 0, which writes
// wc1-by-word-repartition, read by subtopology 1 (3 partitions, counts in
// a store whose changelog is wc1-counts-changelog).

// seedWordCount makes the topics of the recorded word count with records,
// and commits for group at committed (per topic, per partition; -1: none).
func seedWordCount(t *testing.T, c *kfake.Cluster, adm *kadm.Client, group string, committed map[string][]int64) {
	t.Helper()
	ctx := context.Background()
	for _, topic := range []string{"words-in", "wc1-by-word-repartition", "wc1-counts-changelog"} {
		_, err := adm.CreateTopics(ctx, 3, 1, nil, topic)
		require.NoError(t, err)
	}
	kc, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, err)
	defer kc.Close()
	for _, topic := range []string{"words-in", "wc1-by-word-repartition"} {
		for p := range int32(3) {
			for range 10 {
				require.NoError(t, kc.ProduceSync(ctx, &kgo.Record{Topic: topic, Partition: p, Value: []byte("w")}).FirstErr())
			}
		}
	}
	os := kadm.Offsets{}
	for topic, ps := range committed {
		for p, at := range ps {
			if at >= 0 {
				os.Add(kadm.Offset{Topic: topic, Partition: int32(p), At: at, LeaderEpoch: -1})
			}
		}
	}
	if len(os) > 0 {
		resp, err := adm.CommitOffsets(ctx, group, os)
		require.NoError(t, err)
		require.NoError(t, resp.Error())
	}
}

func TestDescribeStreamsGroupsAsKafkaAnswers(t *testing.T) {
	cl, c, _ := newTestClient(t)
	kafkatest.NewFakeStreams(t, c, nil,
		kafkatest.RecordedStreamsGroup(t, "stable", "wc1"),
		kafkatest.RecordedStreamsGroup(t, "empty", "wc-stopped"),
		kafkatest.RecordedStreamsGroup(t, "notready", "nr-app"))

	gs, err := cl.DescribeStreamsGroups(context.Background(), []string{"wc1", "nr-app", "wc-stopped", "nope", "wc1"})
	require.NoError(t, err)
	require.Len(t, gs, 4)
	assert.Equal(t, []string{"nope", "nr-app", "wc-stopped", "wc1"}, []string{gs[0].Group, gs[1].Group, gs[2].Group, gs[3].Group})

	assert.Equal(t, "GROUP_ID_NOT_FOUND", gs[0].Err.Code)
	assert.Equal(t, "Group nope not found.", gs[0].Err.Message)

	nr := gs[1]
	require.Nil(t, nr.Err)
	assert.Equal(t, "NotReady", nr.State)
	assert.False(t, nr.TopologyReady, "no subtopologies: the source topic is missing")
	assert.Empty(t, nr.Subtopologies)
	require.Len(t, nr.Members, 1)
	assert.Empty(t, nr.Members[0].ActiveTasks)
	assert.Empty(t, nr.Members[0].Assignment)

	stopped := gs[2]
	require.Nil(t, stopped.Err)
	assert.Equal(t, "Empty", stopped.State)
	assert.True(t, stopped.TopologyReady)
	assert.Empty(t, stopped.Members)

	g := gs[3]
	require.Nil(t, g.Err)
	assert.Equal(t, c.CoordinatorFor("wc1"), g.Coordinator, "described by its coordinator (the fake answers NOT_COORDINATOR elsewhere)")
	assert.Equal(t, StreamsGroup{
		Group: "wc1", State: "Stable", Coordinator: g.Coordinator, GroupEpoch: 3, TargetAssignmentEpoch: 3, TopologyEpoch: 0, TopologyReady: true,
		Subtopologies: []StreamsSubtopology{
			{Subtopology: "0", SourceTopics: []string{"words-in"}, RepartitionSourceTopics: []StreamsTopic{},
				RepartitionSinkTopics: []string{"wc1-by-word-repartition"}, ChangelogTopics: []StreamsTopic{}},
			{Subtopology: "1", SourceTopics: []string{}, RepartitionSourceTopics: []StreamsTopic{{Topic: "wc1-by-word-repartition", Partitions: 3}},
				RepartitionSinkTopics: []string{}, ChangelogTopics: []StreamsTopic{{Topic: "wc1-counts-changelog", Partitions: 3}}},
		},
		Members: []StreamsGroupMember{{
			MemberID: g.Members[0].MemberID, ProcessID: "a70e4083-f72b-4704-ab5e-6ad3deed7f28", ClientID: g.Members[0].ClientID,
			Host: "/127.0.0.1", MemberProtocol: "streams", MemberEpoch: 3, TopologyEpoch: 0,
			ActiveTasks:        []StreamsTasks{{Subtopology: "0", Partitions: []int32{0, 1, 2}}, {Subtopology: "1", Partitions: []int32{0, 1, 2}}},
			StandbyTasks:       []StreamsTasks{},
			WarmupTasks:        []StreamsTasks{},
			TargetActiveTasks:  []StreamsTasks{{Subtopology: "0", Partitions: []int32{0, 1, 2}}, {Subtopology: "1", Partitions: []int32{0, 1, 2}}},
			TargetStandbyTasks: []StreamsTasks{}, TargetWarmupTasks: []StreamsTasks{},
			Assignment: []TopicPartition{{Topic: "wc1-by-word-repartition", Partition: 0}, {Topic: "wc1-by-word-repartition", Partition: 1},
				{Topic: "wc1-by-word-repartition", Partition: 2}, {Topic: "words-in", Partition: 0}, {Topic: "words-in", Partition: 1}, {Topic: "words-in", Partition: 2}},
		}},
	}, g)
}

// Standby and warm-up tasks, static members, endpoints and members still
// on the classic protocol: the parts the recorded answers do not have.
func TestDescribeStreamsGroupsTasksAndMembers(t *testing.T) {
	cl, c, _ := newTestClient(t)
	g := kafkatest.RecordedStreamsGroup(t, "stable", "wc2")
	two := g.Members[0]
	two.MemberID, two.ProcessID, two.InstanceID, two.RackID, two.IsClassic = "m-b", "p-b", kmsg.StringPtr("instance-b"), kmsg.StringPtr("rack-1"), true
	two.UserEndpoint = &kmsg.StreamsGroupDescribeResponseGroupMemberUserEndpoint{Host: "10.0.0.2", Port: 8080}
	tasks := func(sub string, ps ...int32) kmsg.TaskIDs { return kmsg.TaskIDs{SubtopologyID: sub, Partitions: ps} }
	two.Assignment = kmsg.StreamsAssignment{ActiveTasks: []kmsg.TaskIDs{tasks("1", 2)}, StandbyTasks: []kmsg.TaskIDs{tasks("1", 1, 0)}, WarmupTasks: []kmsg.TaskIDs{tasks("1", 0)}}
	two.TargetAssignment = kmsg.StreamsAssignment{ActiveTasks: []kmsg.TaskIDs{tasks("1", 2, 0)}}
	g.Members = append(g.Members, two)
	kafkatest.NewFakeStreams(t, c, nil, g)

	gs, err := cl.DescribeStreamsGroups(context.Background(), []string{"wc2"})
	require.NoError(t, err)
	require.Nil(t, gs[0].Err)
	require.Len(t, gs[0].Members, 2)
	m := gs[0].Members[1] // p-b sorts after the recorded process id
	assert.Equal(t, "p-b", m.ProcessID)
	assert.Equal(t, "instance-b", *m.InstanceID)
	assert.Equal(t, "rack-1", *m.Rack)
	assert.Equal(t, "10.0.0.2:8080", *m.UserEndpoint)
	assert.Equal(t, "classic", m.MemberProtocol)
	assert.Equal(t, []StreamsTasks{{Subtopology: "1", Partitions: []int32{2}}}, m.ActiveTasks)
	assert.Equal(t, []StreamsTasks{{Subtopology: "1", Partitions: []int32{0, 1}}}, m.StandbyTasks)
	assert.Equal(t, []StreamsTasks{{Subtopology: "1", Partitions: []int32{0}}}, m.WarmupTasks)
	assert.Equal(t, []StreamsTasks{{Subtopology: "1", Partitions: []int32{0, 2}}}, m.TargetActiveTasks)
	assert.Equal(t, []TopicPartition{{Topic: "wc1-by-word-repartition", Partition: 2}}, m.Assignment,
		"an active task of subtopology 1 consumes its partition of the repartition topic; standby tasks consume nothing")
}

// A group of another type, asked for as a streams group, or the reverse,
// fails naming what it is and the function that describes it.
func TestGroupTypeMismatchNamesTheType(t *testing.T) {
	cl, c, adm := newTestClient(t)
	seedWordCount(t, c, adm, "plain", map[string][]int64{"words-in": {1, 1, 1}})
	kafkatest.NewFakeStreams(t, c, nil, kafkatest.RecordedStreamsGroup(t, "stable", "wc1"))

	gs, err := cl.DescribeStreamsGroups(context.Background(), []string{"plain"})
	require.NoError(t, err)
	require.NotNil(t, gs[0].Err)
	assert.Equal(t, "GROUP_ID_NOT_FOUND", gs[0].Err.Code)
	assert.Equal(t, "plain is a classic consumer group, not a streams group: describe it with describe_groups", gs[0].Err.Message)

	ds, err := cl.DescribeGroups(context.Background(), []string{"wc1", "plain"})
	require.NoError(t, err)
	require.NotNil(t, ds[1].Err)
	assert.Equal(t, "GROUP_ID_NOT_FOUND", ds[1].Err.Code)
	assert.Equal(t, "wc1 is a streams group, not a consumer group: describe it with describe_streams_groups", ds[1].Err.Message)
	assert.Nil(t, ds[0].Err, "the consumer group is still described")

	any, err := cl.DescribeAnyGroups(context.Background(), []string{"wc1"})
	require.NoError(t, err)
	require.Nil(t, any[0].Err)
	assert.Equal(t, "streams", any[0].ProtocolType)
	require.Len(t, any[0].Members, 1)
	assert.Len(t, any[0].Members[0].Assignment, 6)

	_, err = cl.RemoveGroupMembers(context.Background(), "wc1", nil, RemoveMembersOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "wc1 is a streams group, not a consumer group")
}

// Without StreamsGroupDescribe, or without streams.version, describing a
// streams group says what it needs and sends nothing.
func TestDescribeStreamsGroupsSaysWhatItNeeds(t *testing.T) {
	cl, c, _ := newTestClient(t)
	describes := countKey(c, kmsg.StreamsGroupDescribe)
	_, err := cl.DescribeStreamsGroups(context.Background(), []string{"wc1"})
	require.Error(t, err)
	e := AsError(err, "")
	assert.Equal(t, "UNSUPPORTED_VERSION", e.Code)
	assert.Contains(t, e.Message, "needs Kafka 4.2+ (StreamsGroupDescribe): this cluster's brokers do not advertise StreamsGroupDescribe")
	assert.Contains(t, e.Message, "Kafka 4.1 has streams groups as early access: brokers started with unstable.api.versions.enable=true")

	cl2, c2, _ := newTestClient(t)
	kafkatest.AdvertiseEdited(t, c2, func(r *kmsg.ApiVersionsResponse) {
		r.FinalizedFeatures = slices.DeleteFunc(r.FinalizedFeatures, func(f kmsg.ApiVersionsResponseFinalizedFeature) bool { return f.Name == "streams.version" })
	}, kmsg.StreamsGroupDescribe)
	_, err = cl2.DescribeStreamsGroups(context.Background(), []string{"wc1"})
	require.Error(t, err)
	e = AsError(err, "")
	assert.Equal(t, "UNSUPPORTED_VERSION", e.Code)
	assert.Contains(t, e.Message, "streams groups are not enabled on this cluster: needs the streams.version feature at level 1 or above (it is not finalized; update_features raises it)")
	assert.Equal(t, int32(0), describes.Load())
}

func TestLagOfStreamsGroups(t *testing.T) {
	cl, c, adm := newTestClient(t)
	seedWordCount(t, c, adm, "wc1", map[string][]int64{"words-in": {10, 4, -1}, "wc1-by-word-repartition": {10, 10, 7}})
	kafkatest.NewFakeStreams(t, c, nil,
		kafkatest.RecordedStreamsGroup(t, "stable", "wc1"),
		kafkatest.RecordedStreamsGroup(t, "empty", "wc-never-ran"))
	// A plain consumer group beside it.
	resp, err := adm.CommitOffsets(context.Background(), "plain", kadm.OffsetsFromRecords(kgo.Record{Topic: "words-in", Partition: 0, Offset: 4}))
	require.NoError(t, err)
	require.NoError(t, resp.Error())

	all, err := cl.Lag(context.Background(), nil)
	require.NoError(t, err)
	var names []string
	for _, g := range all {
		names = append(names, g.Group)
	}
	assert.Equal(t, []string{"plain", "wc-never-ran", "wc1"}, names, "lag() covers streams groups as consumer groups")

	wc1 := all[2]
	require.Nil(t, wc1.Err)
	assert.Equal(t, "Stable", wc1.State)
	recorded := kafkatest.RecordedStreamsGroup(t, "stable", "").Members[0]
	want := []PartitionLag{
		{Topic: "wc1-by-word-repartition", Partition: 0, Committed: 10, EndOffset: 10, Lag: 0},
		{Topic: "wc1-by-word-repartition", Partition: 1, Committed: 10, EndOffset: 10, Lag: 0},
		{Topic: "wc1-by-word-repartition", Partition: 2, Committed: 7, EndOffset: 10, Lag: 3},
		{Topic: "words-in", Partition: 0, Committed: 10, EndOffset: 10, Lag: 0},
		{Topic: "words-in", Partition: 1, Committed: 4, EndOffset: 10, Lag: 6},
		{Topic: "words-in", Partition: 2, Committed: -1, EndOffset: 10, Lag: 10},
	}
	for i := range want {
		want[i].MemberID, want[i].ClientID = recorded.MemberID, recorded.ClientID
		want[i].logStart = 0
	}
	assert.Equal(t, want, wc1.Partitions, "the source and repartition topics, each partition with the member whose active task reads it")
	assert.Equal(t, int64(19), wc1.TotalLag)

	never := all[1]
	require.Nil(t, never.Err)
	assert.Len(t, never.Partitions, 6, "a group that never committed lags on every partition of its topology's inputs")
	assert.Equal(t, int64(60), never.TotalLag)
	for _, p := range never.Partitions {
		assert.Equal(t, int64(-1), p.Committed)
		assert.Empty(t, p.MemberID)
	}
}

func TestResetAndDeleteStreamsGroups(t *testing.T) {
	cl, c, adm := newTestClient(t)
	seedWordCount(t, c, adm, "wc1", map[string][]int64{"words-in": {10, 10, 10}})
	fake := kafkatest.NewFakeStreams(t, c, nil, kafkatest.RecordedStreamsGroup(t, "stable", "wc1"))
	committed := func() []int64 {
		os, err := adm.FetchOffsets(context.Background(), "wc1")
		require.NoError(t, err)
		var out []int64
		for p := range int32(3) {
			o, _ := os.Lookup("words-in", p)
			out = append(out, o.At)
		}
		return out
	}

	for _, force := range []bool{false, true} {
		_, err := cl.ResetOffsets(context.Background(), ResetOptions{Group: "wc1", To: ResetTarget{Kind: ResetToEarliest}, Force: force})
		require.Error(t, err)
		e := AsError(err, "")
		assert.Equal(t, "NON_EMPTY_GROUP", e.Code)
		assert.Equal(t, "streams group wc1 has 1 live member(s): stop the application's instances first (force cannot remove a streams group's members)", e.Message)
	}
	assert.Equal(t, []int64{10, 10, 10}, committed(), "nothing was committed")
	deleted, err := cl.DeleteGroups(context.Background(), []string{"wc1"}, DeleteGroupsOptions{})
	require.NoError(t, err)
	assert.Equal(t, "NON_EMPTY_GROUP", deleted[0].Err.Code)

	// The application stops: the group is empty, and its offsets move.
	fake.Set(kafkatest.RecordedStreamsGroup(t, "empty", "wc1"))
	res, err := cl.ResetOffsets(context.Background(), ResetOptions{Group: "wc1", Topics: []string{"words-in"}, To: ResetTarget{Kind: ResetShift, Offset: -3}})
	require.NoError(t, err)
	assert.True(t, res.Committed)
	assert.Equal(t, []int64{7, 7, 7}, committed())

	deleted, err = cl.DeleteGroups(context.Background(), []string{"wc1"}, DeleteGroupsOptions{})
	require.NoError(t, err)
	require.Nil(t, deleted[0].Err)
	listed, err := adm.ListGroups(context.Background())
	require.NoError(t, err)
	assert.NotContains(t, listed.Groups(), "wc1")
	left, err := cl.FetchOffsets(context.Background(), "wc1", nil)
	require.NoError(t, err)
	assert.Empty(t, left, "its offsets went with it")
}

// A running streams group reads its whole topology: deleting its offsets
// there is refused as Kafka refuses it (GROUP_SUBSCRIBED_TO_TOPIC), which
// the dry run says before anything is sent.
func TestDeleteOffsetsOfRunningStreamsGroupDryRun(t *testing.T) {
	cl, c, adm := newTestClient(t)
	seedWordCount(t, c, adm, "wc1", map[string][]int64{"words-in": {10, 10, 10}})
	kafkatest.NewFakeStreams(t, c, nil, kafkatest.RecordedStreamsGroup(t, "stable", "wc1"))
	deletes := countKey(c, kmsg.OffsetDelete)
	rows, err := cl.DeleteGroupOffsets(context.Background(), "wc1", []string{"words-in"}, nil, DeleteOffsetsOptions{DryRun: true})
	require.NoError(t, err)
	require.Len(t, rows, 3)
	for _, r := range rows {
		require.NotNil(t, r.Err)
		assert.Equal(t, "GROUP_SUBSCRIBED_TO_TOPIC", r.Err.Code)
	}
	assert.Equal(t, int32(0), deletes.Load())
}
