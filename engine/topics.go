package engine

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
)

// TopicSummary is one row of ListTopics.
type TopicSummary struct {
	Name              string `json:"name"`
	ID                string `json:"id"`
	Partitions        int    `json:"partitions"`
	ReplicationFactor int    `json:"replication_factor"`
	Internal          bool   `json:"internal"`
}

// ListTopicsOptions filter ListTopics.
type ListTopicsOptions struct {
	Internal bool           // include internal topics (__consumer_offsets, ...)
	Match    *regexp.Regexp // keep only names matching (RE2)
}

// ListTopics lists topics sorted by name.
func (c *Client) ListTopics(ctx context.Context, o ListTopicsOptions) ([]TopicSummary, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	m, err := c.metadata(ctx, nil)
	if err != nil {
		return nil, err
	}
	out := []TopicSummary{}
	for _, name := range slices.Sorted(maps.Keys(m.Topics)) {
		t := m.Topics[name]
		if (t.IsInternal && !o.Internal) || (o.Match != nil && !o.Match.MatchString(name)) {
			continue
		}
		rf := 0
		if p, ok := t.Partitions[0]; ok {
			rf = len(p.Replicas)
		}
		out = append(out, TopicSummary{Name: name, ID: FormatTopicID(t.ID), Partitions: len(t.Partitions), ReplicationFactor: rf, Internal: t.IsInternal})
	}
	return out, nil
}

// PartitionInfo describes one partition's replicas. ELR and LastKnownELR
// (KIP-966) are nil when the broker does not report them (before Kafka
// 3.8), empty when it does and the set is empty.
type PartitionInfo struct {
	Partition       int32   `json:"partition"`
	Leader          int32   `json:"leader"`
	LeaderEpoch     int32   `json:"leader_epoch"`
	Replicas        []int32 `json:"replicas"`
	ISR             []int32 `json:"isr"`
	OfflineReplicas []int32 `json:"offline_replicas"`
	ELR             []int32 `json:"elr,omitempty"`
	LastKnownELR    []int32 `json:"last_known_elr,omitempty"`
	Err             *Error  `json:"error,omitempty"`
}

// TopicDescription is one result of DescribeTopics.
type TopicDescription struct {
	Name       string          `json:"name"`
	ID         string          `json:"id"`
	Internal   bool            `json:"internal"`
	Partitions []PartitionInfo `json:"partitions"`
	Err        *Error          `json:"error,omitempty"`
}

func (t TopicDescription) Key() string     { return t.Name }
func (t TopicDescription) Failure() *Error { return t.Err }

// DescribeTopics describes the named topics (every topic, internal ones
// included, when names is empty), in name order, with DescribeTopicPartitions
// pages where the broker has it (eachTopic). A missing topic gets
// UNKNOWN_TOPIC_OR_PARTITION; a topic still being created
// (LEADER_NOT_AVAILABLE) is retried until the deadline; an offline partition
// (no leader, offline replicas) is leader -1 with its error on the
// partition, not a failure of the topic.
func (c *Client) DescribeTopics(ctx context.Context, names []string) ([]TopicDescription, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	found := map[string]TopicDescription{}
	if len(names) == 0 {
		// Every topic, page by page; a topic caught half-made is asked
		// again by name below.
		if e := retryCall(ctx, "", func(ctx context.Context) error {
			names = names[:0]
			return c.eachTopic(ctx, nil, func(t topicAnswer) {
				names = append(names, t.Topic)
				if d, e := describedTopic(t); e == nil {
					found[t.Topic] = d
				}
			})
		}); e != nil {
			return nil, e
		}
	}
	names = slices.Compact(slices.Sorted(slices.Values(names)))
	pending := slices.DeleteFunc(slices.Clone(names), func(n string) bool { _, ok := found[n]; return ok })
	unknownSeen := map[string]int{}
	errs := retryItems(ctx, pending, func(n string) string { return n }, func(ctx context.Context, pending []string) (map[string]*Error, error) {
		answers := map[string]*Error{}
		err := c.eachTopic(ctx, pending, func(t topicAnswer) {
			n := t.Topic
			if !slices.Contains(pending, n) {
				return
			}
			if e := AsError(t.Err, n); e != nil {
				if t.Err == kerr.UnknownTopicOrPartition && unknownSeen[n] < 2 {
					// A topic created a moment ago may not have reached
					// this broker yet: look twice more before saying no.
					unknownSeen[n]++
					c := *e
					c.Retriable = true
					e = &c
				}
				answers[n] = e
				return
			}
			d, e := describedTopic(t)
			found[n], answers[n] = d, e
		})
		if err != nil {
			return nil, err
		}
		return answers, nil
	})
	out := make([]TopicDescription, 0, len(names))
	for _, n := range names {
		d, ok := found[n]
		if !ok || (errs[n] != nil && !errs[n].Retriable) {
			d = TopicDescription{Name: n, Partitions: []PartitionInfo{}}
		}
		d.Err = errs[n]
		out = append(out, d)
	}
	return out, nil
}

// describedTopic turns an answer into a description; the error, when not
// nil, is a retriable one saying to ask again (a topic whose leaders are
// not elected yet).
func describedTopic(t topicAnswer) (TopicDescription, *Error) {
	n := t.Topic
	d := TopicDescription{Name: n, ID: FormatTopicID(t.ID), Internal: t.IsInternal, Partitions: []PartitionInfo{}}
	if e := AsError(t.Err, n); e != nil {
		return d, e
	}
	if t.parts != nil {
		d.Partitions = t.parts
	}
	byPartition := func(a, b PartitionInfo) int { return cmp.Compare(a.Partition, b.Partition) }
	if !slices.IsSortedFunc(d.Partitions, byPartition) { // Kafka answers in order; the errors' indexes then hold
		errs := map[int32]error{}
		for i, err := range t.partErrs {
			errs[d.Partitions[i].Partition] = err
		}
		slices.SortFunc(d.Partitions, byPartition)
		t.partErrs = map[int]error{}
		for i := range d.Partitions {
			if err, ok := errs[d.Partitions[i].Partition]; ok {
				t.partErrs[i] = err
			}
		}
	}
	var again *Error
	for _, i := range slices.Sorted(maps.Keys(t.partErrs)) {
		pi := &d.Partitions[i]
		pi.Err = AsError(t.partErrs[i], fmt.Sprintf("%s[%d]", n, pi.Partition))
		if pi.Err != nil && pi.Err.Retriable && pi.Leader < 0 && len(pi.OfflineReplicas) == 0 {
			// A new topic whose leaders are not elected yet: ask
			// again. An offline partition (Kafka answers
			// LEADER_NOT_AVAILABLE, leader -1 and the replicas on
			// dead brokers as offline) is described as it is.
			again = pi.Err
		}
	}
	return d, again
}
