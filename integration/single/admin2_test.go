package single

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

// TestConfigsOnARealBroker: a broker's full config set with sources,
// broker_logger configs, append/subtract on a list config (Kafka
// de-duplicates), list_config_resources.
func TestConfigsOnARealBroker(t *testing.T) {
	need(t)
	adm := admin(t)
	r := adminRT(t, kafkatest.MechScram256)

	// Broker 1: hundreds of configs, with static, default and dynamic sources.
	r.Run(`alter_configs{{broker=1, set={["log.cleaner.backoff.ms"]="16000"}}}`)
	t.Cleanup(func() { r.Run(`alter_configs{{broker=1, delete={"log.cleaner.backoff.ms"}}}`) })
	var b engine.DescribedConfigs
	require.Eventually(t, func() bool {
		var dc []engine.DescribedConfigs
		r.json(`return describe_configs{broker=1}`, &dc)
		require.Len(t, dc, 1)
		b = dc[0]
		v := b.Configs["log.cleaner.backoff.ms"].Value
		return v != nil && *v == "16000"
	}, 20*time.Second, 100*time.Millisecond)
	assert.Equal(t, "broker", b.Type)
	assert.Equal(t, "1", b.Name)
	assert.Greater(t, len(b.Configs), 150, "a real broker describes its whole config")
	sources := map[string]int{}
	for _, c := range b.Configs {
		sources[c.Source]++
	}
	t.Logf("broker 1: %d configs by source %v", len(b.Configs), sources)
	assert.Equal(t, "STATIC_BROKER_CONFIG", b.Configs["num.partitions"].Source)
	assert.Equal(t, "1", *b.Configs["num.partitions"].Value)
	assert.Equal(t, "STATIC_BROKER_CONFIG", b.Configs["auto.create.topics.enable"].Source)
	assert.Equal(t, "DEFAULT_CONFIG", b.Configs["log.retention.hours"].Source)
	assert.Equal(t, "168", *b.Configs["log.retention.hours"].Value)
	assert.Equal(t, "DYNAMIC_BROKER_CONFIG", b.Configs["log.cleaner.backoff.ms"].Source)
	// Sensitive: the JAAS config (holding the users' passwords) has no value.
	jaas := b.Configs["listener.name.sasl_plaintext.plain.sasl.jaas.config"]
	assert.True(t, jaas.Sensitive)
	assert.Nil(t, jaas.Value)
	var synonyms []engine.DescribedConfigs
	r.json(`return describe_configs({broker=1}, {keys={"log.cleaner.backoff.ms"}, synonyms=true})`, &synonyms)
	require.Len(t, synonyms, 1)
	require.Len(t, synonyms[0].Configs, 1)
	syn := synonyms[0].Configs["log.cleaner.backoff.ms"].Synonyms
	require.GreaterOrEqual(t, len(syn), 2, "dynamic value, then the default")
	assert.Equal(t, "DYNAMIC_BROKER_CONFIG", syn[0].Source)
	assert.Equal(t, "DEFAULT_CONFIG", syn[len(syn)-1].Source)
	res := runBin(t, kafkatest.MechPlain, kafkatest.AdminUser, kafkatest.AdminPassword, "-o", "json", "-e", `return describe_configs{broker=1}`)
	assert.Equal(t, 0, res.Code)
	assert.NotContains(t, res.Stdout+res.Stderr, kafkatest.AdminPassword)
	assert.NotContains(t, res.Stdout+res.Stderr, kafkatest.AlicePassword)

	// Broker loggers.
	const logger = "kafka.server.ReplicaManager"
	r.Run(fmt.Sprintf(`alter_configs{{broker_logger=1, set={[%q]="DEBUG"}}}`, logger))
	t.Cleanup(func() { r.Run(fmt.Sprintf(`alter_configs{{broker_logger=1, delete={%q}}}`, logger)) })
	var lg []engine.DescribedConfigs
	r.json(`return describe_configs{broker_logger=1}`, &lg)
	require.Len(t, lg, 1)
	assert.Equal(t, "broker_logger", lg[0].Type)
	assert.Contains(t, lg[0].Configs, "root")
	require.Contains(t, lg[0].Configs, logger)
	assert.Equal(t, "DEBUG", *lg[0].Configs[logger].Value)
	assert.Equal(t, "DYNAMIC_BROKER_LOGGER_CONFIG", lg[0].Configs[logger].Source)

	// append/subtract on a list config: real Kafka starts from the default
	// ("delete") and de-duplicates.
	topic := unique("cfg-list")
	r.Run(fmt.Sprintf(`create_topics(%q)`, topic))
	step := func(op, want string) {
		t.Helper()
		r.Run(fmt.Sprintf(`alter_configs{{topic=%q, %s}}`, topic, op))
		eventuallyConfig(t, adm, topic, "cleanup.policy", want, "DYNAMIC_TOPIC_CONFIG")
	}
	step(`append={["cleanup.policy"]="compact"}`, "delete,compact")
	step(`append={["cleanup.policy"]={"delete", "compact"}}`, "delete,compact")
	step(`subtract={["cleanup.policy"]="delete"}`, "compact")
	step(`subtract={["cleanup.policy"]="delete"}`, "compact")
	step(`append={["cleanup.policy"]="delete"}`, "compact,delete")
	step(`subtract={["cleanup.policy"]={"compact", "delete"}}`, "")
	re := r.RunErr(fmt.Sprintf(`alter_configs{{topic=%q, append={["retention.ms"]="5"}}}`, topic))
	assert.Equal(t, "INVALID_CONFIG", re.Code, "append to a non-list config: %s", re.Message)
	re = r.RunErr(fmt.Sprintf(`alter_configs{{topic=%q, set={["no.such.config"]="5"}}}`, topic))
	assert.Equal(t, "INVALID_CONFIG", re.Code, "unknown config name: %s", re.Message)

	// list_config_resources: Kafka 4.1 on; an older broker's
	// ListClientMetricsResources would list client metrics alone, so the
	// call is refused there, naming the need, rather than list part.
	if lacks := lacksOnThisKafka("list_config_resources"); lacks != "" {
		re := r.RunErr(`list_config_resources()`)
		assert.Equal(t, "UNSUPPORTED_VERSION", re.Code)
		assert.Contains(t, re.Message, "list_config_resources: UNSUPPORTED_VERSION: needs Kafka 4.1+ (ListConfigResources v1)")
		return
	}
	var lr []struct {
		Type string `json:"type"`
		Name string `json:"name"`
	}
	r.json(`return list_config_resources()`, &lr)
	have := map[string]bool{}
	for _, x := range lr {
		have[x.Type+":"+x.Name] = true
	}
	assert.True(t, have["topic:"+topic], "%v", lr)
	assert.True(t, have["broker:1"], "%v", lr)
	r.json(`return list_config_resources("broker_logger")`, &lr)
	for _, x := range lr {
		assert.Equal(t, "broker_logger", x.Type)
	}
}

