package placement

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// outcome is what a planner decided, for build to turn into a Plan.
type outcome struct {
	kind       string
	final      [][]int32 // partition -> its replicas once done; nil (or a nil row): unchanged
	leadership [][]int32 // partition -> a reorder done first (drain); nil: none
	// elect: partition -> elect its preferred leader once its first row is
	// done; nil: wherever the final preferred leader is not the leader now.
	elect []bool
}

func (oc outcome) finalOf(st *state, p int) []int32 {
	if oc.final != nil && oc.final[p] != nil {
		return oc.final[p]
	}
	return st.parts[p].current
}

// build writes the plan's rows, counts and per-broker report.
func (st *state) build(in Layout, o Options, oc outcome) Plan {
	by := ByCount
	if o.byBytes() {
		by = ByBytes
	}
	plan := Plan{Kind: oc.kind, By: by, Partitions: []Partition{}, Leadership: []Partition{},
		Elect: []vocab.TopicPartition{}, Steps: []string{}, Notes: []string{}}
	var copied int64
	afterLeader := make([]int32, len(st.parts))
	for p := range st.parts {
		pt := &st.parts[p]
		fin := oc.finalOf(st, p)
		if oc.leadership != nil && oc.leadership[p] != nil && !slices.Equal(oc.leadership[p], pt.current) {
			plan.Leadership = append(plan.Leadership, st.row(pt, pt.current, oc.leadership[p]))
		}
		changed := !slices.Equal(fin, pt.current)
		if changed {
			r := st.row(pt, pt.current, fin)
			plan.Partitions = append(plan.Partitions, r)
			plan.Moves += r.Moves
			copied += int64(r.Moves) * pt.size
			if fin[0] != pt.current[0] {
				plan.LeaderChanges++
			}
		}
		elect := changed && fin[0] != pt.leader
		if oc.elect != nil {
			elect = oc.elect[p]
		}
		afterLeader[p] = pt.leader
		switch {
		case changed:
			afterLeader[p] = fin[0]
		case elect:
			afterLeader[p] = pt.current[0]
		}
		if elect {
			plan.Elect = append(plan.Elect, vocab.TopicPartition{Topic: pt.topic, Partition: pt.num})
		}
	}
	if st.sizesKnown {
		plan.Bytes = &copied
	}
	plan.Brokers = st.report(in, oc, afterLeader)
	return plan
}

func (st *state) row(pt *part, current, target []int32) Partition {
	moves := 0
	for _, b := range target {
		if !slices.Contains(current, b) {
			moves++
		}
	}
	r := Partition{Topic: pt.topic, Partition: pt.num, Current: slices.Clone(current), Target: slices.Clone(target), Moves: moves}
	if pt.sized {
		size := pt.size
		r.Bytes = &size
	}
	return r
}

