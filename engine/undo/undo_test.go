package undo

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/internal/testaudit"
	"github.com/kadmin-lua/kadmin-lua/internal/testengine"
)

// undoLog reads the audit log at path and undoes it with cl.
func undoLog(t *testing.T, cl *engine.Client, path string, o Options) []engine.UndoStep {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	changes, problems, err := auditlog.Read(f, path)
	require.NoError(t, err)
	require.Empty(t, problems)
	steps, err := Run(context.Background(), cl, changes, o)
	require.NoError(t, err)
	for _, s := range steps {
		t.Logf("undo: %s %s %s: %s: %s", s.ID, s.Op, s.Resource, s.Action, s.Message)
	}
	return steps
}

func TestUndoConfigs(t *testing.T) {
	cl, _, adm, path := testengine.Audited(t)
	ctx := context.Background()
	_, err := adm.CreateTopic(ctx, 1, 1, map[string]*string{"retention.ms": kadm.StringPtr("1000")}, "cfg")
	require.NoError(t, err)
	_, defSegment := testengine.TopicConfig(t, adm, "cfg", "segment.ms")

	res, err := cl.AlterConfigs(ctx, []engine.ConfigAlteration{{Resource: engine.ConfigResource{Type: engine.ConfigTopic, Name: "cfg"},
		Set: map[string]string{"retention.ms": "2000", "segment.ms": "3600000"}}}, engine.AlterConfigsOptions{})
	require.NoError(t, err)
	require.Nil(t, res[0].Err)
	res, err = cl.AlterConfigs(ctx, []engine.ConfigAlteration{{Resource: engine.ConfigResource{Type: engine.ConfigTopic, Name: "cfg"},
		Delete: []string{"retention.ms"}}}, engine.AlterConfigsOptions{})
	require.NoError(t, err)
	require.Nil(t, res[0].Err)
	v, src := testengine.TopicConfig(t, adm, "cfg", "retention.ms")
	require.NotEqual(t, "DYNAMIC_TOPIC_CONFIG", src, v)

	dry := undoLog(t, cl, path, Options{DryRun: true})
	assert.Equal(t, []string{"alter_configs topic:cfg: would revert", "alter_configs topic:cfg: would revert"}, testengine.Actions(dry))
	v, _ = testengine.TopicConfig(t, adm, "cfg", "segment.ms")
	assert.Equal(t, "3600000", v, "a dry run changes nothing")

	steps := undoLog(t, cl, path, Options{})
	assert.Equal(t, []string{"alter_configs topic:cfg: reverted", "alter_configs topic:cfg: reverted"}, testengine.Actions(steps))
	v, src = testengine.TopicConfig(t, adm, "cfg", "retention.ms")
	assert.Equal(t, "1000", v)
	assert.Equal(t, "DYNAMIC_TOPIC_CONFIG", src)
	_, src = testengine.TopicConfig(t, adm, "cfg", "segment.ms")
	assert.Equal(t, defSegment, src, "segment.ms was not set on the topic before: deleted again")

	// Undo's own changes are in the log, marked; a second undo skips them
	// and finds the originals already as before.
	lines := testaudit.Records(t, path)
	assert.Len(t, lines, 8)
	assert.Equal(t, lines[2].ID, lines[4].UndoOf, "newest first")
	assert.Equal(t, lines[0].ID, lines[6].UndoOf)
	again := undoLog(t, cl, path, Options{})
	assert.Equal(t, []string{"alter_configs : skipped", "alter_configs : skipped", "alter_configs topic:cfg: skipped", "alter_configs topic:cfg: skipped"}, testengine.Actions(again))
	assert.Contains(t, again[2].Message, "already undone by "+lines[4].ID)
}

func TestUndoRefusesAResourceChangedSince(t *testing.T) {
	cl, _, adm, path := testengine.Audited(t)
	ctx := context.Background()
	_, err := adm.CreateTopic(ctx, 1, 1, nil, "moved-on")
	require.NoError(t, err)
	_, err = cl.AlterConfigs(ctx, []engine.ConfigAlteration{{Resource: engine.ConfigResource{Type: engine.ConfigTopic, Name: "moved-on"}, Set: map[string]string{"retention.ms": "2000"}}}, engine.AlterConfigsOptions{})
	require.NoError(t, err)
	_, err = adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Name: "retention.ms", Value: kadm.StringPtr("3000")}}, "moved-on")
	require.NoError(t, err)

	steps := undoLog(t, cl, path, Options{})
	require.Len(t, steps, 1)
	assert.Equal(t, engine.UndoRefused, steps[0].Action)
	assert.Contains(t, steps[0].Message, `changed since: retention.ms is "3000" (DYNAMIC_TOPIC_CONFIG), the change left "2000"`)
	v, _ := testengine.TopicConfig(t, adm, "moved-on", "retention.ms")
	assert.Equal(t, "3000", v)
}

