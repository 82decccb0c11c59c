package placement

// The lists kept beside each broker's slots so that choosing a replica to
// move reads the few that can qualify instead of the broker's whole list
// (6,000 replicas a broker at 100,000 partitions, 60,000 at a million):
//   - strays: the slots on a broker whose partition it did not hold (every
//     move that saves one or costs none takes one of these, or a partition
//     the receiving broker held: see pickReplica);
//   - away: the slots a broker held that are on another broker now;
//   - cross: the slots on a broker that may leave its rack, their
//     partition having room in another rack. With one replica in every
//     rack (RF 3 over 3 racks) there are none, and a pick between brokers
//     of two racks fails at once instead of after reading every replica.
//
// The planners' choices do not depend on these lists: each pick is the
// one a scan of the broker's whole list would make (pick_test.go holds
// them to it).

// idLists is a set of slots (or partitions) per broker, kept as lists
// with each one's place in its list, so that adding and removing cost
// O(1) (the last entry takes the removed one's place).
type idLists struct {
	lists [][]int32 // broker index -> its slots
	pos   []int32   // slot -> its place in its list; -1: in none
}

func newIDLists(brokers, ids int) idLists {
	ss := idLists{lists: make([][]int32, brokers), pos: make([]int32, ids)}
	for s := range ss.pos {
		ss.pos[s] = -1
	}
	return ss
}

func (ss *idLists) has(s int32) bool { return ss.pos[s] >= 0 }

func (ss *idLists) add(b int, s int32) {
	ss.pos[s] = int32(len(ss.lists[b]))
	ss.lists[b] = append(ss.lists[b], s)
}

func (ss *idLists) drop(b int, s int32) {
	list, i := ss.lists[b], ss.pos[s]
	last := list[len(list)-1]
	list[i], ss.pos[last] = last, i
	ss.lists[b] = list[:len(list)-1]
	ss.pos[s] = -1
}

// enlist files slot s, just placed on broker b, in the lists.
func (st *state) enlist(s int32, b int) {
	if st.isNew(s, b) {
		st.strays.add(b, s)
	}
	if o := st.origAt[s]; o >= 0 && int(o) != b {
		st.away.add(int(o), s)
	}
	st.recross(st.slotPart[s])
}

// delist takes slot s, about to leave broker b, out of the lists.
func (st *state) delist(s int32, b int) {
	if st.strays.has(s) {
		st.strays.drop(b, s)
	}
	if st.away.has(s) {
		st.away.drop(int(st.origAt[s]), s)
	}
	if st.cross.has(s) {
		st.cross.drop(b, s)
	}
}

// recross brings partition p's slots' membership of cross up to date
// (once the state is laid out: before, a partition's later slots do not
// exist yet). A slot's room to leave its rack changes only when a replica
// of its partition changes racks, but checking the few slots of p on
// every move is cheaper than telling.
func (st *state) recross(p int32) {
	if !st.crossKept {
		return
	}
	pt := &st.parts[p]
	for s := pt.first; s < pt.first+pt.rf; s++ {
		b := st.slotAt[s]
		want := b >= 0 && st.canLeaveRack(s)
		switch {
		case want && !st.cross.has(s):
			st.cross.add(int(b), s)
		case !want && st.cross.has(s):
			st.cross.drop(int(b), s)
		}
	}
}

// keepCross fills cross and keeps it from then on.
func (st *state) keepCross() {
	st.crossKept = true
	for p := range st.parts {
		st.recross(int32(p))
	}
}

// canLeaveRack: some other rack holds fewer replicas of placed slot s's
// partition than the rack limit, so rackOK allows s there.
func (st *state) canLeaveRack(s int32) bool {
	p := st.slotPart[s]
	rf := st.parts[p].rf
	if st.numRacks > int(rf) {
		return true // the other replicas leave a rack unused
	}
	own, limit := st.rack[st.slotAt[s]], st.maxPerRack(rf)
	for r := range st.numRacks {
		if r != own && st.inRack(p, r, -1) < limit {
			return true
		}
	}
	return false
}

// mayCross: slot s may go to broker v as far as racks go, for the lists'
// purposes (a slot not in cross can go only within its rack).
func (st *state) mayCross(s int32, v int) bool {
	return st.cross.has(s) || st.rack[st.slotAt[s]] == st.rack[v]
}
