package engine

import (
	"context"
	"math"
	"slices"
)

// ReassignBytes is how far the moving replicas of reassignments have
// copied: for each replica being added, its size against its source's
// (the partition's leader replica, or the largest replica not being
// added), and for each future replica (a move between log dirs) its size
// against the replica it replaces. Copied is capped at each source's size.
type ReassignBytes struct {
	Copied  int64   `json:"copied_bytes"`
	Total   int64   `json:"total_bytes"`
	Percent float64 `json:"percent"`
}

// replicaAt is one replica of a partition: on which broker.
type replicaAt struct {
	tp     TopicPartition
	broker int32
}

// measuredReplicas are the sizes DescribeLogDirs reports for the replicas
// on brokers of the topics: current ones, and future ones (moving between
// log dirs).
type measuredReplicas struct{ current, future map[replicaAt]int64 }

// measureReplicas asks brokers' log dirs for the topics' replicas. ok is
// false when the log dirs could not be asked.
func (c *Client) measureReplicas(ctx context.Context, topics []string, brokers []int32) (measuredReplicas, bool) {
	m := measuredReplicas{current: map[replicaAt]int64{}, future: map[replicaAt]int64{}}
	dirs, err := c.DescribeLogDirs(ctx, LogDirsQuery{Brokers: brokers, Topics: slices.Compact(slices.Sorted(slices.Values(topics)))})
	if err != nil {
		return m, false
	}
	for _, d := range dirs {
		for _, p := range d.Partitions {
			k := replicaAt{TopicPartition{Topic: p.Topic, Partition: p.Partition}, d.Broker}
			if p.IsFuture {
				m.future[k] = p.Size
			} else {
				m.current[k] = p.Size
			}
		}
	}
	return m, true
}

// copied is how far r's moving replicas have copied, by the measures.
func (m measuredReplicas) copied(r Reassignment) ReassignBytes {
	var out ReassignBytes
	tp := TopicPartition{Topic: r.Topic, Partition: r.Partition}
	var source int64
	for _, b := range r.Replicas {
		if !slices.Contains(r.AddingReplicas, b) {
			source = max(source, m.current[replicaAt{tp, b}])
		}
	}
	for _, b := range r.AddingReplicas {
		out.Total += source
		out.Copied += min(m.current[replicaAt{tp, b}], source)
	}
	for _, b := range r.Replicas {
		if f, ok := m.future[replicaAt{tp, b}]; ok {
			out.Total += m.current[replicaAt{tp, b}]
			out.Copied += min(f, m.current[replicaAt{tp, b}])
		}
	}
	return out
}

// brokersOf are the brokers holding or receiving moving's replicas.
func brokersOf(moving []Reassignment) []int32 {
	var out []int32
	for _, r := range moving {
		out = append(out, r.Replicas...)
	}
	return slices.Compact(slices.Sorted(slices.Values(out)))
}

func topicsOf(moving []Reassignment) []string {
	out := make([]string, len(moving))
	for i, r := range moving {
		out[i] = r.Topic
	}
	return out
}

// reassignBytes measures moving's replicas from the log dirs. ok is false
// when nothing could be measured (no log dirs answered, or no size to
// copy).
func (c *Client) reassignBytes(ctx context.Context, moving []Reassignment) (ReassignBytes, bool) {
	var out ReassignBytes
	if len(moving) == 0 {
		return out, false
	}
	m, ok := c.measureReplicas(ctx, topicsOf(moving), brokersOf(moving))
	if !ok {
		return out, false
	}
	for _, r := range moving {
		b := m.copied(r)
		out.Total += b.Total
		out.Copied += b.Copied
	}
	if out.Total == 0 {
		return out, false
	}
	out.Percent = math.Round(float64(out.Copied)/float64(out.Total)*1000) / 10
	return out, true
}

// ReassignCopied is reassignBytes per partition (Percent left out): how
// far each of moving's replicas being added has copied. ok is false when
// the log dirs could not be asked.
func (c *Client) ReassignCopied(ctx context.Context, moving []Reassignment) (map[TopicPartition]ReassignBytes, bool) {
	out := make(map[TopicPartition]ReassignBytes, len(moving))
	if len(moving) == 0 {
		return out, true
	}
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	m, ok := c.measureReplicas(ctx, topicsOf(moving), brokersOf(moving))
	if !ok {
		return nil, false
	}
	for _, r := range moving {
		out[TopicPartition{Topic: r.Topic, Partition: r.Partition}] = m.copied(r)
	}
	return out, true
}

// PartitionBytes is the size of each partition of topics: its largest
// replica on brokers, as their log dirs report it (a partition no broker
// reports is left out). It is what a move copies to each broker a replica
// joins. ok is false when the log dirs could not be asked.
func (c *Client) PartitionBytes(ctx context.Context, topics []string, brokers []int32) (map[TopicPartition]int64, bool) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	m, ok := c.measureReplicas(ctx, topics, brokers)
	if !ok {
		return nil, false
	}
	out := map[TopicPartition]int64{}
	for k, size := range m.current {
		out[k.tp] = max(out[k.tp], size)
	}
	return out, true
}
