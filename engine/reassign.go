package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// Reassignment is one partition being reassigned: its replicas (the union
// of old and new while moving) and the ones being added and removed.
type Reassignment struct {
	Topic            string  `json:"topic"`
	Partition        int32   `json:"partition"`
	Replicas         []int32 `json:"replicas"`
	AddingReplicas   []int32 `json:"adding_replicas"`
	RemovingReplicas []int32 `json:"removing_replicas"`
}

// ListPartitionReassignments lists the reassignments in progress, for the
// given topics or all when topics is empty, sorted by topic and partition.
func (c *Client) ListPartitionReassignments(ctx context.Context, topics []string) ([]Reassignment, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	return c.listReassignments(ctx, topics)
}

func (c *Client) listReassignments(ctx context.Context, topics []string) ([]Reassignment, error) {
	var resp *kmsg.ListPartitionReassignmentsResponse
	if err := retryCall(ctx, "", func(ctx context.Context) error {
		req := kmsg.NewPtrListPartitionReassignmentsRequest()
		req.TimeoutMillis = int32(c.cfg.timeout().Milliseconds())
		// No topics lists every reassignment; filtering here saves
		// looking up each topic's partitions first.
		var err error
		resp, err = req.RequestWith(ctx, c.kgo)
		if err != nil {
			return err
		}
		if e := kafkaErr(resp.ErrorCode, resp.ErrorMessage, ""); e != nil {
			return e
		}
		return nil
	}); err != nil {
		return nil, err
	}
	out := []Reassignment{}
	for _, t := range resp.Topics {
		if len(topics) > 0 && !slices.Contains(topics, t.Topic) {
			continue
		}
		for _, p := range t.Partitions {
			out = append(out, Reassignment{Topic: t.Topic, Partition: p.Partition, Replicas: orEmpty(p.Replicas),
				AddingReplicas: orEmpty(p.AddingReplicas), RemovingReplicas: orEmpty(p.RemovingReplicas)})
		}
	}
	slices.SortFunc(out, func(a, b Reassignment) int { return comparePartition(a.Topic, a.Partition, b.Topic, b.Partition) })
	return out, nil
}

// PartitionTarget names a partition and, for a reassignment, its new
// replicas (nil cancels a reassignment in progress).
type PartitionTarget struct {
	Topic     string  `json:"topic"`
	Partition int32   `json:"partition"`
	Replicas  []int32 `json:"replicas,omitempty"`
}

// ReassignResult is one partition's answer to Alter/Cancel.
type ReassignResult struct {
	Topic     string  `json:"topic"`
	Partition int32   `json:"partition"`
	Replicas  []int32 `json:"replicas,omitempty"`
	Err       *Error  `json:"error,omitempty"`
}

func (r ReassignResult) Key() string     { return vocab.PartitionKey(r.Topic, r.Partition) }
func (r ReassignResult) Failure() *Error { return r.Err }

// AlterPartitionReassignments starts moving partitions to new replicas.
// Sending the same target twice is harmless (Kafka treats it as the same
// reassignment), so retriable failures, REQUEST_TIMED_OUT included, are
// sent again.
func (c *Client) AlterPartitionReassignments(ctx context.Context, targets []PartitionTarget) ([]ReassignResult, error) {
	for _, t := range targets {
		if len(t.Replicas) == 0 {
			return nil, Errorf(CodeInvalidArgument, vocab.PartitionKey(t.Topic, t.Partition), "replicas must not be empty")
		}
	}
	return c.reassign(ctx, "alter_partition_reassignments", targets)
}

// CancelPartitionReassignments cancels reassignments in progress: the
// partitions go back to their original replicas.
func (c *Client) CancelPartitionReassignments(ctx context.Context, parts []PartitionTarget) ([]ReassignResult, error) {
	for i := range parts {
		parts[i].Replicas = nil
	}
	return c.reassign(ctx, "cancel_partition_reassignments", parts)
}

