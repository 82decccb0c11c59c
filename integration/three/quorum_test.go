package three

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

// healthRow is the row cluster-health returns, as far as these tests read it.
type healthRow struct {
	Quorum                    string   `json:"quorum"`
	Brokers                   *int     `json:"brokers"`
	Unknown                   int      `json:"unknown"`
	Partitions                int      `json:"partitions"`
	Unanswered                int      `json:"unanswered"`
	UnderReplicated           *int     `json:"under_replicated"`
	PreferredReplicaImbalance *int     `json:"preferred_replica_imbalance"`
	Problems                  []any    `json:"problems"`
	BrokerStates              []health `json:"broker_states"`
}

type health struct {
	Broker    int32  `json:"broker"`
	State     string `json:"state"`
	Reachable *bool  `json:"reachable"`
}

func healthOf(t *testing.T, res kafkatest.BinResult) healthRow {
	t.Helper()
	var rows []healthRow
	require.NoError(t, json.Unmarshal([]byte(res.Stdout), &rows), res.Stdout)
	require.Len(t, rows, 1)
	return rows[0]
}

// The worst case, on the real thing (issue 27 item 4). With two of the
// three nodes (each a broker and a controller) killed, the metadata quorum
// has lost its majority; node 1's broker still answers, from the metadata
// it had: every broker live, every leader where it was. cluster-health
// gives a verdict anyway: exit 4, the lost quorum named, the brokers'
// states unknown (node 1 answers, 2 and 3 do not), the partitions led by
// 2 and 3 named; describe_quorum, run beside it, fails after 5 s saying no
// controller answered. When the nodes come back, everything they led is
// led by node 1: the leader imbalance fails a check that names the
// preferred election to run, and running it evens leadership out.
func TestHealthWithoutQuorum(t *testing.T) {
	c := need(t)
	e := newEnv(t)
	const topic = "it3-health"
	e.run(fmt.Sprintf(`create_topics{{name = %q, partitions = 12, replication_factor = 3}}`, topic))
	waitISR(t, topic, time.Minute)

	began := time.Now()
	require.NoError(t, c.KillNode(2))
	require.NoError(t, c.KillNode(3))
	t.Cleanup(func() { // whatever happens, leave the cluster whole for the tests after
		for _, id := range []int32{2, 3} {
			if c.PID(id) == 0 {
				assert.NoError(t, c.StartNode(ctxFor(t, 2*time.Minute), id))
			}
		}
	})
	// The leader may answer for a moment: Kafka's leader notices that it
	// lost its majority when its check-quorum timer expires (1.5 x
	// controller.quorum.fetch.timeout.ms: 3 s), and resigns. (The moment
	// before, when it answers without a majority behind it, is quorum
	// "no_majority": the kfake tests cover it.)
	kafkatest.WaitFor(t, "the quorum's leader to resign", 30*time.Second, func() (bool, string) {
		cl, ctx, done := rawClient(t)
		defer done()
		ctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		req := kmsg.NewPtrDescribeQuorumRequest()
		rt := kmsg.NewDescribeQuorumRequestTopic()
		rt.Topic = "__cluster_metadata"
		rt.Partitions = append(rt.Partitions, kmsg.NewDescribeQuorumRequestTopicPartition())
		req.Topics = append(req.Topics, rt)
		resp, err := req.RequestWith(ctx, cl.Broker(1))
		if err != nil {
			return true, "node 1 holds DescribeQuorum: " + err.Error()
		}
		return false, fmt.Sprintf("leader %d answers", resp.Topics[0].Partitions[0].LeaderID)
	})
	var quorum kafkatest.BinResult
	var wg sync.WaitGroup
	wg.Go(func() {
		quorum = runBinary(ctxFor(t, time.Minute), t, "--timeout", "10s", "-e", "describe_quorum()")
	})
	run := time.Now()
	res := runBinary(ctxFor(t, time.Minute), t, "--timeout", "10s", "-o", "json", "run", "cluster-health", "--brokers", "3")
	t.Logf("cluster-health without a quorum took %s", time.Since(run).Round(time.Millisecond))
	wg.Wait()
	assert.Equal(t, 4, res.Code, "a failed check, not a script or Kafka error:\n%s", res.Stderr)
	assert.Contains(t, res.Stderr, "check failed: metadata quorum lost: no active controller: no controller answered within 5s")
	assert.Contains(t, res.Stderr, "check failed: 3 broker states unknown without an active controller: 1 answers; 2, 3 do not answer")
	assert.Regexp(t, `check failed: \d+ partitions led by a broker that does not answer: `, res.Stderr)
	row := healthOf(t, res)
	assert.Equal(t, "no_answer", row.Quorum)
	assert.Nil(t, row.Brokers, "live brokers: unknown")
	assert.Nil(t, row.UnderReplicated, "the ISRs are as the quorum left them")
	assert.Equal(t, 3, row.Unknown)
	assert.GreaterOrEqual(t, row.Partitions, 12, "the partitions node 1 can still see")
	assert.Positive(t, row.Unanswered)
	assert.Len(t, row.Problems, row.Unanswered)
	require.Len(t, row.BrokerStates, 3)
	for _, b := range row.BrokerStates {
		assert.Equal(t, "unknown", b.State, "broker %d", b.Broker)
		require.NotNil(t, b.Reachable, "broker %d", b.Broker)
		assert.Equal(t, b.Broker == 1, *b.Reachable, "broker %d answers only if alive", b.Broker)
	}
	assert.Equal(t, 3, quorum.Code, quorum.Stderr)
	assert.Contains(t, quorum.Stderr, "describe_quorum: TIMEOUT: no controller answered within 5s")

	var restart sync.WaitGroup
	for _, id := range []int32{2, 3} {
		restart.Go(func() { assert.NoError(t, c.StartNode(ctxFor(t, 2*time.Minute), id)) })
	}
	restart.Wait()
	waitWhole(t, topic)
	t.Logf("nodes 2 and 3 back and in sync %s after they were killed", time.Since(began).Round(time.Millisecond))

	// What a separate client sees: leaders that are not the preferred
	// replica (the first of the replicas), and how many each broker leads.
	leaders, notPreferred := map[int32]int{}, 0
	cl, ctx, done := rawClient(t)
	req := kmsg.NewPtrMetadataRequest()
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = kmsg.StringPtr(topic)
	req.Topics = append(req.Topics, rt)
	meta, err := req.RequestWith(ctx, cl)
	done()
	require.NoError(t, err)
	for _, p := range meta.Topics[0].Partitions {
		leaders[p.Leader]++
		if p.Leader != p.Replicas[0] {
			notPreferred++
		}
	}
	t.Logf("%s leaders per broker: %v; %d partitions not led by their preferred replica", topic, leaders, notPreferred)
	require.Positive(t, notPreferred, "the partitions nodes 2 and 3 led moved to node 1")

	res = runBinary(ctxFor(t, time.Minute), t, "-o", "json", "run", "cluster-health", "--brokers", "3")
	assert.Equal(t, 4, res.Code, res.Stderr)
	assert.Contains(t, res.Stderr, "check failed: preferred leaders not leading: ")
	assert.Contains(t, res.Stderr, "check failed: leaders uneven: broker 1 leads ")
	row = healthOf(t, res)
	assert.Equal(t, "led", row.Quorum)
	require.NotNil(t, row.PreferredReplicaImbalance)
	assert.GreaterOrEqual(t, *row.PreferredReplicaImbalance, notPreferred)
	call := regexp.MustCompile(`a preferred leader election moves \d+ partitions? back: kadmin-lua -e '([^']+)'`).FindStringSubmatch(res.Stderr)
	require.NotNil(t, call, "the check names the election to run:\n%s", res.Stderr)
	assert.True(t, strings.HasPrefix(call[1], "elect_leaders{"), call[1])

	// The election it names evens leadership out. (The cluster may have
	// other problems, left by the tests before: an RF-1 topic below the
	// cluster's min.insync.replicas of 2.)
	res = runBinary(ctxFor(t, time.Minute), t, "--yes", "-e", call[1])
	require.Equal(t, 0, res.Code, res.Stderr)
	kafkatest.WaitFor(t, "leadership even after the election", 30*time.Second, func() (bool, string) {
		res := runBinary(ctxFor(t, time.Minute), t, "-o", "json", "run", "cluster-health", "--brokers", "3")
		row := healthOf(t, res)
		return row.PreferredReplicaImbalance != nil && *row.PreferredReplicaImbalance == 0 &&
			!strings.Contains(res.Stderr, "preferred leaders not leading") && !strings.Contains(res.Stderr, "leaders uneven"), res.Stderr
	})
}
