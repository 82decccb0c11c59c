package engine

import (
	"context"
	"fmt"
	"regexp"
	"slices"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
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
	for _, name := range sortedKeys(m.Topics) {
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

// PartitionInfo describes one partition's replicas.
type PartitionInfo struct {
	Partition       int32   `json:"partition"`
	Leader          int32   `json:"leader"`
	LeaderEpoch     int32   `json:"leader_epoch"`
	Replicas        []int32 `json:"replicas"`
	ISR             []int32 `json:"isr"`
	OfflineReplicas []int32 `json:"offline_replicas"`
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

// DescribeTopics describes the named topics (all topics when names is empty),
// in name order. A missing topic gets UNKNOWN_TOPIC_OR_PARTITION; a topic
// still being created (LEADER_NOT_AVAILABLE) is retried until the deadline;
// an offline partition (no leader, offline replicas) is leader -1 with its
// error on the partition, not a failure of the topic.
func (c *Client) DescribeTopics(ctx context.Context, names []string) ([]TopicDescription, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	if len(names) == 0 {
		m, err := c.metadata(ctx, nil)
		if err != nil {
			return nil, err
		}
		names = sortedKeys(m.Topics)
	}
	names = dedupSorted(names)
	found := map[string]TopicDescription{}
	unknownSeen := map[string]int{}
	errs := retryItems(ctx, names, func(n string) string { return n }, func(ctx context.Context, pending []string) (map[string]*Error, error) {
		m, err := c.freshMetadata(ctx, pending...)
		if err != nil {
			return nil, err
		}
		answers := map[string]*Error{}
		for _, n := range pending {
			t, ok := m.Topics[n]
			if !ok {
				continue
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
				continue
			}
			d := TopicDescription{Name: n, ID: FormatTopicID(t.ID), Internal: t.IsInternal, Partitions: []PartitionInfo{}}
			for _, p := range t.Partitions.Sorted() {
				pi := PartitionInfo{Partition: p.Partition, Leader: p.Leader, LeaderEpoch: p.LeaderEpoch,
					Replicas: orEmpty(p.Replicas), ISR: orEmpty(p.ISR), OfflineReplicas: orEmpty(p.OfflineReplicas)}
				pi.Err = AsError(p.Err, fmt.Sprintf("%s[%d]", n, p.Partition))
				if pi.Err != nil && pi.Err.Retriable && p.Leader < 0 && len(p.OfflineReplicas) == 0 {
					// A new topic whose leaders are not elected yet: ask
					// again. An offline partition (Kafka answers
					// LEADER_NOT_AVAILABLE, leader -1 and the replicas on
					// dead brokers as offline) is described as it is.
					answers[n] = pi.Err
				}
				d.Partitions = append(d.Partitions, pi)
			}
			found[n] = d
			if _, bad := answers[n]; !bad {
				answers[n] = nil
			}
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

// TopicSpec says how to create one topic. Zero Partitions or
// ReplicationFactor means the broker default.
type TopicSpec struct {
	Name              string
	Partitions        int32
	ReplicationFactor int16
	Configs           map[string]string
	Assignment        map[int32][]int32 // partition -> brokers; excludes Partitions/ReplicationFactor
}

// CreateTopicsOptions modify CreateTopics.
type CreateTopicsOptions struct {
	ValidateOnly bool // ask the broker to validate without creating
	IfNotExists  bool // an existing topic is not an error
}

// CreatedTopic is one result of CreateTopics.
type CreatedTopic struct {
	Name              string `json:"name"`
	ID                string `json:"id"`
	Partitions        int    `json:"partitions"`
	ReplicationFactor int    `json:"replication_factor"`
	Existed           bool   `json:"existed,omitempty"` // IfNotExists found it already there
	Err               *Error `json:"error,omitempty"`
}

func (t CreatedTopic) Key() string     { return t.Name }
func (t CreatedTopic) Failure() *Error { return t.Err }

// CreateTopics creates topics, each with its own spec, and returns a result
// per topic in name order.
//
// NOT_CONTROLLER and other errors that mean "not applied" are retried. After
// REQUEST_TIMED_OUT the topic may or may not exist, so the engine looks at
// the cluster before trying again, and a later TOPIC_ALREADY_EXISTS for a
// topic it may itself have created counts as success.
func (c *Client) CreateTopics(ctx context.Context, specs []TopicSpec, o CreateTopicsOptions) ([]CreatedTopic, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	bySpec := map[string]TopicSpec{}
	var names []string
	for _, s := range specs {
		if _, dup := bySpec[s.Name]; dup {
			return nil, Errorf(CodeInvalidArgument, s.Name, "topic %q given twice", s.Name)
		}
		bySpec[s.Name] = s
		names = append(names, s.Name)
	}
	slices.Sort(names)
	results := map[string]CreatedTopic{}
	maybeCreated := map[string]bool{}
	errs := retryItems(ctx, names, func(n string) string { return n }, func(ctx context.Context, pending []string) (map[string]*Error, error) {
		if err := c.settleUnknownCreates(ctx, pending, maybeCreated, results); err != nil {
			return nil, err
		}
		req := kmsg.NewPtrCreateTopicsRequest()
		req.ValidateOnly = o.ValidateOnly
		req.TimeoutMillis = int32(c.cfg.timeout().Milliseconds())
		for _, n := range pending {
			if _, done := results[n]; done {
				continue
			}
			req.Topics = append(req.Topics, createTopicReq(bySpec[n]))
		}
		answers := map[string]*Error{}
		for _, n := range pending {
			if _, done := results[n]; done {
				answers[n] = nil
			}
		}
		if len(req.Topics) == 0 {
			return answers, nil
		}
		resp, err := req.RequestWith(ctx, c.kgo)
		if err != nil {
			return nil, err
		}
		for _, t := range resp.Topics {
			e := kafkaErr(t.ErrorCode, t.ErrorMessage, t.Topic)
			switch {
			case e == nil:
				results[t.Topic] = CreatedTopic{Name: t.Topic, ID: FormatTopicID(t.TopicID), Partitions: int(t.NumPartitions), ReplicationFactor: int(t.ReplicationFactor)}
			case t.ErrorCode == kerr.TopicAlreadyExists.Code && (o.IfNotExists || maybeCreated[t.Topic]):
				existed := !maybeCreated[t.Topic]
				ct, lookErr := c.lookupCreated(ctx, t.Topic)
				if lookErr != nil {
					e = lookErr
					break
				}
				ct.Existed = existed
				results[t.Topic] = ct
				e = nil
			case t.ErrorCode == kerr.RequestTimedOut.Code && !o.ValidateOnly:
				// Outcome unknown: look before trying again.
				maybeCreated[t.Topic] = true
			}
			answers[t.Topic] = e
		}
		return answers, nil
	})
	out := make([]CreatedTopic, 0, len(names))
	for _, n := range names {
		r, ok := results[n]
		if !ok || errs[n] != nil {
			r = CreatedTopic{Name: n}
		}
		r.Err = errs[n]
		out = append(out, r)
	}
	return out, nil
}

// settleUnknownCreates checks topics whose create timed out: one that now
// exists was created by us.
func (c *Client) settleUnknownCreates(ctx context.Context, pending []string, maybe map[string]bool, results map[string]CreatedTopic) error {
	var check []string
	for _, n := range pending {
		if maybe[n] {
			check = append(check, n)
		}
	}
	if len(check) == 0 {
		return nil
	}
	m, err := c.freshMetadata(ctx, check...)
	if err != nil {
		return err
	}
	for _, n := range check {
		if t, ok := m.Topics[n]; ok && t.Err == nil {
			results[n] = summarizeCreated(n, t.ID, t.Partitions)
		}
	}
	return nil
}

func (c *Client) lookupCreated(ctx context.Context, name string) (CreatedTopic, *Error) {
	m, err := c.freshMetadata(ctx, name)
	if err != nil {
		return CreatedTopic{}, AsError(err, name)
	}
	t := m.Topics[name]
	if t.Err != nil {
		return CreatedTopic{}, AsError(t.Err, name)
	}
	return summarizeCreated(name, t.ID, t.Partitions), nil
}

func summarizeCreated(name string, id [16]byte, parts kadm.PartitionDetails) CreatedTopic {
	rf := 0
	if p, ok := parts[0]; ok {
		rf = len(p.Replicas)
	}
	return CreatedTopic{Name: name, ID: FormatTopicID(id), Partitions: len(parts), ReplicationFactor: rf}
}

func createTopicReq(s TopicSpec) kmsg.CreateTopicsRequestTopic {
	t := kmsg.NewCreateTopicsRequestTopic()
	t.Topic = s.Name
	t.NumPartitions, t.ReplicationFactor = -1, -1
	if s.Partitions > 0 {
		t.NumPartitions = s.Partitions
	}
	if s.ReplicationFactor > 0 {
		t.ReplicationFactor = s.ReplicationFactor
	}
	if len(s.Assignment) > 0 {
		t.NumPartitions, t.ReplicationFactor = -1, -1
		for _, p := range sortedInt32Keys(s.Assignment) {
			a := kmsg.NewCreateTopicsRequestTopicReplicaAssignment()
			a.Partition, a.Replicas = p, s.Assignment[p]
			t.ReplicaAssignment = append(t.ReplicaAssignment, a)
		}
	}
	for _, k := range sortedKeys(s.Configs) {
		cfg := kmsg.NewCreateTopicsRequestTopicConfig()
		v := s.Configs[k]
		cfg.Name, cfg.Value = k, &v
		t.Configs = append(t.Configs, cfg)
	}
	return t
}

// DeleteTopicsOptions modify DeleteTopics.
type DeleteTopicsOptions struct {
	IfExists bool // a missing topic is not an error
}

// DeletedTopic is one result of DeleteTopics.
type DeletedTopic struct {
	Name    string `json:"name"`
	Missing bool   `json:"missing,omitempty"` // IfExists found nothing to delete
	Err     *Error `json:"error,omitempty"`
}

func (t DeletedTopic) Key() string     { return t.Name }
func (t DeletedTopic) Failure() *Error { return t.Err }

// DeleteTopics deletes topics. After REQUEST_TIMED_OUT it looks whether the
// topic is gone before asking again.
func (c *Client) DeleteTopics(ctx context.Context, names []string, o DeleteTopicsOptions) ([]DeletedTopic, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	names = dedupSorted(names)
	maybeDeleted := map[string]bool{}
	missing := map[string]bool{}
	errs := retryItems(ctx, names, func(n string) string { return n }, func(ctx context.Context, pending []string) (map[string]*Error, error) {
		answers := map[string]*Error{}
		var ask []string
		for _, n := range pending {
			if maybeDeleted[n] {
				m, err := c.freshMetadata(ctx, n)
				if err != nil {
					return nil, err
				}
				if t, ok := m.Topics[n]; !ok || t.Err == kerr.UnknownTopicOrPartition {
					answers[n] = nil
					continue
				}
			}
			ask = append(ask, n)
		}
		if len(ask) == 0 {
			return answers, nil
		}
		resp, err := c.adm.DeleteTopics(ctx, ask...)
		if err != nil {
			return nil, err
		}
		for _, n := range ask {
			r, ok := resp[n]
			if !ok {
				continue
			}
			e := AsError(r.Err, n)
			switch {
			case e == nil:
			case r.Err == kerr.UnknownTopicOrPartition && (o.IfExists || maybeDeleted[n]):
				missing[n] = !maybeDeleted[n]
				e = nil
			case r.Err == kerr.RequestTimedOut:
				maybeDeleted[n] = true
			}
			answers[n] = e
		}
		return answers, nil
	})
	out := make([]DeletedTopic, 0, len(names))
	for _, n := range names {
		out = append(out, DeletedTopic{Name: n, Missing: missing[n], Err: errs[n]})
	}
	return out, nil
}

// TopicsExist reports which of names exist now (a fresh metadata request).
func (c *Client) TopicsExist(ctx context.Context, names []string) (map[string]bool, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	m, err := c.metadata(ctx, names)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, n := range names {
		t, ok := m.Topics[n]
		out[n] = ok && t.Err == nil
	}
	return out, nil
}

// CreatePartitionsOptions modify CreatePartitions.
type CreatePartitionsOptions struct {
	ValidateOnly bool
}

// CreatedPartitions is one result of CreatePartitions.
type CreatedPartitions struct {
	Name       string `json:"name"`
	Partitions int    `json:"partitions"`
	Err        *Error `json:"error,omitempty"`
}

func (t CreatedPartitions) Key() string     { return t.Name }
func (t CreatedPartitions) Failure() *Error { return t.Err }

// CreatePartitions raises topics' partition counts to the given totals.
func (c *Client) CreatePartitions(ctx context.Context, totals map[string]int32, o CreatePartitionsOptions) ([]CreatedPartitions, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	names := sortedKeys(totals)
	maybe := map[string]bool{}
	errs := retryItems(ctx, names, func(n string) string { return n }, func(ctx context.Context, pending []string) (map[string]*Error, error) {
		answers := map[string]*Error{}
		req := kmsg.NewPtrCreatePartitionsRequest()
		req.ValidateOnly = o.ValidateOnly
		req.TimeoutMillis = int32(c.cfg.timeout().Milliseconds())
		var check []string
		for _, n := range pending {
			if maybe[n] {
				check = append(check, n)
			}
		}
		if len(check) > 0 {
			m, err := c.freshMetadata(ctx, check...)
			if err != nil {
				return nil, err
			}
			for _, n := range check {
				if t, ok := m.Topics[n]; ok && t.Err == nil && len(t.Partitions) >= int(totals[n]) {
					answers[n] = nil
				}
			}
		}
		for _, n := range pending {
			if _, done := answers[n]; done {
				continue
			}
			t := kmsg.NewCreatePartitionsRequestTopic()
			t.Topic, t.Count = n, totals[n]
			req.Topics = append(req.Topics, t)
		}
		if len(req.Topics) == 0 {
			return answers, nil
		}
		resp, err := req.RequestWith(ctx, c.kgo)
		if err != nil {
			return nil, err
		}
		for _, t := range resp.Topics {
			e := kafkaErr(t.ErrorCode, t.ErrorMessage, t.Topic)
			if t.ErrorCode == kerr.RequestTimedOut.Code && !o.ValidateOnly {
				maybe[t.Topic] = true
			}
			answers[t.Topic] = e
		}
		return answers, nil
	})
	out := make([]CreatedPartitions, 0, len(names))
	for _, n := range names {
		r := CreatedPartitions{Name: n, Err: errs[n]}
		if r.Err == nil {
			r.Partitions = int(totals[n])
		}
		out = append(out, r)
	}
	return out, nil
}

func dedupSorted(in []string) []string {
	out := slices.Clone(in)
	slices.Sort(out)
	return slices.Compact(out)
}

func orEmpty(s []int32) []int32 {
	if s == nil {
		return []int32{}
	}
	return s
}

func sortedInt32Keys[V any](m map[int32]V) []int32 {
	keys := make([]int32, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
