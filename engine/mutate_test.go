package engine

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/internal/testaudit"
)

// auditedClient is newTestClient with an audit log in a temp dir.
func auditedClient(t *testing.T) (*Client, *kfake.Cluster, *kadm.Client, string) {
	t.Helper()
	cl, c, adm := newTestClient(t)
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	log, err := auditlog.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { _ = log.Close() })
	return withAudit(t, cl, log), c, adm, path
}

// withAudit is a client like cl whose mutations are written ahead to log:
// the audit log is configuration, so a new client.
func withAudit(t *testing.T, cl *Client, log *auditlog.Log) *Client {
	t.Helper()
	cfg := cl.Config()
	cfg.Audit = log
	out, err := New(cfg)
	require.NoError(t, err)
	t.Cleanup(out.Close)
	return out
}

// countRequests counts the requests of key the cluster receives.
func countRequests(c *kfake.Cluster, key kmsg.Key) *atomic.Int32 {
	var n atomic.Int32
	c.ControlKey(int16(key), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		n.Add(1)
		return nil, nil, false
	})
	return &n
}

func TestAuditIntentIsOnDiskBeforeTheRequestArrives(t *testing.T) {
	cl, c, adm, path := auditedClient(t)
	ctx := context.Background()
	var seen []auditlog.Record
	c.ControlKey(int16(kmsg.CreateTopics), func(kmsg.Request) (kmsg.Response, error, bool) {
		seen = testaudit.Records(t, path) // what a crash now would leave
		return nil, nil, false
	})
	res, err := cl.CreateTopics(ctx, []TopicSpec{{Name: "audited", Partitions: 2, Configs: map[string]string{"ssl.key.password": "hunter2"}}}, CreateTopicsOptions{})
	require.NoError(t, err)
	require.Nil(t, res[0].Err)

	require.Len(t, seen, 1, "the intent line is written before the request reaches the broker")
	intent := seen[0]
	assert.Equal(t, auditlog.TypeIntent, intent.Type)
	assert.Equal(t, "create_topics", intent.Op)
	assert.Equal(t, "kfake", intent.ClusterID)
	assert.Equal(t, c.ListenAddrs(), intent.Brokers)
	assert.JSONEq(t, `{"specs":[{"name":"audited","partitions":2,"configs":{"ssl.key.password":"***"}}]}`, string(intent.Args))
	assert.JSONEq(t, `{"audited":{"exists":false}}`, string(intent.Before))

	lines := testaudit.Records(t, path)
	require.Len(t, lines, 2)
	out := lines[1]
	assert.Equal(t, auditlog.TypeOutcome, out.Type)
	assert.Equal(t, intent.ID, out.ID)
	require.Len(t, out.Items, 1)
	assert.Equal(t, "ok", out.Items[0].Outcome)
	td, err := adm.ListTopics(ctx, "audited")
	require.NoError(t, err)
	assert.JSONEq(t, `{"id":"`+FormatTopicID(td["audited"].ID)+`"}`, string(out.Items[0].Detail))
	assert.NotContains(t, string(mustRead(t, path)), "hunter2")
}

func mustRead(t *testing.T, path string) []byte {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

func TestAuditUnwritableLogSendsNothing(t *testing.T) {
	cl, c, adm := newTestClient(t)
	ctx := context.Background()
	creates := countRequests(c, kmsg.CreateTopics)
	// A write that fails (a full disk: auditlog's TestAppendToAFullDiskFails)
	// fails the call before anything is sent, as a closed log's does.
	closed, err := auditlog.Open(filepath.Join(t.TempDir(), "a.jsonl"))
	require.NoError(t, err)
	require.NoError(t, closed.Close())
	_, err = withAudit(t, cl, closed).DeleteTopics(ctx, []string{"never"}, DeleteTopicsOptions{})
	require.Error(t, err)
	assert.Equal(t, CodeAudit, AsError(err, "").Code)

	assert.Zero(t, creates.Load(), "no CreateTopics request was sent")
	td, err := adm.ListTopics(ctx)
	require.NoError(t, err)
	assert.NotContains(t, td, "never")
}

func TestAuditArgumentsJSONCannotSayStopTheSend(t *testing.T) {
	cl, c, _, path := auditedClient(t)
	alters := countRequests(c, kmsg.AlterClientQuotas)
	_, err := cl.AlterClientQuotas(context.Background(), []QuotaAlteration{{Entity: QuotaEntity{"user": "u"}, Set: map[string]float64{"producer_byte_rate": math.NaN()}}}, false)
	require.Error(t, err)
	assert.Equal(t, CodeInvalidArgument, AsError(err, "").Code)
	assert.Zero(t, alters.Load())
	assert.Empty(t, mustRead(t, path))
}

func TestAuditValidateOnlyWritesNothing(t *testing.T) {
	cl, _, _, path := auditedClient(t)
	_, err := cl.CreateTopics(context.Background(), []TopicSpec{{Name: "checked"}}, CreateTopicsOptions{ValidateOnly: true})
	require.NoError(t, err)
	assert.Empty(t, mustRead(t, path))
}

// A create the broker applies while the call is cancelled: the outcome is
// unknown, the engine looks, and the log and the result say it was applied.
func TestAuditUnknownOutcomeResolvedByLooking(t *testing.T) {
	cl, c, adm, path := auditedClient(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var hooked atomic.Bool
	c.ControlKey(int16(kmsg.CreateTopics), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if !hooked.CompareAndSwap(false, true) {
			return nil, nil, false // the other client's create goes through
		}
		c.SleepControl(func() {
			// The broker applies it (here through another client), then
			// the caller gives up before any answer arrives.
			_, err := adm.CreateTopic(context.Background(), 1, 1, nil, "limbo")
			assert.NoError(t, err)
			cancel()
			time.Sleep(100 * time.Millisecond)
		})
		return nil, nil, true // no answer
	})
	res, err := cl.CreateTopics(ctx, []TopicSpec{{Name: "limbo"}}, CreateTopicsOptions{})
	require.NoError(t, err)
	assert.Nil(t, res[0].Err, "looked afterwards: created by this call")
	assert.NotEmpty(t, res[0].ID)

	lines := testaudit.Records(t, path)
	require.Len(t, lines, 2)
	it := lines[1].Items[0]
	assert.Equal(t, auditlog.OutcomeUnknown, it.Outcome)
	assert.Equal(t, auditlog.FoundApplied, it.Found)
	assert.Contains(t, it.Error, "CANCELED")
	assert.True(t, it.Applied())
}

// REQUEST_TIMED_OUT after the broker ran the request, on topics that the
// state before says were not this call's to create or delete.
func TestTimedOutCreateOfExistingTopicIsNotReportedCreated(t *testing.T) {
	cl, c, adm := newTestClient(t)
	ctx := context.Background()
	_, err := adm.CreateTopic(ctx, 3, 1, map[string]*string{"retention.ms": kadm.StringPtr("1000")}, "orders")
	require.NoError(t, err)
	h := c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.CreateTopics}, Err: kerr.RequestTimedOut, Count: 1})
	defer h.Remove()
	res, err := cl.CreateTopics(ctx, []TopicSpec{{Name: "orders", Partitions: 1}}, CreateTopicsOptions{})
	require.NoError(t, err)
	require.NotNil(t, res[0].Err, "orders existed before the call: it did not create it")
	assert.Equal(t, "TOPIC_ALREADY_EXISTS", res[0].Err.Code)
	assert.Contains(t, res[0].Err.Message, "existed before this call")
	assert.Equal(t, 1, h.Hits())

	h = c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.CreateTopics}, Err: kerr.RequestTimedOut, Count: 1})
	res, err = cl.CreateTopics(ctx, []TopicSpec{{Name: "orders"}}, CreateTopicsOptions{IfNotExists: true})
	require.NoError(t, err)
	assert.Nil(t, res[0].Err)
	assert.True(t, res[0].Existed)
	assert.Equal(t, 3, res[0].Partitions)
}

