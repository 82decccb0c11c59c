package placement

import (
	"fmt"
	"maps"
	"slices"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// state is an assignment being planned, laid out for 100,000 partitions
// over 50 brokers: every replica is a slot (a number), partition p's slots
// are first..first+rf-1 in the order of its current replicas, and each
// broker in the set keeps the list of its slots, so moving a replica is a
// swap-remove and an append, and finding one to move scans one broker's
// list instead of the whole layout.
type state struct {
	ids      []int32       // broker index -> id, sorted: the brokers in the set
	index    map[int32]int // id -> broker index
	rack     []int         // broker index -> rack number
	numRacks int

	parts []part

	slotPart []int32 // slot -> partition index
	slotAt   []int32 // slot -> broker index; -1: on a broker outside the set
	slotPos  []int32 // slot -> position in on[slotAt]
	slotOrig []int32 // slot -> the broker id that holds it now (its current replica)
	origAt   []int32 // slot -> the index of slotOrig; -1: outside the set

	on     [][]int32 // broker index -> its slots
	cursor []int     // where the next scan of on[b] starts, so picks rotate over topics
	budget []int     // broker index -> balancing moves left (partition_limit); -1: no limit
	bytes  []int64   // broker index -> bytes: used disk when capacities are known, else the planned replicas'
	cap    []int64   // broker index -> disk capacity (0: unknown)

	// Subsets of on (index.go): a broker's strays (slots of partitions
	// it did not hold), away (slots it held that are elsewhere now), and
	// cross (slots that may leave its rack, kept once crossKept).
	strays, away, cross idLists
	crossKept           bool
	bySize              [][]sizedSlot // broker index -> its slots by size, while balancing bytes (trade.go)

	rackBroken []string // partitions given a replica against the rack rule (the racks left no choice)

	capsKnown  bool // every broker of the set has a capacity
	sizesKnown bool // sizes were given
	ceiling    float64
	minBytes   int64
}

type part struct {
	topic   string
	num     int32
	first   int32
	rf      int32
	current []int32 // the replicas now; current[0] is the preferred leader
	leader  int32   // the leader now (-1: none)
	isr     []int32 // nil: unknown
	size    int64
	sized   bool
}

// newState lays out in's partitions (sorted by topic and partition) over
// the brokers ids. A replica on a broker outside ids is left unplaced
// (slotAt -1): the caller decides whether it must move.
func newState(in Layout, ids []int32, o Options) (*state, error) {
	st := &state{ids: ids, index: make(map[int32]int, len(ids)), sizesKnown: in.Sizes != nil,
		ceiling: o.maxDiskUsage(), minBytes: o.MinPartitionBytes}
	racks := map[string]int{}
	for i, b := range ids {
		st.index[b] = i
		r, ok := in.Racks[b]
		if !ok || r == "" {
			r = fmt.Sprintf("\x00broker-%d", b) // its own rack
		}
		if _, ok := racks[r]; !ok {
			racks[r] = len(racks)
		}
		st.rack = append(st.rack, racks[r])
	}
	st.numRacks = len(racks)
	n := len(ids)
	st.on, st.cursor, st.budget = make([][]int32, n), make([]int, n), make([]int, n)
	st.bytes, st.cap = make([]int64, n), make([]int64, n)
	for b := range st.budget {
		st.budget[b] = -1
		if o.PartitionLimit > 0 {
			st.budget[b] = o.PartitionLimit
		}
	}
	st.capsKnown = n > 0
	for i, b := range ids {
		d, ok := in.Disks[b]
		if ok && d.known() {
			st.cap[i], st.bytes[i] = d.TotalBytes, d.TotalBytes-d.UsableBytes
		} else {
			st.capsKnown = false
		}
	}
	if !st.capsKnown {
		clear(st.cap)
		clear(st.bytes)
	}
	for _, t := range slices.Sorted(maps.Keys(in.Current)) {
		for _, p := range slices.Sorted(maps.Keys(in.Current[t])) {
			cur := in.Current[t][p]
			if len(cur) == 0 {
				continue
			}
			for i, b := range cur {
				if slices.Contains(cur[:i], b) {
					return nil, &vocab.Error{Code: "INVALID_REPLICA_ASSIGNMENT", Resource: vocab.PartitionKey(t, p),
						Message: fmt.Sprintf("broker %d is listed twice in the replicas %v", b, cur)}
				}
			}
			pt := part{topic: t, num: p, first: int32(len(st.slotPart)), rf: int32(len(cur)), current: slices.Clone(cur), leader: cur[0]}
			if l, ok := in.Leaders[t][p]; ok {
				pt.leader = l
			}
			if isr, ok := in.ISR[t][p]; ok {
				pt.isr = isr
			}
			pt.size, pt.sized = in.Sizes[t][p]
			pi := int32(len(st.parts))
			st.parts = append(st.parts, pt)
			for _, b := range cur {
				st.slotPart, st.slotOrig = append(st.slotPart, pi), append(st.slotOrig, b)
			}
		}
	}
	slots := len(st.slotPart)
	st.slotAt, st.slotPos, st.origAt = make([]int32, slots), make([]int32, slots), make([]int32, slots)
	st.strays, st.away, st.cross = newIDLists(n, slots), newIDLists(n, slots), newIDLists(n, slots)
	for s, b := range st.slotOrig {
		st.slotAt[s], st.slotPos[s], st.origAt[s] = -1, -1, -1
		bi, ok := st.index[b]
		if !ok {
			continue
		}
		st.origAt[s] = int32(bi)
		st.add(int32(s), bi)
		if !st.capsKnown { // else the disk's used bytes already count it
			st.bytes[bi] += st.parts[st.slotPart[s]].size
		}
	}
	st.keepCross()
	return st, nil
}

// known: a volume's numbers that can be believed (kfake reports a total
// smaller than the usable bytes; brokers before Kafka 3.3 report -1).
func (d Disk) known() bool {
	return d.TotalBytes > 0 && d.UsableBytes >= 0 && d.UsableBytes <= d.TotalBytes
}

func (st *state) add(s int32, b int) {
	st.slotAt[s], st.slotPos[s] = int32(b), int32(len(st.on[b]))
	st.on[b] = append(st.on[b], s)
	st.enlist(s, b)
}

// isNew: broker b did not hold slot s's partition before the plan, so a
// replica of it there is a move.
func (st *state) isNew(s int32, b int) bool {
	return !slices.Contains(st.parts[st.slotPart[s]].current, st.ids[b])
}

func (st *state) remove(s int32) {
	b := st.slotAt[s]
	if b < 0 {
		return
	}
	list, i := st.on[b], st.slotPos[s]
	last := list[len(list)-1]
	list[i], st.slotPos[last] = last, i
	st.on[b] = list[:len(list)-1]
	st.delist(s, int(b))
	st.slotAt[s], st.slotPos[s] = -1, -1
	st.recross(st.slotPart[s])
}

// move puts slot s on broker v, keeping the bytes and budgets.
func (st *state) move(s int32, v int) {
	size := st.parts[st.slotPart[s]].size
	u := st.slotAt[s]
	if u >= 0 {
		st.bytes[u] -= size
		st.spend(int(u))
	}
	st.remove(s)
	st.add(s, v)
	st.resize(s, int(u), v)
	st.bytes[v] += size
	st.spend(v)
}

func (st *state) spend(b int) {
	if st.budget[b] > 0 {
		st.budget[b]--
	}
}

func (st *state) count(b int) int { return len(st.on[b]) }

// slots are partition p's slots.
func (st *state) slots(p int32) []int32 {
	pt := &st.parts[p]
	out := make([]int32, pt.rf)
	for i := range out {
		out[i] = pt.first + int32(i)
	}
	return out
}

// holds: broker index v holds a replica of partition p.
func (st *state) holds(p int32, v int) bool {
	pt := &st.parts[p]
	for s := pt.first; s < pt.first+pt.rf; s++ {
		if st.slotAt[s] == int32(v) {
			return true
		}
	}
	return false
}

// maxPerRack is how many replicas of a partition with rf replicas one rack
// may hold: one when the brokers span rf racks, else an even share.
func (st *state) maxPerRack(rf int32) int {
	if st.numRacks >= int(rf) {
		return 1
	}
	return (int(rf) + st.numRacks - 1) / st.numRacks
}

// inRack counts partition p's placed replicas in rack r, slot skip aside.
func (st *state) inRack(p int32, r int, skip int32) int {
	pt := &st.parts[p]
	n := 0
	for s := pt.first; s < pt.first+pt.rf; s++ {
		if s != skip && st.slotAt[s] >= 0 && st.rack[st.slotAt[s]] == r {
			n++
		}
	}
	return n
}

// rackOK: moving slot s to broker v keeps its partition within the rack
// limit (a move inside one rack always does).
func (st *state) rackOK(s int32, v int) bool {
	if u := st.slotAt[s]; u >= 0 && st.rack[u] == st.rack[v] {
		return true
	}
	p := st.slotPart[s]
	return st.inRack(p, st.rack[v], s) < st.maxPerRack(st.parts[p].rf)
}

// fits: after taking extra bytes, broker v stays at or below the disk
// ceiling (always true when capacities are unknown).
func (st *state) fits(v int, extra int64) bool {
	if !st.capsKnown || extra <= 0 {
		return true
	}
	return float64(st.bytes[v]+extra) <= st.ceiling*float64(st.cap[v])
}

// usage is broker b's load for the bytes planner: the fraction of its disk
// used, or its planned bytes when capacities are unknown.
func (st *state) usage(b int) float64 {
	if st.capsKnown {
		return float64(st.bytes[b]) / float64(st.cap[b])
	}
	return float64(st.bytes[b])
}

// movable: slot s may leave its broker for v in a balancing move (forced
// moves do not ask): v does not hold the partition, racks stay within
// limits, both brokers have budget, the partition is not below the size
// that stays put, and v stays under the ceiling.
func (st *state) movable(s int32, v int) bool {
	return st.movableWith(s, v, st.parts[st.slotPart[s]].size)
}

// movableWith is movable with extra bytes landing on v (a swap lands only
// the difference of the two replicas' sizes).
func (st *state) movableWith(s int32, v int, extra int64) bool {
	u := st.slotAt[s]
	if u < 0 || int(u) == v || st.budget[u] == 0 || st.budget[v] == 0 {
		return false
	}
	p := st.slotPart[s]
	pt := &st.parts[p]
	if st.minBytes > 0 && (!pt.sized || pt.size < st.minBytes) {
		return false
	}
	return !st.holds(p, v) && st.rackOK(s, v) && st.fits(v, extra)
}

// target is partition p's replicas as planned, in slot order (a slot left
// on a broker outside the set keeps its broker).
func (st *state) target(p int32) []int32 {
	pt := &st.parts[p]
	out := make([]int32, 0, pt.rf)
	for s := pt.first; s < pt.first+pt.rf; s++ {
		if b := st.slotAt[s]; b >= 0 {
			out = append(out, st.ids[b])
		} else {
			out = append(out, st.slotOrig[s])
		}
	}
	return out
}
