package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// Replication throttles, as kafka-reassign-partitions --throttle sets them
// (Kafka's ReassignPartitionsCommand): a rate on every broker a moving
// replica leaves or joins, and on each moving topic the replicas the rate
// applies to.
const (
	LeaderThrottledRate       = "leader.replication.throttled.rate"
	FollowerThrottledRate     = "follower.replication.throttled.rate"
	AlterLogDirsThrottledRate = "replica.alter.log.dirs.io.max.bytes.per.second"
	LeaderThrottledReplicas   = "leader.replication.throttled.replicas"
	FollowerThrottledReplicas = "follower.replication.throttled.replicas"
)

// brokerThrottles are the broker configs a finished reassignment's clean-up
// removes; topicThrottles the topic configs.
var (
	brokerThrottles = []string{LeaderThrottledRate, FollowerThrottledRate, AlterLogDirsThrottledRate}
	topicThrottles  = []string{LeaderThrottledReplicas, FollowerThrottledReplicas}
)

// ThrottlePlan is the replication throttle for a reassignment.
type ThrottlePlan struct {
	Rate    int64           `json:"rate"`    // bytes per second, per broker
	Brokers []int32         `json:"brokers"` // every broker a replica leaves or joins
	Topics  []TopicThrottle `json:"topics"`
}

// TopicThrottle is one topic's throttled replicas, "partition:broker,...":
// Leader lists the replicas data is copied from, Follower the new ones.
type TopicThrottle struct {
	Topic    string `json:"topic"`
	Leader   string `json:"leader"`
	Follower string `json:"follower"`
}

// move is one partition's movement: the brokers holding its data and the
// brokers it is copied to.
type move struct{ sources, dests []int32 }

// PlanThrottles works out the throttle for moving targets as Kafka's tool
// does: the reassignments already in progress keep theirs (their sources
// are their replicas without the ones being added), a new target's sources
// are its current replicas, its destinations the target brokers that are
// not sources. Every topic moving gets both lists, even empty ones.
func (c *Client) PlanThrottles(ctx context.Context, targets []PartitionTarget, rate int64) (ThrottlePlan, error) {
	if rate <= 0 {
		return ThrottlePlan{}, Errorf(CodeInvalidArgument, "", "a throttle must be a positive number of bytes per second, got %d", rate)
	}
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	inProgress, err := c.listReassignments(ctx, nil)
	if err != nil {
		return ThrottlePlan{}, err
	}
	moves := map[TopicPartition]move{}
	for _, r := range inProgress {
		src := slices.DeleteFunc(slices.Clone(r.Replicas), func(b int32) bool { return slices.Contains(r.AddingReplicas, b) })
		moves[TopicPartition{Topic: r.Topic, Partition: r.Partition}] = move{sources: src, dests: slices.Clone(r.AddingReplicas)}
	}
	var topics []string
	for _, t := range targets {
		topics = append(topics, t.Topic)
	}
	m, merr := c.metadata(ctx, slices.Compact(slices.Sorted(slices.Values(topics))))
	if merr != nil {
		return ThrottlePlan{}, merr
	}
	for _, t := range targets {
		k := TopicPartition{Topic: t.Topic, Partition: t.Partition}
		src := moves[k].sources
		if _, moving := moves[k]; !moving {
			p, ok := m.Topics[t.Topic].Partitions[t.Partition]
			if !ok {
				return ThrottlePlan{}, Errorf("UNKNOWN_TOPIC_OR_PARTITION", vocab.PartitionKey(t.Topic, t.Partition), "no such partition to throttle")
			}
			src = slices.Clone(p.Replicas)
		}
		dst := slices.DeleteFunc(slices.Clone(t.Replicas), func(b int32) bool { return slices.Contains(src, b) })
		moves[k] = move{sources: src, dests: dst}
	}
	return throttlePlan(moves, rate), nil
}

