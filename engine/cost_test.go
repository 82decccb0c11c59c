package engine

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// countAnswered counts the requests of one key the cluster answered.
func countAnswered(c *kfake.Cluster, key kmsg.Key) *atomic.Int64 {
	var n atomic.Int64
	c.ControlKey(int16(key), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		n.Add(1)
		return nil, nil, false
	})
	return &n
}

// A client counts every request it sends by Kafka API, as the cluster
// sees them, with the bytes both ways, and the time of each phase of a
// paged read, once a page.
func TestCostCountsRequestsByAPIAndPhases(t *testing.T) {
	cl, c, adm := newTestClient(t)
	seedLag(t, c, adm, 5)
	fetches, lists, describes := countAnswered(c, kmsg.OffsetFetch), countAnswered(c, kmsg.ListOffsets), countAnswered(c, kmsg.DescribeGroups)
	before := cl.Cost()
	_, err := cl.LagSummary(context.Background(), nil, LagOptions{Page: 2})
	require.NoError(t, err)
	cost := cl.Cost().Sub(before)

	assert.Equal(t, fetches.Load(), cost.APIs["OffsetFetch"].Requests)
	assert.Equal(t, lists.Load(), cost.APIs["ListOffsets"].Requests)
	assert.Equal(t, describes.Load(), cost.APIs["DescribeGroups"].Requests)
	for _, api := range []string{"OffsetFetch", "ListOffsets", "DescribeGroups", "ListGroups"} {
		a := cost.APIs[api]
		assert.Positive(t, a.Requests, api)
		assert.Positive(t, a.BytesWritten, api)
		assert.Positive(t, a.BytesRead, api)
		assert.Positive(t, a.Time, api)
	}
	assert.Equal(t, cost.Requests(), func() int64 {
		var n int64
		for _, a := range cost.APIs {
			n += a.Requests
		}
		return n
	}())
	// Five groups in pages of two: three pages, one listing.
	assert.Equal(t, int64(1), cost.Phases[PhaseListGroups].Times)
	for _, p := range []string{PhaseDescribeGroups, PhaseFetchOffsets, PhaseListOffsets} {
		assert.Equal(t, int64(3), cost.Phases[p].Times, p)
		assert.Positive(t, cost.Phases[p].Time, p)
	}
	assert.NotContains(t, cost.Phases, PhaseJudge, "no lag_status in this read")

	st, err := cl.LagStatus(context.Background(), nil, LagStatusOptions{Lag: LagOptions{Page: 2}, Summary: true})
	require.NoError(t, err)
	require.Len(t, st, 5)
	assert.Equal(t, int64(3), cl.Cost().Sub(before).Phases[PhaseJudge].Times)

	// Sub and Add undo each other.
	assert.Equal(t, cl.Cost().Sub(before).Requests()+before.Requests(), cl.Cost().Requests())
	assert.Equal(t, before.Add(cost).APIs["OffsetFetch"].Requests, before.APIs["OffsetFetch"].Requests+cost.APIs["OffsetFetch"].Requests)
}
