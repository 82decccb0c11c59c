// Package testengine makes engine clients on kfake clusters for the tests
// of the packages that drive a cluster through the admin core
// (engine/undo, engine/desired). The core's own tests have their own
// (newTestClient, auditedClient): an internal test cannot import a package
// that imports the core.
package testengine

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
)

// Client is an engine client on a fresh 3-broker kfake cluster, and a
// separate kadm client to check the cluster with.
func Client(t *testing.T, opts ...kfake.Opt) (*engine.Client, *kfake.Cluster, *kadm.Client) {
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(3)}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	cl, err := engine.New(engine.Config{Brokers: c.ListenAddrs(), Timeout: 5 * time.Second})
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	kc, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	require.NoError(t, err)
	t.Cleanup(kc.Close)
	return cl, c, kadm.NewClient(kc)
}

// Audited is Client with an audit log in a temp dir, and the log's path.
func Audited(t *testing.T) (*engine.Client, *kfake.Cluster, *kadm.Client, string) {
	t.Helper()
	cl, c, adm := Client(t)
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	log, err := auditlog.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { _ = log.Close() })
	return WithAudit(t, cl, log), c, adm, path
}

// WithAudit is a client like cl whose mutations are written ahead to log:
// the audit log is configuration, so a new client.
func WithAudit(t *testing.T, cl *engine.Client, log *auditlog.Log) *engine.Client {
	t.Helper()
	cfg := cl.Config()
	cfg.Audit = log
	out, err := engine.New(cfg)
	require.NoError(t, err)
	t.Cleanup(out.Close)
	return out
}

// CreateTopic creates one topic through cl and returns the call's error.
func CreateTopic(cl *engine.Client, name string) error {
	res, err := cl.CreateTopics(context.Background(), []engine.TopicSpec{{Name: name, Partitions: 1}}, engine.CreateTopicsOptions{})
	if err == nil && res[0].Err != nil {
		return res[0].Err
	}
	return err
}

// FreshTopics lists topics through a brand-new client: a kgo client that
// listed before can answer from a merge with its cache and still show a
// topic deleted since.
func FreshTopics(t *testing.T, c *kfake.Cluster) kadm.TopicDetails {
	kc, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	require.NoError(t, err)
	defer kc.Close()
	td, err := kadm.NewClient(kc).ListTopics(context.Background())
	require.NoError(t, err)
	return td
}

// Actions is each step as "op resource: action".
func Actions(steps []engine.UndoStep) []string {
	var out []string
	for _, s := range steps {
		out = append(out, s.Op+" "+s.Resource+": "+s.Action)
	}
	return out
}

// TopicConfig is a topic config's value and source, as kadm describes it.
func TopicConfig(t *testing.T, adm *kadm.Client, topic, key string) (string, string) {
	t.Helper()
	rc, err := adm.DescribeTopicConfigs(context.Background(), topic)
	require.NoError(t, err)
	r, err := rc.On(topic, nil)
	require.NoError(t, err)
	for _, c := range r.Configs {
		if c.Key == key {
			return c.MaybeValue(), c.Source.String()
		}
	}
	return "", ""
}

// CountRequests counts the requests of key the cluster receives.
func CountRequests(c *kfake.Cluster, key kmsg.Key) *atomic.Int32 {
	var n atomic.Int32
	c.ControlKey(int16(key), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		n.Add(1)
		return nil, nil, false
	})
	return &n
}
