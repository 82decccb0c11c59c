package single

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/login"
	"github.com/kadmin-lua/kadmin-lua/fixture"
	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
	"github.com/kadmin-lua/kadmin-lua/snapshot"
)

// described is what a cluster says of a prefix's topics, configs, offsets,
// group offsets and ACLs, each read through kadm as a person comparing two
// clusters would.
type described struct {
	Partitions map[string]int
	Replicas   map[string][][]int32
	Configs    map[string]map[string]string // set on the topic (DYNAMIC_TOPIC_CONFIG)
	Starts     map[string][]int64
	Ends       map[string][]int64
	Committed  map[string]int64 // "topic[p]" -> offset
	ACLs       []string
}

func describe(t *testing.T, adm *kadm.Client, topics []string, group, principal string) described {
	t.Helper()
	ctx := ctxT(t, time.Minute)
	d := described{Partitions: map[string]int{}, Replicas: map[string][][]int32{}, Configs: map[string]map[string]string{},
		Starts: map[string][]int64{}, Ends: map[string][]int64{}, Committed: map[string]int64{}}
	md, err := adm.Metadata(ctx, topics...)
	require.NoError(t, err)
	for _, name := range topics {
		td := md.Topics[name]
		require.NoError(t, td.Err, name)
		d.Partitions[name] = len(td.Partitions)
		for p := range int32(len(td.Partitions)) {
			d.Replicas[name] = append(d.Replicas[name], td.Partitions[p].Replicas)
		}
	}
	rcs, err := adm.DescribeTopicConfigs(ctx, topics...)
	require.NoError(t, err)
	for _, rc := range rcs {
		require.NoError(t, rc.Err)
		set := map[string]string{}
		for _, c := range rc.Configs {
			if c.Source.String() == "DYNAMIC_TOPIC_CONFIG" {
				set[c.Key] = c.MaybeValue()
			}
		}
		d.Configs[rc.Name] = set
	}
	starts, err := adm.ListStartOffsets(ctx, topics...)
	require.NoError(t, err)
	ends, err := adm.ListEndOffsets(ctx, topics...)
	require.NoError(t, err)
	for _, name := range topics {
		for p := range int32(d.Partitions[name]) {
			s, _ := starts.Lookup(name, p)
			e, _ := ends.Lookup(name, p)
			d.Starts[name] = append(d.Starts[name], s.Offset)
			d.Ends[name] = append(d.Ends[name], e.Offset)
		}
	}
	committed, err := adm.FetchOffsets(ctx, group)
	require.NoError(t, err)
	committed.Each(func(o kadm.OffsetResponse) { d.Committed[fmt.Sprintf("%s[%d]", o.Topic, o.Partition)] = o.At })
	d.ACLs = principalOpsOn(t, adm, principal)
	return d
}

// takeReal snapshots the real cluster's names under prefix, as admin.
func takeReal(t *testing.T, prefix string) *fixture.Fixture {
	t.Helper()
	cl, err := engine.New(engine.Config{Brokers: cluster.Brokers(), Timeout: 20 * time.Second,
		SASL: &login.SASLConfig{Mechanism: kafkatest.MechScram512, Username: kafkatest.AdminUser, Password: engine.Secret(kafkatest.AdminPassword)}})
	require.NoError(t, err)
	defer cl.Close()
	f, err := snapshot.Take(ctxT(t, time.Minute), cl, snapshot.Options{Match: regexp.MustCompile("^" + regexp.QuoteMeta(prefix))})
	require.NoError(t, err)
	return f
}

