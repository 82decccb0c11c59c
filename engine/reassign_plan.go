package engine

import (
	"context"
	"slices"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kadmin-lua/kadmin-lua/engine/placement"
)

// PlanOptions say what PlanReassignmentOn spreads over and how.
type PlanOptions struct {
	Topics  []string         // empty: every topic (only with Drain)
	Brokers []int32          // nil: every broker in the cluster
	Racks   map[int32]string // nil: the brokers' racks from the cluster
	Drain   []int32          // plan emptying these brokers (with Options.LeadersOnly: a demote)
	placement.Options
}

// PlanReassignmentOn reads the topics' current assignment, leaders and
// in-sync replicas (and the brokers and racks when not given), their sizes
// and the brokers' disks from DescribeLogDirs, and plans: a rebalance, a
// leader balance, a replication factor change or a drain. Sizes are
// needed by bytes only; otherwise a broker that cannot be asked leaves
// them unknown, which the plan's notes say.
func (c *Client) PlanReassignmentOn(ctx context.Context, o PlanOptions) (placement.Plan, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	if len(o.Topics) == 0 && len(o.Drain) == 0 {
		return placement.Plan{}, Errorf(CodeInvalidArgument, "", "topics must name at least one topic")
	}
	var names []string
	if len(o.Topics) > 0 {
		names = slices.Compact(slices.Sorted(slices.Values(o.Topics)))
	}
	m, err := c.metadata(ctx, names)
	if err != nil {
		return placement.Plan{}, err
	}
	in, e := layoutOf(m, names, o)
	if e != nil {
		return placement.Plan{}, e
	}
	known := m.Brokers.NodeIDs()
	for _, b := range slices.Concat(in.Brokers, o.Drain) {
		if !slices.Contains(known, b) {
			return placement.Plan{}, Errorf(CodeInvalidArgument, "", "broker %d is not in the cluster (brokers: %v)", b, known)
		}
	}
	if err := c.readSizes(ctx, names, &in, o.By == placement.ByBytes); err != nil {
		return placement.Plan{}, err
	}
	if len(o.Drain) > 0 {
		return placement.Drain(in, o.Drain, o.Options)
	}
	return placement.Rebalance(in, o.Options)
}

// layoutOf is the topics' replicas, leaders and in-sync replicas, with
// the brokers and racks of o or else of the cluster.
func layoutOf(m kadm.Metadata, names []string, o PlanOptions) (placement.Layout, error) {
	in := placement.Layout{Current: map[string]map[int32][]int32{}, Brokers: o.Brokers, Racks: o.Racks,
		Leaders: map[string]map[int32]int32{}, ISR: map[string]map[int32][]int32{}}
	if names == nil {
		names = slices.Sorted(func(yield func(string) bool) {
			for t := range m.Topics {
				if !yield(t) {
					return
				}
			}
		})
	}
	for _, t := range names {
		td, ok := m.Topics[t]
		if !ok || td.Err != nil {
			err := td.Err
			if err == nil {
				err = kerr.UnknownTopicOrPartition
			}
			return in, AsError(err, t)
		}
		in.Current[t], in.Leaders[t], in.ISR[t] = map[int32][]int32{}, map[int32]int32{}, map[int32][]int32{}
		for p, pd := range td.Partitions {
			in.Current[t][p] = slices.Clone(pd.Replicas)
			in.Leaders[t][p] = pd.Leader
			in.ISR[t][p] = slices.Clone(pd.ISR)
		}
	}
	if in.Brokers == nil {
		in.Brokers = m.Brokers.NodeIDs()
	}
	if in.Racks == nil {
		in.Racks = map[int32]string{}
		for _, b := range m.Brokers {
			if b.Rack != nil {
				in.Racks[b.NodeID] = *b.Rack
			}
		}
	}
	return in, nil
}

// readSizes fills in's partition sizes (each partition's largest replica)
// and each broker's disk (its log dirs summed; unknown when one of them
// cannot be read or predates KIP-827). When sizes are needed, a broker or
// dir that cannot be read fails the plan, else it leaves sizes unknown.
func (c *Client) readSizes(ctx context.Context, names []string, in *placement.Layout, needed bool) error {
	dirs, err := c.DescribeLogDirs(ctx, LogDirsQuery{Topics: names})
	if err == nil {
		for _, d := range dirs {
			if d.Err != nil {
				err = d.Err
				break
			}
		}
	}
	if err != nil {
		if needed {
			e := AsError(err, "")
			e.Message += " (planning by bytes needs every broker's log dirs: broker_sizes shows each broker's error)"
			return e
		}
		return nil
	}
	in.Sizes = map[string]map[int32]int64{}
	for t := range in.Current {
		in.Sizes[t] = map[int32]int64{}
	}
	in.Disks = map[int32]placement.Disk{}
	unknown := map[int32]bool{}
	for _, d := range dirs {
		disk := in.Disks[d.Broker]
		if d.TotalBytes < 0 || d.UsableBytes < 0 {
			unknown[d.Broker] = true
		}
		disk.TotalBytes += d.TotalBytes
		disk.UsableBytes += d.UsableBytes
		in.Disks[d.Broker] = disk
		for _, p := range d.Partitions {
			if sizes, ok := in.Sizes[p.Topic]; ok && !p.IsFuture {
				if _, assigned := in.Current[p.Topic][p.Partition]; assigned {
					sizes[p.Partition] = max(sizes[p.Partition], p.Size)
				}
			}
		}
	}
	for b := range unknown {
		delete(in.Disks, b)
	}
	return nil
}