// TestRecordsAndOffsetsOnARealBroker: delete_records below the log start
// succeeds without moving it; list_offsets max_timestamp.
func TestRecordsAndOffsetsOnARealBroker(t *testing.T) {
	need(t)
	adm := admin(t)
	r := adminRT(t, kafkatest.MechScram512)
	topic := unique("records")
	r.Run(fmt.Sprintf(`create_topics{{name=%q, partitions=1}}`, topic))
	waitTopic(t, topic, 1) // before another client produces to it
	cl, err := cluster.Client(kgo.DefaultProduceTopic(topic))
	require.NoError(t, err)
	defer cl.Close()
	base := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	var recs []*kgo.Record
	for i, d := range []time.Duration{0, 5, 1, 9, 2, 3} { // max timestamp at offset 3
		recs = append(recs, &kgo.Record{Value: []byte(fmt.Sprint(i)), Timestamp: base.Add(d * time.Second)})
	}
	require.NoError(t, cl.ProduceSync(ctxT(t, time.Minute), recs...).FirstErr())

	var lo []engine.ListedOffset
	r.json(fmt.Sprintf(`return list_offsets(%q, "max_timestamp")`, topic), &lo)
	require.Len(t, lo, 1)
	assert.Equal(t, int64(3), lo[0].Offset)
	assert.Equal(t, base.Add(9*time.Second).UnixMilli(), lo[0].Timestamp)
	r.json(fmt.Sprintf(`return list_offsets(%q, {timestamp=%d})`, topic, base.Add(4*time.Second).UnixMilli()), &lo)
	require.Len(t, lo, 1)
	assert.Equal(t, int64(1), lo[0].Offset, "first record at or after the time")

	var dr []engine.DeletedRecords
	r.json(fmt.Sprintf(`return delete_records{{topic=%q, partition=0, offset=4}}`, topic), &dr)
	require.Len(t, dr, 1)
	assert.Equal(t, int64(4), dr[0].LowWatermark)
	// Below the log start: real Kafka accepts it and keeps the log start.
	r.json(fmt.Sprintf(`return delete_records{{topic=%q, partition=0, offset=2}}`, topic), &dr)
	require.Len(t, dr, 1)
	assert.Nil(t, dr[0].Err)
	assert.Equal(t, int64(4), dr[0].LowWatermark)
	start, err := adm.ListStartOffsets(ctxT(t, 20*time.Second), topic)
	require.NoError(t, err)
	so, _ := start.Lookup(topic, 0)
	assert.Equal(t, int64(4), so.Offset)
	// Beyond the high watermark: OFFSET_OUT_OF_RANGE.
	re := r.RunErr(fmt.Sprintf(`delete_records{{topic=%q, partition=0, offset=100}}`, topic))
	assert.Equal(t, "OFFSET_OUT_OF_RANGE", re.Code)
	// -1: up to the high watermark.
	r.json(fmt.Sprintf(`return delete_records{{topic=%q, partition=0, offset=-1}}`, topic), &dr)
	assert.Equal(t, int64(6), dr[0].LowWatermark)
}