// The acceptance of issue 34: a snapshot of the real broker (kadmin-lua
// snapshot), loaded as a fixture, describes the same topics, configs,
// groups, offsets and ACLs as the broker does; and a runbook rehearsed on
// the snapshot (kadmin-lua rehearse), then run for real, changes the same
// things on the broker as it did on the copy.
func TestSnapshotOfRealKafkaAndRehearsal(t *testing.T) {
	need(t)
	adm := admin(t)
	ctx := ctxT(t, 3*time.Minute)
	p := unique("snap")
	orders, events, group := p+".orders", p+".events", p+".billing"
	principal := "User:" + p + "-app"
	_, err := adm.CreateTopic(ctx, 3, 1, map[string]*string{"retention.ms": kadm.StringPtr("86400000"), "max.message.bytes": kadm.StringPtr("2097152")}, orders)
	require.NoError(t, err)
	_, err = adm.CreateTopic(ctx, 1, 1, map[string]*string{"segment.ms": kadm.StringPtr("3600000")}, events)
	require.NoError(t, err)
	produce(t, orders, 3, 6)
	waitTopic(t, events, 1)
	offs := kadm.Offsets{}
	for part, at := range []int64{2, 6, 0} {
		offs.Add(kadm.Offset{Topic: orders, Partition: int32(part), At: at, LeaderEpoch: -1})
	}
	committed, err := adm.CommitOffsets(ctx, group, offs)
	require.NoError(t, err)
	require.NoError(t, committed.Error())
	for _, a := range []*kadm.ACLBuilder{
		kadm.NewACLs().Allow(principal).AllowHosts("*").Topics(orders).ResourcePatternType(kadm.ACLPatternLiteral).Operations(kadm.OpRead),
		kadm.NewACLs().Allow(principal).AllowHosts("*").Groups(p + ".").ResourcePatternType(kadm.ACLPatternPrefixed).Operations(kadm.OpRead),
	} {
		res, err := adm.CreateACLs(ctx, a)
		require.NoError(t, err)
		require.NoError(t, res[0].Err)
	}
	require.Eventually(t, func() bool { return len(principalOpsOn(t, adm, principal)) == 2 }, 20*time.Second, 100*time.Millisecond)
	eventuallyConfig(t, adm, orders, "retention.ms", "86400000", "DYNAMIC_TOPIC_CONFIG")

	dir := t.TempDir()
	snap := filepath.Join(dir, "snap.json")
	as := func(args ...string) kafkatest.BinResult {
		return runBin(t, kafkatest.MechScram512, kafkatest.AdminUser, kafkatest.AdminPassword, args...)
	}
	res := as("snapshot", "--match", "^"+regexp.QuoteMeta(p), "-o", snap)
	require.Equal(t, 0, res.Code, res.Stdout+res.Stderr)
	f, err := fixture.Read(snap)
	require.NoError(t, err, "the snapshot of a real cluster is a valid fixture")
	assert.Len(t, f.Topics, 2)
	assert.Len(t, f.Groups, 1)
	assert.Len(t, f.ACLs, 2)

	// Loaded as a fixture, it describes what the broker describes.
	copied, err := fixture.Start(ctx, f)
	require.NoError(t, err)
	defer copied.Close()
	ccl, err := kgo.NewClient(kgo.SeedBrokers(copied.Addrs...))
	require.NoError(t, err)
	defer ccl.Close()
	topicNames := []string{events, orders}
	real := describe(t, adm, topicNames, group, principal)
	assert.Equal(t, map[string]int{orders: 3, events: 1}, real.Partitions)
	assert.Equal(t, map[string]int64{orders + "[0]": 2, orders + "[1]": 6, orders + "[2]": 0}, real.Committed)
	assert.Equal(t, real, describe(t, kadm.NewClient(ccl), topicNames, group, principal))

	// Rehearsed on the snapshot, then run for real: the same changes.
	spec := filepath.Join(dir, "topics.json")
	require.NoError(t, os.WriteFile(spec, fmt.Appendf(nil, `[
  {"name": %q, "partitions": 4, "replication_factor": 1, "configs": {"retention.ms": "3600000"}},
  {"name": %q, "partitions": 2, "replication_factor": 1, "configs": {"cleanup.policy": "compact"}}
]`, orders, p+".new"), 0o600))
	res = as("--fixture", snap, "-o", "json", "rehearse", "ensure-topics", spec)
	require.Equal(t, 0, res.Code, res.Stdout+res.Stderr)
	var rehearsal struct {
		Changes []snapshot.Change `json:"changes"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.Stdout), &rehearsal), res.Stdout)
	require.Len(t, rehearsal.Changes, 3, "create the new topic, alter orders' retention, raise its partitions: %v", rehearsal.Changes)
	waitTopic(t, p+".new", gone)

	before := takeReal(t, p)
	res = as("run", "ensure-topics", spec)
	require.Equal(t, 0, res.Code, res.Stdout+res.Stderr)
	var onReal []snapshot.Change
	ok := assert.Eventually(t, func() bool { // the broker's metadata catches up with the controller
		onReal = snapshot.Diff(before, takeReal(t, p))
		return assert.ObjectsAreEqual(rehearsal.Changes, onReal)
	}, 30*time.Second, 250*time.Millisecond)
	if !ok {
		assert.Equal(t, rehearsal.Changes, onReal, "the real run changed other things than the rehearsal")
	}
}
