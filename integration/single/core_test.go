package single

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

// member joins group to consume topic (classic protocol, no auto-commit),
// polls until it has read want records, commits them, and stays in the
// group until the test ends.
func member(t *testing.T, group, topic string, want int) {
	t.Helper()
	cl, err := cluster.Client(
		kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic), kgo.ClientID("it-member"),
		kgo.DisableAutoCommit(), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
	)
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	ctx := ctxT(t, time.Minute)
	got := 0
	for got < want {
		fs := cl.PollFetches(ctx)
		require.NoError(t, ctx.Err(), "member of %s read %d of %d records", group, got, want)
		fs.EachError(func(tp string, p int32, err error) { t.Logf("fetch %s[%d]: %v", tp, p, err) })
		got += fs.NumRecords()
	}
	require.NoError(t, cl.CommitUncommittedOffsets(ctx))
}

// configValue reads one topic config through the independent client.
func configValue(t *testing.T, adm *kadm.Client, topic, key string) (string, string) {
	t.Helper()
	rc, err := adm.DescribeTopicConfigs(ctxT(t, 20*time.Second), topic)
	require.NoError(t, err)
	cfg, err := rc.On(topic, nil)
	require.NoError(t, err)
	require.NoError(t, cfg.Err)
	for _, c := range cfg.Configs {
		if c.Key == key {
			return c.MaybeValue(), c.Source.String()
		}
	}
	t.Fatalf("topic %s has no config %s", topic, key)
	return "", ""
}

// eventuallyConfig waits until the independent client sees topic's key
// with value and source.
func eventuallyConfig(t *testing.T, adm *kadm.Client, topic, key, value, source string) {
	t.Helper()
	var v, src string
	ok := assert.Eventually(t, func() bool {
		v, src = configValue(t, adm, topic, key)
		return v == value && src == source
	}, 20*time.Second, 50*time.Millisecond)
	assert.True(t, ok, "%s %s: want %s (%s), have %s (%s)", topic, key, value, source, v, src)
}