// throttlePlan renders moves as configs (Kafka's calculateLeaderThrottles,
// calculateFollowerThrottles and calculateReassigningBrokers).
func throttlePlan(moves map[TopicPartition]move, rate int64) ThrottlePlan {
	leader, follower := map[string][]string{}, map[string][]string{}
	brokers := map[int32]bool{}
	for k, mv := range moves {
		if _, seen := leader[k.Topic]; !seen { // a topic moving is listed even with empty lists
			leader[k.Topic], follower[k.Topic] = nil, nil
		}
		for _, b := range mv.sources {
			leader[k.Topic] = append(leader[k.Topic], fmt.Sprintf("%d:%d", k.Partition, b))
			brokers[b] = true
		}
		for _, b := range mv.dests {
			follower[k.Topic] = append(follower[k.Topic], fmt.Sprintf("%d:%d", k.Partition, b))
			brokers[b] = true
		}
	}
	p := ThrottlePlan{Rate: rate, Brokers: []int32{}, Topics: []TopicThrottle{}}
	for b := range brokers {
		p.Brokers = append(p.Brokers, b)
	}
	slices.Sort(p.Brokers)
	for _, t := range slices.Sorted(maps.Keys(leader)) {
		p.Topics = append(p.Topics, TopicThrottle{Topic: t, Leader: replicaList(leader[t]), Follower: replicaList(follower[t])})
	}
	return p
}

// replicaList sorts "partition:broker" entries numerically and joins them.
func replicaList(entries []string) string {
	key := func(s string) (int, int) {
		p, b, _ := strings.Cut(s, ":")
		pi, _ := strconv.Atoi(p)
		bi, _ := strconv.Atoi(b)
		return pi, bi
	}
	slices.SortFunc(entries, func(a, b string) int {
		ap, ab := key(a)
		bp, bb := key(b)
		if ap != bp {
			return ap - bp
		}
		return ab - bb
	})
	return strings.Join(slices.Compact(entries), ",")
}

// Alterations are the config changes that set the plan.
func (p ThrottlePlan) Alterations() []ConfigAlteration {
	var out []ConfigAlteration
	rate := strconv.FormatInt(p.Rate, 10)
	for _, b := range p.Brokers {
		out = append(out, ConfigAlteration{Resource: ConfigResource{ConfigBroker, strconv.Itoa(int(b))},
			Set: map[string]string{LeaderThrottledRate: rate, FollowerThrottledRate: rate}})
	}
	for _, t := range p.Topics {
		out = append(out, ConfigAlteration{Resource: ConfigResource{ConfigTopic, t.Topic},
			Set: map[string]string{LeaderThrottledReplicas: t.Leader, FollowerThrottledReplicas: t.Follower}})
	}
	return out
}

// Lines describe the plan for a dry run or a log line.
func (p ThrottlePlan) Lines() []string {
	ids := make([]string, len(p.Brokers))
	for i, b := range p.Brokers {
		ids[i] = strconv.Itoa(int(b))
	}
	out := []string{fmt.Sprintf("throttle replication to %d B/s on brokers %s (%s, %s)", p.Rate, strings.Join(ids, ","),
		LeaderThrottledRate, FollowerThrottledRate)}
	for _, t := range p.Topics {
		out = append(out, fmt.Sprintf("topic %s: %s=%s; %s=%s", t.Topic, LeaderThrottledReplicas, t.Leader,
			FollowerThrottledReplicas, t.Follower))
	}
	return out
}

// SetThrottles applies the plan (validate only: the brokers check it and
// nothing changes). A resource that fails fails the call: a reassignment
// must not start half-throttled.
func (c *Client) SetThrottles(ctx context.Context, p ThrottlePlan, validateOnly bool) error {
	res, err := c.AlterConfigs(ctx, p.Alterations(), AlterConfigsOptions{ValidateOnly: validateOnly})
	if err != nil {
		return err
	}
	if first, n := FirstFailure(res); first != nil {
		e := *first
		e.Message = fmt.Sprintf("setting the replication throttle: %s (%d of %d resources failed; nothing was reassigned)",
			e.Message, n, len(res))
		return &e
	}
	return nil
}

// ThrottlesFound are the throttles a finished reassignment leaves behind.
type ThrottlesFound struct {
	Brokers map[int32][]string  // broker -> throttle configs set on it
	Topics  map[string][]string // topic -> throttled-replica configs set on it
	// Kept are the brokers' throttle rates left in place because the
	// reassignments in StillMoving (outside the topics waited for) are in
	// progress: the rates throttle those too.
	Kept        map[int32][]string
	StillMoving []string
}

// Empty reports whether nothing is to be removed.
func (f ThrottlesFound) Empty() bool { return len(f.Brokers) == 0 && len(f.Topics) == 0 }

// Alterations are the config changes that remove the throttles.
func (f ThrottlesFound) Alterations() []ConfigAlteration {
	var out []ConfigAlteration
	ids := make([]int32, 0, len(f.Brokers))
	for b := range f.Brokers {
		ids = append(ids, b)
	}
	slices.Sort(ids)
	for _, b := range ids {
		out = append(out, ConfigAlteration{Resource: ConfigResource{ConfigBroker, strconv.Itoa(int(b))}, Delete: f.Brokers[b]})
	}
	for _, t := range slices.Sorted(maps.Keys(f.Topics)) {
		out = append(out, ConfigAlteration{Resource: ConfigResource{ConfigTopic, t}, Delete: f.Topics[t]})
	}
	return out
}

