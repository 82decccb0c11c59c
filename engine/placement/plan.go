// Package placement plans where replicas go: pure functions over a layout
// (the current assignment, the brokers, their racks, and where known the
// leaders, in-sync replicas, partition sizes and disk capacities), no
// cluster access. The admin core reads the layout and applies the plan
// (engine.PlanReassignmentOn, alter_partition_reassignments).
package placement

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// The planners:
//   - Rebalance by count (the default) keeps every partition's replication
//     factor and computes a target over the given brokers that balances
//     replicas (every broker ends with floor(R/N) or ceil(R/N) of the R
//     replicas when the racks allow), among balanced targets moves the
//     fewest replicas, is rack-aware (no two replicas of a partition in one
//     rack when the brokers span at least RF racks, else at most
//     ceil(RF/racks) per rack), and balances preferred leaders (first
//     replicas) the same way, changing a leader only where balance needs
//     it. Replicas on brokers outside the set, or breaking the rack rule,
//     must move ("forced" moves); the others move only to balance.
//   - Rebalance by bytes balances each broker's disk usage (its log dirs'
//     used bytes over their capacity, or the planned replicas' bytes when a
//     capacity is unknown), see bytes.go.
//   - Rebalance with LeadersOnly reorders replicas only (leader balance),
//     with ReplicationFactor raises or lowers it (rf.go); Drain empties
//     brokers, and with LeadersOnly only moves their leadership (demote).
//
// Moves counts replicas placed on a broker that did not hold them.

// How a plan balances (Options.By).
const (
	ByCount = "count"
	ByBytes = "bytes"
)

// DefaultMaxDiskUsage is the ceiling of a broker's disk usage when none is
// given: no plan puts a broker above 85% of its log dirs' capacity.
const DefaultMaxDiskUsage = 0.85

// Options say what a plan does beyond balancing replica counts.
type Options struct {
	By                string  // ByCount (default) or ByBytes
	MaxDiskUsage      float64 // ceiling as a fraction of capacity; 0: DefaultMaxDiskUsage
	MinPartitionBytes int64   // smaller partitions (or of unknown size) stay put in balancing moves
	PartitionLimit    int     // at most this many replicas join or leave a broker in balancing moves; 0: no limit
	LeadersOnly       bool    // reorder replicas only: no data moves
	ReplicationFactor int     // 0: keep each partition's; else raise or lower it to this
}

func (o Options) maxDiskUsage() float64 {
	if o.MaxDiskUsage > 0 {
		return o.MaxDiskUsage
	}
	return DefaultMaxDiskUsage
}

func (o Options) byBytes() bool { return o.By == ByBytes }

// Layout is what the planners read. Only Current and Brokers are needed;
// the rest, when missing, is unknown and said so in the plan's notes.
type Layout struct {
	Current map[string]map[int32][]int32 // topic -> partition -> replicas
	Brokers []int32                      // the brokers to spread over (Drain: every broker)
	Racks   map[int32]string             // broker -> rack; a broker without one is its own rack
	Leaders map[string]map[int32]int32   // the leader now (-1: none); missing: the first replica
	ISR     map[string]map[int32][]int32 // in-sync replicas; missing: every replica
	Sizes   map[string]map[int32]int64   // partition -> bytes (its largest replica); nil: unknown
	Disks   map[int32]Disk               // broker -> its log dirs' volumes; missing: unknown
}

// Disk is a broker's log dirs summed (DescribeLogDirs, KIP-827).
type Disk struct {
	TotalBytes  int64
	UsableBytes int64
}

// Partition is one partition's current and target replicas.
type Partition struct {
	Topic     string  `json:"topic"`
	Partition int32   `json:"partition"`
	Current   []int32 `json:"current"`
	Target    []int32 `json:"target"`
	Moves     int     `json:"moves"`           // replicas added to a broker that did not hold them
	Bytes     *int64  `json:"bytes,omitempty"` // the partition's size: each added replica copies it
}

// Plan is a planner's result. Partitions lists only partitions whose
// replicas or preferred leader change: passed to
// alter_partition_reassignments as is, it reaches the plan's end state.
type Plan struct {
	Moves         int         `json:"moves"`          // replicas that move (data copied)
	LeaderChanges int         `json:"leader_changes"` // partitions whose preferred leader changes
	Partitions    []Partition `json:"partitions"`
	Kind          string      `json:"kind"` // balance, leaders, replication_factor, drain, demote
	By            string      `json:"by"`   // count or bytes
	// Bytes is what the moves copy: each moved replica's partition size
	// (nil when sizes are unknown).
	Bytes *int64 `json:"bytes,omitempty"`
	// Leadership (drain only) reorders replicas, none added or removed,
	// so that the drained brokers lead nothing: applied, and Elect
	// elected, before Partitions.
	Leadership []Partition `json:"leadership"`
	// Elect lists the partitions whose leader a preferred election
	// changes once their row (in Leadership, else in Partitions) is
	// done; a drain also lists partitions the drained brokers lead
	// without being their preferred leader (no row: elect at once).
	Elect   []vocab.TopicPartition `json:"elect"`
	Brokers []BrokerLoad           `json:"brokers"` // every broker concerned, before and after
	Steps   []string               `json:"steps"`   // what carrying the plan out does, in order
	Notes   []string               `json:"notes"`   // what the plan could not do, or did not know
}

