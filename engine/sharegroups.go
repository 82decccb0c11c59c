package engine

import (
	"context"
	"slices"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// ShareGroupMember is one member of a share group (KIP-932).
type ShareGroupMember struct {
	MemberID         string           `json:"member_id"`
	ClientID         string           `json:"client_id"`
	Host             string           `json:"host"`
	Rack             string           `json:"rack,omitempty"`
	MemberEpoch      int32            `json:"member_epoch"`
	SubscribedTopics []string         `json:"subscribed_topics"`
	Assignment       []TopicPartition `json:"assignment"`
}

// ShareGroup is one result of DescribeShareGroups.
type ShareGroup struct {
	Group           string             `json:"group"`
	State           string             `json:"state"`
	Coordinator     int32              `json:"coordinator"`
	GroupEpoch      int32              `json:"group_epoch"`
	AssignmentEpoch int32              `json:"assignment_epoch"`
	Assignor        string             `json:"assignor"`
	Members         []ShareGroupMember `json:"members"`
	Err             *Error             `json:"error,omitempty"`
}

func (g ShareGroup) Key() string     { return g.Group }
func (g ShareGroup) Failure() *Error { return g.Err }

// DescribeShareGroups describes share groups in name order; an unknown
// group gets GROUP_ID_NOT_FOUND.
func (c *Client) DescribeShareGroups(ctx context.Context, groups []string) ([]ShareGroup, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	groups = slices.Compact(slices.Sorted(slices.Values(groups)))
	found := map[string]ShareGroup{}
	errs := retryItems(ctx, groups, func(g string) string { return g }, func(ctx context.Context, pending []string) (map[string]*Error, error) {
		ds, err := c.adm.DescribeShareGroups(ctx, pending...)
		answers := map[string]*Error{}
		for _, d := range ds {
			sg := ShareGroup{Group: d.GroupID, State: d.GroupState, Coordinator: d.Coordinator.NodeID, GroupEpoch: d.GroupEpoch,
				AssignmentEpoch: d.AssignmentEpoch, Assignor: d.Assignor, Members: []ShareGroupMember{}}
			for _, m := range d.Members {
				sm := ShareGroupMember{MemberID: m.MemberID, ClientID: m.ClientID, Host: m.ClientHost, MemberEpoch: m.MemberEpoch,
					SubscribedTopics: slices.Sorted(slices.Values(m.SubscribedTopicNames)), Assignment: []TopicPartition{}}
				if m.RackID != nil {
					sm.Rack = *m.RackID
				}
				if sm.SubscribedTopics == nil {
					sm.SubscribedTopics = []string{}
				}
				for _, t := range m.Assignment.Sorted() {
					for _, p := range t.Partitions {
						sm.Assignment = append(sm.Assignment, TopicPartition{Topic: t.Topic, Partition: p})
					}
				}
				sg.Members = append(sg.Members, sm)
			}
			found[d.GroupID] = sg
			answers[d.GroupID] = AsError(d.Err, d.GroupID)
		}
		if err != nil && len(answers) == 0 {
			return nil, err
		}
		return answers, nil
	})
	out := make([]ShareGroup, 0, len(groups))
	for _, g := range groups {
		sg, ok := found[g]
		if !ok || errs[g] != nil {
			sg = ShareGroup{Group: g, Members: []ShareGroupMember{}}
		}
		sg.Err = errs[g]
		out = append(out, sg)
	}
	return out, nil
}

// ShareGroupOffset is one partition's start offset in a share group.
type ShareGroupOffset struct {
	Group       string `json:"group"`
	Topic       string `json:"topic"`
	Partition   int32  `json:"partition"`
	StartOffset int64  `json:"start_offset"`
	LeaderEpoch int32  `json:"leader_epoch"`
	Lag         int64  `json:"lag"` // -1 when unknown
	Err         *Error `json:"error,omitempty"`
}

func (o ShareGroupOffset) Key() string {
	if o.Topic == "" {
		return o.Group
	}
	return o.Group + " " + vocab.PartitionKey(o.Topic, o.Partition)
}
func (o ShareGroupOffset) Failure() *Error { return o.Err }

// DescribeShareGroupOffsets lists each group's share-partition start
// offsets, sorted by group, topic and partition. A group that fails gets
// one row with its error.
func (c *Client) DescribeShareGroupOffsets(ctx context.Context, groups []string) ([]ShareGroupOffset, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	groups = slices.Compact(slices.Sorted(slices.Values(groups)))
	got := map[string][]ShareGroupOffset{}
	errs := retryItems(ctx, groups, func(g string) string { return g }, func(ctx context.Context, pending []string) (map[string]*Error, error) {
		ds, err := c.adm.DescribeShareGroupOffsets(ctx, pending...)
		answers := map[string]*Error{}
		for _, d := range ds {
			if e := AsError(d.Err, d.Group); e != nil {
				answers[d.Group] = e
				continue
			}
			rows := []ShareGroupOffset{}
			for _, o := range d.Offsets.Sorted() {
				rows = append(rows, ShareGroupOffset{Group: d.Group, Topic: o.Topic, Partition: o.Partition, StartOffset: o.StartOffset,
					LeaderEpoch: o.LeaderEpoch, Lag: o.Lag, Err: AsError(o.Err, d.Group+" "+vocab.PartitionKey(o.Topic, o.Partition))})
			}
			got[d.Group] = rows
			answers[d.Group] = nil
		}
		if err != nil && len(answers) == 0 {
			return nil, err
		}
		return answers, nil
	})
	out := []ShareGroupOffset{}
	for _, g := range groups {
		if errs[g] != nil {
			out = append(out, ShareGroupOffset{Group: g, Err: errs[g]})
			continue
		}
		out = append(out, got[g]...)
	}
	return out, nil
}

// ShareOffsetResult is one partition's answer to AlterShareGroupOffsets.
type ShareOffsetResult struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Offset    int64  `json:"offset"`
	Err       *Error `json:"error,omitempty"`
}

