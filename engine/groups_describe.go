package engine

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// GroupMember is one member of a described group.
type GroupMember struct {
	MemberID   string           `json:"member_id"`
	InstanceID *string          `json:"instance_id"` // static membership (KIP-345); nil when none
	ClientID   string           `json:"client_id"`
	Host       string           `json:"host"`
	Assignment []TopicPartition `json:"assignment"`
}

// GroupDescription is one result of DescribeGroups.
type GroupDescription struct {
	Group        string        `json:"group"`
	State        string        `json:"state"`
	ProtocolType string        `json:"protocol_type"`
	Protocol     string        `json:"protocol"` // the assignor (classic: the chosen protocol; KIP-848: the server assignor)
	Coordinator  int32         `json:"coordinator"`
	Members      []GroupMember `json:"members"`
	Err          *Error        `json:"error,omitempty"`

	// A streams group's (described only where any type is taken, as lag
	// and reset_offsets take it): its type, and the topics its topology
	// consumes, which are its partitions in lag even without a commit.
	typ    string
	inputs []string
}

func (g GroupDescription) Key() string     { return g.Group }
func (g GroupDescription) Failure() *Error { return g.Err }

// DescribeGroups describes groups in name order, whatever their protocol:
// classic groups with DescribeGroups, KIP-848 consumer groups with
// ConsumerGroupDescribe, share groups with ShareGroupDescribe (the type comes
// from ListGroups). A group that does not exist gets GROUP_ID_NOT_FOUND
// (classic DescribeGroups answers such a group with state "Dead"; it is
// reported as the error it is). A streams group gets GROUP_ID_NOT_FOUND too,
// as Kafka answers it, with a message saying it is a streams group
// (DescribeStreamsGroups describes it). Coordinator errors are retried per
// group.
func (c *Client) DescribeGroups(ctx context.Context, groups []string) ([]GroupDescription, error) {
	ds, err := c.DescribeAnyGroups(ctx, groups)
	if err != nil {
		return nil, err
	}
	for i, d := range ds {
		if d.typ == GroupTypeStreams {
			ds[i] = GroupDescription{Group: d.Group, Members: []GroupMember{}, Err: wrongGroupType(d.Group, GroupTypeStreams, GroupTypeConsumer)}
		}
	}
	return ds, nil
}

// DescribeAnyGroups is DescribeGroups taking streams groups too, described
// in the same shape (protocol_type "streams"; each member's assignment is
// what its active tasks consume), for what needs a group's state and
// members whatever its type: the dry runs of commit_offsets and
// delete_groups.
func (c *Client) DescribeAnyGroups(ctx context.Context, groups []string) ([]GroupDescription, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	return c.describeGroups(ctx, slices.Compact(slices.Sorted(slices.Values(groups))))
}

func (c *Client) describeGroups(ctx context.Context, groups []string) ([]GroupDescription, error) {
	return c.describeKnown(ctx, groups, nil)
}

// describeKnown describes groups; listed, when not nil, is a ListGroups
// answer the caller already has (Lag lists first), whose types are used
// instead of listing again.
//
// Only ListGroups tells a KIP-848, share or streams group from a classic
// one. So the classic DescribeGroups of every group goes out at the same
// time as that listing, and the groups it shows to be of another type are
// then described again with their own request (streams groups described
// in the common shape: streamsgroups_any.go). A cluster whose ApiVersions has
// none of ConsumerGroupDescribe, ShareGroupDescribe and StreamsGroupDescribe
// has classic groups only, and is not listed at all once that is known
// (groupAPIs).
func (c *Client) describeKnown(ctx context.Context, groups []string, listed []GroupSummary) ([]GroupDescription, error) {
	classic := map[string]GroupDescription{}
	var (
		classicErrs map[string]*Error
		lerr        *Error
		wg          sync.WaitGroup
	)
	wg.Go(func() { classicErrs = c.describeOfType(ctx, groups, GroupTypeClassic, classic) })
	if listed == nil {
		listed, lerr = c.listGroupTypes(ctx)
	}
	wg.Wait()
	if lerr != nil {
		return nil, lerr
	}
	types := groupTypes(listed)

	var others, streams []string
	for _, g := range groups {
		switch types[g] {
		case GroupTypeConsumer, GroupTypeShare:
			others = append(others, g)
		case GroupTypeStreams:
			streams = append(streams, g)
		}
	}
	found, errs := classic, classicErrs
	if len(others)+len(streams) > 0 {
		found, errs = maps.Clone(classic), maps.Clone(classicErrs)
	}
	if len(streams) > 0 {
		if err := c.describeStreamsInto(ctx, streams, listed, found, errs); err != nil {
			return nil, err
		}
	}
	if len(others) > 0 {
		otherFound := map[string]GroupDescription{}
		otherErrs := retryItems(ctx, others, func(g string) string { return g }, func(ctx context.Context, pending []string) (map[string]*Error, error) {
			byType := map[string][]string{}
			for _, g := range pending {
				byType[types[g]] = append(byType[types[g]], g)
			}
			answers := map[string]*Error{}
			for typ, gs := range byType {
				var err error
				if typ == GroupTypeConsumer {
					err = c.describeConsumerGroups(ctx, gs, otherFound, answers)
				} else {
					err = c.describeShareGroups(ctx, gs, otherFound, answers)
				}
				if err != nil {
					return nil, err
				}
			}
			return answers, nil
		})
		for _, g := range others {
			delete(found, g)
			if d, ok := otherFound[g]; ok {
				found[g] = d
			}
			errs[g] = otherErrs[g]
		}
	}
	out := make([]GroupDescription, 0, len(groups))
	for _, g := range groups {
		d, ok := found[g]
		if !ok || errs[g] != nil {
			d = GroupDescription{Group: g, Members: []GroupMember{}}
		}
		d.Err = errs[g]
		out = append(out, d)
	}
	return out, nil
}