func TestUndoACLs(t *testing.T) {
	cl, _, adm, path := testengine.Audited(t)
	ctx := context.Background()
	mk := func(p, topic string) engine.ACL {
		return engine.ACL{Principal: "User:" + p, Operation: "read", ResourceType: "topic", ResourceName: topic}
	}
	// "old" exists before the call that creates it again; "doomed" is
	// deleted by a filter.
	_, err := cl.CreateACLs(ctx, []engine.ACL{mk("old", "t"), mk("doomed", "d")})
	require.NoError(t, err)
	require.NoError(t, os.Truncate(path, 0))
	_, err = cl.CreateACLs(ctx, []engine.ACL{mk("new", "t"), mk("old", "t")})
	require.NoError(t, err)
	name := "d"
	del, err := cl.DeleteACLs(ctx, []engine.ACLFilter{{ResourceType: "topic", ResourceName: &name}})
	require.NoError(t, err)
	require.Len(t, del[0].Deleted, 1)

	steps := undoLog(t, cl, path, Options{})
	assert.ElementsMatch(t, []string{
		"delete_acls User:doomed allow read on topic d (literal) from *: reverted",
		"create_acls User:new allow read on topic t (literal) from *: reverted",
		"create_acls User:old allow read on topic t (literal) from *: skipped",
	}, testengine.Actions(steps))

	b := kadm.NewACLs().AnyResource().ResourcePatternType(kadm.ACLPatternAny).Operations(kadm.OpAny).Allow().Deny().AllowHosts().DenyHosts()
	b = b.Topics("t", "d")
	described, err := adm.DescribeACLs(ctx, b)
	require.NoError(t, err)
	got := map[string]bool{}
	for _, d := range described {
		for _, a := range d.Described {
			got[a.Principal+"@"+a.Name] = true
		}
	}
	assert.Equal(t, map[string]bool{"User:old@t": true, "User:doomed@d": true}, got)
}

func TestUndoQuotas(t *testing.T) {
	cl, _, adm, path := testengine.Audited(t)
	ctx := context.Background()
	ent := engine.QuotaEntity{"user": "u1"}
	_, err := adm.AlterClientQuotas(ctx, []kadm.AlterClientQuotaEntry{{Entity: kadm.ClientQuotaEntity{{Type: "user", Name: kadm.StringPtr("u1")}},
		Ops: []kadm.AlterClientQuotaOp{{Key: "producer_byte_rate", Value: 100}}}})
	require.NoError(t, err)
	_, err = cl.AlterClientQuotas(ctx, []engine.QuotaAlteration{{Entity: ent, Set: map[string]float64{"producer_byte_rate": 200, "consumer_byte_rate": 300}}}, false)
	require.NoError(t, err)

	steps := undoLog(t, cl, path, Options{})
	assert.Equal(t, []string{"alter_client_quotas user=u1: reverted"}, testengine.Actions(steps))
	now, err := cl.DescribeClientQuotas(ctx, []engine.QuotaFilter{{"user": "u1"}}, true)
	require.NoError(t, err)
	require.Len(t, now, 1)
	assert.Equal(t, map[string]float64{"producer_byte_rate": 100}, now[0].Quotas)
}