// BrokerLoad is one broker before and after the plan, counting the planned
// topics' replicas and leaders. Bytes are those replicas' sizes; the disk
// numbers are the broker's log dirs (all their data), nil when unknown.
type BrokerLoad struct {
	Broker         int32    `json:"broker"`
	Rack           string   `json:"rack"`
	ReplicasBefore int      `json:"replicas_before"`
	ReplicasAfter  int      `json:"replicas_after"`
	LeadersBefore  int      `json:"leaders_before"`
	LeadersAfter   int      `json:"leaders_after"`
	BytesBefore    *int64   `json:"bytes_before,omitempty"`
	BytesAfter     *int64   `json:"bytes_after,omitempty"`
	TotalBytes     *int64   `json:"total_bytes,omitempty"`
	UsableBytes    *int64   `json:"usable_bytes,omitempty"`
	UsageBefore    *float64 `json:"usage_before,omitempty"` // used / total, 0..1
	UsageAfter     *float64 `json:"usage_after,omitempty"`
}

// Balance is Rebalance by count.
func Balance(in Layout) (Plan, error) { return Rebalance(in, Options{}) }

// Rebalance plans the layout's partitions over in.Brokers: balanced by
// count or bytes, only their leaders (LeadersOnly), or to another
// replication factor.
func Rebalance(in Layout, o Options) (Plan, error) {
	if err := o.Check(false); err != nil {
		return Plan{}, err
	}
	ids := sortedUnique(in.Brokers)
	if len(ids) == 0 {
		return Plan{}, vocab.Errorf(vocab.CodeInvalidArgument, "", "no brokers to assign to")
	}
	st, err := newState(in, ids, o)
	if err != nil {
		return Plan{}, err
	}
	if o.byBytes() && in.Sizes == nil {
		return Plan{}, vocab.Errorf(vocab.CodeInvalidArgument, "", "planning by bytes needs the partitions' sizes")
	}
	switch {
	case o.LeadersOnly:
		return st.leadersOnly(in, o), nil
	case o.ReplicationFactor > 0:
		return st.replicationFactor(in, o)
	}
	if err := st.checkReplicationFactors(len(ids)); err != nil {
		return Plan{}, err
	}
	spreadBefore, balancedBefore := st.spread(), st.bytesBalanced()
	forced, err := st.placeForced(o.byBytes())
	if err != nil {
		return Plan{}, err
	}
	balanceCounts(len(ids), replicaTokens{st})
	if forced > 0 {
		// Without forced moves every balancing move goes straight
		// from a full broker to an empty one: none is in vain.
		save(len(ids), replicaTokens{st})
	}
	if o.byBytes() {
		st.balanceBytes()
	}
	final := balanceLeaders(st, st.targets(), func(int32, int32) bool { return true })
	plan := st.build(in, o, outcome{kind: "balance", final: final})
	dropped := 0
	if o.byBytes() && forced == 0 && plan.Moves > 0 && st.spread() >= spreadBefore {
		// Moves that leave the spread as wide as it was are not worth
		// their copying.
		dropped = plan.Moves
		plan = st.build(in, o, outcome{kind: "balance"})
	}
	switch {
	case !o.byBytes() || plan.Moves > 0:
	case !balancedBefore:
		plan.Notes = append(plan.Notes, "no move narrows the disk usage spread: nothing is planned")
	case dropped > 0:
		// Usage even, counts not: say so, or the plan passes for a
		// balanced layout.
		plan.Notes = append(plan.Notes, fmt.Sprintf("disk usage is even already (every broker within %d%% of the mean): the %d replica move(s) that would even out replica counts are not planned (by = %q plans them)",
			int(bytesTolerance*100), dropped, ByCount))
	}
	plan.Notes = append(plan.Notes, st.notes(o, plan)...)
	plan.Steps = balanceSteps(plan)
	return plan, nil
}

// Check refuses options that contradict each other (drain: for a drain).
func (o Options) Check(drain bool) error {
	bad := func(format string, args ...any) error {
		return vocab.Errorf(vocab.CodeInvalidArgument, "", format, args...)
	}
	switch {
	case o.By != "" && o.By != ByCount && o.By != ByBytes:
		return bad("by must be %q or %q, got %q", ByCount, ByBytes, o.By)
	case o.MaxDiskUsage < 0 || o.MaxDiskUsage > 1:
		return bad("max_disk_usage must be a fraction between 0 and 1, got %v", o.MaxDiskUsage)
	case o.MinPartitionBytes < 0 || o.PartitionLimit < 0 || o.ReplicationFactor < 0:
		return bad("min_partition_bytes, partition_limit and replication_factor must not be negative")
	case o.LeadersOnly && (o.ReplicationFactor > 0 || o.By == ByBytes || o.MinPartitionBytes > 0 || o.PartitionLimit > 0 || o.MaxDiskUsage > 0):
		return bad("leaders_only moves no data: it cannot be combined with replication_factor, by = \"bytes\", max_disk_usage, min_partition_bytes or partition_limit")
	case drain && (o.ReplicationFactor > 0 || o.MinPartitionBytes > 0 || o.PartitionLimit > 0):
		return bad("a drain moves every replica off the drained brokers: replication_factor, min_partition_bytes and partition_limit do not apply")
	case o.ReplicationFactor > 0 && (o.MinPartitionBytes > 0 || o.PartitionLimit > 0):
		return bad("replication_factor adds and removes the replicas it must: min_partition_bytes and partition_limit only limit balancing moves")
	}
	return nil
}

