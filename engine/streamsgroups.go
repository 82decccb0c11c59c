package engine

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Streams groups (KIP-1071): the broker-side groups of Kafka Streams
// applications (group.protocol=streams). A streams group has a topology of
// subtopologies, each reading source topics (and the repartition topics
// other subtopologies write) and keeping its state in changelog topics;
// the broker assigns each member tasks, one per subtopology and input
// partition: active tasks process, standby tasks keep a copy of the state,
// warm-up tasks build one before they take over. Offsets are committed
// like a consumer group's, so fetch_offsets, lag, reset_offsets,
// delete_group_offsets and delete_groups take a streams group as they take
// a consumer group; only describing it needs StreamsGroupDescribe, which
// kadm has no helper for.

// StreamsGroupNeeds is what describing a streams group needs of a cluster:
// StreamsGroupDescribe (advertised from Kafka 4.2; 4.1 has it as early
// access, unadvertised unless unstable.api.versions.enable=true) and the
// streams.version feature.
var StreamsGroupNeeds = []Need{
	{API: int16(kmsg.StreamsGroupDescribe), Since: "4.2",
		Hint: "Kafka 4.1 has streams groups as early access: brokers started with unstable.api.versions.enable=true and unstable.feature.versions.enable=true, and streams.version raised to 1"},
	{API: -1, Feature: "streams.version", FeatureLevel: 1, What: "streams groups",
		Hint: "Kafka 4.1 offers the feature only to brokers started with unstable.feature.versions.enable=true"},
}

// StreamsTopic is an internal topic of a subtopology: a repartition topic
// it reads, or one of its state stores' changelogs. Partitions is the
// count the topology asks for (0: the broker leaves it to the source
// topics).
type StreamsTopic struct {
	Topic      string `json:"topic"`
	Partitions int32  `json:"partitions"`
}

// StreamsSubtopology is one subtopology of a streams group's topology.
type StreamsSubtopology struct {
	Subtopology             string         `json:"subtopology"`
	SourceTopics            []string       `json:"source_topics"`
	RepartitionSourceTopics []StreamsTopic `json:"repartition_source_topics"`
	RepartitionSinkTopics   []string       `json:"repartition_sink_topics"`
	ChangelogTopics         []StreamsTopic `json:"changelog_topics"`
}

// inputs are the topics the subtopology consumes (and commits offsets
// for): its source topics and the repartition topics it reads.
func (s StreamsSubtopology) inputs() []string {
	out := slices.Clone(s.SourceTopics)
	for _, t := range s.RepartitionSourceTopics {
		out = append(out, t.Topic)
	}
	return out
}

// StreamsTasks are a member's tasks of one subtopology: one per partition.
type StreamsTasks struct {
	Subtopology string  `json:"subtopology"`
	Partitions  []int32 `json:"partitions"`
}

// StreamsGroupMember is one member of a streams group: a stream thread of
// a Kafka Streams instance (its process).
type StreamsGroupMember struct {
	MemberID       string  `json:"member_id"`
	InstanceID     *string `json:"instance_id"` // static membership; nil when none
	ProcessID      string  `json:"process_id"`
	ClientID       string  `json:"client_id"`
	Host           string  `json:"host"`
	Rack           *string `json:"rack"`
	UserEndpoint   *string `json:"user_endpoint"`   // host:port for Interactive Queries; nil when none
	MemberProtocol string  `json:"member_protocol"` // "streams", or "classic" for a member not yet upgraded
	MemberEpoch    int32   `json:"member_epoch"`
	TopologyEpoch  int32   `json:"topology_epoch"` // the topology the member runs
	// The tasks the member has now, and those the broker means it to have.
	ActiveTasks        []StreamsTasks `json:"active_tasks"`
	StandbyTasks       []StreamsTasks `json:"standby_tasks"`
	WarmupTasks        []StreamsTasks `json:"warmup_tasks"`
	TargetActiveTasks  []StreamsTasks `json:"target_active_tasks"`
	TargetStandbyTasks []StreamsTasks `json:"target_standby_tasks"`
	TargetWarmupTasks  []StreamsTasks `json:"target_warmup_tasks"`
	// Assignment is what the active tasks consume: each one's partition
	// of its subtopology's source and repartition topics.
	Assignment []TopicPartition `json:"assignment"`
}

// StreamsGroup is one result of DescribeStreamsGroups.
type StreamsGroup struct {
	Group                 string `json:"group"`
	State                 string `json:"state"`
	Coordinator           int32  `json:"coordinator"`
	GroupEpoch            int32  `json:"group_epoch"`
	TargetAssignmentEpoch int32  `json:"target_assignment_epoch"`
	TopologyEpoch         int32  `json:"topology_epoch"`
	// TopologyReady is false while the broker cannot run the topology:
	// state NotReady (source topics missing or not co-partitioned,
	// internal topics not created yet), or no topology yet.
	TopologyReady bool                 `json:"topology_ready"`
	Assignor      *string              `json:"assignor"` // StreamsGroupDescribe v1 (Kafka 4.4+); nil before
	Subtopologies []StreamsSubtopology `json:"subtopologies"`
	Members       []StreamsGroupMember `json:"members"`
	Err           *Error               `json:"error,omitempty"`
}