func (c *Client) reassign(ctx context.Context, op string, targets []PartitionTarget) ([]ReassignResult, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	by, keys, err := uniqueTPs(targets, func(t PartitionTarget) TopicPartition { return TopicPartition{Topic: t.Topic, Partition: t.Partition} })
	if err != nil {
		return nil, err
	}
	names := make([]string, len(keys))
	sorted := make([]PartitionTarget, len(keys))
	for i, k := range keys {
		names[i], sorted[i] = k.String(), by[k]
	}
	return mutate(ctx, c, mutation[[]ReplicasBefore, []ReassignResult]{
		op: op, keys: names,
		args: struct {
			Partitions []PartitionTarget `json:"partitions"`
		}{sorted},
		before: func(ctx context.Context) ([]ReplicasBefore, error) { return c.replicasBefore(ctx, sorted) },
		send: func(ctx context.Context, _ []ReplicasBefore) ([]ReassignResult, error) {
			return c.sendReassign(ctx, keys, by), nil
		},
		items: asItems[ReassignResult],
	})
}

func (c *Client) sendReassign(ctx context.Context, keys []TopicPartition, by map[TopicPartition]PartitionTarget) []ReassignResult {
	errs := retryItems(ctx, keys, func(k TopicPartition) string { return k.String() }, func(ctx context.Context, pending []TopicPartition) (map[TopicPartition]*Error, error) {
		req := kmsg.NewPtrAlterPartitionAssignmentsRequest()
		req.TimeoutMillis = int32(c.cfg.timeout().Milliseconds())
		topicIdx := map[string]int{}
		for _, k := range pending {
			i, ok := topicIdx[k.Topic]
			if !ok {
				rt := kmsg.NewAlterPartitionAssignmentsRequestTopic()
				rt.Topic = k.Topic
				req.Topics = append(req.Topics, rt)
				i = len(req.Topics) - 1
				topicIdx[k.Topic] = i
			}
			rp := kmsg.NewAlterPartitionAssignmentsRequestTopicPartition()
			rp.Partition, rp.Replicas = k.Partition, by[k].Replicas
			req.Topics[i].Partitions = append(req.Topics[i].Partitions, rp)
		}
		resp, err := req.RequestWith(ctx, c.kgo)
		if err != nil {
			return nil, err
		}
		if e := kafkaErr(resp.ErrorCode, resp.ErrorMessage, ""); e != nil {
			return nil, e
		}
		answers := map[TopicPartition]*Error{}
		for _, t := range resp.Topics {
			for _, p := range t.Partitions {
				answers[TopicPartition{Topic: t.Topic, Partition: p.Partition}] = kafkaErr(p.ErrorCode, p.ErrorMessage, vocab.PartitionKey(t.Topic, p.Partition))
			}
		}
		return answers, nil
	})
	out := make([]ReassignResult, 0, len(keys))
	for _, k := range keys {
		out = append(out, ReassignResult{Topic: k.Topic, Partition: k.Partition, Replicas: by[k].Replicas, Err: errs[k]})
	}
	return out
}

