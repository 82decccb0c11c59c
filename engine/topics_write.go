package engine

import (
	"context"
	"maps"
	"slices"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// What changes topics: create_topics, delete_topics and create_partitions,
// each through mutate with the topics' state before (topics_audit.go);
// list_topics and describe_topics are topics.go.

// TopicSpec says how to create one topic. Zero Partitions or
// ReplicationFactor means the broker default.
type TopicSpec struct {
	Name              string            `json:"name"`
	Partitions        int32             `json:"partitions,omitempty"`
	ReplicationFactor int16             `json:"replication_factor,omitempty"`
	Configs           map[string]string `json:"configs,omitempty"`
	Assignment        map[int32][]int32 `json:"assignment,omitempty"` // partition -> brokers; excludes Partitions/ReplicationFactor
}

// CreateTopicsOptions modify CreateTopics.
type CreateTopicsOptions struct {
	ValidateOnly bool `json:"validate_only,omitempty"` // ask the broker to validate without creating
	IfNotExists  bool `json:"if_not_exists,omitempty"` // an existing topic is not an error
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
// NOT_CONTROLLER and other errors that mean "not applied" are retried. The
// topics are looked up first; after REQUEST_TIMED_OUT a topic may or may not
// exist, so the engine looks again before trying again: a topic there now
// that was not there before (or has another id) was created by this call,
// one that was there before was not (TOPIC_ALREADY_EXISTS, or existed=true
// with IfNotExists).
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
	return mutate(ctx, c, mutation[TopicsBefore, []CreatedTopic]{
		op: "create_topics", keys: names, validateOnly: o.ValidateOnly, needBefore: !o.ValidateOnly,
		args: struct {
			Specs []TopicSpec `json:"specs"`
			CreateTopicsOptions
		}{specs, o},
		before: func(ctx context.Context) (TopicsBefore, error) { return c.topicStates(ctx, names) },
		send: func(ctx context.Context, before TopicsBefore) ([]CreatedTopic, error) {
			return c.createTopics(ctx, names, bySpec, o, before), nil
		},
		items:  asItems[CreatedTopic],
		look:   c.lookCreatedTopics(o),
		detail: createdTopicDetail,
	})
}

func (c *Client) createTopics(ctx context.Context, names []string, bySpec map[string]TopicSpec, o CreateTopicsOptions, before TopicsBefore) []CreatedTopic {
	results := make(map[string]CreatedTopic, len(names))
	maybeCreated := map[string]bool{}
	errs := retryItems(ctx, names, func(n string) string { return n }, func(ctx context.Context, pending []string) (map[string]*Error, error) {
		answers, err := c.settleUnknownCreates(ctx, pending, maybeCreated, before, o.IfNotExists, results)
		if err != nil {
			return nil, err
		}
		req := kmsg.NewPtrCreateTopicsRequest()
		req.ValidateOnly = o.ValidateOnly
		req.TimeoutMillis = int32(c.cfg.timeout().Milliseconds())
		req.Topics = make([]kmsg.CreateTopicsRequestTopic, 0, len(pending))
		for _, n := range pending {
			if _, done := answers[n]; !done {
				req.Topics = append(req.Topics, createTopicReq(bySpec[n]))
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
				ct := CreatedTopic{Name: t.Topic, ID: FormatTopicID(t.TopicID), Partitions: int(t.NumPartitions), ReplicationFactor: int(t.ReplicationFactor)}
				// Kafka answers -1 for both to a principal without
				// DESCRIBE_CONFIGS on the topic; what was asked for
				// explicitly is what it created.
				if s := bySpec[t.Topic]; ct.Partitions < 0 && s.Partitions > 0 {
					ct.Partitions = int(s.Partitions)
				}
				if s := bySpec[t.Topic]; ct.ReplicationFactor < 0 && s.ReplicationFactor > 0 {
					ct.ReplicationFactor = int(s.ReplicationFactor)
				}
				results[t.Topic] = ct
			case t.ErrorCode == kerr.TopicAlreadyExists.Code && before[t.Topic].Hidden != "":
				// Not allowed to describe it: after a timed-out first
				// attempt whose it is cannot be told; otherwise Kafka's
				// answer is the truth (it was there before this call).
				if maybeCreated[t.Topic] {
					e = hiddenBefore(t.Topic, before)
				} else if o.IfNotExists {
					results[t.Topic], e = CreatedTopic{Name: t.Topic, Existed: true}, nil
				}
			case t.ErrorCode == kerr.TopicAlreadyExists.Code && (o.IfNotExists || maybeCreated[t.Topic]):
				// Whose topic is it? Decide from what was there before.
				m, lookErr := c.freshMetadata(ctx, t.Topic)
				if lookErr != nil {
					e = AsError(lookErr, t.Topic)
					break
				}
				now, ok := m.Topics[t.Topic]
				if !ok || now.Err != nil {
					e.Retriable = true // gone again: ask again
					break
				}
				ct, ours := createdByUs(t.Topic, now, before, maybeCreated[t.Topic])
				switch {
				case ours || o.IfNotExists:
					ct.Existed = !ours
					results[t.Topic], e = ct, nil
				case before[t.Topic].Exists:
					e = existedBefore(t.Topic, before)
				}
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
	return out
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
		for _, p := range vocab.SortedKeys(s.Assignment) {
			a := kmsg.NewCreateTopicsRequestTopicReplicaAssignment()
			a.Partition, a.Replicas = p, s.Assignment[p]
			t.ReplicaAssignment = append(t.ReplicaAssignment, a)
		}
	}
	for _, k := range vocab.SortedKeys(s.Configs) {
		cfg := kmsg.NewCreateTopicsRequestTopicConfig()
		v := s.Configs[k]
		cfg.Name, cfg.Value = k, &v
		t.Configs = append(t.Configs, cfg)
	}
	return t
}

// DeleteTopicsOptions modify DeleteTopics.
type DeleteTopicsOptions struct {
	IfExists bool `json:"if_exists,omitempty"` // a missing topic is not an error
}

// DeletedTopic is one result of DeleteTopics.
type DeletedTopic struct {
	Name    string `json:"name"`
	Missing bool   `json:"missing,omitempty"` // IfExists found nothing to delete
	Err     *Error `json:"error,omitempty"`
}

func (t DeletedTopic) Key() string     { return t.Name }
func (t DeletedTopic) Failure() *Error { return t.Err }

// DeleteTopics deletes topics. The topics are looked up first; after
// REQUEST_TIMED_OUT the engine looks whether a topic is gone before asking
// again, and a topic gone now counts as deleted by this call only when it
// existed before it.
func (c *Client) DeleteTopics(ctx context.Context, names []string, o DeleteTopicsOptions) ([]DeletedTopic, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	names = slices.Compact(slices.Sorted(slices.Values(names)))
	return mutate(ctx, c, mutation[TopicsBefore, []DeletedTopic]{
		op: "delete_topics", keys: names, needBefore: true,
		args: struct {
			Names []string `json:"names"`
			DeleteTopicsOptions
		}{names, o},
		before: func(ctx context.Context) (TopicsBefore, error) { return c.topicStates(ctx, names) },
		send: func(ctx context.Context, before TopicsBefore) ([]DeletedTopic, error) {
			return c.deleteTopics(ctx, names, o, before), nil
		},
		items: asItems[DeletedTopic],
		look:  c.lookDeletedTopics(o),
	})
}

func (c *Client) deleteTopics(ctx context.Context, names []string, o DeleteTopicsOptions, before TopicsBefore) []DeletedTopic {
	maybeDeleted := map[string]bool{}
	missing := map[string]bool{}
	// gone is the answer for a topic not there (any more): deleted by this
	// call when it was there before, else missing.
	gone := func(n string) *Error {
		if before[n].Exists {
			return nil
		}
		if o.IfExists {
			missing[n] = true
			return nil
		}
		return &Error{Code: kerr.UnknownTopicOrPartition.Message, Message: kerr.UnknownTopicOrPartition.Description, Resource: n}
	}
	errs := retryItems(ctx, names, func(n string) string { return n }, func(ctx context.Context, pending []string) (map[string]*Error, error) {
		answers := make(map[string]*Error, len(pending))
		ask := make([]string, 0, len(pending))
		for _, n := range pending {
			if maybeDeleted[n] {
				m, err := c.freshMetadata(ctx, n)
				if err != nil {
					return nil, err
				}
				if t, ok := m.Topics[n]; !ok || t.Err == kerr.UnknownTopicOrPartition {
					answers[n] = gone(n)
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
				e = gone(n)
			case r.Err == kerr.RequestTimedOut:
				maybeDeleted[n] = true
			}
			answers[n] = e
		}
		return answers, nil
	})
	out := make([]DeletedTopic, 0, len(names))
	for _, n := range names {
		out = append(out, DeletedTopic{Name: n, Missing: missing[n] && errs[n] == nil, Err: errs[n]})
	}
	return out
}

// CreatePartitionsOptions modify CreatePartitions.
type CreatePartitionsOptions struct {
	ValidateOnly bool `json:"validate_only,omitempty"`
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
// The counts are looked up first; after REQUEST_TIMED_OUT a topic that now
// has the total counts as raised by this call only when it had fewer
// before.
func (c *Client) CreatePartitions(ctx context.Context, totals map[string]int32, o CreatePartitionsOptions) ([]CreatedPartitions, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	names := slices.Sorted(maps.Keys(totals))
	return mutate(ctx, c, mutation[TopicsBefore, []CreatedPartitions]{
		op: "create_partitions", keys: names, validateOnly: o.ValidateOnly, needBefore: !o.ValidateOnly,
		args: struct {
			Totals map[string]int32 `json:"totals"`
			CreatePartitionsOptions
		}{totals, o},
		before: func(ctx context.Context) (TopicsBefore, error) { return c.topicStates(ctx, names) },
		send: func(ctx context.Context, before TopicsBefore) ([]CreatedPartitions, error) {
			return c.createPartitions(ctx, names, totals, o, before), nil
		},
		items: asItems[CreatedPartitions],
		look:  c.lookCreatedPartitions(totals),
	})
}

func (c *Client) createPartitions(ctx context.Context, names []string, totals map[string]int32, o CreatePartitionsOptions, before TopicsBefore) []CreatedPartitions {
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
					answers[n] = raisedByUs(n, totals[n], before)
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
	return out
}
