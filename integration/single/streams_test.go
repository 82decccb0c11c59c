package single

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

// TestStreamsGroupsAgainstKafkasTool (issue 33's done-when): a Kafka
// Streams application of the broker's release (a word count,
// group.protocol=streams) runs against a node of its own; describe and lag
// agree with Kafka's StreamsGroupCommand (kafka-streams-groups.sh
// --describe) on members, tasks, offsets and lag; once the application is
// stopped a reset under --dry-run changes nothing, the real reset moves the
// offsets the tool then shows (an instance started paused lets it show
// them: the tool describes no group without members), undo puts them
// back, and its offsets then the group are deleted; check-lag judges it
// as a consumer group. The matrix runs it on
// Kafka 4.4 too, where streams groups are no longer early access. The
// suite's own node (on Kafka 4.1, streams groups are early
// access, off by default) first shows describe_streams_groups saying what
// it needs.
func TestStreamsGroupsAgainstKafkasTool(t *testing.T) {
	need(t)
	if lack := lacksOnThisKafka("describe_streams_groups"); lack != "" {
		res := runBin(t, kafkatest.MechPlain, kafkatest.AdminUser, kafkatest.AdminPassword, "-e", `describe_streams_groups("any")`)
		assert.Equal(t, 3, res.Code, "a Kafka error: %s", res.Stderr)
		assert.Contains(t, res.Stderr, "describe_streams_groups: UNSUPPORTED_VERSION: needs Kafka 4.2+ (StreamsGroupDescribe)")
	}
	props, ok := kafkatest.StreamsGroupProperties(cluster.Version)
	if !ok {
		return // no streams groups before 4.1: what it needs was checked above
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	t.Cleanup(cancel)
	c, err := kafkatest.StartSingleWith(ctx, kafkatest.Extra{Properties: props})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	adm, err := c.Admin(kgo.RetryTimeout(20 * time.Second))
	require.NoError(t, err)
	t.Cleanup(adm.Close)

	app, in, out := unique("wc"), unique("words"), unique("counts")
	_, err = adm.CreateTopic(ctx, 3, 1, nil, in)
	require.NoError(t, err)
	_, err = adm.CreateTopic(ctx, 1, 1, nil, out)
	require.NoError(t, err)
	waitTopicIn(t, c, in, 3)
	produceWords(t, c, in, 0)

	kl := func(args ...string) kafkatest.BinResult {
		t.Helper()
		return kafkatest.RunBinary(ctx, t, bin, nil, "", append([]string{"-b", c.Bootstrap(), "--timeout", "20s"}, args...)...)
	}
	lagRows := func() []lagRow {
		t.Helper()
		var groups []struct {
			TotalLag   int64    `json:"total_lag"`
			Partitions []lagRow `json:"partitions"`
		}
		res := kl("-o", "json", "-e", fmt.Sprintf(`return lag(%q)`, app))
		require.Equal(t, 0, res.Code, res.Stderr)
		require.NoError(t, jsonUnmarshal(res.Stdout, &groups), res.Stdout)
		require.Len(t, groups, 1)
		return groups[0].Partitions
	}

	running := c.StartStreamsApp(t, app, in, out, false)
	running.WaitRunning(t)
	kafkatest.WaitFor(t, app+" has read every word", time.Minute, func() (bool, string) {
		rows := lagRows()
		done := len(rows) == 6 // words and the repartition topic, 3 partitions each
		for _, r := range rows {
			done = done && r.Lag == 0 && (r.Topic != in || r.Committed == r.End)
		}
		return done, fmt.Sprintf("%+v", rows)
	})

	var members, offsets []string
	tool := func(args ...string) []string { return streamsGroupCommand(ctx, t, c, app, args...) }
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); members = tool("--describe", "--members", "--verbose") }()
	go func() { defer wg.Done(); offsets = tool("--describe", "--offsets", "--verbose") }()
	wg.Wait()

	var described []streamsGroup
	res := kl("-o", "json", "-e", fmt.Sprintf(`return describe_streams_groups(%q)`, app))
	require.Equal(t, 0, res.Code, res.Stderr)
	require.NoError(t, jsonUnmarshal(res.Stdout, &described), res.Stdout)
	require.Len(t, described, 1)
	g := described[0]
	assert.Equal(t, "Stable", g.State)
	assert.True(t, g.TopologyReady)
	require.Len(t, g.Members, 1, "one instance, one member")
	require.Len(t, members, 1, "Kafka's tool: %v", members)
	assert.Equal(t, g.memberRow(0), parseMemberRow(members[0]), "members and tasks as kafka-streams-groups.sh --describe --members --verbose prints them")
	compareOffsets(t, offsets, lagRows(), committedOffsets(t, adm, app))

	// While it runs its offsets and the group stay as they are (Kafka's
	// tool refuses too), and describe_groups names what the group is.
	running1 := committedOffsets(t, adm, app)
	res = kl("--yes", "-e", fmt.Sprintf(`reset_offsets{group = %q, to = "earliest", force = true}`, app))
	assert.Equal(t, 3, res.Code, res.Stderr)
	assert.Contains(t, res.Stderr, "NON_EMPTY_GROUP")
	assert.Contains(t, res.Stderr, "stop the application's instances first")
	res = kl("--yes", "-e", fmt.Sprintf(`delete_groups(%q)`, app))
	assert.Equal(t, 3, res.Code, res.Stderr)
	assert.Contains(t, res.Stderr, "NON_EMPTY_GROUP", "Kafka's answer")
	res = kl("-e", fmt.Sprintf(`describe_groups(%q)`, app))
	assert.Equal(t, 3, res.Code, res.Stderr)
	assert.Contains(t, res.Stderr, app+" is a streams group, not a consumer group: describe it with describe_streams_groups")
	assert.Equal(t, running1, committedOffsets(t, adm, app), "the running application's own commits only")

	// Stopped, with 10 more words per partition unread.
	running.Stop(t)
	kafkatest.WaitFor(t, app+" empty", time.Minute, func() (bool, string) {
		res := kl("-o", "json", "-e", fmt.Sprintf(`return describe_streams_groups(%q)[1].state`, app))
		return strings.TrimSpace(res.Stdout) == `"Empty"`, res.Stdout + res.Stderr
	})
	produceWords(t, c, in, 5)
	var timed []struct {
		TotalLag   int64  `json:"total_lag"`
		MaxLagMs   *int64 `json:"max_lag_ms"`
		Partitions []struct {
			Topic string `json:"topic"`
			Lag   int64  `json:"lag"`
			LagMs *int64 `json:"lag_ms"`
		} `json:"partitions"`
	}
	res = kl("-o", "json", "-e", fmt.Sprintf(`return lag(%q, {time = true})`, app))
	require.Equal(t, 0, res.Code, res.Stderr)
	require.NoError(t, jsonUnmarshal(res.Stdout, &timed), res.Stdout)
	require.Len(t, timed, 1)
	assert.EqualValues(t, 30, timed[0].TotalLag, "the 10 new words of each partition, read by no instance")
	assert.NotNil(t, timed[0].MaxLagMs, "lag in time, from the unread records")
	for _, p := range timed[0].Partitions {
		if p.Topic == in {
			assert.EqualValues(t, 10, p.Lag)
			assert.NotNil(t, p.LagMs)
		}
	}
	res = kl("run", "check-lag", app, "--max", "10")
	assert.Equal(t, 4, res.Code, "a failed check: %s", res.Stderr)
	assert.Contains(t, res.Stderr, app+": lags 30 records (max 10)")
	res = kl("run", "check-lag", app, "--max", "100")
	assert.Equal(t, 0, res.Code, res.Stderr)

	before := committedOffsets(t, adm, app)
	require.Len(t, before, 6, "every input partition committed")

	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	reset := fmt.Sprintf(`return reset_offsets{group = %q, topics = %q, to = {shift = -2}}`, app, in)
	res = kl("--dry-run", "--audit-log", audit, "-o", "json", "-e", reset)
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.Equal(t, before, committedOffsets(t, adm, app), "a dry run commits nothing")
	res = kl("--yes", "--audit-log", audit, "-o", "json", "-e", reset)
	require.Equal(t, 0, res.Code, res.Stderr)
	after := committedOffsets(t, adm, app)
	want := map[string]int64{}
	for tp, o := range before {
		want[tp] = o
		if strings.HasPrefix(tp, in+"/") {
			want[tp] = o - 2
		}
	}
	assert.Equal(t, want, after, "words moved back 2, the repartition topic untouched")

	paused := c.StartStreamsApp(t, app, in, out, true)
	kafkatest.WaitFor(t, app+"'s paused instance has its tasks", time.Minute, func() (bool, string) {
		res := kl("-o", "json", "-e", fmt.Sprintf(`return describe_streams_groups(%q)[1]`, app))
		var g streamsGroup
		_ = jsonUnmarshal(res.Stdout, &g)
		return g.State == "Stable" && len(g.Members) == 1 && len(g.Members[0].ActiveTasks) == 2, res.Stdout + res.Stderr
	})
	offsets = tool("--describe", "--offsets", "--verbose")
	compareOffsets(t, offsets, lagRows(), committedOffsets(t, adm, app))
	shown := map[string]int64{}
	for _, r := range parseOffsetRows(offsets) {
		if r.Topic == in {
			shown[fmt.Sprintf("%s/%d", r.Topic, r.Partition)] = r.Committed
		}
	}
	for tp, o := range after {
		if strings.HasPrefix(tp, in+"/") {
			assert.Equal(t, o, shown[tp], "Kafka's tool shows the reset offset of %s", tp)
		}
	}
	paused.Stop(t)
	kafkatest.WaitFor(t, app+" empty again", time.Minute, func() (bool, string) {
		res := kl("-o", "json", "-e", fmt.Sprintf(`return describe_streams_groups(%q)[1].state`, app))
		return strings.TrimSpace(res.Stdout) == `"Empty"`, res.Stdout + res.Stderr
	})
	assert.Equal(t, after, committedOffsets(t, adm, app), "a paused instance commits nothing")

	res = kl("--yes", "undo", audit)
	require.Equal(t, 0, res.Code, "stdout:\n%s\nstderr:\n%s", res.Stdout, res.Stderr)
	assert.Equal(t, before, committedOffsets(t, adm, app), "undo put the offsets back")

	// Delete offsets, then the group, as kafka-streams-groups.sh
	// --delete-offsets and --delete do (its internal topics stay).
	res = kl("--yes", "-e", fmt.Sprintf(`delete_group_offsets(%q, %q)`, app, in))
	require.Equal(t, 0, res.Code, res.Stderr)
	for tp := range committedOffsets(t, adm, app) {
		assert.False(t, strings.HasPrefix(tp, in+"/"), "%s deleted", tp)
	}
	res = kl("--yes", "-e", fmt.Sprintf(`delete_groups(%q)`, app))
	require.Equal(t, 0, res.Code, res.Stderr)
	listed, err := adm.ListGroups(ctx)
	require.NoError(t, err)
	assert.NotContains(t, listed.Groups(), app, "the streams group is gone")
	assert.Empty(t, committedOffsets(t, adm, app))
}

