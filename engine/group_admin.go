package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// MemberRef names a group member to remove: a static member by its
// InstanceID (KIP-345), a dynamic one by its MemberID (KIP-571, Kafka 2.6+).
type MemberRef struct {
	MemberID   string `json:"member_id,omitempty"`
	InstanceID string `json:"instance_id,omitempty"`
}

func (m MemberRef) key() string {
	if m.InstanceID != "" {
		return m.InstanceID
	}
	return m.MemberID
}

// RemovedMember is one result of RemoveGroupMembers.
type RemovedMember struct {
	Group      string  `json:"group"`
	MemberID   string  `json:"member_id"`
	InstanceID *string `json:"instance_id"` // nil for a dynamic member
	Err        *Error  `json:"error,omitempty"`
}

func (r RemovedMember) Key() string {
	if r.InstanceID != nil {
		return r.Group + ": " + *r.InstanceID
	}
	return r.Group + ": " + r.MemberID
}
func (r RemovedMember) Failure() *Error { return r.Err }

// RemoveMembersOptions modify RemoveGroupMembers.
type RemoveMembersOptions struct {
	// DryRun checks that the group and each member exist and changes
	// nothing; a member that is not in the group gets UNKNOWN_MEMBER_ID.
	DryRun bool
}

// RemoveGroupMembers makes members leave a group (LeaveGroup v3+, as the
// Java Admin's removeMembersFromConsumerGroup). With no members it removes
// every member the group has now, each by its instance id when it is static
// and by its member id otherwise, as Admin does; a group without members
// then gives no results. A group that does not exist fails with
// GROUP_ID_NOT_FOUND. Results are sorted like describe_groups' members:
// static members by instance id, then dynamic ones by member id.
//
// Coordinator errors (the request was not handled) are retried. When a
// request's outcome is unknown (a timeout or a broken connection) it is sent
// again, and UNKNOWN_MEMBER_ID then counts as removed for a member that the
// earlier attempt may have removed.
func (c *Client) RemoveGroupMembers(ctx context.Context, group string, members []MemberRef, o RemoveMembersOptions) ([]RemovedMember, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	d, err := c.describeOneGroup(ctx, group)
	if err != nil {
		return nil, err
	}
	if d.typ == GroupTypeStreams {
		return nil, &Error{Code: kerr.GroupIDNotFound.Message, Resource: group,
			Message: fmt.Sprintf("%s is a streams group, not a consumer group: Kafka removes a streams group's members only when the application's instances leave (stop them)", group)}
	}
	if len(members) == 0 {
		for _, m := range d.Members {
			if m.InstanceID != nil {
				members = append(members, MemberRef{InstanceID: *m.InstanceID})
			} else {
				members = append(members, MemberRef{MemberID: m.MemberID})
			}
		}
	}
	seen := map[MemberRef]bool{}
	var refs []MemberRef
	for _, m := range members {
		if m.MemberID == "" && m.InstanceID == "" {
			return nil, Errorf(CodeInvalidArgument, group, "a member needs a member_id or an instance_id")
		}
		if !seen[m] {
			seen[m] = true
			refs = append(refs, m)
		}
	}
	slices.SortFunc(refs, func(a, b MemberRef) int {
		switch {
		case (a.InstanceID != "") != (b.InstanceID != ""):
			if a.InstanceID != "" {
				return -1
			}
			return 1
		}
		return strings.Compare(a.key()+"\x00"+a.MemberID, b.key()+"\x00"+b.MemberID)
	})
	if len(refs) == 0 {
		return []RemovedMember{}, nil
	}
	if o.DryRun {
		return planRemoveMembers(d, refs), nil
	}
	keys := make([]string, len(refs))
	for i, r := range refs {
		keys[i] = removedMember(group, r, "").Key()
	}
	return mutate(ctx, c, mutation[[]GroupMember, []RemovedMember]{
		op: "remove_group_members", keys: keys,
		args: struct {
			Group   string      `json:"group"`
			Members []MemberRef `json:"members"`
		}{group, refs},
		before: func(context.Context) ([]GroupMember, error) { return d.Members, nil },
		send: func(ctx context.Context, _ []GroupMember) ([]RemovedMember, error) {
			return c.leaveGroup(ctx, group, refs)
		},
		items: asItems[RemovedMember],
	})
}

