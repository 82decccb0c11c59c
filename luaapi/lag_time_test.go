package luaapi

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// lag{time=true} from Lua: the fields a script reads, from records with
// known timestamps; records_lost after delete_records under a commit.
func TestLagInTimeFromLua(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	_, err := e.adm.CreateTopics(ctx, 2, 1, nil, "lt")
	require.NoError(t, err)
	kc, err := kgo.NewClient(kgo.SeedBrokers(e.cluster.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, err)
	defer kc.Close()
	old := time.Now().Add(-10 * time.Minute).Truncate(time.Millisecond)
	for i, p := range []int32{0, 0, 0, 1} {
		ts := old.Add(time.Duration(i) * time.Minute)
		require.NoError(t, kc.ProduceSync(ctx, &kgo.Record{Topic: "lt", Partition: p, Value: []byte("v"), Timestamp: ts}).FirstErr())
	}
	offs := kadm.Offsets{}
	offs.Add(kadm.Offset{Topic: "lt", Partition: 0, At: 1, LeaderEpoch: -1})
	offs.Add(kadm.Offset{Topic: "lt", Partition: 1, At: 0, LeaderEpoch: -1})
	_, err = e.adm.CommitOffsets(ctx, "g", offs)
	require.NoError(t, err)

	v := e.json(`
		local g = lag("g", {time = true, at_risk = 0.5})[1]
		local p0, p1 = g.partitions[1], g.partitions[2]
		return {oldest = p0.oldest_unconsumed, behind = p0.behind_head_ms, type = p0.timestamp_type,
			lag_ms = p0.lag_ms, max = g.max_lag_ms, p1 = p1.oldest_unconsumed}`)
	var got struct {
		Oldest int64  `json:"oldest"`
		Behind int64  `json:"behind"`
		LagMs  int64  `json:"lag_ms"`
		Max    int64  `json:"max"`
		P1     int64  `json:"p1"`
		Type   string `json:"type"`
	}
	require.NoError(t, json.Unmarshal([]byte(v), &got), v)
	assert.Equal(t, old.Add(time.Minute).UnixMilli(), got.Oldest)
	assert.Equal(t, int64(60_000), got.Behind)
	assert.Equal(t, "CreateTime", got.Type)
	assert.InDelta(t, 9*time.Minute.Milliseconds(), got.LagMs, float64(time.Minute.Milliseconds()))
	assert.Equal(t, got.LagMs, got.Max)
	assert.Equal(t, old.Add(3*time.Minute).UnixMilli(), got.P1)

	e.run(`delete_records{{topic = "lt", partition = 0, offset = 3}}`)
	lost := e.run(`return lag("g")[1].records_lost`)
	assert.Equal(t, "2", lost.String())
	re := e.runErr(`lag("g", {time = true, at_risk = 2})`)
	assert.Contains(t, re.Message, "at_risk: must be a finite number between 0.01 and 1, got 2")
}

// list_offsets with one time per partition: each partition at its own
// time; refused shapes name the argument.
func TestListOffsetsPerPartitionTimes(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	_, err := e.adm.CreateTopics(ctx, 2, 1, nil, "pt")
	require.NoError(t, err)
	kc, err := kgo.NewClient(kgo.SeedBrokers(e.cluster.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, err)
	defer kc.Close()
	base := time.UnixMilli(1_780_000_000_000)
	for i, p := range []int32{0, 0, 0, 1, 1} {
		require.NoError(t, kc.ProduceSync(ctx, &kgo.Record{Topic: "pt", Partition: p, Value: []byte("v"), Timestamp: base.Add(time.Duration(i) * time.Second)}).FirstErr())
	}
	got := e.json(`
		local r = list_offsets{pt = {[0] = 1780000001500, [1] = 1780000004000}}
		return {r[1].partition, r[1].offset, r[2].partition, r[2].offset}`)
	assert.JSONEq(t, `[0, 2, 1, 1]`, got, "p0's first record at or after +1.5 s is offset 2; p1's at +4 s is its second")
	// A read's failed batch says what succeeded, not what was "applied".
	re := e.runErr(`list_offsets{pt = {[0] = 1780000001500}, nope = {[0] = 1}}`)
	assert.Contains(t, re.Message, "(1 of 2 failed: nope[0]; succeeded: pt[0])")
	for src, want := range map[string]string{
		`list_offsets({pt = {[0] = 1}}, "latest")`: "list_offsets: at: is not given with per-partition times",
		`list_offsets{pt = {[0] = -1}}`:            "list_offsets: topics: pt[0]: must be a timestamp in ms",
		`list_offsets{pt = {}}`:                    "list_offsets: topics: pt: names no partition",
		`list_offsets{pt = 5}`:                     "list_offsets: topics: pt: must be a table {[partition] = timestamp in ms}, got 5",
	} {
		re := e.runErr(src)
		assert.Equal(t, "INVALID_ARGUMENT", re.Code, src)
		assert.Contains(t, re.Message, want, src)
	}
}

// only_lagging, sort and top: the worst first, the totals whole.
func TestLagOnlyLaggingSortedTop(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	_, err := e.adm.CreateTopics(ctx, 3, 1, nil, "w")
	require.NoError(t, err)
	kc, err := kgo.NewClient(kgo.SeedBrokers(e.cluster.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, err)
	defer kc.Close()
	for p, n := range []int{2, 5, 3} {
		for range n {
			require.NoError(t, kc.ProduceSync(ctx, &kgo.Record{Topic: "w", Partition: int32(p), Value: []byte("v")}).FirstErr())
		}
	}
	for g, at := range map[string]map[int32]int64{"small": {0: 2, 1: 4, 2: 3}, "big": {0: 0, 1: 1, 2: 3}} {
		offs := kadm.Offsets{}
		for p, o := range at {
			offs.Add(kadm.Offset{Topic: "w", Partition: p, At: o, LeaderEpoch: -1})
		}
		_, err := e.adm.CommitOffsets(ctx, g, offs)
		require.NoError(t, err)
	}
	got := e.json(`
		local out = {}
		for _, g in ipairs(lag({"small", "big"}, {only_lagging = true, sort = "lag", top = 1})) do
			out[#out + 1] = {g.group, g.total_lag, #g.partitions, g.partitions[1].partition, g.partitions[1].lag}
		end
		return out`)
	assert.JSONEq(t, `[["big", 6, 1, 1, 4], ["small", 1, 1, 1, 1]]`, got, "big first; each its worst partition; totals whole")
	re := e.runErr(`lag(nil, {sort = "lag_ms"})`)
	assert.Contains(t, re.Message, "sort by lag_ms needs the lag in time (time=true)")
	re = e.runErr(`lag(nil, {sort = "size"})`)
	assert.Equal(t, "INVALID_ARGUMENT", re.Code)
}