// describeOfType describes groups of one type, retrying per group, into
// found; it returns each group's outcome.
func (c *Client) describeOfType(ctx context.Context, groups []string, typ string, found map[string]GroupDescription) map[string]*Error {
	return retryItems(ctx, groups, func(g string) string { return g }, func(ctx context.Context, pending []string) (map[string]*Error, error) {
		answers := map[string]*Error{}
		var err error
		switch typ {
		case GroupTypeConsumer:
			err = c.describeConsumerGroups(ctx, pending, found, answers)
		case GroupTypeShare:
			err = c.describeShareGroups(ctx, pending, found, answers)
		default:
			err = c.describeClassicGroups(ctx, pending, found, answers)
		}
		if err != nil {
			return nil, err
		}
		return answers, nil
	})
}

func groupTypes(listed []GroupSummary) map[string]string {
	types := make(map[string]string, len(listed))
	for _, g := range listed {
		types[g.Group] = g.Type
	}
	return types
}

// listGroupTypes lists the groups (for their types), unless the cluster is
// known to have classic groups only (nil then: every group is classic).
// The first time, ApiVersions is asked beside the listing, and remembered.
func (c *Client) listGroupTypes(ctx context.Context) ([]GroupSummary, *Error) {
	switch c.groupAPIs.Load() {
	case groupAPIsClassicOnly:
		return nil, nil
	case groupAPIsUnknown:
		var wg sync.WaitGroup
		defer wg.Wait()
		wg.Go(func() { c.learnGroupAPIs(ctx) })
	}
	return c.listGroups(ctx)
}

// What a cluster's ApiVersions says about group APIs (Client.groupAPIs).
const (
	groupAPIsUnknown int32 = iota
	groupAPIsClassicOnly
	groupAPIsNewTypes // KIP-848 ConsumerGroupDescribe, KIP-932 ShareGroupDescribe or KIP-1071 StreamsGroupDescribe
)

// learnGroupAPIs asks one broker's ApiVersions whether the cluster has
// group types other than classic, and remembers the answer (nothing when
// the question fails: it is asked again next time).
func (c *Client) learnGroupAPIs(ctx context.Context) {
	req := kmsg.NewPtrApiVersionsRequest()
	req.ClientSoftwareName, req.ClientSoftwareVersion = "kadmin-lua", "0"
	resp, err := req.RequestWith(ctx, c.kgo)
	if err != nil || resp.ErrorCode != 0 {
		return
	}
	state := groupAPIsClassicOnly
	for _, k := range resp.ApiKeys {
		if k.ApiKey == int16(kmsg.ConsumerGroupDescribe) || k.ApiKey == int16(kmsg.ShareGroupDescribe) || k.ApiKey == int16(kmsg.StreamsGroupDescribe) {
			state = groupAPIsNewTypes
		}
	}
	c.groupAPIs.CompareAndSwap(groupAPIsUnknown, state)
}

// shardAnswers turns kadm's per-broker failures into per-group answers; any
// other error fails the whole request.
func shardAnswers(err error, answers map[string]*Error, groupsOf func(kmsg.Request) []string) error {
	if err == nil {
		return nil
	}
	var se *kadm.ShardErrors
	if !errors.As(err, &se) {
		return err
	}
	for _, s := range se.Errs {
		for _, g := range groupsOf(s.Req) {
			answers[g] = AsError(s.Err, g)
		}
	}
	return nil
}

// groupAnswer records one group's outcome: a missing group, an error, or its
// description.
func groupAnswer(g string, err error, state string, d GroupDescription, found map[string]GroupDescription, answers map[string]*Error) {
	switch {
	case err != nil:
		answers[g] = AsError(err, g)
	case state == "Dead":
		answers[g] = AsError(kerr.GroupIDNotFound, g)
	default:
		found[g] = d
		answers[g] = nil
	}
}