// produceWords writes 10 records to each of topic's 3 partitions, words
// from 30 distinct ones (so that every partition of the repartition topic
// gets some), starting at word first.
func produceWords(t *testing.T, c *kafkatest.Cluster, topic string, first int) {
	t.Helper()
	cl, err := c.Client(kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.DefaultProduceTopic(topic))
	require.NoError(t, err)
	defer cl.Close()
	var recs []*kgo.Record
	for p := int32(0); p < 3; p++ {
		for i := 0; i < 10; i++ {
			recs = append(recs, &kgo.Record{Partition: p, Value: []byte(fmt.Sprintf("word%d", (first+int(p)*10+i)%30))})
		}
	}
	require.NoError(t, cl.ProduceSync(ctxT(t, time.Minute), recs...).FirstErr())
}

// committedOffsets is a group's commits ("topic/partition" -> offset), read
// by the test's own client.
func committedOffsets(t *testing.T, adm *kadm.Client, group string) map[string]int64 {
	t.Helper()
	os, err := adm.FetchOffsets(ctxT(t, 20*time.Second), group)
	require.NoError(t, err)
	out := map[string]int64{}
	os.Each(func(o kadm.OffsetResponse) { out[fmt.Sprintf("%s/%d", o.Topic, o.Partition)] = o.At })
	return out
}

// streamsGroupCommand runs Kafka's StreamsGroupCommand (the class behind
// kafka-streams-groups.sh, in the kafka-tools jar of the broker's release)
// on group and returns the lines of its table (those naming the group).
func streamsGroupCommand(ctx context.Context, t *testing.T, c *kafkatest.Cluster, group string, args ...string) []string {
	t.Helper()
	out, err := c.RunJava(ctx, "org.apache.kafka.tools.streams.StreamsGroupCommand",
		append([]string{"--bootstrap-server", c.Bootstrap(), "--group", group}, args...)...)
	require.NoError(t, err, "StreamsGroupCommand %v: %s", args, out)
	var rows []string
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == group {
			rows = append(rows, line)
		}
	}
	require.NotEmpty(t, rows, "StreamsGroupCommand %v: %s", args, out)
	t.Logf("StreamsGroupCommand %v:\n%s", args, strings.Join(rows, "\n"))
	return rows
}