func TestTimedOutDeleteOfMissingTopicIsNotReportedDeleted(t *testing.T) {
	cl, c, _ := newTestClient(t)
	ctx := context.Background()
	h := c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.DeleteTopics}, Err: kerr.RequestTimedOut, Count: 1})
	defer h.Remove()
	res, err := cl.DeleteTopics(ctx, []string{"never-existed"}, DeleteTopicsOptions{})
	require.NoError(t, err)
	require.NotNil(t, res[0].Err, "a topic that never existed was not deleted")
	assert.Equal(t, "UNKNOWN_TOPIC_OR_PARTITION", res[0].Err.Code)
	assert.Equal(t, 1, h.Hits())
}

func TestTimedOutDeleteOfExistingTopicIsDeleted(t *testing.T) {
	cl, c, adm := newTestClient(t)
	ctx := context.Background()
	_, err := adm.CreateTopic(ctx, 1, 1, nil, "going")
	require.NoError(t, err)
	h := c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.DeleteTopics}, Err: kerr.RequestTimedOut, Count: 1})
	defer h.Remove()
	res, err := cl.DeleteTopics(ctx, []string{"going"}, DeleteTopicsOptions{})
	require.NoError(t, err)
	assert.Nil(t, res[0].Err)
	assert.NotContains(t, freshTopics(t, c), "going")
}

func TestTimedOutCreatePartitionsOnBigEnoughTopicIsNotReportedRaised(t *testing.T) {
	cl, c, adm := newTestClient(t)
	ctx := context.Background()
	_, err := adm.CreateTopic(ctx, 4, 1, nil, "wide")
	require.NoError(t, err)
	h := c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.CreatePartitions}, Err: kerr.RequestTimedOut, Count: 1})
	defer h.Remove()
	res, err := cl.CreatePartitions(ctx, map[string]int32{"wide": 3}, CreatePartitionsOptions{})
	require.NoError(t, err)
	require.NotNil(t, res[0].Err)
	assert.Equal(t, "INVALID_PARTITIONS", res[0].Err.Code)
}

func TestTimedOutDeleteOfMissingGroupIsNotReportedDeleted(t *testing.T) {
	cl, c, _ := newTestClient(t)
	ctx := context.Background()
	h := c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.DeleteGroups}, Err: kerr.RequestTimedOut, Count: 1})
	defer h.Remove()
	res, err := cl.DeleteGroups(ctx, []string{"no-such-group"}, DeleteGroupsOptions{})
	require.NoError(t, err)
	require.NotNil(t, res[0].Err, "%+v", res)
	assert.Equal(t, "GROUP_ID_NOT_FOUND", res[0].Err.Code)
}

func TestHiddenTopicStateSaysNothingOfExistence(t *testing.T) {
	b, err := json.Marshal(TopicsBefore{
		"hidden": {Hidden: "TOPIC_AUTHORIZATION_FAILED"},
		"absent": {},
		"there":  {Exists: true, ID: "abc", Partitions: 3, ReplicationFactor: 2},
	})
	require.NoError(t, err)
	assert.JSONEq(t, `{"hidden":{"hidden":"TOPIC_AUTHORIZATION_FAILED"},"absent":{"exists":false},
		"there":{"exists":true,"id":"abc","partitions":3,"replication_factor":2}}`, string(b))
	var back TopicsBefore
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, "TOPIC_AUTHORIZATION_FAILED", back["hidden"].Hidden)
	assert.True(t, back["there"].Exists)
}
