package kafkatest_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func adminAs(t *testing.T, c *kafkatest.Cluster, mech, user, password string) *kadm.Client {
	t.Helper()
	return c.AdminAsT(t, mech, user, password, kgo.RetryTimeout(10*time.Second))
}

// rssKiB reads VmRSS of pid from /proc.
func rssKiB(t *testing.T, pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	require.NoError(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			n, err := strconv.Atoi(f[1])
			require.NoError(t, err)
			return n
		}
	}
	t.Fatalf("no VmRSS for pid %d", pid)
	return 0
}

func TestSingleSASL(t *testing.T) {
	c := kafkatest.Single(t)
	require.Equal(t, 1, c.Size)
	require.Equal(t, kafkatest.Version(), c.Version)
	require.True(t, strings.HasPrefix(c.Banner(), "Apache Kafka "+c.Version+" 1-node SASL_PLAINTEXT"), c.Banner())
	require.ElementsMatch(t, []string{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"}, c.Mechanisms)
	t.Logf("node 1 pid %d RSS %d MiB", c.PID(1), rssKiB(t, c.PID(1))/1024)

	for _, mech := range c.Mechanisms {
		t.Run("admin-"+mech, func(t *testing.T) {
			ctx := ctxT(t, time.Minute)
			adm := adminAs(t, c, mech, kafkatest.AdminUser, kafkatest.AdminPassword)
			topic := "admin-" + strings.ToLower(mech)
			resp, err := adm.CreateTopic(ctx, 2, 1, nil, topic)
			require.NoError(t, err)
			require.NoError(t, resp.Err)
			require.Eventually(t, func() bool {
				m, err := adm.Metadata(ctx, topic)
				return err == nil && m.Topics[topic].Err == nil && len(m.Topics[topic].Partitions) == 2
			}, 30*time.Second, 100*time.Millisecond)
			topics, err := adm.ListTopics(ctx)
			require.NoError(t, err)
			assert.True(t, topics.Has(topic))
		})
	}

	t.Run("alice-needs-acls", func(t *testing.T) {
		ctx := ctxT(t, time.Minute)
		alice := adminAs(t, c, kafkatest.MechScram256, kafkatest.AliceUser, kafkatest.AlicePassword)
		admin := adminAs(t, c, kafkatest.MechScram512, kafkatest.AdminUser, kafkatest.AdminPassword)

		// Create: denied.
		// kadm's single-topic helpers return the topic's error as the call's error too.
		_, err := alice.CreateTopic(ctx, 1, 1, nil, "alice-topic")
		require.ErrorIs(t, err, kerr.TopicAuthorizationFailed)

		// Describe a topic that exists: denied.
		r, err := admin.CreateTopic(ctx, 1, 1, nil, "admins-topic")
		require.NoError(t, err)
		require.NoError(t, r.Err)
		// kadm reports TOPIC_AUTHORIZATION_FAILED of a requested topic as the call's error.
		m, err := alice.Metadata(ctx, "admins-topic")
		if err == nil {
			err = m.Topics["admins-topic"].Err
		}
		require.ErrorIs(t, err, kerr.TopicAuthorizationFailed)

		// Grant and retry (the broker applies ACLs from the metadata log, so poll).
		acl := kadm.NewACLs().Allow("User:"+kafkatest.AliceUser).
			Topics("alice-topic", "admins-topic").
			Operations(kadm.OpCreate, kadm.OpDescribe).
			ResourcePatternType(kadm.ACLPatternLiteral)
		res, err := admin.CreateACLs(ctx, acl)
		require.NoError(t, err)
		for _, r := range res {
			require.NoError(t, r.Err)
		}
		require.Eventually(t, func() bool {
			resp, err := alice.CreateTopic(ctx, 1, 1, nil, "alice-topic")
			return err == nil && resp.Err == nil
		}, 30*time.Second, 200*time.Millisecond)
		require.Eventually(t, func() bool {
			m, err := alice.Metadata(ctx, "admins-topic", "alice-topic")
			return err == nil && m.Topics["admins-topic"].Err == nil && m.Topics["alice-topic"].Err == nil
		}, 30*time.Second, 200*time.Millisecond)
	})

	for _, mech := range c.Mechanisms {
		t.Run("wrong-password-"+mech, func(t *testing.T) {
			ctx := ctxT(t, 30*time.Second)
			adm := adminAs(t, c, mech, kafkatest.AliceUser, "not-"+kafkatest.AlicePassword)
			_, err := adm.ListTopics(ctx)
			require.Error(t, err)
			require.True(t, errors.Is(err, kerr.SaslAuthenticationFailed), "want SASL_AUTHENTICATION_FAILED, got %v", err)
		})
	}
}

func TestThreeNodes(t *testing.T) {
	c := kafkatest.Three(t)
	require.Equal(t, 3, c.Size)
	require.Equal(t, []int32{1, 2, 3}, c.NodeIDs())
	require.True(t, strings.HasPrefix(c.Banner(), "Apache Kafka "+c.Version+" 3-node PLAINTEXT"), c.Banner())
	for _, id := range c.NodeIDs() {
		t.Logf("node %d pid %d RSS %d MiB", id, c.PID(id), rssKiB(t, c.PID(id))/1024)
	}

	ctx := ctxT(t, 8*time.Minute)
	cl, err := c.Client(kgo.RetryTimeout(10 * time.Second))
	require.NoError(t, err)
	defer cl.Close()
	adm := kadm.NewClient(cl)

	live, err := c.LiveBrokers(ctx)
	require.NoError(t, err)
	require.Equal(t, []int32{1, 2, 3}, live)

	// -1/-1: the broker defaults, which must be RF 3.
	const topic = "rf3"
	_, err = adm.CreateTopic(ctx, 3, -1, nil, topic)
	require.NoError(t, err)

	// brokers reports the live brokers; isrs the ISR of each partition.
	// Both send raw Metadata requests (Cluster.LiveBrokers and
	// Cluster.Partitions): kadm's Metadata answers from the kgo client's
	// metadata cache.
	brokers := func(want ...int32) func() (bool, string) {
		return func() (bool, string) {
			rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			have, err := c.LiveBrokers(rctx)
			if err != nil {
				return false, err.Error()
			}
			return slices.Equal(want, have), fmt.Sprintf("brokers %v", have)
		}
	}
	isrs := func(ok func(isr []int32) bool) func() (bool, string) {
		return func() (bool, string) {
			rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			parts, err := c.Partitions(rctx, topic)
			if err != nil {
				return false, err.Error()
			}
			all := len(parts) == 3
			var desc []string
			for _, id := range slices.Sorted(maps.Keys(parts)) {
				p := parts[id]
				all = all && ok(p.ISR)
				desc = append(desc, fmt.Sprintf("p%d leader %d isr %v", id, p.Leader, p.ISR))
			}
			return all, strings.Join(desc, ", ")
		}
	}
	full := func(isr []int32) bool { return len(isr) == 3 }
	without := func(id int32) func([]int32) bool {
		return func(isr []int32) bool { return len(isr) == 2 && !slices.Contains(isr, id) }
	}

	kafkatest.WaitFor(t, "rf3 fully replicated", time.Minute, isrs(full))
	m, err := adm.Metadata(ctx, topic)
	require.NoError(t, err)
	for _, p := range m.Topics[topic].Partitions {
		require.Len(t, p.Replicas, 3)
	}

	// SIGKILL node 2: fenced after broker.session.timeout.ms, then out of the ISRs.
	began := time.Now()
	require.NoError(t, c.KillNode(2))
	require.Zero(t, c.PID(2))
	kafkatest.WaitFor(t, "node 2 killed", 2*time.Minute, brokers(1, 3))
	kafkatest.WaitFor(t, "node 2 killed", 2*time.Minute, isrs(without(2)))
	t.Logf("kill node 2: gone from metadata and ISRs after %s", time.Since(began).Round(10*time.Millisecond))

	began = time.Now()
	require.NoError(t, c.StartNode(ctx, 2))
	require.NotZero(t, c.PID(2))
	t.Logf("restart node 2: registered after %s", time.Since(began).Round(10*time.Millisecond))
	kafkatest.WaitFor(t, "node 2 restarted", 2*time.Minute, brokers(1, 2, 3))
	kafkatest.WaitFor(t, "node 2 restarted", 2*time.Minute, isrs(full))

	// SIGTERM node 3 (controlled shutdown), then bring it back.
	began = time.Now()
	require.NoError(t, c.StopNode(ctx, 3))
	t.Logf("stop node 3 (SIGTERM): exited after %s", time.Since(began).Round(10*time.Millisecond))
	kafkatest.WaitFor(t, "node 3 stopped", 2*time.Minute, brokers(1, 2))
	kafkatest.WaitFor(t, "node 3 stopped", 2*time.Minute, isrs(without(3)))
	require.NoError(t, c.StartNode(ctx, 3))
	kafkatest.WaitFor(t, "node 3 restarted", 2*time.Minute, brokers(1, 2, 3))
}
