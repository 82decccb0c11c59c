package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// Group types as ListGroups reports them (KIP-848 and later). Brokers older
// than Kafka 3.8 report none: every group there is classic.
const (
	GroupTypeClassic  = "classic"
	GroupTypeConsumer = "consumer" // KIP-848: the broker assigns partitions
	GroupTypeShare    = "share"    // KIP-932
	GroupTypeStreams  = "streams"  // KIP-1071
)

// GroupStates are the group states Kafka reports, classic and KIP-848.
var GroupStates = []string{"PreparingRebalance", "CompletingRebalance", "Stable", "Dead", "Empty", "Assigning", "Reconciling", "NotReady"}

// GroupTypes are the group types Kafka reports.
var GroupTypes = []string{GroupTypeClassic, GroupTypeConsumer, GroupTypeShare, GroupTypeStreams}

// GroupSummary is one row of ListGroups.
type GroupSummary struct {
	Group        string `json:"group"`
	State        string `json:"state"`
	ProtocolType string `json:"protocol_type"`
	Type         string `json:"type"`
	Coordinator  int32  `json:"coordinator"`
}

// ListGroupsOptions filter ListGroups; names compare case-insensitively.
type ListGroupsOptions struct {
	States []string
	Types  []string
}

// ListGroups lists groups sorted by name. Filters are applied here rather
// than by the broker, so they work the same on brokers without the type
// filter (before Kafka 3.8) and whatever the case of the names.
func (c *Client) ListGroups(ctx context.Context, o ListGroupsOptions) ([]GroupSummary, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	all, err := c.listGroups(ctx)
	if err != nil {
		return nil, err
	}
	out := []GroupSummary{}
	for _, g := range all {
		if matchesFold(o.States, g.State) && matchesFold(o.Types, g.Type) {
			out = append(out, g)
		}
	}
	return out, nil
}

func matchesFold(filter []string, v string) bool {
	return len(filter) == 0 || slices.ContainsFunc(filter, func(f string) bool { return strings.EqualFold(f, v) })
}

// listGroups asks every broker for its groups, retrying until all answer.
func (c *Client) listGroups(ctx context.Context) ([]GroupSummary, *Error) {
	var listed kadm.ListedGroups
	var failing []string // the brokers whose share failed, at the last try
	if err := retryCall(ctx, "", func(ctx context.Context) error {
		var err error
		listed, err = c.adm.ListGroups(ctx)
		failing = failing[:0]
		var se *kadm.ShardErrors
		if errors.As(err, &se) {
			for _, s := range se.Errs {
				failing = append(failing, strconv.Itoa(int(s.Broker.NodeID)))
			}
		}
		return err
	}); err != nil {
		if len(failing) > 0 { // each broker lists its own groups: say whose are missing
			e := *err
			e.Message = fmt.Sprintf("broker %s did not list its groups: %s", strings.Join(slices.Compact(slices.Sorted(slices.Values(failing))), ", "), e.Message)
			return nil, &e
		}
		return nil, err
	}
	out := make([]GroupSummary, 0, len(listed))
	for _, g := range listed.Sorted() {
		typ := g.GroupType
		if typ == "" {
			typ = GroupTypeClassic
		}
		out = append(out, GroupSummary{Group: g.Group, State: g.State, ProtocolType: g.ProtocolType, Type: typ, Coordinator: g.Coordinator})
	}
	return out, nil
}

// CommittedOffset is one row of FetchOffsets. Offset is -1 (and LeaderEpoch
// -1) for a partition of a requested topic that has no commit.
type CommittedOffset struct {
	Topic       string `json:"topic"`
	Partition   int32  `json:"partition"`
	Offset      int64  `json:"offset"`
	LeaderEpoch int32  `json:"leader_epoch"`
	Metadata    string `json:"metadata"`
	Err         *Error `json:"error,omitempty"`
}

func (o CommittedOffset) Key() string     { return vocab.PartitionKey(o.Topic, o.Partition) }
func (o CommittedOffset) Failure() *Error { return o.Err }

// FetchOffsets returns a group's committed offsets sorted by topic and
// partition. With topics it returns every partition of those topics (offset
// -1 where nothing is committed) and nothing else; a missing topic fails
// with UNKNOWN_TOPIC_OR_PARTITION. A group that does not exist has no
// commits: Kafka answers it with no offsets, so does this.
// COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR and the like are retried.
func (c *Client) FetchOffsets(ctx context.Context, group string, topics []string) ([]CommittedOffset, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	fetched, err := c.fetchOffsets(ctx, group)
	if err != nil {
		return nil, err
	}
	if len(topics) == 0 {
		out := []CommittedOffset{}
		for _, r := range fetched.Sorted() {
			out = append(out, committedOffset(r, group))
		}
		return out, nil
	}
	topics = slices.Compact(slices.Sorted(slices.Values(topics)))
	m, err := c.metadata(ctx, topics)
	if err != nil {
		return nil, err
	}
	out := []CommittedOffset{}
	for _, t := range topics {
		td, ok := m.Topics[t]
		if !ok || td.Err != nil {
			return nil, AsError(orErr(td.Err, kerr.UnknownTopicOrPartition), t)
		}
		for _, p := range td.Partitions.Sorted() {
			if r, ok := fetched.Lookup(t, p.Partition); ok {
				out = append(out, committedOffset(r, group))
				continue
			}
			out = append(out, CommittedOffset{Topic: t, Partition: p.Partition, Offset: -1, LeaderEpoch: -1})
		}
	}
	return out, nil
}