func sortedUnique(ids []int32) []int32 {
	out := slices.Clone(ids)
	slices.Sort(out)
	return slices.Compact(out)
}

// checkReplicationFactors refuses a partition with more replicas than
// there are brokers to put them on.
func (st *state) checkReplicationFactors(brokers int) error {
	for _, pt := range st.parts {
		if int(pt.rf) > brokers {
			return tooFewBrokers(pt.topic, pt.num, int(pt.rf), brokers)
		}
	}
	return nil
}

func tooFewBrokers(topic string, p int32, rf, brokers int) error {
	return &vocab.Error{Code: "INVALID_REPLICATION_FACTOR", Resource: vocab.PartitionKey(topic, p),
		Message: fmt.Sprintf("replication factor %d is larger than the %d brokers given", rf, brokers)}
}

// placeForced moves the replicas that must move: those on brokers outside
// the set, and those breaking the rack rule (a partition's extra replicas
// in one rack: followers before its preferred leader, the fullest broker's
// first). It returns how many moved.
func (st *state) placeForced(byBytes bool) (int, error) {
	var homeless []int32
	for s := range st.slotAt {
		if st.slotAt[s] < 0 {
			homeless = append(homeless, int32(s))
		}
	}
	for p := range st.parts {
		// Removed at once, so the next partition's choice sees the
		// counts as they are.
		for _, s := range st.rackExcess(int32(p)) {
			st.remove(s)
			homeless = append(homeless, s)
		}
	}
	if byBytes { // first fit decreasing: the largest find room first
		slices.SortStableFunc(homeless, func(a, b int32) int {
			return -cmp.Compare(st.parts[st.slotPart[a]].size, st.parts[st.slotPart[b]].size)
		})
	}
	for _, s := range homeless {
		if err := st.placeOrFail(s, byBytes); err != nil {
			return 0, err
		}
	}
	return len(homeless), nil
}

// placeOrFail places s within the rack rule if it can, else breaking it
// (the racks leave no choice), else fails naming the partition.
func (st *state) placeOrFail(s int32, byBytes bool) error {
	if st.place(s, byBytes, false) {
		return nil
	}
	if st.place(s, byBytes, true) {
		pt := &st.parts[st.slotPart[s]]
		st.rackBroken = append(st.rackBroken, vocab.PartitionKey(pt.topic, pt.num))
		return nil
	}
	return st.placeFailure(&st.parts[st.slotPart[s]])
}

// placeFailure says why no broker of the set could take a replica of pt:
// too few brokers, or every one without it would go above the ceiling.
func (st *state) placeFailure(pt *part) error {
	if int(pt.rf) > len(st.ids) {
		return tooFewBrokers(pt.topic, pt.num, int(pt.rf), len(st.ids))
	}
	return &vocab.Error{Code: "INVALID_REPLICA_ASSIGNMENT", Resource: vocab.PartitionKey(pt.topic, pt.num),
		Message: fmt.Sprintf("no broker can take a replica of it (%s): every broker without one would go above max_disk_usage %g",
			vocab.HumanBytes(pt.size), st.ceiling)}
}

// rackExcess lists partition p's replicas beyond its rack limit.
func (st *state) rackExcess(p int32) []int32 {
	pt := &st.parts[p]
	limit := st.maxPerRack(pt.rf)
	var out []int32
	for r := range st.numRacks {
		var in []int32
		for s := pt.first; s < pt.first+pt.rf; s++ {
			if b := st.slotAt[s]; b >= 0 && st.rack[b] == r {
				in = append(in, s)
			}
		}
		if len(in) <= limit {
			continue
		}
		// The fullest brokers' first: the replica leaves where balance
		// wants one fewer anyway. A preferred leader's last: a leader
		// change is saved.
		slices.SortStableFunc(in, func(a, b int32) int {
			if c := st.count(int(st.slotAt[b])) - st.count(int(st.slotAt[a])); c != 0 {
				return c
			}
			return boolRank(a == pt.first) - boolRank(b == pt.first)
		})
		out = append(out, in[:len(in)-limit]...)
	}
	return out
}

// targets are every partition's replicas as placed.
func (st *state) targets() [][]int32 {
	out := make([][]int32, len(st.parts))
	for p := range st.parts {
		out[p] = st.target(int32(p))
	}
	return out
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}
