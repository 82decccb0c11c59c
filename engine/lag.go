package engine

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
)

// PartitionLag is one partition of a group's lag. Committed is -1 when the
// group has no commit for the partition; Lag is then counted from the log
// start offset (what the group would read from "earliest"), as kadm does.
// Lag is -1 when it could not be computed (Err says why). MemberID and
// ClientID are empty for partitions no member is assigned.
type PartitionLag struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Committed int64  `json:"committed"`
	EndOffset int64  `json:"end_offset"`
	Lag       int64  `json:"lag"`
	MemberID  string `json:"member_id,omitempty"`
	ClientID  string `json:"client_id,omitempty"`
	Err       *Error `json:"error,omitempty"`
}

// GroupLag is one result of Lag.
type GroupLag struct {
	Group      string         `json:"group"`
	State      string         `json:"state"`
	TotalLag   int64          `json:"total_lag"`
	Partitions []PartitionLag `json:"partitions"`
	Err        *Error         `json:"error,omitempty"`
}

func (g GroupLag) Key() string     { return g.Group }
func (g GroupLag) Failure() *Error { return g.Err }

// Lag computes groups' lag (all consumer groups, classic and KIP-848, when
// groups is empty), sorted by group then topic and partition. A group's
// partitions are those assigned to its members, those it committed to, and
// every other partition of those topics (a consumer of a topic is expected to
// read all of it). A failed partition (no end offset) gets lag -1 and its
// error, and fails its group; partitions of topics that no longer exist keep
// their UNKNOWN_TOPIC_OR_PARTITION error without failing the group (stale
// commits are common and harmless).
//
// kadm.Client.Lag is not used because it describes groups with the classic
// DescribeGroups only, which shows no members for KIP-848 groups; the
// computation is the same as kadm's CalculateGroupLagWithStartOffsets.
func (c *Client) Lag(ctx context.Context, groups []string) ([]GroupLag, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	var listed []GroupSummary
	if len(groups) == 0 {
		var err *Error
		if listed, err = c.listGroups(ctx); err != nil {
			return nil, err
		}
		for _, g := range listed {
			if g.Type == GroupTypeConsumer || (g.Type == GroupTypeClassic && (g.ProtocolType == "consumer" || g.ProtocolType == "")) {
				groups = append(groups, g.Group)
			}
		}
	}
	groups = dedupSorted(groups)

	// The groups' descriptions and their commits are independent: ask for
	// both at once. (A group whose description fails keeps that error; its
	// commits are then not used.)
	var (
		described []GroupDescription
		err       error
		commits   map[string]kadm.OffsetResponses
		fetchErrs map[string]*Error
		wg        sync.WaitGroup
	)
	wg.Go(func() { described, err = c.describeKnown(ctx, groups, listed) })
	commits, fetchErrs = c.fetchManyOffsets(ctx, groups)
	wg.Wait()
	if err != nil {
		return nil, err
	}

	topicSet := map[string]bool{}
	for _, d := range described {
		if d.Err != nil {
			continue
		}
		for _, m := range d.Members {
			for _, a := range m.Assignment {
				topicSet[a.Topic] = true
			}
		}
		for t := range commits[d.Group] {
			topicSet[t] = true
		}
	}
	var start, end kadm.ListedOffsets
	if topics := sortedKeys(topicSet); len(topics) > 0 {
		if start, end, err = c.listStartEnd(ctx, topics); err != nil {
			return nil, err
		}
	}

	out := make([]GroupLag, 0, len(described))
	for _, d := range described {
		gl := GroupLag{Group: d.Group, State: d.State, Partitions: []PartitionLag{}, Err: d.Err}
		if gl.Err == nil {
			gl.Err = fetchErrs[d.Group]
		}
		if gl.Err == nil {
			gl.Partitions = groupLag(d, commits[d.Group], start, end)
			for _, p := range gl.Partitions {
				if p.Lag > 0 {
					gl.TotalLag += p.Lag
				}
				if p.Err != nil && gl.Err == nil && p.Err.Code != kerr.UnknownTopicOrPartition.Message {
					gl.Err = p.Err
				}
			}
		}
		out = append(out, gl)
	}
	return out, nil
}

