package luaapi

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// A consumer catching up, watched on kfake: between refreshes (the fake
// clock's sleeps) the test commits the group's progress and produces more,
// and the rates and the ETA follow.
func TestWatchLagOnAClusterFollowsTheCommits(t *testing.T) {
	e := newEnv(t)
	_, err := e.adm.CreateTopic(e.ctx(), 2, 1, nil, "orders")
	require.NoError(t, err)
	produce(t, e, "orders", 0, 1000)
	produce(t, e, "orders", 1, 300)
	commit := func(p0, p1 int64) {
		t.Helper()
		o := kadm.Offsets{}
		o.Add(kadm.Offset{Topic: "orders", Partition: 0, At: p0, LeaderEpoch: -1})
		o.Add(kadm.Offset{Topic: "orders", Partition: 1, At: p1, LeaderEpoch: -1})
		resp, err := e.adm.CommitOffsets(e.ctx(), "orders-app", o)
		require.NoError(t, err)
		require.NoError(t, resp.Error())
	}
	commit(0, 300)

	clock := newFakeClock()
	e.rt.watchClock, e.rt.watchScreen = clock, pipedScreen
	clock.slept = func(n int) {
		// Each 2 s: partition 0 consumes 400 records while 100 more come
		// (its lag falls 150/s); partition 1 stays caught up.
		commit(int64(400*n), 300)
		produce(t, e, "orders", 0, 100)
	}
	e.run(`watch("lag('orders-app')", 2, {count = 3})`)

	blocks := strings.Split(strings.TrimSpace(e.stdout.String()), "\n\n")
	require.Len(t, blocks, 3, e.stdout.String())
	assert.Equal(t, `watch lag('orders-app')  every 2s  refresh 1  2026-12-01T10:00:00Z
orders-app  Empty  total lag 1000  ETA -  change -
  TOPIC   PARTITION  LAG   ETA  CHANGE  CONSUME/S  PRODUCE/S
  orders  0          1000  -    -       -          -          ##############################
  orders  1          0     0s   -       -          -`, blocks[0])
	assert.Equal(t, `watch lag('orders-app')  every 2s  refresh 2  2026-12-01T10:00:02Z
orders-app  Empty  total lag 700  ETA 5s  change -300  consume 200.0/s  produce 50.0/s
  TOPIC   PARTITION  LAG  ETA  CHANGE  CONSUME/S  PRODUCE/S
  orders  0          700  5s   -300    200.0      50.0       ##############################
  orders  1          0    0s   0       0.0        0.0`, blocks[1])
	assert.Equal(t, `watch lag('orders-app')  every 2s  refresh 3  2026-12-01T10:00:04Z
orders-app  Empty  total lag 400  ETA 3s  change -300  consume 200.0/s  produce 50.0/s
  TOPIC   PARTITION  LAG  ETA  CHANGE  CONSUME/S  PRODUCE/S
  orders  0          400  3s   -300    200.0      50.0       ##############################
  orders  1          0    0s   0       0.0        0.0`, blocks[2])

	// What the watch showed is the cluster's state, read by another client.
	lags, err := e.adm.Lag(e.ctx(), "orders-app")
	require.NoError(t, err)
	assert.Equal(t, int64(400), lags["orders-app"].Lag.Total())
}

// A refresh that fails with a Kafka error is shown with the last good
// result, and the watch goes on.
func TestWatchShowsAFailedRefreshAndGoesOn(t *testing.T) {
	e := newEnv(t)
	_, err := e.adm.CreateTopic(e.ctx(), 1, 1, nil, "orders")
	require.NoError(t, err)
	produce(t, e, "orders", 0, 10)
	resp, err := e.adm.CommitOffsets(e.ctx(), "orders-app", offsetsOf("orders", 0, 4))
	require.NoError(t, err)
	require.NoError(t, resp.Error())

	var failing atomic.Bool
	e.cluster.ControlKey(int16(kmsg.ListOffsets), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		e.cluster.KeepControl()
		if !failing.Load() {
			return nil, nil, false
		}
		req := kreq.(*kmsg.ListOffsetsRequest)
		resp := req.ResponseKind().(*kmsg.ListOffsetsResponse)
		for _, rt := range req.Topics {
			st := kmsg.NewListOffsetsResponseTopic()
			st.Topic = rt.Topic
			for _, rp := range rt.Partitions {
				sp := kmsg.NewListOffsetsResponseTopicPartition()
				sp.Partition, sp.ErrorCode = rp.Partition, kerr.TopicAuthorizationFailed.Code
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})
	clock := newFakeClock()
	e.rt.watchClock, e.rt.watchScreen = clock, pipedScreen
	clock.slept = func(n int) { failing.Store(n == 1) } // the second refresh fails
	e.run(`watch("lag('orders-app')", 2, {count = 3})`)

	blocks := strings.Split(strings.TrimSpace(e.stdout.String()), "\n\n")
	require.Len(t, blocks, 3, e.stdout.String())
	lines := strings.Split(blocks[1], "\n")
	assert.Contains(t, lines[1], "error: lag: ")
	assert.Contains(t, lines[1], "TOPIC_AUTHORIZATION_FAILED")
	assert.Equal(t, "last good refresh 1 at 2026-12-01T10:00:00Z:", lines[2])
	assert.Equal(t, "orders-app  Empty  total lag 6  ETA -  change -", lines[3])
	assert.Contains(t, blocks[2], "refresh 3")
	assert.Contains(t, blocks[2], "orders-app  Empty  total lag 6  ETA -  change 0  consume 0.0/s  produce 0.0/s",
		"the third refresh compares with the first, 4 s before (no commit in a window still filling: no ETA yet)")
}

// watch repeats reads only: a mutation inside it is refused before it is
// sent, and ends the watch.
func TestWatchRefusesMutations(t *testing.T) {
	e := newEnv(t)
	clock := newFakeClock()
	e.rt.watchClock, e.rt.watchScreen = clock, pipedScreen
	requests := countRequests(e.cluster)
	re := e.runErr(`watch("create_topics{'made-by-watch'}", 1)`)
	assert.Equal(t, "INVALID_ARGUMENT", re.Code)
	assert.Contains(t, re.Message, "create_topics: changes the cluster, and watch only repeats what reads it")
	assert.Zero(t, requests.Load(), "nothing was sent")
	assert.Empty(t, clock.sleeps)
	assert.NotContains(t, e.topics(), "made-by-watch")

	re = e.runErr(`watch(function() watch("1", 1) end, 1)`)
	assert.Contains(t, re.Message, "watch: a watch is running already")

	// After the watch, changes go through again.
	e.run(`create_topics{"made-after-watch"}`)
	assert.Contains(t, e.topics(), "made-after-watch")
}
