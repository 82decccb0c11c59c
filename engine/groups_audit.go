package engine

import (
	"context"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
)

// What the group mutations record: the committed offsets before (undo
// commits them back), and for delete_groups which groups existed.

// PartitionOffset is a partition's committed offset; -1 for none.
type PartitionOffset struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Offset    int64  `json:"offset"`
}

// GroupOffsetsBefore is the before-state of commit_offsets, reset_offsets
// and delete_group_offsets: the group's committed offsets of the touched
// partitions.
type GroupOffsetsBefore struct {
	Group   string            `json:"group"`
	Offsets []PartitionOffset `json:"offsets"`
}

// committedOf reads group's committed offsets of tps (-1 where none).
func (c *Client) committedOf(ctx context.Context, group string, tps []TopicPartition) ([]PartitionOffset, error) {
	fetched, err := c.fetchOffsets(ctx, group)
	if err != nil {
		return nil, err
	}
	out := make([]PartitionOffset, 0, len(tps))
	for _, tp := range tps {
		po := PartitionOffset{Topic: tp.Topic, Partition: tp.Partition, Offset: -1}
		if r, ok := fetched.Lookup(tp.Topic, tp.Partition); ok && r.Err == nil && r.At >= 0 {
			po.Offset = r.At
		}
		out = append(out, po)
	}
	return out, nil
}

func (c *Client) groupOffsetsBefore(ctx context.Context, group string, tps []TopicPartition) (GroupOffsetsBefore, error) {
	offs, err := c.committedOf(ctx, group, tps)
	return GroupOffsetsBefore{Group: group, Offsets: offs}, err
}

// lookCommitted resolves commits whose outcome stayed unknown: a partition
// whose committed offset is the target now was committed.
func (c *Client) lookCommitted(group string, byKey map[TopicPartition]OffsetCommit) func(context.Context, GroupOffsetsBefore, []CommitResult, error, map[string]bool) ([]CommitResult, error, map[string]string) {
	return func(ctx context.Context, before GroupOffsetsBefore, res []CommitResult, err error, unknown map[string]bool) ([]CommitResult, error, map[string]string) {
		found := map[string]string{}
		var tps []TopicPartition
		for _, r := range res {
			if unknown[r.Key()] {
				tps = append(tps, TopicPartition{Topic: r.Topic, Partition: r.Partition})
			}
		}
		now, ferr := c.committedOf(ctx, group, tps)
		if ferr != nil {
			return res, err, found
		}
		for _, n := range now {
			tp := TopicPartition{Topic: n.Topic, Partition: n.Partition}
			i := slices.IndexFunc(res, func(r CommitResult) bool { return r.Topic == n.Topic && r.Partition == n.Partition })
			old := slices.IndexFunc(before.Offsets, func(b PartitionOffset) bool { return b.Topic == n.Topic && b.Partition == n.Partition })
			switch {
			case n.Offset == byKey[tp].Offset:
				found[tp.String()], res[i].Err = auditlog.FoundApplied, nil
			case old >= 0 && before.Offsets[old].Offset == n.Offset:
				found[tp.String()] = auditlog.FoundNotApplied
			}
		}
		return res, err, found
	}
}

// GroupsBefore is delete_groups' before-state.
type GroupsBefore struct {
	Groups []GroupBefore `json:"groups"`
}

// GroupBefore is one group before delete_groups: whether it existed, its
// state and (with an audit log) its committed offsets.
type GroupBefore struct {
	Group   string            `json:"group"`
	Exists  bool              `json:"exists"`
	State   string            `json:"state,omitempty"`
	Offsets []PartitionOffset `json:"offsets,omitempty"`
}

func (b GroupsBefore) existed(g string) bool {
	i := slices.IndexFunc(b.Groups, func(x GroupBefore) bool { return x.Group == g })
	return i >= 0 && b.Groups[i].Exists
}

// groupsBefore lists the groups (one ListGroups); with an audit log it also
// records each existing group's committed offsets.
func (c *Client) groupsBefore(ctx context.Context, groups []string) (GroupsBefore, error) {
	states, err := c.groupStates(ctx)
	if err != nil {
		return GroupsBefore{}, err
	}
	out := GroupsBefore{Groups: []GroupBefore{}}
	for _, g := range groups {
		st, ok := states[g]
		b := GroupBefore{Group: g, Exists: ok, State: st}
		if ok && c.cfg.Audit != nil {
			fetched, ferr := c.fetchOffsets(ctx, g)
			if ferr != nil {
				return GroupsBefore{}, ferr
			}
			for _, r := range fetched.Sorted() {
				if r.Err == nil && r.At >= 0 {
					b.Offsets = append(b.Offsets, PartitionOffset{Topic: r.Topic, Partition: r.Partition, Offset: r.At})
				}
			}
		}
		out.Groups = append(out.Groups, b)
	}
	return out, nil
}

// groupStates lists the groups that exist (not Dead) and their states.
func (c *Client) groupStates(ctx context.Context) (map[string]string, error) {
	listed, err := c.listGroups(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, g := range listed {
		if g.State != "Dead" {
			out[g.Group] = g.State
		}
	}
	return out, nil
}

// lookDeletedGroups resolves deletions whose outcome stayed unknown: a
// group gone now was deleted by the call when it existed before it.
func (c *Client) lookDeletedGroups(o DeleteGroupsOptions) func(context.Context, GroupsBefore, []DeletedGroup, error, map[string]bool) ([]DeletedGroup, error, map[string]string) {
	return func(ctx context.Context, before GroupsBefore, res []DeletedGroup, err error, unknown map[string]bool) ([]DeletedGroup, error, map[string]string) {
		found := map[string]string{}
		states, lerr := c.groupStates(ctx)
		if lerr != nil {
			return res, err, found
		}
		for i, r := range res {
			if !unknown[r.Group] {
				continue
			}
			_, there := states[r.Group]
			switch {
			case there:
				found[r.Group], res[i].Err = auditlog.FoundNotApplied, looked(r.Err, "the group still exists")
			case before.existed(r.Group):
				found[r.Group], res[i].Err = auditlog.FoundApplied, nil
			case o.IfExists:
				found[r.Group], res[i].Err, res[i].Missing = auditlog.FoundNotApplied, nil, true
			default:
				found[r.Group] = auditlog.FoundNotApplied
				res[i].Err = &Error{Code: kerr.GroupIDNotFound.Message, Resource: r.Group, Message: "the group did not exist before this call"}
			}
		}
		return res, err, found
	}
}