// groupLag computes one group's per-partition lag, sorted by topic and
// partition: the partitions assigned to its members, those it committed
// to, and every other partition of those topics.
func groupLag(d GroupDescription, commits kadm.OffsetResponses, start, end kadm.ListedOffsets) []PartitionLag {
	type owner struct{ member, client string }
	var owners map[TopicPartition]owner
	// Each topic's partitions as a set of numbers: marked in a slice
	// indexed by partition, read back in order (no sort; a topic's
	// partitions are 0..n-1, give or take a deleted topic's commits).
	byTopic := map[string][]bool{}
	var sparse map[string][]int32 // partitions past denseLimit, if a broker says so
	mark := func(t string, p int32) {
		if p < 0 {
			return
		}
		if p >= denseLimit {
			if sparse == nil {
				sparse = map[string][]int32{}
			}
			if _, ok := byTopic[t]; !ok {
				byTopic[t] = nil
			}
			sparse[t] = append(sparse[t], p)
			return
		}
		s := byTopic[t]
		if int(p) >= len(s) {
			s = append(s, make([]bool, int(p)+1-len(s))...)
			byTopic[t] = s
		}
		s[p] = true
	}
	for _, m := range d.Members {
		for _, a := range m.Assignment {
			if owners == nil {
				owners = map[TopicPartition]owner{}
			}
			owners[a] = owner{m.MemberID, m.ClientID}
			mark(a.Topic, a.Partition)
		}
	}
	for t, ps := range commits {
		if _, ok := byTopic[t]; !ok {
			byTopic[t] = make([]bool, 0, len(end[t]))
		}
		for p := range ps {
			mark(t, p)
		}
	}
	for t := range byTopic {
		for p := range end[t] {
			mark(t, p)
		}
	}
	n := 0
	for t, s := range byTopic {
		for _, in := range s {
			if in {
				n++
			}
		}
		if ps := sparse[t]; ps != nil {
			slices.Sort(ps)
			sparse[t] = slices.Compact(ps)
			n += len(sparse[t])
		}
	}

	out := make([]PartitionLag, 0, n)
	for _, t := range sortedKeys(byTopic) {
		topicEnd, topicStart := end[t], start[t]
		var topicCommits map[int32]kadm.OffsetResponse
		if commits != nil {
			topicCommits = commits[t]
		}
		parts := make([]int32, 0, len(byTopic[t])+len(sparse[t]))
		for i, in := range byTopic[t] {
			if in {
				parts = append(parts, int32(i))
			}
		}
		for _, part := range append(parts, sparse[t]...) {
			p := PartitionLag{Topic: t, Partition: part, Committed: -1, Lag: -1, EndOffset: -1}
			if o, ok := owners[TopicPartition{t, part}]; ok {
				p.MemberID, p.ClientID = o.member, o.client
			}
			var err error
			if o, ok := topicCommits[part]; ok {
				p.Committed, err = o.At, o.Err
			}
			e, ok := topicEnd[part]
			switch {
			case err != nil:
			case ok:
				err = e.Err
			default:
				err = errNoEndOffset
				if missing, gone := topicEnd[-1]; gone && missing.Err != nil {
					err = missing.Err // the topic does not exist (any more)
				}
			}
			if err != nil {
				p.Err = AsError(err, d.Group+": "+partitionKey(t, part))
				out = append(out, p)
				continue
			}
			p.EndOffset = e.Offset
			lag := e.Offset
			if s, ok := topicStart[part]; ok && s.Err == nil {
				lag = e.Offset - s.Offset
			}
			if p.Committed >= 0 {
				lag = e.Offset - p.Committed
			}
			p.Lag = max(lag, 0)
			out = append(out, p)
		}
	}
	return out
}

// denseLimit bounds the partition numbers groupLag marks in a slice.
const denseLimit = 1 << 20

var errNoEndOffset = &Error{Code: "LEADER_NOT_AVAILABLE", Message: "no end offset could be listed for this partition", Retriable: true}

// fetchManyOffsets fetches several groups' commits in one request per
// coordinator, retrying per group. A group without commits (or that does not
// exist) gets an empty map.
func (c *Client) fetchManyOffsets(ctx context.Context, groups []string) (map[string]kadm.OffsetResponses, map[string]*Error) {
	commits := map[string]kadm.OffsetResponses{}
	errs := retryItems(ctx, groups, func(g string) string { return g }, func(ctx context.Context, pending []string) (map[string]*Error, error) {
		answers := map[string]*Error{}
		for g, f := range c.adm.FetchManyOffsets(ctx, pending...) {
			if errors.Is(f.Err, kerr.GroupIDNotFound) {
				commits[g], answers[g] = kadm.OffsetResponses{}, nil
				continue
			}
			e := AsError(f.Err, g)
			if e == nil {
				f.Fetched.EachError(func(o kadm.OffsetResponse) {
					if pe := AsError(o.Err, g); pe.Retriable && e == nil {
						e = pe
					}
				})
			}
			if e == nil {
				commits[g] = f.Fetched
			}
			answers[g] = e
		}
		return answers, nil
	})
	return commits, errs
}

// listStartEnd lists the start and end offsets of topics, both at once,
// asking again while any partition has a retriable error
// (LEADER_NOT_AVAILABLE, ...) until ctx ends; what is still failing then
// stays on the partitions.
func (c *Client) listStartEnd(ctx context.Context, topics []string) (start, end kadm.ListedOffsets, err error) {
	rerr := retryCall(ctx, "", func(ctx context.Context) error {
		lists := []struct {
			fn  func(context.Context, ...string) (kadm.ListedOffsets, error)
			dst *kadm.ListedOffsets
			err error
		}{{fn: c.adm.ListStartOffsets, dst: &start}, {fn: c.adm.ListEndOffsets, dst: &end}}
		var wg sync.WaitGroup
		for i := range lists {
			l := &lists[i]
			wg.Go(func() {
				listed, err := l.fn(ctx, topics...)
				var se *kadm.ShardErrors
				if err != nil && !errors.As(err, &se) {
					l.err = err
					return
				}
				*l.dst = listed
				l.err = err
				listed.Each(func(o kadm.ListedOffset) {
					if e := AsError(o.Err, ""); e != nil && e.Retriable && l.err == nil {
						l.err = o.Err
					}
				})
			})
		}
		wg.Wait()
		return cmp.Or(lists[0].err, lists[1].err)
	})
	if (start == nil || end == nil) && rerr != nil {
		return nil, nil, rerr
	}
	return start, end, nil
}
