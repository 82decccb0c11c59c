package engine

import (
	"context"
	"errors"
	"net"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// sickMetadata answers the next n all-topics Metadata requests with a
// cluster of the real brokers whose topic "orders" has partition 0
// under-replicated and partition 1 offline; then the real answer.
func sickMetadata(t *testing.T, cl interface {
	ListenAddrs() []string
	KeepControl()
	ControlKey(int16, func(kmsg.Request) (kmsg.Response, error, bool))
}, n int32) *atomic.Int32 {
	var seen atomic.Int32
	cl.ControlKey(int16(kmsg.Metadata), func(req kmsg.Request) (kmsg.Response, error, bool) {
		cl.KeepControl()
		m := req.(*kmsg.MetadataRequest)
		if m.Topics != nil || seen.Add(1) > n {
			return nil, nil, false
		}
		resp := m.ResponseKind().(*kmsg.MetadataResponse)
		resp.Brokers = metadataBrokers(cl.ListenAddrs())
		rt := kmsg.NewMetadataResponseTopic()
		rt.Topic = kmsg.StringPtr("orders")
		for p, leader := range []int32{0, -1} {
			rp := kmsg.NewMetadataResponseTopicPartition()
			rp.Partition, rp.Leader, rp.Replicas, rp.ISR = int32(p), leader, []int32{0, 1, 2}, []int32{0}
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
		return resp, nil, true
	})
	return &seen
}

// metadataBrokers is a Metadata answer's brokers: node i at addrs[i].
func metadataBrokers(addrs []string) []kmsg.MetadataResponseBroker {
	var out []kmsg.MetadataResponseBroker
	for i, addr := range addrs {
		host, port, _ := net.SplitHostPort(addr)
		p, _ := strconv.Atoi(port)
		out = append(out, kmsg.MetadataResponseBroker{NodeID: int32(i), Host: host, Port: int32(p)})
	}
	return out
}

func TestWaitReadyWaitsForReplicasAndBrokers(t *testing.T) {
	cl, c, _ := newTestClient(t)
	seen := sickMetadata(t, c, 3)
	r, err := cl.WaitReady(context.Background(), ReadyOptions{Brokers: 3, Timeout: 30 * time.Second, Interval: time.Millisecond})
	require.NoError(t, err)
	assert.GreaterOrEqual(t, seen.Load(), int32(4), "it looked until the partitions were in sync")
	assert.Equal(t, 3, r.Brokers)
	assert.Empty(t, r.UnderReplicated)
	assert.Empty(t, r.Offline)
}

func TestWaitReadyTimesOutSayingWhatIsMissing(t *testing.T) {
	cl, c, _ := newTestClient(t)
	sickMetadata(t, c, 1<<30)
	// Long enough for the first answer on a loaded machine (100 ms once
	// timed out before any: "it could not be asked").
	_, err := cl.WaitReady(context.Background(), ReadyOptions{Brokers: 4, Timeout: 2 * time.Second, Interval: 20 * time.Millisecond})
	var e *Error
	require.True(t, errors.As(err, &e), "%v", err)
	assert.Equal(t, CodeTimeout, e.Code)
	assert.Equal(t, "the cluster was not ready after 2s: 3 of 4 brokers live; 1 partitions offline (orders[1]); 1 partitions under-replicated (orders[0])", e.Message)
}

func TestWaitReadyWaitsForAClusterStillStarting(t *testing.T) {
	cfg := Config{Brokers: []string{closedAddr(t)}, Timeout: time.Second}
	cl, err := New(cfg)
	require.NoError(t, err)
	defer cl.Close()
	began := time.Now()
	_, err = cl.WaitReady(context.Background(), ReadyOptions{Timeout: 300 * time.Millisecond, Interval: 10 * time.Millisecond})
	var e *Error
	require.True(t, errors.As(err, &e), "%v", err)
	assert.Equal(t, CodeTimeout, e.Code, "unreachable is waited for, up to the timeout: %v", err)
	assert.Contains(t, e.Message, "the cluster was not ready after 300ms: it could not be asked (")
	assert.GreaterOrEqual(t, time.Since(began), 300*time.Millisecond)
}

// A look still in flight when the wait's time is up (a broker slow to
// answer Metadata) ends with the wait: the error says what the last answer
// saw, not that the cluster could not be asked. The look's own deadline is
// the wait's, and its timer and the wait's fire at the same instant, in
// either order: several waits, so that both orders come.
func TestWaitReadyEndingDuringALookSaysTheLastAnswer(t *testing.T) {
	for range 10 {
		cl, c, _ := newTestClient(t)
		_, err := cl.ClusterID(context.Background()) // connected: the first look is the wait's
		require.NoError(t, err)
		release := make(chan struct{})
		var looks atomic.Int32
		c.ControlKey(int16(kmsg.Metadata), func(req kmsg.Request) (kmsg.Response, error, bool) {
			c.KeepControl()
			if looks.Add(1) > 1 {
				c.SleepControl(func() { <-release }) // every look after the first hangs
			}
			return nil, nil, false
		})
		_, err = cl.WaitReady(context.Background(), ReadyOptions{Brokers: 4, Timeout: 50 * time.Millisecond, Interval: time.Millisecond})
		close(release)
		var e *Error
		require.True(t, errors.As(err, &e), "%v", err)
		assert.Equal(t, CodeTimeout, e.Code)
		require.Equal(t, "the cluster was not ready after 50ms: 3 of 4 brokers live", e.Message)
	}
}

// A topic whose metadata is an error (LEADER_NOT_AVAILABLE: still being
// made) is not ready: its partitions are not known to have leaders. It
// used to be skipped, and a provisioning Job went on against it.
func TestWaitReadyWaitsForATopicWithoutLeaders(t *testing.T) {
	cl, c, _ := newTestClient(t)
	var seen atomic.Int32
	c.ControlKey(int16(kmsg.Metadata), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		m := req.(*kmsg.MetadataRequest)
		if m.Topics != nil || seen.Add(1) > 2 {
			return nil, nil, false
		}
		resp := m.ResponseKind().(*kmsg.MetadataResponse)
		resp.Brokers = metadataBrokers(c.ListenAddrs())
		rt := kmsg.NewMetadataResponseTopic()
		rt.Topic, rt.ErrorCode = kmsg.StringPtr("new-topic"), 5 // LEADER_NOT_AVAILABLE
		resp.Topics = append(resp.Topics, rt)
		return resp, nil, true
	})
	r, err := cl.WaitReady(context.Background(), ReadyOptions{Brokers: 3, Timeout: 30 * time.Second, Interval: time.Millisecond})
	require.NoError(t, err)
	assert.GreaterOrEqual(t, seen.Load(), int32(3), "it looked until the topic had leaders")
	assert.Empty(t, r.Offline)

	seen.Store(-1 << 30)
	_, err = cl.WaitReady(context.Background(), ReadyOptions{Brokers: 3, Timeout: 500 * time.Millisecond, Interval: 20 * time.Millisecond})
	var e *Error
	require.True(t, errors.As(err, &e), "%v", err)
	assert.Contains(t, e.Message, "1 partitions offline (new-topic: LEADER_NOT_AVAILABLE)")
}
