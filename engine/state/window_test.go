package state

import (
	"encoding/binary"
	"hash/crc32"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

func sampleTimes(w []Sample) []int64 {
	out := make([]int64, len(w))
	for i, s := range w {
		out[i] = s.TimeMs
	}
	return out
}

// The window is a span of time: the samples within it and the newest one
// before it, which opens it. From a loop every 10 s that is six samples;
// from cron, a minute apart, the run before and this one (it used to be
// the last ten runs: 50 minutes from */5).
func TestStateStoreKeepsTheWindowInTime(t *testing.T) {
	s := New(Options{})
	for i := range int64(11) {
		recordOne(t, s, 10_000*i, "g", lagRow("orders", 0, 100*i, 1000+100*i))
	}
	assert.Equal(t, []int64{50_000, 60_000, 70_000, 80_000, 90_000, 100_000}, sampleTimes(s.Window("cluster-a", "g", "orders", 0)))

	cron := New(Options{})
	for i := range int64(5) {
		recordOne(t, cron, 60_000*i, "g", lagRow("orders", 0, 100*i, 1000+100*i))
	}
	assert.Equal(t, []int64{180_000, 240_000}, sampleTimes(cron.Window("cluster-a", "g", "orders", 0)))

	long := New(Options{Window: 10 * time.Minute})
	for i := range int64(15) {
		recordOne(t, long, 60_000*i, "g", lagRow("orders", 0, 100*i, 1000+100*i))
	}
	assert.Len(t, long.Window("cluster-a", "g", "orders", 0), 11, "ten minutes and the run that opens them")
}

// A loop faster than MaxSamples allows over the window keeps its span and
// thins it: samples Window/(MaxSamples-2) apart.
func TestStateStoreThinsAFastLoopsWindow(t *testing.T) {
	s := New(Options{MaxSamples: 6})
	for i := range int64(101) {
		recordOne(t, s, 1_000*i, "g", lagRow("t", 0, i, 200))
	}
	w := s.Window("cluster-a", "g", "t", 0)
	require.LessOrEqual(t, len(w), 6)
	assert.Equal(t, int64(100), w[len(w)-1].Committed, "the newest holds this run's figures")
	assert.LessOrEqual(t, w[0].TimeMs, int64(100_000-45_000), "the window still spans 45 s")
	for i := 1; i < len(w); i++ {
		assert.GreaterOrEqual(t, w[i].TimeMs-w[i-1].TimeMs, int64(45_000/4), "%v", sampleTimes(w))
	}
}

// A loop faster than the minimum distance still fills its window: a sample
// too close to the newest is merged into it, which keeps its time (it took
// the new time, and the window never grew past one sample). When the
// offset was first seen at its value, and how long the one before stood
// still, are kept whatever was merged.
func TestStateStoreMinDistanceKeepsAFastLoopsWindowGrowing(t *testing.T) {
	s := New(Options{MinDistance: time.Second})
	var w map[vocab.TopicPartition]PartitionWindow
	for at := int64(1_000); at <= 5_000; at += 400 {
		committed := int64(1)
		if at >= 1_400 {
			committed = 2
		}
		w = recordOne(t, s, at, "g", lagRow("t", 0, committed, 10))
	}
	pw := w[vocab.TopicPartition{Topic: "t", Partition: 0}]
	assert.Equal(t, []int64{1_000, 2_200, 3_400, 4_600}, sampleTimes(pw.Samples))
	assert.Equal(t, int64(8), pw.Samples[3].Lag, "the figures of the run at 5 s")
	assert.Equal(t, int64(1_400), pw.ChangedMs, "the offset was first seen at 2 at 1.4 s")
	assert.Equal(t, int64(400), pw.PauseMs, "it had been seen at 1 from 1 s")
}

// The pause is kept beyond the window: from cron the window holds two
// samples, and the store still knows the consumer moves every other run.
func TestStateStoreRemembersThePauseBeyondTheWindow(t *testing.T) {
	s := New(Options{})
	offsets := []int64{10, 10, 20, 20, 30, 30}
	var pw PartitionWindow
	for i, o := range offsets {
		pw = recordOne(t, s, 60_000*int64(i), "g", lagRow("t", 0, o, 100))[vocab.TopicPartition{Topic: "t", Partition: 0}]
	}
	assert.Len(t, pw.Samples, 2)
	assert.Equal(t, int64(4*60_000), pw.ChangedMs)
	assert.Equal(t, int64(2*60_000), pw.PauseMs)
}

// A version 1 file (no pause) is read; the next save writes version 2.
func TestStateFileReadsVersion1(t *testing.T) {
	b := []byte(stateMagic)
	b = binary.AppendUvarint(b, 1)
	start := len(b)
	str := func(s string) { b = binary.AppendUvarint(b, uint64(len(s))); b = append(b, s...) }
	b = binary.AppendUvarint(b, 1) // clusters
	str("c")
	str("n")
	b = binary.AppendUvarint(b, 1) // groups
	str("g")
	b = binary.AppendVarint(b, 5)
	b = binary.AppendUvarint(b, 1) // topics
	str("t")
	b = binary.AppendUvarint(b, 1) // partitions
	b = binary.AppendVarint(b, 0)  // partition
	b = binary.AppendVarint(b, 5)  // changed
	b = binary.AppendUvarint(b, 1) // samples
	for _, v := range []int64{5, 1, 2, 1} {
		b = binary.AppendVarint(b, v)
	}
	b = binary.AppendUvarint(b, 0) // notices
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[start:]))

	clusters, _, err := decodeState(b)
	require.NoError(t, err)
	var u unpacked
	require.NoError(t, u.unpack(clusters["c"].groups["g"].packed, stateVersion), "kept as version 2")
	st := u.find(vocab.TopicPartition{Topic: "t", Partition: 0})
	require.NotNil(t, st)
	assert.Equal(t, []Sample{{5, 1, 2, 1}}, st.samples)
	assert.Equal(t, int64(5), st.changedMs)
	assert.Zero(t, st.pauseMs)
	again := encodeState(clusters, nil)
	assert.Equal(t, byte(stateVersion), again[len(stateMagic)])
}

