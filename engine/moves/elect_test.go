package moves

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/internal/movesim"
)

// A move whose old leader stays among its replicas does not change the
// leader by itself (Kafka elects only when the leader leaves): the run
// elects the target's first replica once the move is done, for a
// leadership-only reorder (a drain's first step, a demote) as for a data
// move, and leaves leadership alone with NoElect.
func TestMovedPartitionsGetTheirPreferredLeader(t *testing.T) {
	for _, tc := range []struct {
		name    string
		noElect bool
	}{{"elected", false}, {"no_elect", true}} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, 4, 500)
			e.sim.Topic("t", [][]int32{{3, 0, 1}, {0, 1, 2}}, 1000)
			plan := []Move{
				{Topic: "t", Partition: 0, Current: []int32{3, 0, 1}, Target: []int32{0, 1, 3}}, // demote broker 3
				{Topic: "t", Partition: 1, Current: []int32{0, 1, 2}, Target: []int32{3, 0, 1}}, // 2 -> 3, 3 preferred
			}
			res, err := Execute(ctxFor(t), e.cl, plan, e.opts(Options{NoElect: tc.noElect}))
			require.NoError(t, err)
			for _, r := range res {
				assert.Equal(t, StateDone, r.State, "%s", r.Key())
			}

			md, err := e.adm.Metadata(context.Background(), "t")
			require.NoError(t, err)
			parts := md.Topics["t"].Partitions
			if tc.noElect {
				assert.Equal(t, int32(3), parts[0].Leader, "t[0]: leadership left as the reorder left it")
				assert.Equal(t, int32(0), parts[1].Leader, "t[1]: leadership left as the move left it")
				assert.Empty(t, e.sim.Elected())
				return
			}
			assert.Equal(t, int32(0), parts[0].Leader, "t[0]: broker 3 demoted")
			assert.Equal(t, int32(3), parts[1].Leader, "t[1]: its preferred leader leads")
			assert.ElementsMatch(t, []movesim.TP{{Topic: "t", Partition: 0}, {Topic: "t", Partition: 1}}, e.sim.Elected())
		})
	}
}

// A run that only reorders replicas (a demote, a drain's leadership step)
// copies nothing: it sets no replication throttle, though one is given,
// and writes no throttle change to the audit log.
func TestLeadershipOnlyRunSetsNoThrottle(t *testing.T) {
	e := newEnv(t, 4, 500)
	e.sim.Topic("t", [][]int32{{3, 0, 1}, {3, 1, 2}}, 1000)
	plan := []Move{
		{Topic: "t", Partition: 0, Current: []int32{3, 0, 1}, Target: []int32{0, 1, 3}},
		{Topic: "t", Partition: 1, Current: []int32{3, 1, 2}, Target: []int32{1, 2, 3}},
	}
	_, err := Execute(ctxFor(t), e.cl, plan, e.opts(Options{Throttle: Rates{All: 1 << 20}}))
	require.NoError(t, err)
	for _, ch := range e.changes(t) {
		assert.NotEqual(t, "alter_configs", ch.Intent.Op, "no throttle set or lifted")
	}
	assert.Empty(t, e.throttleRates(t))
}
