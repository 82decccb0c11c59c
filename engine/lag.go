package engine

import (
	"context"
	"errors"
	"maps"
	"slices"

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
	if len(groups) == 0 {
		listed, err := c.listGroups(ctx)
		if err != nil {
			return nil, err
		}
		for _, g := range listed {
			if g.Type == GroupTypeConsumer || (g.Type == GroupTypeClassic && (g.ProtocolType == "consumer" || g.ProtocolType == "")) {
				groups = append(groups, g.Group)
			}
		}
	}
	groups = slices.Compact(slices.Sorted(slices.Values(groups)))
	described, err := c.describeGroups(ctx, groups)
	if err != nil {
		return nil, err
	}
	var ok []string
	for _, d := range described {
		if d.Err == nil {
			ok = append(ok, d.Group)
		}
	}
	commits, fetchErrs := c.fetchManyOffsets(ctx, ok)

	topicSet := map[string]bool{}
	for _, d := range described {
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
	if topics := slices.Sorted(maps.Keys(topicSet)); len(topics) > 0 {
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

// groupLag computes one group's per-partition lag.
func groupLag(d GroupDescription, commits kadm.OffsetResponses, start, end kadm.ListedOffsets) []PartitionLag {
	parts := map[TopicPartition]*PartitionLag{}
	add := func(tp TopicPartition) *PartitionLag {
		if p, ok := parts[tp]; ok {
			return p
		}
		p := &PartitionLag{Topic: tp.Topic, Partition: tp.Partition, Committed: -1}
		parts[tp] = p
		return p
	}
	for _, m := range d.Members {
		for _, a := range m.Assignment {
			p := add(a)
			p.MemberID, p.ClientID = m.MemberID, m.ClientID
		}
	}
	commits.Each(func(o kadm.OffsetResponse) { add(TopicPartition{o.Topic, o.Partition}) })
	topics := map[string]bool{}
	for tp := range parts {
		topics[tp.Topic] = true
	}
	for t := range topics {
		for p := range end[t] {
			if p >= 0 {
				add(TopicPartition{t, p})
			}
		}
	}

	keys := make([]TopicPartition, 0, len(parts))
	for tp := range parts {
		keys = append(keys, tp)
	}
	sortTPs(keys)
	out := make([]PartitionLag, 0, len(keys))
	for _, tp := range keys {
		p := parts[tp]
		res := d.Group + ": " + partitionKey(tp.Topic, tp.Partition)
		p.Lag, p.EndOffset = -1, -1
		var err error
		if o, ok := commits.Lookup(tp.Topic, tp.Partition); ok {
			p.Committed, err = o.At, o.Err
		}
		e, ok := end.Lookup(tp.Topic, tp.Partition)
		switch {
		case err != nil:
		case ok:
			err = e.Err
		default:
			err = errNoEndOffset
			if missing, gone := end.Lookup(tp.Topic, -1); gone && missing.Err != nil {
				err = missing.Err // the topic does not exist (any more)
			}
		}
		if err != nil {
			p.Err = AsError(err, res)
			out = append(out, *p)
			continue
		}
		p.EndOffset = e.Offset
		lag := e.Offset
		if s, ok := start.Lookup(tp.Topic, tp.Partition); ok && s.Err == nil {
			lag = e.Offset - s.Offset
		}
		if p.Committed >= 0 {
			lag = e.Offset - p.Committed
		}
		p.Lag = max(lag, 0)
		out = append(out, *p)
	}
	return out
}

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

// listStartEnd lists the start and end offsets of topics, asking again
// while any partition has a retriable error (LEADER_NOT_AVAILABLE, ...) until
// ctx ends; what is still failing then stays on the partitions.
func (c *Client) listStartEnd(ctx context.Context, topics []string) (start, end kadm.ListedOffsets, err error) {
	rerr := retryCall(ctx, "", func(ctx context.Context) error {
		var retry error
		for _, l := range []struct {
			fn  func(context.Context, ...string) (kadm.ListedOffsets, error)
			dst *kadm.ListedOffsets
		}{{c.adm.ListStartOffsets, &start}, {c.adm.ListEndOffsets, &end}} {
			listed, err := l.fn(ctx, topics...)
			var se *kadm.ShardErrors
			if err != nil && !errors.As(err, &se) {
				return err
			}
			*l.dst = listed
			if err != nil && retry == nil {
				retry = err
			}
			listed.Each(func(o kadm.ListedOffset) {
				if e := AsError(o.Err, ""); e != nil && e.Retriable && retry == nil {
					retry = o.Err
				}
			})
		}
		return retry
	})
	if (start == nil || end == nil) && rerr != nil {
		return nil, nil, rerr
	}
	return start, end, nil
}
