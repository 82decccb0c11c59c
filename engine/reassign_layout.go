package engine

import (
	"context"
	"slices"
)

// ReplicaLayout is where the partitions of some topics are, as a paced
// reassignment (engine/moves) sees the cluster at each step: the
// reassignments in progress, then the partitions' replicas and the live
// brokers. The listing is read first: a move it no longer lists has
// finished or was cancelled, and the Metadata read after it shows which.
type ReplicaLayout struct {
	// Brokers are the live brokers (Metadata lists neither fenced nor
	// stopped ones), each with its rack ("" for none).
	Brokers map[int32]string
	// Partitions are the topics' partitions; a topic that could not be
	// described has none, and its error in Topics.
	Partitions map[TopicPartition]PartitionNow
	Topics     map[string]*Error
	// Moving is every reassignment in progress in the cluster, of these
	// topics or not: the caps count them all.
	Moving map[TopicPartition]Reassignment
}

// PartitionNow is one partition as Metadata shows it.
type PartitionNow struct {
	Replicas []int32
	ISR      []int32
	Offline  []int32
	Leader   int32 // -1: none
}

// LayoutOf reads the ReplicaLayout of topics: one ListPartitionReassignments
// and one Metadata request.
func (c *Client) LayoutOf(ctx context.Context, topics []string) (ReplicaLayout, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	moving, err := c.listReassignments(ctx, nil)
	if err != nil {
		return ReplicaLayout{}, err
	}
	m, merr := c.metadata(ctx, slices.Compact(slices.Sorted(slices.Values(topics))))
	if merr != nil {
		return ReplicaLayout{}, merr
	}
	l := ReplicaLayout{Brokers: make(map[int32]string, len(m.Brokers)), Partitions: map[TopicPartition]PartitionNow{},
		Topics: map[string]*Error{}, Moving: make(map[TopicPartition]Reassignment, len(moving))}
	for _, r := range moving {
		l.Moving[TopicPartition{Topic: r.Topic, Partition: r.Partition}] = r
	}
	for _, b := range m.Brokers {
		rack := ""
		if b.Rack != nil {
			rack = *b.Rack
		}
		l.Brokers[b.NodeID] = rack
	}
	for _, t := range topics {
		td, ok := m.Topics[t]
		switch {
		case !ok:
			l.Topics[t] = Errorf("UNKNOWN_TOPIC_OR_PARTITION", t, "no such topic")
			continue
		case td.Err != nil:
			l.Topics[t] = AsError(td.Err, t)
			continue
		}
		l.Topics[t] = nil
		for p, pd := range td.Partitions {
			l.Partitions[TopicPartition{Topic: t, Partition: p}] = PartitionNow{Replicas: orEmpty(pd.Replicas),
				ISR: orEmpty(pd.ISR), Offline: orEmpty(pd.OfflineReplicas), Leader: pd.Leader}
		}
	}
	return l, nil
}

// BrokerStates are the registered brokers' states (BrokerLive or
// BrokerFenced; a broker not listed is not registered), from one
// DescribeCluster request: what a paced reassignment says of a target
// broker Metadata does not list.
func (c *Client) BrokerStates(ctx context.Context) (map[int32]string, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	cl, _, err := c.registeredBrokers(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[int32]string, len(cl.Brokers))
	for _, b := range cl.Brokers {
		out[b.ID] = b.State
	}
	return out, nil
}