// TestCoreFunctions runs every core function of DESIGN.md from Lua, logged
// in as admin with each SASL mechanism, and checks each effect through an
// independent kadm client.
func TestCoreFunctions(t *testing.T) {
	need(t)
	adm := admin(t)
	ctx := ctxT(t, 5*time.Minute)

	// Shared data: topic with 3 partitions x 10 records; a live member of
	// `live` that committed all 30, then 5 more records per partition (lag 15).
	shared := unique("core")
	live := unique("core-live")
	_, err := adm.CreateTopic(ctx, 3, 1, nil, shared)
	require.NoError(t, err)
	produce(t, shared, 3, 10)
	member(t, live, shared, 30)
	produce(t, shared, 3, 5)

	for _, mech := range mechanisms {
		t.Run(mech, func(t *testing.T) {
			r := adminRT(t, mech)
			m := strings.ToLower(strings.ReplaceAll(mech, "-", ""))
			topic := unique("core-" + m)

			// create_topics
			var created []engine.CreatedTopic
			r.json(fmt.Sprintf(`return create_topics{{name=%q, partitions=2, configs={["retention.ms"]="3600000"}}}`, topic), &created)
			require.Len(t, created, 1)
			assert.Equal(t, topic, created[0].Name)
			assert.Nil(t, created[0].Err)
			assert.NotEmpty(t, created[0].ID)
			// Another client sees it once the broker has it from the
			// metadata log: poll (reading at once failed here once).
			waitTopic(t, topic, 2)
			eventuallyConfig(t, adm, topic, "retention.ms", "3600000", "DYNAMIC_TOPIC_CONFIG")

			// describe_topics
			var desc []engine.TopicDescription
			r.json(fmt.Sprintf(`return describe_topics(%q)`, topic), &desc)
			require.Len(t, desc, 1)
			require.Len(t, desc[0].Partitions, 2)
			for i, p := range desc[0].Partitions {
				assert.Equal(t, int32(i), p.Partition)
				assert.Equal(t, int32(1), p.Leader)
				assert.Equal(t, []int32{1}, p.Replicas)
				assert.Equal(t, []int32{1}, p.ISR)
			}
			assert.Equal(t, created[0].ID, desc[0].ID)

			// create_partitions
			var cp []engine.CreatedPartitions
			r.json(fmt.Sprintf(`return create_partitions{[%q]=4}`, topic), &cp)
			require.Len(t, cp, 1)
			assert.Nil(t, cp[0].Err)
			waitTopic(t, topic, 4)

			// alter_configs, then describe_configs sees it
			r.Run(fmt.Sprintf(`alter_configs{{topic=%q, set={["retention.ms"]="7200000", ["cleanup.policy"]="compact"}}}`, topic))
			// The broker applies the change from the metadata log, after
			// the controller acknowledged it: poll.
			eventuallyConfig(t, adm, topic, "retention.ms", "7200000", "DYNAMIC_TOPIC_CONFIG")
			eventuallyConfig(t, adm, topic, "cleanup.policy", "compact", "DYNAMIC_TOPIC_CONFIG")
			r.Run(fmt.Sprintf(`alter_configs{{topic=%q, delete={"cleanup.policy"}}}`, topic))
			eventuallyConfig(t, adm, topic, "cleanup.policy", "delete", "DEFAULT_CONFIG")
			var dc []engine.DescribedConfigs
			r.json(fmt.Sprintf(`return describe_configs{{topic=%q}}`, topic), &dc)
			require.Len(t, dc, 1)
			assert.Equal(t, "topic", dc[0].Type)
			require.Contains(t, dc[0].Configs, "retention.ms")
			assert.Equal(t, "7200000", *dc[0].Configs["retention.ms"].Value)
			assert.Equal(t, "DYNAMIC_TOPIC_CONFIG", dc[0].Configs["retention.ms"].Source)
			assert.Equal(t, "DEFAULT_CONFIG", dc[0].Configs["cleanup.policy"].Source)
			assert.Greater(t, len(dc[0].Configs), 20, "a real broker returns every topic config")

			// delete_topics
			var del []engine.DeletedTopic
			r.json(fmt.Sprintf(`return delete_topics(%q)`, topic), &del)
			require.Len(t, del, 1)
			assert.Nil(t, del[0].Err)
			waitTopic(t, topic, gone)
			re := r.RunErr(fmt.Sprintf(`delete_topics(%q)`, topic))
			assert.Equal(t, "UNKNOWN_TOPIC_OR_PARTITION", re.Code)

			// describe_cluster
			var dcl engine.Cluster
			r.json(`return describe_cluster()`, &dcl)
			assert.Equal(t, cluster.ClusterID, dcl.ClusterID)
			assert.Equal(t, int32(1), dcl.Controller)
			require.Len(t, dcl.Brokers, 1)
			assert.Equal(t, int32(1), dcl.Brokers[0].ID)
			assert.Equal(t, "127.0.0.1", dcl.Brokers[0].Host)
			assert.Equal(t, cluster.Brokers()[0], fmt.Sprintf("127.0.0.1:%d", dcl.Brokers[0].Port))

			// list_topics, with match= and internal=
			var lt []engine.TopicSummary
			r.json(fmt.Sprintf(`return list_topics{match=%q}`, "^"+shared+"$"), &lt)
			require.Len(t, lt, 1)
			assert.Equal(t, 3, lt[0].Partitions)
			assert.Equal(t, 1, lt[0].ReplicationFactor)
			r.json(`return list_topics{internal=true, match="^__consumer_offsets$"}`, &lt)
			require.Len(t, lt, 1)
			assert.True(t, lt[0].Internal)

			// list_offsets: latest, earliest
			var lo []engine.ListedOffset
			r.json(fmt.Sprintf(`return list_offsets(%q)`, shared), &lo)
			require.Len(t, lo, 3)
			for i, o := range lo {
				assert.Equal(t, int32(i), o.Partition)
				assert.Equal(t, int64(15), o.Offset)
			}
			r.json(fmt.Sprintf(`return list_offsets(%q, "earliest")`, shared), &lo)
			require.Len(t, lo, 3)
			for _, o := range lo {
				assert.Equal(t, int64(0), o.Offset)
			}

			// list_groups
			var lg []engine.GroupSummary
			r.json(`return list_groups()`, &lg)
			var found *engine.GroupSummary
			for i := range lg {
				if lg[i].Group == live {
					found = &lg[i]
				}
			}
			require.NotNil(t, found, "list_groups: %v", lg)
			assert.Equal(t, "Stable", found.State)
			assert.Equal(t, "consumer", found.ProtocolType)
			assert.Equal(t, int32(1), found.Coordinator)

			// describe_groups: the live member and its assignment
			var dg []engine.GroupDescription
			r.json(fmt.Sprintf(`return describe_groups(%q)`, live), &dg)
			require.Len(t, dg, 1)
			assert.Equal(t, "Stable", dg[0].State)
			require.Len(t, dg[0].Members, 1)
			assert.Equal(t, "it-member", dg[0].Members[0].ClientID)
			assert.Len(t, dg[0].Members[0].Assignment, 3)
			memberID := dg[0].Members[0].MemberID

			// fetch_offsets
			var fo []engine.CommittedOffset
			r.json(fmt.Sprintf(`return fetch_offsets(%q)`, live), &fo)
			require.Len(t, fo, 3)
			for _, o := range fo {
				assert.Equal(t, shared, o.Topic)
				assert.Equal(t, int64(10), o.Offset)
			}

			// lag
			var lag []engine.GroupLag
			r.json(fmt.Sprintf(`return lag(%q)`, live), &lag)
			require.Len(t, lag, 1)
			assert.Equal(t, int64(15), lag[0].TotalLag)
			require.Len(t, lag[0].Partitions, 3)
			for _, p := range lag[0].Partitions {
				assert.Equal(t, int64(10), p.Committed)
				assert.Equal(t, int64(15), p.EndOffset)
				assert.Equal(t, int64(5), p.Lag)
				assert.Equal(t, memberID, p.MemberID)
				assert.Equal(t, "it-member", p.ClientID)
			}

			// commit_offsets to a group of our own, then delete_groups
			group := unique("core-commit-" + m)
			var cr []engine.CommitResult
			r.json(fmt.Sprintf(`return commit_offsets(%q, {{topic=%q, partition=0, offset=7}, {topic=%q, partition=2, offset=3}})`, group, shared, shared), &cr)
			require.Len(t, cr, 2)
			assert.Nil(t, cr[0].Err)
			offs, err := adm.FetchOffsets(ctxT(t, 20*time.Second), group)
			require.NoError(t, err)
			o, ok := offs.Lookup(shared, 0)
			require.True(t, ok)
			assert.Equal(t, int64(7), o.At)
			o, ok = offs.Lookup(shared, 2)
			require.True(t, ok)
			assert.Equal(t, int64(3), o.At)
			var dgr []engine.DeletedGroup
			r.json(fmt.Sprintf(`return delete_groups(%q)`, group), &dgr)
			require.Len(t, dgr, 1)
			assert.Nil(t, dgr[0].Err)
			groups, err := adm.ListGroups(ctxT(t, 20*time.Second))
			require.NoError(t, err)
			assert.NotContains(t, groups.Groups(), group)
			re = r.RunErr(fmt.Sprintf(`delete_groups(%q)`, group))
			assert.Equal(t, "GROUP_ID_NOT_FOUND", re.Code)
			// A live group cannot be deleted.
			re = r.RunErr(fmt.Sprintf(`delete_groups(%q)`, live))
			assert.Equal(t, "NON_EMPTY_GROUP", re.Code)

			// delete_records on a topic of our own
			recTopic := unique("core-rec-" + m)
			_, err = adm.CreateTopic(ctx, 1, 1, nil, recTopic)
			require.NoError(t, err)
			produce(t, recTopic, 1, 10)
			var dr []engine.DeletedRecords
			r.json(fmt.Sprintf(`return delete_records{{topic=%q, partition=0, offset=4}}`, recTopic), &dr)
			require.Len(t, dr, 1)
			assert.Nil(t, dr[0].Err)
			assert.Equal(t, int64(4), dr[0].LowWatermark)
			start, err := adm.ListStartOffsets(ctxT(t, 20*time.Second), recTopic)
			require.NoError(t, err)
			so, ok := start.Lookup(recTopic, 0)
			require.True(t, ok)
			assert.Equal(t, int64(4), so.Offset)
		})
	}
}

// TestBinaryLogsInWithEachMechanism runs the built binary as admin with
// each mechanism: exit 0 and JSON output that lists a topic.
func TestBinaryLogsInWithEachMechanism(t *testing.T) {
	need(t)
	adm := admin(t)
	topic := unique("bin")
	_, err := adm.CreateTopic(ctxT(t, time.Minute), 2, 1, nil, topic)
	require.NoError(t, err)
	waitTopic(t, topic, 2) // the binary is another client
	for _, mech := range mechanisms {
		t.Run(mech, func(t *testing.T) {
			res := runBin(t, mech, kafkatest.AdminUser, kafkatest.AdminPassword, "-o", "json",
				"-e", fmt.Sprintf(`return list_topics{match=%q}`, "^"+topic+"$"))
			require.Equal(t, 0, res.Code, res.Stderr)
			var got []engine.TopicSummary
			require.NoError(t, json.Unmarshal([]byte(res.Stdout), &got), res.Stdout)
			require.Len(t, got, 1)
			assert.Equal(t, topic, got[0].Name)
			assert.Equal(t, 2, got[0].Partitions)
			assert.NotContains(t, res.Stdout+res.Stderr, kafkatest.AdminPassword)
		})
	}
}