// TestTransactionsOnARealBroker: a kgo transactional producer leaves a
// transaction open; list/describe/describe_producers see it,
// abort_transaction writes the abort marker, fence_producers bumps the epoch.
func TestTransactionsOnARealBroker(t *testing.T) {
	need(t)
	r := adminRT(t, kafkatest.MechPlain)
	topic := unique("txn")
	txid := unique("txid")
	r.Run(fmt.Sprintf(`create_topics{{name=%q, partitions=1}}`, topic))
	produce(t, topic, 1, 2) // offsets 0-1, committed (not transactional)

	cl, err := cluster.Client(kgo.TransactionalID(txid), kgo.DefaultProduceTopic(topic),
		kgo.TransactionTimeout(time.Minute))
	require.NoError(t, err)
	defer cl.Close()
	ctx := ctxT(t, time.Minute)
	require.NoError(t, cl.BeginTransaction())
	require.NoError(t, cl.ProduceSync(ctx, &kgo.Record{Value: []byte("in-txn")}).FirstErr()) // offset 2, open

	var lt []engine.ListedTransaction
	r.json(fmt.Sprintf(`return list_transactions{pattern=%q}`, "^"+txid+"$"), &lt)
	require.Len(t, lt, 1)
	assert.Equal(t, "Ongoing", lt[0].State)
	pid := lt[0].ProducerID

	var dt []engine.DescribedTransaction
	r.json(fmt.Sprintf(`return describe_transactions(%q)`, txid), &dt)
	require.Len(t, dt, 1)
	assert.Equal(t, "Ongoing", dt[0].State)
	assert.Equal(t, pid, dt[0].ProducerID)
	assert.Equal(t, []engine.TopicPartition{{Topic: topic, Partition: 0}}, dt[0].Partitions)
	assert.Greater(t, dt[0].StartTimestamp, int64(0))
	epoch := dt[0].ProducerEpoch

	var dp []engine.Producer
	r.json(fmt.Sprintf(`return describe_producers(%q)`, topic), &dp)
	var open *engine.Producer
	for i := range dp {
		if dp[i].ProducerID == pid {
			open = &dp[i]
		}
	}
	require.NotNil(t, open, "describe_producers: %v", dp)
	assert.Equal(t, int64(2), open.CurrentTxnStartOffset)
	assert.Equal(t, int32(1), open.Leader)

	// The open transaction holds the last stable offset at 2.
	var lo []engine.ListedOffset
	r.json(fmt.Sprintf(`return list_offsets(%q, "committed")`, topic), &lo)
	assert.Equal(t, int64(2), lo[0].Offset)
	var hanging []engine.HangingTransaction
	r.json(fmt.Sprintf(`return find_hanging_transactions{topics={%q}, max_age_ms=0}`, topic), &hanging)
	assert.Empty(t, hanging, "a transaction its coordinator knows is open is not hanging")

	// abort_transaction: the abort marker releases the partition.
	var ab engine.AbortedTransaction
	r.json(fmt.Sprintf(`return abort_transaction{topic=%q, partition=0, producer_id=%d}`, topic, pid), &ab)
	assert.Nil(t, ab.Err)
	assert.Equal(t, epoch, ab.ProducerEpoch)
	require.Eventually(t, func() bool {
		r.json(fmt.Sprintf(`return list_offsets(%q, "committed")`, topic), &lo)
		return lo[0].Offset == 4 // record 2 plus the abort marker at 3
	}, 20*time.Second, 100*time.Millisecond, "LSO: %v", lo)
	r.json(fmt.Sprintf(`return describe_producers(%q)`, topic), &dp)
	for _, p := range dp {
		if p.ProducerID == pid {
			assert.Equal(t, int64(-1), p.CurrentTxnStartOffset)
		}
	}

	// fence_producers: the coordinator bumps the epoch and aborts.
	var fp []engine.FencedProducer
	r.json(fmt.Sprintf(`return fence_producers(%q)`, txid), &fp)
	require.Len(t, fp, 1)
	assert.Nil(t, fp[0].Err)
	assert.Greater(t, fp[0].ProducerEpoch, epoch)
	require.Eventually(t, func() bool {
		r.json(fmt.Sprintf(`return describe_transactions(%q)`, txid), &dt)
		return dt[0].ProducerEpoch >= fp[0].ProducerEpoch && dt[0].State != "Ongoing"
	}, 20*time.Second, 200*time.Millisecond, "describe_transactions: %+v", dt)
	// The fenced producer cannot commit.
	err = cl.EndTransaction(ctx, kgo.TryCommit)
	assert.Error(t, err, "a fenced producer must not commit")
	re := r.RunErr(`describe_transactions("no-such-txid-` + txid + `")`)
	assert.Equal(t, "TRANSACTIONAL_ID_NOT_FOUND", re.Code)
}

