package kafkatest

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// FakeStreams makes a kfake cluster answer for streams groups (KIP-1071),
// which kfake does not have, from descriptions the test sets: recorded from
// a real broker (RecordedStreamsGroup) or built. Their committed offsets
// are kfake's own (commit them as for any group: kfake keeps them in an
// empty classic group of the same name). Then:
//
//   - ApiVersions advertises StreamsGroupDescribe and a finalized
//     streams.version 1;
//   - ListGroups lists each as a streams group on its coordinator, in place
//     of kfake's classic group (the rest of kfake's answer is kept);
//   - StreamsGroupDescribe answers from the coordinator (NOT_COORDINATOR
//     from another broker, GROUP_ID_NOT_FOUND for a group not set);
//   - a group with members refuses admin commits (UNKNOWN_MEMBER_ID) and
//     deletion (NON_EMPTY_GROUP), as Kafka does; a deleted group is
//     forgotten.
type FakeStreams struct {
	c     *kfake.Cluster
	inner *kgo.Client // passes requests on to kfake itself

	mu     sync.Mutex
	groups map[string]kmsg.StreamsGroupDescribeResponseGroup
	// passing are the DeleteGroups requests being passed on, so that the
	// handler lets them through (keyed by their groups).
	passing map[string]int

	// Describes counts the StreamsGroupDescribe requests answered.
	Describes atomic.Int64
}

// innerListMarker marks the ListGroups requests FakeStreams passes on to
// kfake: a type no group has, beside the types kfake knows.
const innerListMarker = "kafkatest-fake-streams"

// NewFakeStreams installs the fake on c with groups (more come with Set).
// Install it before clients connect: ApiVersions is read once per
// connection. Its ApiVersions answer advertises alsoAdvertise too, as
// Advertise would (one answer wins: Advertise's and this one do not mix).
func NewFakeStreams(t testing.TB, c *kfake.Cluster, alsoAdvertise []kmsg.Key, groups ...kmsg.StreamsGroupDescribeResponseGroup) *FakeStreams {
	t.Helper()
	inner, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.DisableClientMetrics())
	require.NoError(t, err)
	t.Cleanup(inner.Close)
	f := &FakeStreams{c: c, inner: inner, groups: map[string]kmsg.StreamsGroupDescribeResponseGroup{}, passing: map[string]int{}}
	for _, g := range groups {
		f.Set(g)
	}
	AdvertiseEdited(t, c, func(r *kmsg.ApiVersionsResponse) {
		r.SupportedFeatures = slices.DeleteFunc(r.SupportedFeatures, func(f kmsg.ApiVersionsResponseSupportedFeature) bool { return f.Name == "streams.version" })
		r.FinalizedFeatures = slices.DeleteFunc(r.FinalizedFeatures, func(f kmsg.ApiVersionsResponseFinalizedFeature) bool { return f.Name == "streams.version" })
		sf := kmsg.NewApiVersionsResponseSupportedFeature()
		sf.Name, sf.MinVersion, sf.MaxVersion = "streams.version", 0, 1
		r.SupportedFeatures = append(r.SupportedFeatures, sf)
		ff := kmsg.NewApiVersionsResponseFinalizedFeature()
		ff.Name, ff.MinVersionLevel, ff.MaxVersionLevel = "streams.version", 1, 1
		r.FinalizedFeatures = append(r.FinalizedFeatures, ff)
	}, append([]kmsg.Key{kmsg.StreamsGroupDescribe}, alsoAdvertise...)...)
	c.ControlKey(int16(kmsg.StreamsGroupDescribe), f.describe)
	c.ControlKey(int16(kmsg.ListGroups), f.list)
	c.ControlKey(int16(kmsg.OffsetCommit), f.commit)
	c.ControlKey(int16(kmsg.DeleteGroups), f.deleteGroups)
	return f
}

// Set adds or replaces a streams group's description.
func (f *FakeStreams) Set(g kmsg.StreamsGroupDescribeResponseGroup) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.groups[g.Group] = g
}

