package engine

import (
	"context"
	"slices"
)

// Streams groups where any group is taken (describeKnown: lag,
// reset_offsets, delete_groups' and commit_offsets' dry runs,
// remove_group_members), described in the common shape of GroupDescription.

// describeStreamsInto describes the streams groups among a describeKnown
// call's into found and errs, replacing what the classic describe said of
// them. The coordinators come from the listing that told their type.
func (c *Client) describeStreamsInto(ctx context.Context, groups []string, listed []GroupSummary,
	found map[string]GroupDescription, errs map[string]*Error,
) error {
	coordinators := make(map[string]int32, len(groups))
	for _, g := range listed {
		if g.Type == GroupTypeStreams && g.Coordinator >= 0 {
			coordinators[g.Group] = g.Coordinator
		}
	}
	described, serrs, err := c.describeStreams(ctx, groups, coordinators)
	if err != nil {
		return err
	}
	for _, g := range groups {
		delete(found, g)
		if d, ok := described[g]; ok {
			found[g] = d.asGroupDescription()
		}
		errs[g] = serrs[g]
	}
	return nil
}

// asGroupDescription is a streams group in the common shape: each member
// with what its active tasks consume as its assignment, the assignor as
// the protocol.
func (g StreamsGroup) asGroupDescription() GroupDescription {
	d := GroupDescription{Group: g.Group, State: g.State, ProtocolType: GroupTypeStreams, Coordinator: g.Coordinator,
		Members: make([]GroupMember, 0, len(g.Members)), typ: GroupTypeStreams, inputs: g.inputTopics()}
	if g.Assignor != nil {
		d.Protocol = *g.Assignor
	}
	for _, m := range g.Members {
		d.Members = append(d.Members, GroupMember{MemberID: m.MemberID, InstanceID: m.InstanceID, ClientID: m.ClientID,
			Host: m.Host, Assignment: slices.Clone(m.Assignment)})
	}
	sortMembers(d.Members)
	return d
}