func (g StreamsGroup) Key() string     { return g.Group }
func (g StreamsGroup) Failure() *Error { return g.Err }

// inputTopics are every topic the group's topology consumes, sorted.
func (g StreamsGroup) inputTopics() []string {
	var out []string
	for _, s := range g.Subtopologies {
		out = append(out, s.inputs()...)
	}
	return slices.Compact(slices.Sorted(slices.Values(out)))
}

// DescribeStreamsGroups describes streams groups in name order, as
// kafka-streams-groups.sh --describe does (--state, --members, the
// topology). A group that does not exist fails with GROUP_ID_NOT_FOUND;
// so does a group of another type, with a message naming its type and
// the function that describes it. Coordinator errors are retried per group.
func (c *Client) DescribeStreamsGroups(ctx context.Context, groups []string) ([]StreamsGroup, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	groups = slices.Compact(slices.Sorted(slices.Values(groups)))
	found, errs, err := c.describeStreams(ctx, groups, nil)
	if err != nil {
		return nil, err
	}
	// Kafka answers a group of another type as it answers a missing one;
	// the listing tells which it is.
	var notFound []string
	for _, g := range groups {
		if e := errs[g]; e != nil && e.Code == kerr.GroupIDNotFound.Message {
			notFound = append(notFound, g)
		}
	}
	if len(notFound) > 0 {
		listed, lerr := c.listGroups(ctx)
		if lerr != nil {
			return nil, lerr
		}
		types := groupTypes(listed)
		for _, g := range notFound {
			if t, ok := types[g]; ok && t != GroupTypeStreams {
				errs[g] = wrongGroupType(g, t, GroupTypeStreams)
			}
		}
	}
	out := make([]StreamsGroup, 0, len(groups))
	for _, g := range groups {
		sg, ok := found[g]
		if !ok || errs[g] != nil {
			sg = StreamsGroup{Group: g, Subtopologies: []StreamsSubtopology{}, Members: []StreamsGroupMember{}}
		}
		sg.Err = errs[g]
		out = append(out, sg)
	}
	return out, nil
}

// describeStreams sends StreamsGroupDescribe for groups to their
// coordinators: those coordinators says (ListGroups names them), the others
// found with FindCoordinator, all of them found again after a
// NOT_COORDINATOR. It returns the groups described and each group's
// outcome; err is what stops the whole call (the cluster lacks the request).
func (c *Client) describeStreams(ctx context.Context, groups []string, coordinators map[string]int32) (map[string]StreamsGroup, map[string]*Error, error) {
	if len(groups) == 0 {
		return map[string]StreamsGroup{}, map[string]*Error{}, nil
	}
	if err := c.Check(ctx, StreamsGroupNeeds...); err != nil {
		return nil, nil, err
	}
	var mu sync.Mutex
	found := map[string]StreamsGroup{}
	known := maps.Clone(coordinators) // nil when none are known
	errs := retryItems(ctx, groups, func(g string) string { return g }, func(ctx context.Context, pending []string) (map[string]*Error, error) {
		answers := map[string]*Error{}
		byNode := map[int32][]string{}
		var unknown []string
		for _, g := range pending {
			if node, ok := known[g]; ok {
				byNode[node] = append(byNode[node], g)
			} else {
				unknown = append(unknown, g)
			}
		}
		for g, r := range c.adm.FindGroupCoordinators(ctx, unknown...) {
			if r.Err != nil {
				answers[g] = AsError(r.Err, g)
				continue
			}
			byNode[r.NodeID] = append(byNode[r.NodeID], g)
		}
		var wg sync.WaitGroup
		for node, gs := range byNode {
			wg.Go(func() {
				req := kmsg.NewPtrStreamsGroupDescribeRequest()
				req.Groups = gs
				resp, err := req.RequestWith(ctx, c.kgo.Broker(int(node)))
				mu.Lock()
				defer mu.Unlock()
				for _, g := range gs {
					delete(known, g) // asked again, it is found again
				}
				if err != nil {
					for _, g := range gs {
						answers[g] = AsError(err, g)
					}
					return
				}
				for _, rg := range resp.Groups {
					if e := kafkaErr(rg.ErrorCode, rg.ErrorMessage, rg.Group); e != nil {
						answers[rg.Group] = e
						continue
					}
					found[rg.Group] = streamsGroup(rg, node)
					answers[rg.Group] = nil
				}
			})
		}
		wg.Wait()
		return answers, nil
	})
	return found, errs, nil
}