// CheckReassignTargets is the dry run of a reassignment (Kafka has no
// validate-only for it): each partition must exist and each broker be in
// the cluster. Nothing changes.
func (c *Client) CheckReassignTargets(ctx context.Context, targets []PartitionTarget, cancelling bool) ([]ReassignResult, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	var topics []string
	for _, t := range targets {
		topics = append(topics, t.Topic)
	}
	m, err := c.metadata(ctx, slices.Compact(slices.Sorted(slices.Values(topics))))
	if err != nil {
		return nil, err
	}
	var moving map[TopicPartition]bool
	if cancelling {
		list, err := c.listReassignments(ctx, nil)
		if err != nil {
			return nil, err
		}
		moving = map[TopicPartition]bool{}
		for _, r := range list {
			moving[TopicPartition{Topic: r.Topic, Partition: r.Partition}] = true
		}
	}
	out := []ReassignResult{}
	for _, t := range targets {
		r := ReassignResult{Topic: t.Topic, Partition: t.Partition, Replicas: t.Replicas}
		key := vocab.PartitionKey(t.Topic, t.Partition)
		td, ok := m.Topics[t.Topic]
		_, pok := td.Partitions[t.Partition]
		switch {
		case !ok || td.Err != nil || !pok:
			r.Err = AsError(kerr.UnknownTopicOrPartition, key)
		case cancelling && !moving[TopicPartition{Topic: t.Topic, Partition: t.Partition}]:
			r.Err = AsError(kerr.NoReassignmentInProgress, key)
		}
		for _, b := range t.Replicas {
			if r.Err == nil && !slices.Contains(m.Brokers.NodeIDs(), b) {
				r.Err = &Error{Code: "INVALID_REPLICA_ASSIGNMENT", Resource: key, Message: fmt.Sprintf("broker %d is not in the cluster", b)}
			}
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b ReassignResult) int { return comparePartition(a.Topic, a.Partition, b.Topic, b.Partition) })
	return out, nil
}

// WaitOptions modify WaitReassignments.
type WaitOptions struct {
	Topics   []string      // only these topics; all when empty
	Timeout  time.Duration // give up after this long (TIMEOUT)
	Interval time.Duration // between polls; 1s when zero
	// Progress, when set, is called after each poll with the partitions
	// still moving, how many have finished, and how far the moving
	// replicas have copied (nil when the log dirs cannot say).
	Progress func(moving []Reassignment, finished int, elapsed time.Duration, copied *ReassignBytes)
}

// FinishedReassignment is a partition whose reassignment ended while
// waiting; Replicas are its replicas once done.
type FinishedReassignment struct {
	Topic     string  `json:"topic"`
	Partition int32   `json:"partition"`
	Replicas  []int32 `json:"replicas"`
}

// WaitReassignments polls until no reassignment (of the given topics) is in
// progress and returns the partitions that finished meanwhile. When the
// timeout passes first it fails with TIMEOUT naming what is still moving.
// The wait is bounded by o.Timeout, not by the client's request timeout.
func (c *Client) WaitReassignments(ctx context.Context, o WaitOptions) ([]FinishedReassignment, error) {
	if o.Interval <= 0 {
		o.Interval = time.Second
	}
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	start := time.Now()
	seen := map[TopicPartition]Reassignment{}
	var moving []Reassignment
	finished := func() []FinishedReassignment {
		now := map[TopicPartition]bool{}
		for _, r := range moving {
			now[TopicPartition{Topic: r.Topic, Partition: r.Partition}] = true
		}
		out := []FinishedReassignment{}
		for k, r := range seen {
			if !now[k] {
				final := slices.DeleteFunc(slices.Clone(r.Replicas), func(b int32) bool { return slices.Contains(r.RemovingReplicas, b) })
				out = append(out, FinishedReassignment{Topic: k.Topic, Partition: k.Partition, Replicas: orEmpty(final)})
			}
		}
		slices.SortFunc(out, func(a, b FinishedReassignment) int {
			return comparePartition(a.Topic, a.Partition, b.Topic, b.Partition)
		})
		return out
	}
	for {
		pollCtx, cancel := c.callCtx(ctx)
		list, err := c.listReassignments(pollCtx, o.Topics)
		cancel()
		if err != nil {
			if waitEnded(ctx) {
				return nil, c.waitTimeout(ctx, moving)
			}
			return nil, err
		}
		moving = list
		for _, r := range list {
			seen[TopicPartition{Topic: r.Topic, Partition: r.Partition}] = r
		}
		done := finished()
		var copied *ReassignBytes
		if len(moving) > 0 && (o.Progress != nil || wantsProgress(ctx)) {
			bctx, cancel := c.callCtx(ctx)
			if b, ok := c.reassignBytes(bctx, moving); ok {
				copied = &b
			}
			cancel()
		}
		if o.Progress != nil {
			o.Progress(moving, len(done), time.Since(start), copied)
		}
		if copied != nil {
			progressf(ctx, "%s; %s", ReassignProgress(moving, len(done)), copied)
		} else {
			progressf(ctx, "%s", ReassignProgress(moving, len(done)))
		}
		if len(moving) == 0 {
			c.awaitReplicas(ctx, done)
			return done, nil
		}
		t := time.NewTimer(o.Interval)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, c.waitTimeout(ctx, moving)
		case <-t.C:
		}
	}
}