func TestUndoCommittedOffsets(t *testing.T) {
	cl, _, adm, path := testengine.Audited(t)
	ctx := context.Background()
	_, err := adm.CreateTopic(ctx, 3, 1, nil, "o")
	require.NoError(t, err)
	os := kadm.Offsets{}
	os.Add(kadm.Offset{Topic: "o", Partition: 0, At: 5, LeaderEpoch: -1})
	os.Add(kadm.Offset{Topic: "o", Partition: 2, At: 1, LeaderEpoch: -1})
	_, err = adm.CommitOffsets(ctx, "g", os)
	require.NoError(t, err)
	_, err = cl.CommitOffsets(ctx, "g", []engine.OffsetCommit{{Topic: "o", Partition: 0, Offset: 10, LeaderEpoch: -1},
		{Topic: "o", Partition: 1, Offset: 3, LeaderEpoch: -1}, {Topic: "o", Partition: 2, Offset: 4, LeaderEpoch: -1}})
	require.NoError(t, err)
	// Someone else moves partition 2 on: that one is left alone.
	os = kadm.Offsets{}
	os.Add(kadm.Offset{Topic: "o", Partition: 2, At: 7, LeaderEpoch: -1})
	_, err = adm.CommitOffsets(ctx, "g", os)
	require.NoError(t, err)

	steps := undoLog(t, cl, path, Options{})
	assert.ElementsMatch(t, []string{"commit_offsets g: o[2]: refused", "commit_offsets g: reverted", "commit_offsets g: reverted"}, testengine.Actions(steps))
	fetched, err := adm.FetchOffsets(ctx, "g")
	require.NoError(t, err)
	got := map[int32]int64{}
	fetched.Each(func(r kadm.OffsetResponse) { got[r.Partition] = r.At })
	assert.Equal(t, map[int32]int64{0: 5, 2: 7}, got, "o[1] had no commit before: deleted again")
}

func TestUndoCreatedTopicsNeedsConfirmationAndTheSameTopic(t *testing.T) {
	cl, c, adm, path := testengine.Audited(t)
	ctx := context.Background()
	_, err := cl.CreateTopics(ctx, []engine.TopicSpec{{Name: "mine"}, {Name: "recreated"}}, engine.CreateTopicsOptions{})
	require.NoError(t, err)
	_, err = adm.DeleteTopics(ctx, "recreated")
	require.NoError(t, err)
	_, err = adm.CreateTopic(ctx, 1, 1, nil, "recreated")
	require.NoError(t, err)

	steps := undoLog(t, cl, path, Options{})
	assert.Equal(t, []string{"create_topics mine: refused", "create_topics recreated: refused"}, testengine.Actions(steps))
	assert.Contains(t, steps[0].Message, "needs confirmation")
	assert.Contains(t, steps[1].Message, "changed since: the topic now has id")
	var asked []string
	steps = undoLog(t, cl, path, Options{Confirm: func(p string) bool { asked = append(asked, p); return true }})
	assert.Equal(t, []string{"create_topics mine: reverted", "create_topics recreated: refused"}, testengine.Actions(steps))
	require.Len(t, asked, 1)
	assert.Contains(t, asked[0], "delete topic mine")
	td := testengine.FreshTopics(t, c)
	assert.NotContains(t, td, "mine")
	assert.Contains(t, td, "recreated")
}

func TestUndoReassignmentAndWhatCannotBeUndone(t *testing.T) {
	cl, c, adm, path := testengine.Audited(t)
	ctx := context.Background()
	_, err := adm.CreateTopic(ctx, 2, 1, nil, "r")
	require.NoError(t, err)
	td := testengine.FreshTopics(t, c)
	from := td["r"].Partitions[0].Replicas[0]
	to := (from + 1) % 3
	var sent [][]int32
	c.ControlKey(int16(kmsg.AlterPartitionAssignments), func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		sent = append(sent, r.(*kmsg.AlterPartitionAssignmentsRequest).Topics[0].Partitions[0].Replicas)
		return nil, nil, false
	})
	_, err = cl.AlterPartitionReassignments(ctx, []engine.PartitionTarget{{Topic: "r", Partition: 0, Replicas: []int32{to}}})
	require.NoError(t, err)
	require.NoError(t, c.MoveTopicPartition("r", 0, to)) // kfake does not move replicas itself
	_, err = adm.CreateTopic(ctx, 1, 1, nil, "r-gone")
	require.NoError(t, err)
	_, err = cl.DeleteTopics(ctx, []string{"r-gone", "never"}, engine.DeleteTopicsOptions{IfExists: true})
	require.NoError(t, err)
	_, err = cl.CreatePartitions(ctx, map[string]int32{"r": 3}, engine.CreatePartitionsOptions{})
	require.NoError(t, err)

	steps := undoLog(t, cl, path, Options{})
	assert.Equal(t, []string{"create_partitions r: cannot undo", "delete_topics never: skipped", "delete_topics r-gone: cannot undo",
		"alter_partition_reassignments r[0]: reverted"}, testengine.Actions(steps))
	assert.Contains(t, steps[0].Message, "Kafka cannot lower a partition count")
	assert.Equal(t, [][]int32{{to}, {from}}, sent)

	// Moved elsewhere since (to a broker that is neither the partition's
	// first nor its target): refused.
	require.NoError(t, os.Truncate(path, 0))
	first := td["r"].Partitions[1].Replicas[0]
	target := (first + 1) % 3
	_, err = cl.AlterPartitionReassignments(ctx, []engine.PartitionTarget{{Topic: "r", Partition: 1, Replicas: []int32{target}}})
	require.NoError(t, err)
	require.NoError(t, c.MoveTopicPartition("r", 1, (first+2)%3))
	steps = undoLog(t, cl, path, Options{})
	require.Len(t, steps, 1)
	assert.Equal(t, engine.UndoRefused, steps[0].Action)
	assert.Contains(t, steps[0].Message, "changed since")
}

