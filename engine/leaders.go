package engine

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

func sortedUniqueTPs(tps []TopicPartition) []TopicPartition {
	slices.SortFunc(tps, compareTP)
	return slices.Compact(tps)
}

// ElectionType is "preferred" or "unclean".
type ElectionType string

const (
	ElectPreferred ElectionType = "preferred"
	ElectUnclean   ElectionType = "unclean"
)

// ElectedLeader is one partition's result of ElectLeaders. NotNeeded is
// Kafka's ELECTION_NOT_NEEDED (the partition already has the leader the
// election would pick), which is not a failure. Leader is the partition's
// leader afterwards, when known (-1 otherwise). Partition is -1 for a topic
// that does not exist.
type ElectedLeader struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Leader    int32  `json:"leader"`
	NotNeeded bool   `json:"not_needed"`
	Err       *Error `json:"error,omitempty"`
}

func (e ElectedLeader) Key() string     { return vocab.PartitionKey(e.Topic, e.Partition) }
func (e ElectedLeader) Failure() *Error { return e.Err }

// ElectionTargets expands topics (all their partitions) and partitions into
// a sorted list; topics that do not exist come back in missing.
func (c *Client) ElectionTargets(ctx context.Context, topics []string, partitions []TopicPartition) (tps []TopicPartition, missing []string, leaders map[TopicPartition][2]int32, err error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	want := slices.Clone(topics)
	for _, tp := range partitions {
		want = append(want, tp.Topic)
	}
	var m *kmsg.MetadataResponse
	if e := retryCall(ctx, "", func(ctx context.Context) (err error) {
		m, err = c.rawMetadata(ctx, slices.Compact(slices.Sorted(slices.Values(want)))...)
		return err
	}); e != nil {
		return nil, nil, nil, e
	}
	leaders = map[TopicPartition][2]int32{} // current leader, preferred leader
	found := map[string]bool{}
	for _, t := range m.Topics {
		if t.Topic == nil || t.ErrorCode != 0 {
			continue
		}
		found[*t.Topic] = true
		for _, p := range t.Partitions {
			pref := int32(-1)
			if len(p.Replicas) > 0 {
				pref = p.Replicas[0]
			}
			tp := TopicPartition{Topic: *t.Topic, Partition: p.Partition}
			leaders[tp] = [2]int32{p.Leader, pref}
			if slices.Contains(topics, *t.Topic) {
				tps = append(tps, tp)
			}
		}
	}
	for _, n := range slices.Compact(slices.Sorted(slices.Values(topics))) {
		if !found[n] {
			missing = append(missing, n)
		}
	}
	tps = append(tps, partitions...)
	return sortedUniqueTPs(tps), missing, leaders, nil
}

// leadersAfterElection reads the partitions' leaders once the election is
// visible: the controller answers before every broker's metadata shows the
// new leader, so after a successful preferred election it asks again
// (briefly, up to 5 s) until the preferred replica is shown leading.
func (c *Client) leadersAfterElection(ctx context.Context, typ ElectionType, tps []TopicPartition, errs map[TopicPartition]*Error, notNeeded map[TopicPartition]bool, before map[TopicPartition][2]int32) map[TopicPartition]int32 {
	after := map[TopicPartition]int32{}
	if len(tps) == 0 {
		return after
	}
	var names []string
	for _, tp := range tps {
		names = append(names, tp.Topic)
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	for attempt := 0; ; attempt++ {
		if m, err := c.rawMetadata(ctx, slices.Compact(slices.Sorted(slices.Values(names)))...); err == nil {
			for _, t := range m.Topics {
				for _, p := range t.Partitions {
					if t.Topic != nil {
						after[TopicPartition{Topic: *t.Topic, Partition: p.Partition}] = p.Leader
					}
				}
			}
		}
		settled := true
		for _, tp := range tps {
			// Still the leader from before an election that succeeded:
			// this broker has not seen it yet.
			if typ == ElectPreferred && errs[tp] == nil && !notNeeded[tp] &&
				after[tp] != before[tp][1] && after[tp] == before[tp][0] {
				settled = false
			}
		}
		if settled || !vocab.Backoff(ctx, attempt) {
			return after
		}
	}
}

// ElectLeaders runs a preferred or unclean leader election on partitions
// (all partitions of topics, plus the partitions named), a result per
// partition in order. PREFERRED_LEADER_NOT_AVAILABLE and
// ELIGIBLE_LEADERS_NOT_AVAILABLE are reported at once, not retried. Retrying is safe: an election that already happened
// answers ELECTION_NOT_NEEDED.
func (c *Client) ElectLeaders(ctx context.Context, typ ElectionType, topics []string, partitions []TopicPartition) ([]ElectedLeader, error) {
	tps, missing, before, err := c.ElectionTargets(ctx, topics, partitions)
	if err != nil {
		return nil, err
	}
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	keys := make([]string, len(tps))
	leaders := make([]PartitionLeader, len(tps))
	for i, tp := range tps {
		keys[i] = tp.String()
		leaders[i] = PartitionLeader{Topic: tp.Topic, Partition: tp.Partition, Leader: before[tp][0], Preferred: before[tp][1]}
	}
	notNeeded := map[TopicPartition]bool{}
	if len(tps) == 0 {
		return electedLeaders(missing, tps, nil, nil, notNeeded), nil // nothing to elect: nothing sent
	}
	errs, err := mutate(ctx, c, mutation[[]PartitionLeader, map[TopicPartition]*Error]{
		op: "elect_leaders", keys: keys,
		args: struct {
			Type       ElectionType     `json:"type"`
			Partitions []TopicPartition `json:"partitions"`
		}{typ, tps},
		before: func(context.Context) ([]PartitionLeader, error) { return leaders, nil },
		send: func(ctx context.Context, _ []PartitionLeader) (map[TopicPartition]*Error, error) {
			return c.elect(ctx, typ, tps, notNeeded), nil
		},
		items: func(errs map[TopicPartition]*Error) []Item {
			out := make([]Item, len(tps))
			for i, tp := range tps {
				out[i] = ElectedLeader{Topic: tp.Topic, Partition: tp.Partition, Err: errs[tp]}
			}
			return out
		},
	})
	if err != nil {
		return nil, err
	}
	after := c.leadersAfterElection(ctx, typ, tps, errs, notNeeded, before)
	return electedLeaders(missing, tps, errs, after, notNeeded), nil
}

// PartitionLeader is a partition's leader and preferred leader before an
// election (elect_leaders' before-state).
type PartitionLeader struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Leader    int32  `json:"leader"`
	Preferred int32  `json:"preferred"`
}