// awaitReplicas waits, briefly, until every broker's metadata shows the
// finished partitions with their final replicas (the target, without the
// replicas being removed). The controller stops listing a reassignment a
// moment before the brokers' metadata drops the removed replicas, and a
// describe_topics right after wait_reassignments (answered by any broker)
// must see the new replica set. If that does not happen within the wait (a
// reassignment cancelled by someone else never reaches its target), what
// the brokers show is reported instead of the target.
func (c *Client) awaitReplicas(ctx context.Context, done []FinishedReassignment) {
	if len(done) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	var topics []string
	for _, d := range done {
		topics = append(topics, d.Topic)
	}
	topics = slices.Compact(slices.Sorted(slices.Values(topics)))
	var shown [][]int32
	for attempt := 0; ; attempt++ {
		now, final := c.brokersShow(ctx, topics, done)
		if now != nil {
			shown = now
		}
		if final {
			return
		}
		if !vocab.Backoff(ctx, attempt) {
			break
		}
	}
	for i := range done {
		if shown != nil && shown[i] != nil {
			done[i].Replicas = shown[i]
		}
	}
}

// brokersShow asks every known broker for the partitions' replicas; final
// is true when all that answer show each partition's final replicas. now is
// what the last broker asked showed.
func (c *Client) brokersShow(ctx context.Context, topics []string, done []FinishedReassignment) (now [][]int32, final bool) {
	final = true
	for _, b := range c.kgo.DiscoveredBrokers() {
		req := kmsg.NewPtrMetadataRequest()
		for _, t := range topics {
			rt := kmsg.NewMetadataRequestTopic()
			rt.Topic = kmsg.StringPtr(t)
			req.Topics = append(req.Topics, rt)
		}
		resp, err := req.RequestWith(ctx, b)
		if err != nil {
			continue // a broker that is down answers no reads either
		}
		m := toKadmMetadata(resp)
		now = make([][]int32, len(done))
		for i, d := range done {
			p, ok := m.Topics[d.Topic].Partitions[d.Partition]
			if !ok { // deleted since: nothing to wait for
				continue
			}
			now[i] = orEmpty(p.Replicas)
			if !slices.Equal(sortedCopy(p.Replicas), sortedCopy(d.Replicas)) {
				final = false
			}
		}
	}
	return now, final
}

func sortedCopy(s []int32) []int32 {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

// waitEnded says whether the wait itself is over: cancelled, or past its
// deadline. The poll's own context shares that deadline on a timer of its
// own, so a poll can fail with DeadlineExceeded a moment before ctx.Err()
// says so; that is still the wait's timeout, not a failed listing.
func waitEnded(ctx context.Context) bool {
	if ctx.Err() != nil {
		return true
	}
	d, ok := ctx.Deadline()
	return ok && !time.Now().Before(d)
}

func (c *Client) waitTimeout(ctx context.Context, moving []Reassignment) *Error {
	cause := ctx.Err()
	if cause == nil { // past the deadline, its timer not yet fired
		cause = context.DeadlineExceeded
	}
	e := AsError(cause, "")
	if e.Code != CodeTimeout {
		return e
	}
	var names []string
	for _, r := range moving {
		names = append(names, vocab.PartitionKey(r.Topic, r.Partition))
	}
	e.Message = fmt.Sprintf("reassignments still in progress after the timeout: %s", strings.Join(names, ", "))
	if len(names) == 0 {
		e.Message = "timed out before the first listing"
	}
	return e
}