// describeOneGroup describes one group; a missing group is an error.
func (c *Client) describeOneGroup(ctx context.Context, group string) (GroupDescription, error) {
	ds, err := c.describeGroups(ctx, []string{group})
	if err != nil {
		return GroupDescription{}, err
	}
	if ds[0].Err != nil {
		return GroupDescription{}, ds[0].Err
	}
	return ds[0], nil
}

// planRemoveMembers answers each member as a dry run would: removable when
// it is in the group, UNKNOWN_MEMBER_ID otherwise.
func planRemoveMembers(d GroupDescription, refs []MemberRef) []RemovedMember {
	out := make([]RemovedMember, 0, len(refs))
	for _, r := range refs {
		rm := removedMember(d.Group, r, "")
		i := slices.IndexFunc(d.Members, func(m GroupMember) bool {
			if r.InstanceID != "" {
				return m.InstanceID != nil && *m.InstanceID == r.InstanceID && (r.MemberID == "" || r.MemberID == m.MemberID)
			}
			return m.MemberID == r.MemberID
		})
		if i < 0 {
			rm.Err = &Error{Code: kerr.UnknownMemberID.Message, Resource: rm.Key(), Message: "not a member of the group"}
		} else {
			rm.MemberID = d.Members[i].MemberID
		}
		out = append(out, rm)
	}
	return out
}

func removedMember(group string, r MemberRef, memberID string) RemovedMember {
	rm := RemovedMember{Group: group, MemberID: r.MemberID}
	if memberID != "" {
		rm.MemberID = memberID
	}
	if r.InstanceID != "" {
		id := r.InstanceID
		rm.InstanceID = &id
	}
	return rm
}

// isCoordinatorErr reports errors that mean the coordinator did not handle
// the request at all, so sending it again is safe.
func isCoordinatorErr(err error) bool {
	return errors.Is(err, kerr.NotCoordinator) || errors.Is(err, kerr.CoordinatorNotAvailable) || errors.Is(err, kerr.CoordinatorLoadInProgress)
}

// leaveGroup sends one LeaveGroup request for refs (kadm's LeaveGroup
// removes static members only), retrying as RemoveGroupMembers says.
func (c *Client) leaveGroup(ctx context.Context, group string, refs []MemberRef) ([]RemovedMember, error) {
	req := kmsg.NewPtrLeaveGroupRequest()
	req.Group = group
	for _, r := range refs {
		m := kmsg.NewLeaveGroupRequestMember()
		m.MemberID = r.MemberID
		if r.InstanceID != "" {
			m.InstanceID = kmsg.StringPtr(r.InstanceID)
		}
		m.Reason = kmsg.StringPtr("removed by an admin (kadmin-lua remove_group_members)")
		req.Members = append(req.Members, m)
	}
	var resp *kmsg.LeaveGroupResponse
	maybeApplied := false
	if err := retryCall(ctx, group, func(ctx context.Context) error {
		var err error
		resp, err = req.RequestWith(ctx, c.kgo)
		if err == nil {
			err = kerr.ErrorForCode(resp.ErrorCode)
		}
		if err != nil && !isCoordinatorErr(err) {
			if e := AsError(err, group); e.Retriable {
				maybeApplied = true
			}
		}
		return err
	}); err != nil {
		return nil, err
	}
	out := make([]RemovedMember, 0, len(refs))
	for i, r := range refs {
		rm := removedMember(group, r, "")
		if i >= len(resp.Members) {
			rm.Err = &Error{Code: CodeUnknown, Resource: rm.Key(), Message: "no answer from the broker for this member"}
			out = append(out, rm)
			continue
		}
		m := resp.Members[i]
		if m.MemberID != "" {
			rm.MemberID = m.MemberID
		}
		if rm.Err = kafkaErr(m.ErrorCode, nil, rm.Key()); rm.Err != nil && maybeApplied && m.ErrorCode == kerr.UnknownMemberID.Code {
			rm.Err = nil // removed by the attempt whose answer was lost
		}
		out = append(out, rm)
	}
	return out, nil
}