// A full window unpacked (decoded with room for one sample more) takes
// the next run's sample in place: the oldest goes, nothing is moved to a
// larger array (which, at 2.6 million partitions, was most of
// lag_status's peak memory), and the window is the one appending gave. A
// window that grows grows in place too.
func TestStateStoreFullDecodedWindowTakesASampleInPlace(t *testing.T) {
	for _, o := range []Options{{Window: 8 * time.Minute, MaxSamples: 10}, {Window: 5 * time.Minute}, {Window: time.Hour}} {
		s := New(o)
		for i := range int64(10) {
			recordOne(t, s, 60_000*i, "g", lagRow("orders", 0, 100*i, 1000+100*i))
		}
		before := sampleTimes(s.Window("cluster-a", "g", "orders", 0))
		var u unpacked
		require.NoError(t, u.unpack(s.clusters["cluster-a"].groups["g"].packed, stateVersion))
		ps := &u.find(vocab.TopicPartition{Topic: "orders"}).storedPartition
		require.Equal(t, len(ps.samples)+1, cap(ps.samples), "decoded with room for one sample more")
		room, first := cap(ps.samples), &ps.samples[0]

		s.add(ps, Sample{TimeMs: 600_000, Committed: 1000, End: 2000, Lag: 1000})
		assert.Equal(t, room, cap(ps.samples), "not moved to a larger array")
		assert.Same(t, first, &ps.samples[0])
		want := append(before[1:], 600_000)
		if o.Window == time.Hour {
			want = append(before, 600_000) // the window grows
		}
		assert.Equal(t, want, sampleTimes(ps.samples))

		recordOne(t, s, 600_000, "g", lagRow("orders", 0, 1000, 2000))
		assert.Equal(t, want, sampleTimes(s.Window("cluster-a", "g", "orders", 0)), "what a record keeps")
	}
}