func orErr(err, def error) error {
	if err != nil {
		return err
	}
	return def
}

func committedOffset(r kadm.OffsetResponse, group string) CommittedOffset {
	return CommittedOffset{Topic: r.Topic, Partition: r.Partition, Offset: r.At, LeaderEpoch: r.LeaderEpoch, Metadata: r.Metadata,
		Err: AsError(r.Err, group+": "+vocab.PartitionKey(r.Topic, r.Partition))}
}

// fetchOffsets fetches one group's commits, retrying group-level and
// per-partition retriable errors (UNSTABLE_OFFSET_COMMIT) until ctx ends.
func (c *Client) fetchOffsets(ctx context.Context, group string) (kadm.OffsetResponses, *Error) {
	var fetched kadm.OffsetResponses
	err := retryCall(ctx, group, func(ctx context.Context) error {
		var err error
		fetched, err = c.adm.FetchOffsets(ctx, group)
		if errors.Is(err, kerr.GroupIDNotFound) {
			fetched, err = kadm.OffsetResponses{}, nil
		}
		if err != nil {
			return err
		}
		var retry error
		fetched.EachError(func(o kadm.OffsetResponse) {
			if ke := (*kerr.Error)(nil); errors.As(o.Err, &ke) && ke.Retriable && retry == nil {
				retry = o.Err
			}
		})
		return retry
	})
	return fetched, err
}

// OffsetCommit is one offset to commit. LeaderEpoch -1 means unknown.
type OffsetCommit struct {
	Topic       string `json:"topic"`
	Partition   int32  `json:"partition"`
	Offset      int64  `json:"offset"`
	LeaderEpoch int32  `json:"leader_epoch"`
	Metadata    string `json:"metadata,omitempty"`
}

// CommitResult is one result of CommitOffsets.
type CommitResult struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Err       *Error `json:"error,omitempty"`
}

func (r CommitResult) Key() string     { return vocab.PartitionKey(r.Topic, r.Partition) }
func (r CommitResult) Failure() *Error { return r.Err }

// CommitOffsets commits offsets for a group, one result per partition in
// topic/partition order. Committing to a group that does not exist creates
// it (Kafka's semantics); committing to a group with live members fails
// with UNKNOWN_MEMBER_ID (the members own their offsets). A commit sets an
// absolute offset, so sending it again after an unknown outcome is safe:
// retriable errors are retried per partition until the deadline.
func (c *Client) CommitOffsets(ctx context.Context, group string, offsets []OffsetCommit) ([]CommitResult, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	return c.commitOffsets(ctx, "commit_offsets", group, offsets)
}

// commitOffsets is CommitOffsets, audited as op (reset_offsets commits
// through it too).
func (c *Client) commitOffsets(ctx context.Context, op, group string, offsets []OffsetCommit) ([]CommitResult, error) {
	byKey, keys, err := uniqueTPs(offsets, func(o OffsetCommit) TopicPartition { return TopicPartition{Topic: o.Topic, Partition: o.Partition} })
	if err != nil {
		return nil, err
	}
	names := make([]string, len(keys))
	sorted := make([]OffsetCommit, len(keys))
	for i, k := range keys {
		names[i], sorted[i] = vocab.PartitionKey(k.Topic, k.Partition), byKey[k]
	}
	return mutate(ctx, c, mutation[GroupOffsetsBefore, []CommitResult]{
		op: op, keys: names,
		args: struct {
			Group   string         `json:"group"`
			Offsets []OffsetCommit `json:"offsets"`
		}{group, sorted},
		before: func(ctx context.Context) (GroupOffsetsBefore, error) { return c.groupOffsetsBefore(ctx, group, keys) },
		send: func(ctx context.Context, _ GroupOffsetsBefore) ([]CommitResult, error) {
			return c.sendCommit(ctx, group, keys, byKey), nil
		},
		items: asItems[CommitResult],
		look:  c.lookCommitted(group, byKey),
	})
}