// DeletedOffset is one result of DeleteGroupOffsets.
type DeletedOffset struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"` // -1 for a topic that does not exist
	Err       *Error `json:"error,omitempty"`
}

func (d DeletedOffset) Key() string     { return vocab.PartitionKey(d.Topic, d.Partition) }
func (d DeletedOffset) Failure() *Error { return d.Err }

// DeleteOffsetsOptions modify DeleteGroupOffsets.
type DeleteOffsetsOptions struct {
	// DryRun checks the group exists and which partitions Kafka would
	// refuse, and deletes nothing.
	DryRun bool
}

// DeleteGroupOffsets deletes a group's committed offsets (OffsetDelete,
// Kafka 2.4+) for every partition of topics and for partitions, sorted by
// topic and partition. A topic that does not exist gets one result with
// partition -1 and UNKNOWN_TOPIC_OR_PARTITION. A group still consuming a
// topic keeps its offsets: GROUP_SUBSCRIBED_TO_TOPIC on each of its
// partitions; a live group that is not a consumer group refuses everything
// with NON_EMPTY_GROUP. Deleting again is harmless, so retriable errors are
// retried per partition.
func (c *Client) DeleteGroupOffsets(ctx context.Context, group string, topics []string, partitions []TopicPartition, o DeleteOffsetsOptions) ([]DeletedOffset, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	tps, missing, err := c.resolvePartitions(ctx, topics, partitions)
	if err != nil {
		return nil, err
	}
	var out []DeletedOffset
	for _, t := range missing {
		out = append(out, DeletedOffset{Topic: t.Topic, Partition: -1, Err: t.Err})
	}
	var errs map[TopicPartition]*Error
	if o.DryRun {
		errs, err = c.planDeleteOffsets(ctx, group, tps)
		if err != nil {
			return nil, err
		}
	} else {
		keys := make([]string, len(tps))
		for i, tp := range tps {
			keys[i] = tp.String()
		}
		errs, err = mutate(ctx, c, mutation[GroupOffsetsBefore, map[TopicPartition]*Error]{
			op: "delete_group_offsets", keys: keys,
			args: struct {
				Group      string           `json:"group"`
				Partitions []TopicPartition `json:"partitions"`
			}{group, tps},
			before: func(ctx context.Context) (GroupOffsetsBefore, error) { return c.groupOffsetsBefore(ctx, group, tps) },
			send: func(ctx context.Context, _ GroupOffsetsBefore) (map[TopicPartition]*Error, error) {
				return c.deleteOffsets(ctx, group, tps)
			},
			items: func(errs map[TopicPartition]*Error) []Item {
				out := make([]Item, 0, len(tps))
				for _, tp := range tps {
					out = append(out, DeletedOffset{Topic: tp.Topic, Partition: tp.Partition, Err: errs[tp]})
				}
				return out
			},
		})
		if err != nil {
			return nil, err
		}
	}
	for _, tp := range tps {
		out = append(out, DeletedOffset{Topic: tp.Topic, Partition: tp.Partition, Err: errs[tp]})
	}
	slices.SortFunc(out, func(a, b DeletedOffset) int {
		return compareTP(TopicPartition{Topic: a.Topic, Partition: a.Partition}, TopicPartition{Topic: b.Topic, Partition: b.Partition})
	})
	return out, nil
}

// deleteOffsets sends OffsetDelete for tps, retrying per partition; a
// group-level refusal (GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP...) is the error.
func (c *Client) deleteOffsets(ctx context.Context, group string, tps []TopicPartition) (map[TopicPartition]*Error, error) {
	var groupErr *Error
	errs := retryItems(ctx, tps, TopicPartition.String, func(ctx context.Context, pending []TopicPartition) (map[TopicPartition]*Error, error) {
		set := kadm.TopicsSet{}
		for _, tp := range pending {
			set.Add(tp.Topic, tp.Partition)
		}
		resp, err := c.adm.DeleteOffsets(ctx, group, set)
		answers := map[TopicPartition]*Error{}
		if e := AsError(err, group); e != nil {
			if e.Retriable {
				return nil, err
			}
			groupErr = e // GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP, ...: the group's answer
			for _, tp := range pending {
				answers[tp] = nil
			}
			return answers, nil
		}
		for _, tp := range pending {
			if perr, ok := resp.Lookup(tp.Topic, tp.Partition); ok {
				answers[tp] = AsError(perr, group+": "+tp.String())
			}
		}
		return answers, nil
	})
	if groupErr != nil {
		return nil, groupErr
	}
	return errs, nil
}