// streamsGroup converts one described group.
func streamsGroup(rg kmsg.StreamsGroupDescribeResponseGroup, coordinator int32) StreamsGroup {
	g := StreamsGroup{Group: rg.Group, State: rg.State, Coordinator: coordinator, GroupEpoch: rg.Epoch,
		TargetAssignmentEpoch: rg.AssignmentEpoch, Assignor: rg.AssignorName,
		Subtopologies: []StreamsSubtopology{}, Members: []StreamsGroupMember{}}
	if t := rg.Topology; t != nil {
		g.TopologyEpoch = t.Epoch
		for _, s := range t.Subtopologies {
			g.Subtopologies = append(g.Subtopologies, StreamsSubtopology{Subtopology: s.SubtopologyID,
				SourceTopics: sortedStrings(s.SourceTopics), RepartitionSinkTopics: sortedStrings(s.RepartitionSinkTopics),
				RepartitionSourceTopics: streamsTopics(s.RepartitionSourceTopics), ChangelogTopics: streamsTopics(s.StateChangelogTopics)})
		}
	}
	slices.SortFunc(g.Subtopologies, func(a, b StreamsSubtopology) int { return compareIDs(a.Subtopology, b.Subtopology) })
	g.TopologyReady = rg.State != "NotReady" && len(g.Subtopologies) > 0
	inputs := map[string][]string{}
	for _, s := range g.Subtopologies {
		inputs[s.Subtopology] = s.inputs()
	}
	for _, m := range rg.Members {
		sm := StreamsGroupMember{MemberID: m.MemberID, InstanceID: m.InstanceID, ProcessID: m.ProcessID, ClientID: m.ClientID,
			Host: m.ClientHost, Rack: m.RackID, MemberProtocol: "streams", MemberEpoch: m.MemberEpoch, TopologyEpoch: m.TopologyEpoch,
			ActiveTasks: streamsTasks(m.Assignment.ActiveTasks), StandbyTasks: streamsTasks(m.Assignment.StandbyTasks),
			WarmupTasks: streamsTasks(m.Assignment.WarmupTasks), TargetActiveTasks: streamsTasks(m.TargetAssignment.ActiveTasks),
			TargetStandbyTasks: streamsTasks(m.TargetAssignment.StandbyTasks), TargetWarmupTasks: streamsTasks(m.TargetAssignment.WarmupTasks),
			Assignment: []TopicPartition{}}
		if m.IsClassic {
			sm.MemberProtocol = GroupTypeClassic
		}
		if e := m.UserEndpoint; e != nil {
			ep := e.Host + ":" + strconv.Itoa(int(e.Port))
			sm.UserEndpoint = &ep
		}
		for _, t := range sm.ActiveTasks {
			for _, topic := range inputs[t.Subtopology] {
				for _, p := range t.Partitions {
					sm.Assignment = append(sm.Assignment, TopicPartition{Topic: topic, Partition: p})
				}
			}
		}
		sortTPs(sm.Assignment)
		g.Members = append(g.Members, sm)
	}
	slices.SortFunc(g.Members, func(a, b StreamsGroupMember) int {
		return compareIDs(a.ProcessID+"\x00"+a.MemberID, b.ProcessID+"\x00"+b.MemberID)
	})
	return g
}

func sortedStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return slices.Sorted(slices.Values(s))
}

func streamsTopics(ts []kmsg.TopicInfo) []StreamsTopic {
	out := make([]StreamsTopic, 0, len(ts))
	for _, t := range ts {
		out = append(out, StreamsTopic{Topic: t.Topic, Partitions: max(t.NumPartitions, 0)})
	}
	slices.SortFunc(out, func(a, b StreamsTopic) int { return compareIDs(a.Topic, b.Topic) })
	return out
}

func streamsTasks(ts []kmsg.TaskIDs) []StreamsTasks {
	out := make([]StreamsTasks, 0, len(ts))
	for _, t := range ts {
		out = append(out, StreamsTasks{Subtopology: t.SubtopologyID, Partitions: slices.Sorted(slices.Values(append([]int32{}, t.Partitions...)))})
	}
	slices.SortFunc(out, func(a, b StreamsTasks) int { return compareIDs(a.Subtopology, b.Subtopology) })
	return out
}

// compareIDs orders subtopology ids ("0", "1", ..., "10") as numbers when
// both are, else as strings.
func compareIDs(a, b string) int {
	x, errA := strconv.Atoi(a)
	y, errB := strconv.Atoi(b)
	if errA == nil && errB == nil {
		return cmp.Compare(x, y)
	}
	return strings.Compare(a, b)
}

// wrongGroupType is the error for a group asked for as type want that is of
// type is: GROUP_ID_NOT_FOUND, as Kafka answers it, naming both and the
// function that takes it.
func wrongGroupType(group, is, want string) *Error {
	describer := map[string]string{GroupTypeStreams: "describe_streams_groups", GroupTypeShare: "describe_share_groups"}[is]
	if describer == "" {
		describer = "describe_groups"
	}
	return &Error{Code: kerr.GroupIDNotFound.Message, Resource: group,
		Message: fmt.Sprintf("%s is %s, not a %s group: describe it with %s", group, groupTypeName(is), want, describer)}
}

// groupTypeName names a group type for a message: "a streams group".
func groupTypeName(t string) string {
	switch t {
	case GroupTypeConsumer:
		return "a consumer group (KIP-848)"
	case GroupTypeClassic:
		return "a classic consumer group"
	case GroupTypeShare:
		return "a share group"
	case GroupTypeStreams:
		return "a streams group"
	case "":
		return "a consumer group"
	}
	return "a " + t + " group"
}