func (c *Client) sendCommit(ctx context.Context, group string, keys []TopicPartition, byKey map[TopicPartition]OffsetCommit) []CommitResult {
	res := func(k TopicPartition) string { return vocab.PartitionKey(k.Topic, k.Partition) }
	errs := retryItems(ctx, keys, res, func(ctx context.Context, pending []TopicPartition) (map[TopicPartition]*Error, error) {
		os := kadm.Offsets{}
		for _, k := range pending {
			o := byKey[k]
			os.Add(kadm.Offset{Topic: o.Topic, Partition: o.Partition, At: o.Offset, LeaderEpoch: o.LeaderEpoch, Metadata: o.Metadata})
		}
		resp, err := c.adm.CommitOffsets(ctx, group, os)
		if err != nil {
			return nil, err
		}
		answers := map[TopicPartition]*Error{}
		resp.Each(func(r kadm.OffsetResponse) {
			var ke *kerr.Error
			if r.Err != nil && !errors.As(r.Err, &ke) {
				return // missing from the response: unanswered, asked again
			}
			answers[TopicPartition{Topic: r.Topic, Partition: r.Partition}] = AsError(r.Err, res(TopicPartition{Topic: r.Topic, Partition: r.Partition}))
		})
		return answers, nil
	})
	out := make([]CommitResult, 0, len(keys))
	for _, k := range keys {
		out = append(out, CommitResult{Topic: k.Topic, Partition: k.Partition, Err: errs[k]})
	}
	return out
}

func sortTPs(s []TopicPartition) { slices.SortFunc(s, compareTP) }

// DeleteGroupsOptions modify DeleteGroups.
type DeleteGroupsOptions struct {
	IfExists bool // a missing group is not an error
}

// DeletedGroup is one result of DeleteGroups.
type DeletedGroup struct {
	Group   string `json:"group"`
	Missing bool   `json:"missing,omitempty"` // IfExists found nothing to delete
	Err     *Error `json:"error,omitempty"`
}

func (g DeletedGroup) Key() string     { return g.Group }
func (g DeletedGroup) Failure() *Error { return g.Err }

// DeleteGroups deletes groups and their committed offsets. A group with
// members fails with NON_EMPTY_GROUP; a missing one with GROUP_ID_NOT_FOUND.
//
// kgo itself re-sends a DeleteGroups answered with a retriable error such as
// REQUEST_TIMED_OUT, after which a group the first request did delete is
// reported GROUP_ID_NOT_FOUND. So the engine looks before it leaps: it lists
// the groups first, and GROUP_ID_NOT_FOUND for a group that existed then (or
// after a timed-out attempt of its own) means the group is gone as asked.
func (c *Client) DeleteGroups(ctx context.Context, groups []string, o DeleteGroupsOptions) ([]DeletedGroup, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	groups = slices.Compact(slices.Sorted(slices.Values(groups)))
	return mutate(ctx, c, mutation[GroupsBefore, []DeletedGroup]{
		op: "delete_groups", keys: groups, needBefore: true,
		args: struct {
			Groups []string `json:"groups"`
			DeleteGroupsOptions
		}{groups, o},
		before: func(ctx context.Context) (GroupsBefore, error) { return c.groupsBefore(ctx, groups) },
		send: func(ctx context.Context, before GroupsBefore) ([]DeletedGroup, error) {
			return c.deleteGroups(ctx, groups, o, before), nil
		},
		items: asItems[DeletedGroup],
		look:  c.lookDeletedGroups(o),
	})
}

func (c *Client) deleteGroups(ctx context.Context, groups []string, o DeleteGroupsOptions, before GroupsBefore) []DeletedGroup {
	missing := map[string]bool{}
	errs := retryItems(ctx, groups, func(g string) string { return g }, func(ctx context.Context, pending []string) (map[string]*Error, error) {
		answers := map[string]*Error{}
		resp, err := c.adm.DeleteGroups(ctx, pending...)
		if err := shardAnswers(err, answers, func(r kmsg.Request) []string { return r.(*kmsg.DeleteGroupsRequest).Groups }); err != nil {
			return nil, err
		}
		for _, r := range resp {
			e := AsError(r.Err, r.Group)
			if e != nil && r.ErrMessage != "" {
				e.Message = r.ErrMessage
			}
			switch {
			case e == nil:
			case r.Err == kerr.GroupIDNotFound && before.existed(r.Group):
				e = nil // deleted by an earlier attempt (kgo re-sends after REQUEST_TIMED_OUT)
			case r.Err == kerr.GroupIDNotFound && o.IfExists:
				missing[r.Group] = true
				e = nil
			}
			answers[r.Group] = e
		}
		return answers, nil
	})
	out := make([]DeletedGroup, 0, len(groups))
	for _, g := range groups {
		out = append(out, DeletedGroup{Group: g, Missing: missing[g], Err: errs[g]})
	}
	return out
}