func TestUndoSinceAndOtherClusters(t *testing.T) {
	changes := []auditlog.Change{
		{Intent: auditlog.Record{ID: "a", Time: "2026-11-30T10:00:00Z"}},
		{Intent: auditlog.Record{ID: "b", Time: "2026-11-30T11:00:00Z"}},
		{Intent: auditlog.Record{ID: "c", Time: "2026-11-30T12:00:00Z"}},
	}
	got, err := SelectSince(changes, "b")
	require.NoError(t, err)
	assert.Len(t, got, 2)
	got, err = SelectSince(changes, "2026-11-30T11:30:00Z")
	require.NoError(t, err)
	assert.Equal(t, "c", got[0].Intent.ID)
	_, err = SelectSince(changes, "yesterday")
	require.Error(t, err)

	cl, _, _ := testengine.Client(t)
	steps, err := Run(context.Background(), cl, []auditlog.Change{{Intent: auditlog.Record{ID: "x", Op: "alter_configs", ClusterID: "elsewhere"}}}, Options{})
	require.NoError(t, err)
	require.Len(t, steps, 1)
	assert.Equal(t, engine.UndoRefused, steps[0].Action)
	assert.True(t, strings.HasPrefix(steps[0].Message, "recorded on cluster elsewhere"))
	steps, err = Run(context.Background(), cl, []auditlog.Change{{Intent: auditlog.Record{ID: "y", Op: "create_topics", ClusterID: "kfake"}}}, Options{})
	require.NoError(t, err)
	assert.Contains(t, steps[0].Message, "no outcome was recorded")
	assert.True(t, slices.ContainsFunc(steps, func(s engine.UndoStep) bool { return s.Action == engine.UndoRefused }))
}

// A group's and a subscription's configs are reverted: their own level is
// Kafka's DYNAMIC_GROUP_CONFIG and DYNAMIC_CLIENT_METRICS_CONFIG.
func TestUndoGroupAndClientMetricsConfigs(t *testing.T) {
	cl, _, _, path := testengine.Audited(t)
	ctx := context.Background()
	_, err := cl.AlterConfigs(ctx, []engine.ConfigAlteration{
		{Resource: engine.ConfigResource{Type: engine.ConfigGroup, Name: "g"}, Set: map[string]string{"consumer.session.timeout.ms": "50000"}},
		{Resource: engine.ConfigResource{Type: engine.ConfigClientMetrics, Name: "sub"}, Set: map[string]string{"interval.ms": "60000"}},
	}, engine.AlterConfigsOptions{})
	require.NoError(t, err)
	steps := undoLog(t, cl, path, Options{Confirm: func(string) bool { return true }})
	assert.ElementsMatch(t, []string{"alter_configs client_metrics:sub: reverted", "alter_configs group:g: reverted"}, testengine.Actions(steps))
	ds, err := cl.DescribeConfigs(ctx, []engine.ConfigResource{{Type: engine.ConfigGroup, Name: "g"}, {Type: engine.ConfigClientMetrics, Name: "sub"}}, engine.DescribeConfigsOptions{Dynamic: true})
	require.NoError(t, err)
	for _, d := range ds {
		assert.Empty(t, d.Configs, d.Key())
	}
}