func (r ShareOffsetResult) Key() string     { return vocab.PartitionKey(r.Topic, r.Partition) }
func (r ShareOffsetResult) Failure() *Error { return r.Err }

// AlterShareGroupOffsets sets a share group's start offsets (the group must
// have no members). Setting the same offsets again is harmless, so
// retriable failures are retried.
func (c *Client) AlterShareGroupOffsets(ctx context.Context, group string, offsets []ShareOffsetResult) ([]ShareOffsetResult, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	by, keys, err := uniqueTPs(offsets, func(o ShareOffsetResult) TopicPartition {
		return TopicPartition{Topic: o.Topic, Partition: o.Partition}
	})
	if err != nil {
		return nil, err
	}
	names := make([]string, len(keys))
	sorted := make([]ShareOffsetResult, len(keys))
	for i, k := range keys {
		names[i], sorted[i] = k.String(), by[k]
	}
	return mutate(ctx, c, mutation[[]ShareGroupOffset, []ShareOffsetResult]{
		op: "alter_share_group_offsets", keys: names,
		args: struct {
			Group   string              `json:"group"`
			Offsets []ShareOffsetResult `json:"offsets"`
		}{group, sorted},
		before: func(ctx context.Context) ([]ShareGroupOffset, error) {
			return c.DescribeShareGroupOffsets(ctx, []string{group})
		},
		send: func(ctx context.Context, _ []ShareGroupOffset) ([]ShareOffsetResult, error) {
			return c.alterShareOffsets(ctx, group, keys, by), nil
		},
		items: asItems[ShareOffsetResult],
	})
}

func (c *Client) alterShareOffsets(ctx context.Context, group string, keys []TopicPartition, by map[TopicPartition]ShareOffsetResult) []ShareOffsetResult {
	errs := retryItems(ctx, keys, func(k TopicPartition) string { return k.String() }, func(ctx context.Context, pending []TopicPartition) (map[TopicPartition]*Error, error) {
		var os kadm.Offsets
		for _, k := range pending {
			os.Add(kadm.Offset{Topic: k.Topic, Partition: k.Partition, At: by[k].Offset, LeaderEpoch: -1})
		}
		rs, err := c.adm.AlterShareGroupOffsets(ctx, group, os)
		if err != nil {
			return nil, AsError(err, group)
		}
		answers := map[TopicPartition]*Error{}
		for t, ps := range rs {
			for p, e := range ps {
				answers[TopicPartition{Topic: t, Partition: p}] = AsError(e, vocab.PartitionKey(t, p))
			}
		}
		return answers, nil
	})
	out := make([]ShareOffsetResult, 0, len(keys))
	for _, k := range keys {
		out = append(out, ShareOffsetResult{Topic: k.Topic, Partition: k.Partition, Offset: by[k].Offset, Err: errs[k]})
	}
	return out
}

// ShareTopicResult is one topic's answer to DeleteShareGroupOffsets.
type ShareTopicResult struct {
	Topic string `json:"topic"`
	Err   *Error `json:"error,omitempty"`
}

func (r ShareTopicResult) Key() string     { return r.Topic }
func (r ShareTopicResult) Failure() *Error { return r.Err }

// DeleteShareGroupOffsets removes a share group's offsets for whole topics
// (the group must have no members).
func (c *Client) DeleteShareGroupOffsets(ctx context.Context, group string, topics []string) ([]ShareTopicResult, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	topics = slices.Compact(slices.Sorted(slices.Values(topics)))
	return mutate(ctx, c, mutation[[]ShareGroupOffset, []ShareTopicResult]{
		op: "delete_share_group_offsets", keys: topics,
		args: struct {
			Group  string   `json:"group"`
			Topics []string `json:"topics"`
		}{group, topics},
		before: func(ctx context.Context) ([]ShareGroupOffset, error) {
			return c.DescribeShareGroupOffsets(ctx, []string{group})
		},
		send: func(ctx context.Context, _ []ShareGroupOffset) ([]ShareTopicResult, error) {
			return c.deleteShareOffsets(ctx, group, topics), nil
		},
		items: asItems[ShareTopicResult],
	})
}

func (c *Client) deleteShareOffsets(ctx context.Context, group string, topics []string) []ShareTopicResult {
	errs := retryItems(ctx, topics, func(t string) string { return t }, func(ctx context.Context, pending []string) (map[string]*Error, error) {
		rs, err := c.adm.DeleteShareGroupOffsets(ctx, group, pending...)
		if err != nil {
			return nil, AsError(err, group)
		}
		answers := map[string]*Error{}
		for t, e := range rs {
			answers[t] = AsError(e, t)
		}
		return answers, nil
	})
	out := make([]ShareTopicResult, 0, len(topics))
	for _, t := range topics {
		out = append(out, ShareTopicResult{Topic: t, Err: errs[t]})
	}
	return out
}