// report is every broker of the set or holding a replica, before and
// after.
func (st *state) report(in Layout, oc outcome, afterLeader []int32) []BrokerLoad {
	rows := map[int32]*BrokerLoad{}
	row := func(b int32) *BrokerLoad {
		if rows[b] == nil {
			rows[b] = &BrokerLoad{Broker: b, Rack: in.Racks[b]}
		}
		return rows[b]
	}
	for _, b := range st.ids {
		row(b)
	}
	before, after := map[int32]int64{}, map[int32]int64{}
	for p := range st.parts {
		pt := &st.parts[p]
		for _, b := range pt.current {
			row(b).ReplicasBefore++
			before[b] += pt.size
		}
		for _, b := range oc.finalOf(st, p) {
			row(b).ReplicasAfter++
			after[b] += pt.size
		}
		if pt.leader >= 0 {
			row(pt.leader).LeadersBefore++
		}
		if afterLeader[p] >= 0 {
			row(afterLeader[p]).LeadersAfter++
		}
	}
	out := make([]BrokerLoad, 0, len(rows))
	for _, b := range slices.Sorted(maps.Keys(rows)) {
		r := rows[b]
		if st.sizesKnown {
			r.BytesBefore, r.BytesAfter = ptr(before[b]), ptr(after[b])
		}
		if d, ok := in.Disks[b]; ok && d.known() {
			used := d.TotalBytes - d.UsableBytes
			r.TotalBytes, r.UsableBytes = ptr(d.TotalBytes), ptr(d.UsableBytes)
			r.UsageBefore = ptr(fraction(used, d.TotalBytes))
			if st.sizesKnown {
				r.UsageAfter = ptr(fraction(used+after[b]-before[b], d.TotalBytes))
			}
		}
		out = append(out, *r)
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// fraction is used/total rounded to 4 places (0.1234 is 12.34%).
func fraction(used, total int64) float64 {
	return math.Round(float64(used)/float64(total)*1e4) / 1e4
}

// notes say what the plan did not know or could not do.
func (st *state) notes(o Options, plan Plan) []string {
	var out []string
	if !st.sizesKnown {
		out = append(out, "partition sizes are unknown (the log dirs could not be read): bytes are not reported")
	} else if n := st.unsized(); n > 0 {
		out = append(out, fmt.Sprintf("%d partition(s) have no measured size and count as 0 bytes", n))
	}
	if n := len(st.rackBroken); n > 0 {
		out = append(out, fmt.Sprintf("%d replica(s) go to a rack their partition already uses: no broker of another rack could take them (%s)",
			n, strings.Join(st.rackBroken[:min(n, 10)], ", ")+map[bool]string{true: ", ...", false: ""}[n > 10]))
	}
	if o.byBytes() && !st.capsKnown {
		out = append(out, "a broker's disk capacity is unknown (Kafka before 3.3, or a log dir could not be read): the planned bytes are balanced and max_disk_usage is not checked")
	}
	if o.MinPartitionBytes > 0 {
		n := 0
		for _, pt := range st.parts {
			if !pt.sized || pt.size < o.MinPartitionBytes {
				n++
			}
		}
		if n > 0 {
			out = append(out, fmt.Sprintf("%d partition(s) below min_partition_bytes %d stay put", n, o.MinPartitionBytes))
		}
	}
	if o.PartitionLimit > 0 {
		var spent []string
		for b := range st.ids {
			if st.budget[b] == 0 {
				spent = append(spent, fmt.Sprint(st.ids[b]))
			}
		}
		if len(spent) > 0 {
			out = append(out, fmt.Sprintf("partition_limit %d reached on broker(s) %s", o.PartitionLimit, strings.Join(spent, ", ")))
		}
	}
	for _, r := range plan.Brokers {
		if r.UsageAfter != nil && *r.UsageAfter > st.ceiling {
			out = append(out, fmt.Sprintf("broker %d stays above max_disk_usage %g (%.2f%% used after the plan)", r.Broker, st.ceiling, *r.UsageAfter*100))
		}
	}
	return out
}

func (st *state) unsized() int {
	n := 0
	for _, pt := range st.parts {
		if !pt.sized {
			n++
		}
	}
	return n
}

// balanceSteps says what carrying out a balancing plan does.
func balanceSteps(plan Plan) []string {
	var out []string
	if len(plan.Partitions) > 0 {
		out = append(out, fmt.Sprintf("reassign %d partition(s): %s", len(plan.Partitions), movesText(plan)))
	}
	if len(plan.Elect) > 0 {
		out = append(out, fmt.Sprintf("elect the preferred leader of %d partition(s) once their reassignment is done", len(plan.Elect)))
	}
	if len(out) == 0 {
		out = append(out, "nothing to do")
	}
	return out
}

func movesText(plan Plan) string {
	if plan.Moves == 0 {
		return "replicas reordered or removed, no data copied"
	}
	s := fmt.Sprintf("%d replica(s) copied", plan.Moves)
	if plan.Bytes != nil {
		s += " (" + vocab.HumanBytes(*plan.Bytes) + ")"
	}
	return s
}

// String renders a plan row for dry-run output and logs.
func (pp Partition) String() string {
	return fmt.Sprintf("%s[%d]: %s -> %s", pp.Topic, pp.Partition, brokerList(pp.Current), brokerList(pp.Target))
}

func brokerList(bs []int32) string {
	s := make([]string, len(bs))
	for i, b := range bs {
		s[i] = fmt.Sprint(b)
	}
	return "[" + strings.Join(s, ",") + "]"
}
