package engine

import (
	"time"

	"github.com/kadmin-lua/kadmin-lua/engine/state"
)

// What lag_status hands the state store (engine/state), which knows
// nothing of this package's lag results: a group's partitions as lag read
// them, and how to read each.

// lagGroup is what lag_status read of one group.
type lagGroup = state.Group[PartitionLag]

// lagReading is what the store records of one partition's lag.
func lagReading(p *PartitionLag) state.Reading {
	return state.Reading{TP: TopicPartition{Topic: p.Topic, Partition: p.Partition},
		Committed: p.Committed, End: p.EndOffset, Lag: p.Lag, Known: p.Err == nil && p.EndOffset >= 0}
}

// stateName is what a config calls its cluster in the store.
func stateName(c Config) string { return state.Name(c.Profile, c.Brokers) }

// RecordLag adds one sample of lag's partitions at now to s, as lag_status
// does (for tools and benchmarks that fill a store).
func RecordLag(s *state.Store, clusterID, name string, now time.Time, lags []GroupLag) error {
	seen := make([]lagGroup, 0, len(lags))
	for _, g := range lags {
		if g.Err == nil {
			seen = append(seen, lagGroup{Name: g.Group, Parts: g.Partitions})
		}
	}
	return state.Record(s, clusterID, name, now.UnixMilli(), seen, lagReading, nil)
}