// elect sends ElectLeaders for tps until each has an answer.
func (c *Client) elect(ctx context.Context, typ ElectionType, tps []TopicPartition, notNeeded map[TopicPartition]bool) map[TopicPartition]*Error {
	return retryItems(ctx, tps, TopicPartition.String, func(ctx context.Context, pending []TopicPartition) (map[TopicPartition]*Error, error) {
		req := kmsg.NewPtrElectLeadersRequest()
		req.TimeoutMillis = int32(c.cfg.timeout().Milliseconds())
		if typ == ElectUnclean {
			req.ElectionType = 1
		}
		for _, tp := range pending {
			if n := len(req.Topics); n == 0 || req.Topics[n-1].Topic != tp.Topic {
				rt := kmsg.NewElectLeadersRequestTopic()
				rt.Topic = tp.Topic
				req.Topics = append(req.Topics, rt)
			}
			last := &req.Topics[len(req.Topics)-1]
			last.Partitions = append(last.Partitions, tp.Partition)
		}
		resp, err := req.RequestWith(ctx, c.kgo)
		if err != nil {
			return nil, err
		}
		if e := kafkaErr(resp.ErrorCode, nil, ""); e != nil {
			return nil, e
		}
		answers := map[TopicPartition]*Error{}
		for _, t := range resp.Topics {
			for _, p := range t.Partitions {
				tp := TopicPartition{Topic: t.Topic, Partition: p.Partition}
				if p.ErrorCode == kerr.ElectionNotNeeded.Code {
					notNeeded[tp] = true
					answers[tp] = nil
					continue
				}
				e := kafkaErr(p.ErrorCode, p.ErrorMessage, tp.String())
				if e != nil && (p.ErrorCode == kerr.PreferredLeaderNotAvailable.Code || p.ErrorCode == kerr.EligibleLeadersNotAvailable.Code) {
					// The answer, not a hiccup: the replica that could lead
					// is down or out of sync. Waiting out the deadline
					// would only hide that.
					e.Retriable = false
				}
				answers[tp] = e
			}
		}
		return answers, nil
	})
}

// electedLeaders is ElectLeaders' result: missing topics, then each
// partition's answer and leader afterwards.
func electedLeaders(missing []string, tps []TopicPartition, errs map[TopicPartition]*Error, after map[TopicPartition]int32, notNeeded map[TopicPartition]bool) []ElectedLeader {
	var out []ElectedLeader
	for _, n := range missing {
		out = append(out, ElectedLeader{Topic: n, Partition: -1, Leader: -1,
			Err: &Error{Code: kerr.UnknownTopicOrPartition.Message, Message: kerr.UnknownTopicOrPartition.Description, Resource: n}})
	}
	for _, tp := range tps {
		leader, ok := after[tp]
		if !ok {
			leader = -1
		}
		out = append(out, ElectedLeader{Topic: tp.Topic, Partition: tp.Partition, Leader: leader, NotNeeded: notNeeded[tp], Err: errs[tp]})
	}
	slices.SortFunc(out, func(a, b ElectedLeader) int {
		return cmp.Or(cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition))
	})
	return out
}
