package snapshot

import (
	"bytes"
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/fixture"
)

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// copyOf starts a cluster from doc and returns it with an engine client.
func copyOf(t *testing.T, doc string) (*fixture.Fixture, *fixture.Cluster, *engine.Client) {
	t.Helper()
	f, err := fixture.Parse([]byte(doc), fixture.ParseOptions{Name: "f.json"})
	require.NoError(t, err)
	c, err := fixture.Start(ctxT(t), f)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	cl, err := engine.New(engine.Config{Brokers: c.Addrs, Timeout: 10 * time.Second})
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	return f, c, cl
}

const layout = `{
  "cluster_id": "prod",
  "brokers": [{"id": 1, "rack": "a"}, {"id": 2, "rack": "b"}, {"id": 3, "rack": "c"}],
  "topics": [
    {"name": "orders", "replicas": [[1, 2], [2, 3], [3, 1]], "configs": {"retention.ms": "86400000", "cleanup.policy": "compact"},
     "offsets": [{"partition": 0, "start": 40, "end": 100}, {"partition": 2, "start": 0, "end": 7}]},
    {"name": "audit", "partitions": 1, "replication_factor": 3}
  ],
  "groups": [{"name": "billing", "offsets": [{"topic": "orders", "partition": 0, "offset": 90}, {"topic": "orders", "partition": 2, "offset": 7}]},
             {"name": "live", "members": [{"client_id": "svc", "topics": ["audit"]}]}],
  "acls": [{"principal": "User:app", "operation": "write", "resource_type": "topic", "resource_name": "orders"},
           {"principal": "User:app", "operation": "read", "resource_type": "group", "resource_name": "billing", "pattern_type": "prefixed"}],
  "quotas": [{"entity": {"user": "app"}, "quotas": {"producer_byte_rate": 1024}}],
  "scram_users": [{"user": "app", "mechanism": "SCRAM-SHA-512", "iterations": 8192, "password": "not in the snapshot"}]
}`

// A snapshot of a copy is the fixture it was made from: the layout, the
// configs, the offsets, the groups, the ACLs, quotas and SCRAM users (never
// a password).
func TestSnapshotOfACopyIsItsFixture(t *testing.T) {
	f, _, cl := copyOf(t, layout)
	got, err := Take(ctxT(t), cl, Options{Source: fixture.Source{Brokers: []string{"x:9092"}}})
	require.NoError(t, err)

	want := *f
	want.Format = fixture.Format
	want.Sorted()
	want.SCRAMUsers = []fixture.SCRAMUser{{User: "app", Mechanism: "SCRAM-SHA-512", Iterations: 8192}}
	// The members' assignment: audit's one partition.
	assert.Empty(t, got.Unread)
	assert.Equal(t, "prod", got.Source.ClusterID)
	want.Source = got.Source

	// A copy of a snapshot answers with another id: what is written in an
	// audit log on the copy is never taken for the original's.
	snap, err := fixture.Parse(mustMarshal(t, got), fixture.ParseOptions{})
	require.NoError(t, err)
	c2, err := fixture.Start(ctxT(t), snap)
	require.NoError(t, err)
	defer c2.Close()
	cl2, err := engine.New(engine.Config{Brokers: c2.Addrs})
	require.NoError(t, err)
	defer cl2.Close()
	id, err := cl2.ClusterID(ctxT(t))
	require.NoError(t, err)
	assert.Equal(t, "copy-of-prod", id)
	// orders[1] is empty: a snapshot lists the partitions that hold
	// offsets.
	assert.Equal(t, want, *got)
	assert.Equal(t, Diff(&want, got), []Change(nil))

	b, err := fixture.Marshal(got)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "not in the snapshot", "no password, ever")
}

func mustMarshal(t *testing.T, f *fixture.Fixture) []byte {
	b, err := fixture.Marshal(f)
	require.NoError(t, err)
	return b
}

