package state

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// row is one partition as lag read it: what engine's PartitionLag gives
// the store.
type row struct {
	topic               string
	partition           int32
	committed, end, lag int64
}

func readRow(r *row) Reading {
	return Reading{TP: vocab.TopicPartition{Topic: r.topic, Partition: r.partition},
		Committed: r.committed, End: r.end, Lag: r.lag, Known: r.end >= 0}
}

// record is Record of rows.
func (s *Store) record(clusterID, name string, nowMs int64, seen []Group[row], visit func(gi, pi int, w PartitionWindow)) error {
	return Record(s, clusterID, name, nowMs, seen, readRow, visit)
}

func lagRow(topic string, p int32, committed, end int64) row {
	lag := end - committed
	if committed < 0 {
		lag = end
	}
	return row{topic: topic, partition: p, committed: committed, end: end, lag: lag}
}

func recordOne(t *testing.T, s *Store, nowMs int64, group string, parts ...row) map[vocab.TopicPartition]PartitionWindow {
	t.Helper()
	w := map[vocab.TopicPartition]PartitionWindow{}
	err := s.record("cluster-a", "profile:a", nowMs, []Group[row]{{Name: group, Parts: parts}}, func(_, pi int, pw PartitionWindow) {
		pw.Samples = slices.Clone(pw.Samples)
		w[vocab.TopicPartition{Topic: parts[pi].topic, Partition: parts[pi].partition}] = pw
	})
	require.NoError(t, err)
	return w
}

func TestStateStoreStartsAfreshWhenTheEndOffsetGoesBackOrTheClockDoes(t *testing.T) {
	var warned []string
	s := New(Options{Warn: func(m string) { warned = append(warned, m) }})
	recordOne(t, s, 10_000, "g", lagRow("t", 0, 50, 100))
	recordOne(t, s, 20_000, "g", lagRow("t", 0, 60, 100))
	w := recordOne(t, s, 30_000, "g", lagRow("t", 0, 0, 5))
	assert.Len(t, w[vocab.TopicPartition{Topic: "t", Partition: 0}].Samples, 1)
	assert.Contains(t, w[vocab.TopicPartition{Topic: "t", Partition: 0}].Reset, "end offset went back from 100 to 5")

	w = recordOne(t, s, 5_000, "g", lagRow("t", 0, 1, 5))
	assert.Len(t, w[vocab.TopicPartition{Topic: "t", Partition: 0}].Samples, 1)
	assert.Equal(t, "the clock went backwards", w[vocab.TopicPartition{Topic: "t", Partition: 0}].Reset)
	require.Len(t, warned, 1)
	assert.Contains(t, warned[0], "clock went backwards")
}

func TestStateStoreDropsPartitionsGroupsAndExpiredEntries(t *testing.T) {
	var warned []string
	s := New(Options{ExpireAfter: time.Hour, MaxEntries: 4, Warn: func(m string) { warned = append(warned, m) }})
	recordOne(t, s, 1_000, "old", lagRow("t", 0, 1, 2), lagRow("t", 1, 1, 2))
	recordOne(t, s, 2_000, "g", lagRow("t", 0, 1, 2), lagRow("t", 1, 1, 2))
	// The partition count changed: t[1] is no longer the group's.
	recordOne(t, s, 3_000, "g", lagRow("t", 0, 1, 2), lagRow("u", 0, 1, 2))
	assert.Nil(t, s.Window("cluster-a", "g", "t", 1))
	assert.NotNil(t, s.Window("cluster-a", "g", "u", 0))

	// Past MaxEntries, the group sampled longest ago goes.
	recordOne(t, s, 4_000, "new", lagRow("t", 0, 1, 2))
	assert.Nil(t, s.Window("cluster-a", "old", "t", 0))
	assert.Equal(t, 3, s.Partitions())
	require.NotEmpty(t, warned)
	assert.Contains(t, warned[len(warned)-1], "dropped the 1 groups sampled longest ago")

	// A group unseen for ExpireAfter goes; a group gone from the cluster at once.
	recordOne(t, s, 3_000+time.Hour.Milliseconds()+1, "new", lagRow("t", 0, 1, 2))
	assert.Nil(t, s.Window("cluster-a", "g", "t", 0))
	err := s.record("cluster-a", "profile:a", 3_000+time.Hour.Milliseconds()+2, []Group[row]{{Name: "new", Gone: true}}, nil)
	require.NoError(t, err)
	assert.Equal(t, 0, s.Partitions())
}

func TestStateStoreRefusesAnotherClusterUnderTheSameName(t *testing.T) {
	s := New(Options{})
	recordOne(t, s, 1_000, "g", lagRow("t", 0, 1, 2))
	err := s.record("cluster-b", "profile:a", 2_000, []Group[row]{{Name: "g", Parts: []row{lagRow("t", 0, 1, 2)}}}, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `holds cluster cluster-a as "profile:a", but "profile:a" is now cluster cluster-b`)
	// Another name: a fleet's second cluster, kept apart.
	err = s.record("cluster-b", "profile:b", 2_000, []Group[row]{{Name: "g", Parts: []row{lagRow("t", 0, 7, 9)}}}, nil)
	require.NoError(t, err)
	assert.Equal(t, int64(1), s.Window("cluster-a", "g", "t", 0)[0].Committed)
	assert.Equal(t, int64(7), s.Window("cluster-b", "g", "t", 0)[0].Committed)
}