// TestGroupAdminOnARealBroker: remove_group_members (a static member that
// is gone but not expired), delete_group_offsets, reset_offsets.
func TestGroupAdminOnARealBroker(t *testing.T) {
	need(t)
	adm := admin(t)
	r := adminRT(t, kafkatest.MechScram256)
	topic, other := unique("ga"), unique("ga-other")
	group := unique("ga-group")
	r.Run(fmt.Sprintf(`create_topics{{name=%q, partitions=2}, {name=%q, partitions=1}}`, topic, other))
	produce(t, topic, 2, 10)
	produce(t, other, 1, 4)

	// A static member consumes topic, commits, and closes without leaving.
	instance := "static-1"
	cl, err := cluster.Client(kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic), kgo.InstanceID(instance),
		kgo.DisableAutoCommit(), kgo.SessionTimeout(60*time.Second), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	require.NoError(t, err)
	ctx := ctxT(t, time.Minute)
	for n := 0; n < 20; {
		fs := cl.PollFetches(ctx)
		require.NoError(t, ctx.Err())
		n += fs.NumRecords()
	}
	require.NoError(t, cl.CommitUncommittedOffsets(ctx))
	cl.Close()

	dg, err := adm.DescribeGroups(ctxT(t, 20*time.Second), group)
	require.NoError(t, err)
	require.Len(t, dg[group].Members, 1, "the static member stays after Close")

	// While the member is there: offsets of its topic cannot be deleted,
	// and reset_offsets refuses.
	var code string
	r.json(fmt.Sprintf(`local ok, err = pcall(delete_group_offsets, %q, %q); assert(not ok); return err.code`, group, topic), &code)
	assert.Equal(t, "GROUP_SUBSCRIBED_TO_TOPIC", code)
	r.json(fmt.Sprintf(`local ok, err = pcall(reset_offsets, {group=%q, to="earliest"}); assert(not ok); return err.code`, group), &code)
	assert.Equal(t, "NON_EMPTY_GROUP", code)

	// remove_group_members: by instance id.
	var removed []map[string]any
	r.json(fmt.Sprintf(`return remove_group_members(%q)`, group), &removed)
	require.Len(t, removed, 1)
	assert.Equal(t, instance, removed[0]["instance_id"])
	assert.Nil(t, removed[0]["error"])
	require.Eventually(t, func() bool {
		dg, err := adm.DescribeGroups(ctxT(t, 20*time.Second), group)
		require.NoError(t, err)
		return len(dg[group].Members) == 0 && dg[group].State == "Empty"
	}, 20*time.Second, 100*time.Millisecond)

	// Offsets on `other` too, committed by an admin (Kafka refuses admin
	// commits while the group has members).
	r.Run(fmt.Sprintf(`commit_offsets(%q, {{topic=%q, partition=0, offset=2}})`, group, other))

	// reset_offsets: to {shift=-3}, then earliest on one partition.
	var rows []map[string]any
	r.json(fmt.Sprintf(`return reset_offsets{group=%q, topics=%q, to={shift=-3}}`, group, topic), &rows)
	require.Len(t, rows, 2)
	offs, err := adm.FetchOffsets(ctxT(t, 20*time.Second), group)
	require.NoError(t, err)
	for p := int32(0); p < 2; p++ {
		o, ok := offs.Lookup(topic, p)
		require.True(t, ok)
		assert.Equal(t, int64(7), o.At)
	}
	r.json(fmt.Sprintf(`return reset_offsets{group=%q, topics={{topic=%q, partition=1}}, to="earliest"}`, group, topic), &rows)
	offs, err = adm.FetchOffsets(ctxT(t, 20*time.Second), group)
	require.NoError(t, err)
	o, _ := offs.Lookup(topic, 1)
	assert.Equal(t, int64(0), o.At)
	o, _ = offs.Lookup(topic, 0)
	assert.Equal(t, int64(7), o.At)

	// delete_group_offsets now succeeds; the other topic's commit stays.
	r.Run(fmt.Sprintf(`delete_group_offsets(%q, %q)`, group, topic))
	offs, err = adm.FetchOffsets(ctxT(t, 20*time.Second), group)
	require.NoError(t, err)
	_, ok := offs.Lookup(topic, 0)
	assert.False(t, ok, "offsets of %s: %v", topic, offs)
	o, ok = offs.Lookup(other, 0)
	assert.True(t, ok && o.At == 2, "offsets of %s: %v", other, offs)
	var lag []engine.GroupLag
	r.json(fmt.Sprintf(`return lag(%q)`, group), &lag)
	require.Len(t, lag, 1)
	assert.Equal(t, int64(2), lag[0].TotalLag, "only %s counts: %+v", other, lag)
	assert.True(t, strings.HasPrefix(lag[0].State, "Empty"))
}