// planDeleteOffsets answers each partition as OffsetDelete would, from the
// group's description: a consumer group's members' assigned topics are
// refused with GROUP_SUBSCRIBED_TO_TOPIC (Kafka looks at their
// subscriptions, which the description does not show: assignment is the
// closest visible thing).
func (c *Client) planDeleteOffsets(ctx context.Context, group string, tps []TopicPartition) (map[TopicPartition]*Error, error) {
	d, err := c.describeOneGroup(ctx, group)
	if err != nil {
		return nil, err
	}
	if len(d.Members) > 0 && d.ProtocolType != "consumer" && d.typ != GroupTypeStreams {
		return nil, &Error{Code: kerr.NonEmptyGroup.Message, Resource: group,
			Message: fmt.Sprintf("the group has %d live member(s) and is not a consumer group", len(d.Members))}
	}
	subscribed := map[string]bool{}
	for _, m := range d.Members {
		for _, a := range m.Assignment {
			subscribed[a.Topic] = true
		}
	}
	if len(d.Members) > 0 {
		for _, t := range d.inputs { // a running streams group reads its whole topology
			subscribed[t] = true
		}
	}
	errs := map[TopicPartition]*Error{}
	for _, tp := range tps {
		if subscribed[tp.Topic] {
			errs[tp] = &Error{Code: kerr.GroupSubscribedToTopic.Message, Resource: group + ": " + tp.String(), Message: kerr.GroupSubscribedToTopic.Description}
		}
	}
	return errs, nil
}

// missingTopic is a named topic that does not exist.
type missingTopic struct {
	Topic string
	Err   *Error
}

// resolvePartitions expands topics to all their partitions (fresh
// metadata) and checks that partitions exist, returning them sorted and
// without duplicates. Topics that do not exist come back in missing; a
// partition of a missing topic, or beyond a topic's count, fails the call.
func (c *Client) resolvePartitions(ctx context.Context, topics []string, partitions []TopicPartition) ([]TopicPartition, []missingTopic, error) {
	all := slices.Clone(topics)
	for _, tp := range partitions {
		all = append(all, tp.Topic)
	}
	all = slices.Compact(slices.Sorted(slices.Values(all)))
	if len(all) == 0 {
		return nil, nil, nil
	}
	m, err := c.metadata(ctx, all)
	if err != nil {
		return nil, nil, err
	}
	set := map[TopicPartition]bool{}
	var missing []missingTopic
	for _, t := range slices.Compact(slices.Sorted(slices.Values(topics))) {
		td, ok := m.Topics[t]
		if !ok || td.Err != nil {
			missing = append(missing, missingTopic{t, AsError(orErr(td.Err, kerr.UnknownTopicOrPartition), t)})
			continue
		}
		for _, p := range td.Partitions {
			set[TopicPartition{Topic: t, Partition: p.Partition}] = true
		}
	}
	for _, tp := range partitions {
		td, ok := m.Topics[tp.Topic]
		if !ok || td.Err != nil {
			return nil, nil, AsError(orErr(td.Err, kerr.UnknownTopicOrPartition), tp.Topic)
		}
		if _, ok := td.Partitions[tp.Partition]; !ok {
			return nil, nil, &Error{Code: kerr.UnknownTopicOrPartition.Message, Resource: tp.String(),
				Message: fmt.Sprintf("topic %s has %d partition(s)", tp.Topic, len(td.Partitions))}
		}
		set[tp] = true
	}
	out := make([]TopicPartition, 0, len(set))
	for tp := range set {
		out = append(out, tp)
	}
	sortTPs(out)
	return out, missing, nil
}
