package engine

import (
	"context"
	"slices"
)

// ReplicasBefore is a partition's replicas before a reassignment call, and
// the reassignment already in progress on it, if any. Undo of
// alter_partition_reassignments moves the partition back to Original().
type ReplicasBefore struct {
	Topic     string  `json:"topic"`
	Partition int32   `json:"partition"`
	Replicas  []int32 `json:"replicas"`
	Adding    []int32 `json:"adding_replicas,omitempty"`
	Removing  []int32 `json:"removing_replicas,omitempty"`
	Missing   bool    `json:"missing,omitempty"` // no such partition
}

// Original is the partition's replica set before any reassignment in
// progress: the replicas without those being added.
func (r ReplicasBefore) Original() []int32 {
	return slices.DeleteFunc(slices.Clone(r.Replicas), func(b int32) bool { return slices.Contains(r.Adding, b) })
}

// replicasNow reads the partitions' replicas and reassignments in
// progress.
func (c *Client) replicasNow(ctx context.Context, parts []PartitionTarget) ([]ReplicasBefore, error) {
	var topics []string
	for _, p := range parts {
		topics = append(topics, p.Topic)
	}
	m, err := c.metadata(ctx, slices.Compact(slices.Sorted(slices.Values(topics))))
	if err != nil {
		return nil, err
	}
	moving, lerr := c.listReassignments(ctx, nil)
	if lerr != nil {
		return nil, lerr
	}
	out := make([]ReplicasBefore, 0, len(parts))
	for _, p := range parts {
		r := ReplicasBefore{Topic: p.Topic, Partition: p.Partition, Replicas: []int32{}}
		pd, ok := m.Topics[p.Topic].Partitions[p.Partition]
		if !ok {
			r.Missing = true
		} else {
			r.Replicas = orEmpty(pd.Replicas)
		}
		for _, mv := range moving {
			if mv.Topic == p.Topic && mv.Partition == p.Partition {
				r.Replicas, r.Adding, r.Removing = mv.Replicas, mv.AddingReplicas, mv.RemovingReplicas
			}
		}
		out = append(out, r)
	}
	return out, nil
}

func (c *Client) replicasBefore(ctx context.Context, parts []PartitionTarget) ([]ReplicasBefore, error) {
	return c.replicasNow(ctx, parts)
}