// Group returns a group's description as set (false when none).
func (f *FakeStreams) Group(name string) (kmsg.StreamsGroupDescribeResponseGroup, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	g, ok := f.groups[name]
	return g, ok
}

func (f *FakeStreams) describe(kreq kmsg.Request) (kmsg.Response, error, bool) {
	f.c.KeepControl()
	f.Describes.Add(1)
	req := kreq.(*kmsg.StreamsGroupDescribeRequest)
	resp := req.ResponseKind().(*kmsg.StreamsGroupDescribeResponse)
	resp.SetVersion(req.Version)
	node := f.c.CurrentNode()
	for _, name := range req.Groups {
		g := kmsg.NewStreamsGroupDescribeResponseGroup()
		g.Group = name
		f.mu.Lock()
		known, ok := f.groups[name]
		f.mu.Unlock()
		switch {
		case f.c.CoordinatorFor(name) != node:
			g.ErrorCode = kerr.NotCoordinator.Code
		case !ok:
			g.ErrorCode = kerr.GroupIDNotFound.Code
			g.ErrorMessage = kmsg.StringPtr(fmt.Sprintf("Group %s not found.", name))
		default:
			g = known
		}
		resp.Groups = append(resp.Groups, g)
	}
	return resp, nil, true
}

// list passes the request on to kfake (sleeping this control function, so
// that kfake serves it), then lists the streams groups this broker
// coordinates in place of kfake's classic ones of the same names.
func (f *FakeStreams) list(kreq kmsg.Request) (kmsg.Response, error, bool) {
	f.c.KeepControl()
	req := kreq.(*kmsg.ListGroupsRequest)
	if slices.Contains(req.TypesFilter, innerListMarker) {
		return nil, nil, false // the request passed on: kfake answers it
	}
	node := f.c.CurrentNode()
	var (
		resp *kmsg.ListGroupsResponse
		err  error
	)
	f.c.SleepControl(func() {
		inner := *req
		inner.TypesFilter = []string{"classic", "consumer", "share", innerListMarker}
		resp, err = inner.RequestWith(context.Background(), f.inner.Broker(int(node)))
	})
	if err != nil {
		return nil, err, true
	}
	f.mu.Lock()
	groups := maps.Clone(f.groups)
	f.mu.Unlock()
	resp.SetVersion(req.Version)
	resp.Groups = slices.DeleteFunc(resp.Groups, func(g kmsg.ListGroupsResponseGroup) bool {
		_, streams := groups[g.Group]
		return streams || (len(req.TypesFilter) > 0 && !slices.ContainsFunc(req.TypesFilter, func(t string) bool { return strings.EqualFold(t, g.GroupType) }))
	})
	for _, name := range slices.Sorted(maps.Keys(groups)) {
		g := groups[name]
		if f.c.CoordinatorFor(name) != node ||
			(len(req.StatesFilter) > 0 && !slices.ContainsFunc(req.StatesFilter, func(s string) bool { return strings.EqualFold(s, g.State) })) ||
			(len(req.TypesFilter) > 0 && !slices.ContainsFunc(req.TypesFilter, func(t string) bool { return strings.EqualFold(t, "streams") })) {
			continue
		}
		lg := kmsg.NewListGroupsResponseGroup()
		lg.Group, lg.GroupState, lg.ProtocolType, lg.GroupType = name, g.State, "streams", "streams"
		resp.Groups = append(resp.Groups, lg)
	}
	return resp, nil, true
}