func (c *Client) describeClassicGroups(ctx context.Context, gs []string, found map[string]GroupDescription, answers map[string]*Error) error {
	described, err := c.adm.DescribeGroups(ctx, gs...)
	if err := shardAnswers(err, answers, func(r kmsg.Request) []string { return r.(*kmsg.DescribeGroupsRequest).Groups }); err != nil {
		return err
	}
	for _, g := range described {
		d := GroupDescription{Group: g.Group, State: g.State, ProtocolType: g.ProtocolType, Protocol: g.Protocol,
			Coordinator: g.Coordinator.NodeID, Members: []GroupMember{}}
		for _, m := range g.Members {
			gm := GroupMember{MemberID: m.MemberID, InstanceID: m.InstanceID, ClientID: m.ClientID, Host: m.ClientHost, Assignment: []TopicPartition{}}
			if a, ok := m.Assigned.AsConsumer(); ok {
				set := kadm.TopicsSet{}
				for _, t := range a.Topics {
					set.Add(t.Topic, t.Partitions...)
				}
				gm.Assignment = sortedPartitions(set)
			}
			d.Members = append(d.Members, gm)
		}
		groupAnswer(g.Group, g.Err, g.State, d, found, answers)
	}
	return nil
}

// describeConsumerGroups describes KIP-848 groups with ConsumerGroupDescribe
// directly: kadm's helper keys assignments by topic name, and brokers may
// answer with topic IDs only (kfake does), so IDs are resolved here.
func (c *Client) describeConsumerGroups(ctx context.Context, gs []string, found map[string]GroupDescription, answers map[string]*Error) error {
	req := kmsg.NewPtrConsumerGroupDescribeRequest()
	req.Groups = gs
	var names map[[16]byte]string
	for _, shard := range c.kgo.RequestSharded(ctx, req) {
		if shard.Err != nil {
			for _, g := range shard.Req.(*kmsg.ConsumerGroupDescribeRequest).Groups {
				answers[g] = AsError(shard.Err, g)
			}
			continue
		}
		for _, rg := range shard.Resp.(*kmsg.ConsumerGroupDescribeResponse).Groups {
			d := GroupDescription{Group: rg.Group, State: rg.State, ProtocolType: "consumer", Protocol: rg.AssignorName,
				Coordinator: shard.Meta.NodeID, Members: []GroupMember{}}
			for _, m := range rg.Members {
				set := kadm.TopicsSet{}
				for _, tp := range m.Assignment.TopicPartitions {
					topic := tp.Topic
					if topic == "" {
						if names == nil {
							var err error
							if names, err = c.topicNames(ctx); err != nil {
								return err
							}
						}
						topic = names[tp.TopicID]
					}
					set.Add(topic, tp.Partitions...)
				}
				d.Members = append(d.Members, GroupMember{MemberID: m.MemberID, InstanceID: m.InstanceID, ClientID: m.ClientID,
					Host: m.ClientHost, Assignment: sortedPartitions(set)})
			}
			sortMembers(d.Members)
			var err error
			if e := kafkaErr(rg.ErrorCode, rg.ErrorMessage, rg.Group); e != nil {
				err = e
			}
			groupAnswer(rg.Group, err, rg.State, d, found, answers)
		}
	}
	return nil
}

// topicNames maps topic IDs to names (a fresh metadata request).
func (c *Client) topicNames(ctx context.Context) (map[[16]byte]string, error) {
	m, err := c.metadata(ctx, nil)
	if err != nil {
		return nil, err
	}
	out := map[[16]byte]string{}
	for name, t := range m.Topics {
		out[t.ID] = name
	}
	return out, nil
}

// sortMembers orders members as kadm does: static members (by instance id)
// first, then by member id.
func sortMembers(ms []GroupMember) {
	slices.SortFunc(ms, func(a, b GroupMember) int {
		switch {
		case a.InstanceID != nil && b.InstanceID != nil:
			return strings.Compare(*a.InstanceID, *b.InstanceID)
		case a.InstanceID != nil:
			return -1
		case b.InstanceID != nil:
			return 1
		}
		return strings.Compare(a.MemberID, b.MemberID)
	})
}

func (c *Client) describeShareGroups(ctx context.Context, gs []string, found map[string]GroupDescription, answers map[string]*Error) error {
	described, err := c.adm.DescribeShareGroups(ctx, gs...)
	if err := shardAnswers(err, answers, func(r kmsg.Request) []string { return r.(*kmsg.ShareGroupDescribeRequest).GroupIDs }); err != nil {
		return err
	}
	for _, g := range described {
		d := GroupDescription{Group: g.GroupID, State: g.GroupState, ProtocolType: "share", Protocol: g.Assignor,
			Coordinator: g.Coordinator.NodeID, Members: []GroupMember{}}
		for _, m := range g.Members {
			d.Members = append(d.Members, GroupMember{MemberID: m.MemberID, ClientID: m.ClientID,
				Host: m.ClientHost, Assignment: sortedPartitions(m.Assignment)})
		}
		groupAnswer(g.GroupID, g.Err, g.GroupState, d, found, answers)
	}
	return nil
}

func sortedPartitions(s kadm.TopicsSet) []TopicPartition {
	out := []TopicPartition{}
	for _, t := range s.Sorted() {
		for _, p := range t.Partitions {
			out = append(out, TopicPartition{Topic: t.Topic, Partition: p})
		}
	}
	return out
}