// Lines describe what removing the throttles does.
// stillMovingShown is how many of the partitions still moving a line names.
const stillMovingShown = 5

func (f ThrottlesFound) Lines() []string {
	var out []string
	for _, a := range f.Alterations() {
		out = append(out, fmt.Sprintf("remove the replication throttle from %s: %s", a.Resource, strings.Join(a.Delete, ", ")))
	}
	if len(f.Kept) > 0 {
		var ids []string
		for _, b := range slices.Sorted(maps.Keys(f.Kept)) {
			ids = append(ids, strconv.Itoa(int(b)))
		}
		moving := f.StillMoving
		more := ""
		if len(moving) > stillMovingShown {
			moving, more = moving[:stillMovingShown], fmt.Sprintf(" and %d more", len(moving)-stillMovingShown)
		}
		out = append(out, fmt.Sprintf("keep the replication throttle rates of brokers %s: reassignments still in progress (%s%s)",
			strings.Join(ids, ","), strings.Join(moving, ", "), more))
	}
	return out
}

// FindThrottles looks for the replication throttles to remove once the
// reassignments of topics (every topic when empty) are done, as
// kafka-reassign-partitions --verify does: the topics' throttled-replica
// lists, and every broker's throttle rates unless a reassignment is still
// in progress somewhere in the cluster. Only configs actually set on the
// topic or broker itself are returned.
func (c *Client) FindThrottles(ctx context.Context, topics []string) (ThrottlesFound, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	f := ThrottlesFound{Brokers: map[int32][]string{}, Topics: map[string][]string{}, Kept: map[int32][]string{}}
	moving, err := c.listReassignments(ctx, nil)
	if err != nil {
		return f, err
	}
	for _, r := range moving {
		f.StillMoving = append(f.StillMoving, vocab.PartitionKey(r.Topic, r.Partition))
	}
	rates := f.Brokers
	if len(moving) > 0 {
		rates = f.Kept
	}
	ids, e := c.sortedBrokerIDs(ctx)
	if e != nil {
		return f, e
	}
	var resources []ConfigResource
	for _, b := range ids {
		resources = append(resources, ConfigResource{ConfigBroker, strconv.Itoa(int(b))})
	}
	if len(topics) == 0 {
		m, e := c.metadata(ctx, nil)
		if e != nil {
			return f, e
		}
		topics = slices.Sorted(maps.Keys(m.Topics))
	}
	for _, t := range slices.Compact(slices.Sorted(slices.Values(topics))) {
		resources = append(resources, ConfigResource{ConfigTopic, t})
	}
	described, err := c.DescribeConfigs(ctx, resources, DescribeConfigsOptions{Keys: slices.Concat(brokerThrottles, topicThrottles)})
	if err != nil {
		return f, err
	}
	for _, d := range described {
		if d.Err != nil {
			if d.Type == ConfigTopic && d.Err.Code == "UNKNOWN_TOPIC_OR_PARTITION" {
				continue // deleted meanwhile: nothing to remove
			}
			return f, d.Err
		}
		for _, k := range slices.Sorted(maps.Keys(d.Configs)) {
			e := d.Configs[k]
			switch {
			case d.Type == ConfigBroker && slices.Contains(brokerThrottles, k) && e.Source == "DYNAMIC_BROKER_CONFIG":
				id, _ := strconv.Atoi(d.Name)
				rates[int32(id)] = append(rates[int32(id)], k)
			case d.Type == ConfigTopic && slices.Contains(topicThrottles, k) && e.Source == "DYNAMIC_TOPIC_CONFIG":
				f.Topics[d.Name] = append(f.Topics[d.Name], k)
			}
		}
	}
	return f, nil
}

// RemoveThrottles deletes the throttles found.
func (c *Client) RemoveThrottles(ctx context.Context, f ThrottlesFound) error {
	if f.Empty() {
		return nil
	}
	res, err := c.AlterConfigs(ctx, f.Alterations(), AlterConfigsOptions{})
	if err != nil {
		return err
	}
	if first, n := FirstFailure(res); first != nil {
		e := *first
		e.Message = fmt.Sprintf("removing the replication throttle: %s (%d of %d resources failed)", e.Message, n, len(res))
		return &e
	}
	return nil
}