// Records only when asked, a bounded number per partition, values
// redactable; --match keeps the names it matches.
func TestSnapshotRecordsRedactionAndMatch(t *testing.T) {
	_, c, cl := copyOf(t, `{"topics": [{"name": "orders", "partitions": 1}, {"name": "other", "partitions": 1, "records": 1}],
  "groups": [{"name": "other-app", "offsets": {"other": [1]}}]}`)
	kcl, err := kgo.NewClient(kgo.SeedBrokers(c.Addrs...), kgo.DefaultProduceTopic("orders"))
	require.NoError(t, err)
	defer kcl.Close()
	ctx := ctxT(t)
	for _, v := range []string{"secret-1", "secret-2", "secret-3"} {
		require.NoError(t, kcl.ProduceSync(ctx, &kgo.Record{Key: []byte("k"), Value: []byte(v),
			Headers: []kgo.RecordHeader{{Key: "h", Value: []byte("hv")}}}).FirstErr())
	}
	_, err = kadm.NewClient(kcl).CommitOffsets(ctx, "orders-app", kadm.OffsetsFromRecords(kgo.Record{Topic: "orders", Partition: 0, Offset: 1}))
	require.NoError(t, err)

	got, err := Take(ctx, cl, Options{Match: regexp.MustCompile("^orders"), Records: 2, RedactValues: true})
	require.NoError(t, err)
	require.Len(t, got.Topics, 1)
	assert.Equal(t, "orders", got.Topics[0].Name)
	require.Len(t, got.Topics[0].Records.List, 2, "bounded per partition")
	r := got.Topics[0].Records.List[0]
	assert.Equal(t, "k", *r.Key)
	assert.Nil(t, r.Value)
	assert.Equal(t, len("secret-1"), r.ValueBytes)
	assert.Equal(t, map[string]string{"h": ""}, r.Headers)
	assert.Equal(t, []fixture.PartitionOffsets{{Partition: 0, Start: 0, End: 3}}, got.Topics[0].Offsets)
	require.Len(t, got.Groups, 1)
	assert.Equal(t, "orders-app", got.Groups[0].Name)
	b, err := fixture.Marshal(got)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "secret")

	// The snapshot seeds a copy whose records read back: two listed, one
	// filled to the end offset.
	back, err := fixture.Parse(b, fixture.ParseOptions{Name: "snap.json"})
	require.NoError(t, err)
	c2, err := fixture.Start(ctx, back)
	require.NoError(t, err)
	defer c2.Close()
	cl2, err := engine.New(engine.Config{Brokers: c2.Addrs, Timeout: 10 * time.Second})
	require.NoError(t, err)
	defer cl2.Close()
	again, err := Take(ctx, cl2, Options{})
	require.NoError(t, err)
	assert.Equal(t, got.Topics[0].Offsets, again.Topics[0].Offsets)
	assert.Equal(t, got.Groups[0].Offsets, again.Groups[0].Offsets)
}

// Diff says what changed in the plan's words, and Print lays it out as
// the plan table.
func TestDiffInThePlansFormat(t *testing.T) {
	before, err := fixture.Parse([]byte(`{"topics": [{"name": "orders", "partitions": 2, "configs": {"retention.ms": "1000"},
  "offsets": [{"partition": 0, "start": 0, "end": 5}]}, {"name": "gone", "partitions": 1}],
  "groups": [{"name": "g", "offsets": [{"topic": "orders", "partition": 0, "offset": 1}]}],
  "acls": [{"principal": "User:a", "operation": "read", "resource_type": "topic", "resource_name": "orders"}]}`), fixture.ParseOptions{})
	require.NoError(t, err)
	after, err := fixture.Parse([]byte(`{"topics": [{"name": "orders", "partitions": 4, "configs": {"cleanup.policy": "compact"},
  "offsets": [{"partition": 0, "start": 2, "end": 8}]}, {"name": "new", "partitions": 1}],
  "groups": [{"name": "g", "offsets": [{"topic": "orders", "partition": 0, "offset": 4}]}],
  "quotas": [{"entity": {"user": "a"}, "quotas": {"producer_byte_rate": 10}}]}`), fixture.ParseOptions{})
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, Print(&out, Diff(before, after), "Rehearsal"))
	assert.Equal(t, `ACTION             KIND     NAME                                                CHANGE
delete             topic    gone                                                delete topic gone
create             topic    new                                                 create topic new (partitions 1, replication factor 3, 0 configs)
alter              topic    orders                                              alter topic orders configs: cleanup.policy: (default) -> "compact", retention.ms: "1000" -> (default)
create_partitions  topic    orders                                              raise topic orders partitions 2 -> 4
write              records  orders                                              write 3 records to topic orders (partitions 0)
delete             records  orders                                              delete records of topic orders: partition 0 below offset 2
commit             group    g                                                   commit group g offsets: orders[0] 1 -> 4
delete             acl      User:a allow read on topic orders (literal) from *  delete acl User:a allow read on topic orders (literal) from *
create             quota    user=a                                              create quota user=a: producer_byte_rate: (none) -> 10
Rehearsal: 9 changes.
`, out.String())
	out.Reset()
	require.NoError(t, Print(&out, nil, "Rehearsal"))
	assert.Equal(t, "No changes: Rehearsal changed nothing.\n", out.String())
}