// commit refuses an admin commit to a streams group with members.
func (f *FakeStreams) commit(kreq kmsg.Request) (kmsg.Response, error, bool) {
	f.c.KeepControl()
	req := kreq.(*kmsg.OffsetCommitRequest)
	if !f.hasMembers(req.Group) {
		return nil, nil, false
	}
	resp := req.ResponseKind().(*kmsg.OffsetCommitResponse)
	resp.SetVersion(req.Version)
	for _, t := range req.Topics {
		rt := kmsg.NewOffsetCommitResponseTopic()
		rt.Topic = t.Topic
		for _, p := range t.Partitions {
			rp := kmsg.NewOffsetCommitResponseTopicPartition()
			rp.Partition, rp.ErrorCode = p.Partition, kerr.UnknownMemberID.Code
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp, nil, true
}

func (f *FakeStreams) hasMembers(group string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	g, ok := f.groups[group]
	return ok && len(g.Members) > 0
}

// deleteGroups refuses to delete a streams group with members, deletes one
// without, and passes the other groups on to kfake (the streams groups'
// too, which may have commits there); the streams groups deleted are
// forgotten.
func (f *FakeStreams) deleteGroups(kreq kmsg.Request) (kmsg.Response, error, bool) {
	f.c.KeepControl()
	req := kreq.(*kmsg.DeleteGroupsRequest)
	f.mu.Lock()
	if key := strings.Join(req.Groups, "\x00"); f.passing[key] > 0 {
		f.passing[key]--
		f.mu.Unlock()
		return nil, nil, false // the request passed on: kfake answers it
	}
	var refused, rest []string
	streams := map[string]bool{}
	for _, g := range req.Groups {
		d, ok := f.groups[g]
		switch {
		case ok && len(d.Members) > 0:
			refused = append(refused, g)
			continue
		case ok:
			streams[g] = true
		}
		rest = append(rest, g)
	}
	if len(streams)+len(refused) == 0 {
		f.mu.Unlock()
		return nil, nil, false // no streams group: kfake answers
	}
	if len(rest) > 0 {
		f.passing[strings.Join(rest, "\x00")]++
	}
	f.mu.Unlock()

	resp := req.ResponseKind().(*kmsg.DeleteGroupsResponse)
	if len(rest) > 0 {
		node := f.c.CurrentNode()
		var err error
		f.c.SleepControl(func() {
			inner := *req
			inner.Groups = rest
			resp, err = inner.RequestWith(context.Background(), f.inner.Broker(int(node)))
		})
		if err != nil {
			return nil, err, true
		}
	}
	resp.SetVersion(req.Version)
	f.mu.Lock()
	for i, r := range resp.Groups {
		if streams[r.Group] && r.ErrorCode == kerr.GroupIDNotFound.Code {
			resp.Groups[i].ErrorCode = 0 // no commits, but the streams group existed
		}
		if resp.Groups[i].ErrorCode == 0 {
			delete(f.groups, r.Group)
		}
	}
	f.mu.Unlock()
	for _, g := range refused {
		rg := kmsg.NewDeleteGroupsResponseGroup()
		rg.Group, rg.ErrorCode = g, kerr.NonEmptyGroup.Code
		resp.Groups = append(resp.Groups, rg)
	}
	return resp, nil, true
}

//go:embed testdata/streams
var recordedStreams embed.FS

// RecordedStreamsGroup is a streams group's description as Apache Kafka
// 4.1.2 answered StreamsGroupDescribe, from testdata/streams/NAME.json:
//
//   - "stable": group wc1 of a word-count application (source topic
//     words-in, 3 partitions; subtopology 0 repartitions by word into
//     wc1-by-word-repartition, subtopology 1 counts into the store counts,
//     changelog wc1-counts-changelog), one member running all 6 tasks;
//   - "empty": the same group after its instance stopped;
//   - "notready": group nr-app, whose source topic does not exist: one
//     member, no topology, state NotReady.
//
// The result is renamed to group, when group is not "".
func RecordedStreamsGroup(t testing.TB, name, group string) kmsg.StreamsGroupDescribeResponseGroup {
	t.Helper()
	b, err := recordedStreams.ReadFile("testdata/streams/" + name + ".json")
	require.NoError(t, err)
	var g kmsg.StreamsGroupDescribeResponseGroup
	require.NoError(t, json.Unmarshal(b, &g))
	if group != "" {
		g.Group = group
	}
	return g
}
