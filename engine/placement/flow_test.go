package placement

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

type flowPart struct {
	topic   string
	part    int32
	current []int32
	rf      int
	target  []int32
}

// flowBalance is the planner before issue 30: one min-cost flow over a
// graph of partitions, racks and brokers. Exact, and the oracle the
// broker-graph planner is held to on small layouts, but its graph has a
// partition x broker edges: 10,000 partitions over 50 brokers took 4.6 s
// and 1.8 GB of allocations, so it cannot plan 100,000.
func flowBalance(in Layout) (Plan, error) {
	brokers := slices.Clone(in.Brokers)
	slices.Sort(brokers)
	brokers = slices.Compact(brokers)
	if len(brokers) == 0 {
		return Plan{}, vocab.Errorf(vocab.CodeInvalidArgument, "", "no brokers to assign to")
	}
	p := &flowPlanner{brokers: brokers, rack: map[int32]string{}}
	racks := map[string]bool{}
	for _, b := range brokers {
		r, ok := in.Racks[b]
		if !ok || r == "" {
			r = fmt.Sprintf("\x00broker-%d", b) // its own rack
		}
		p.rack[b] = r
		racks[r] = true
	}
	p.numRacks = len(racks)

	for _, t := range slices.Sorted(maps.Keys(in.Current)) {
		for _, part := range slices.Sorted(maps.Keys(in.Current[t])) {
			cur := in.Current[t][part]
			if len(cur) == 0 {
				continue
			}
			if len(cur) > len(brokers) {
				return Plan{}, &vocab.Error{Code: "INVALID_REPLICATION_FACTOR", Resource: fmt.Sprintf("%s[%d]", t, part),
					Message: fmt.Sprintf("replication factor %d is larger than the %d brokers given", len(cur), len(brokers))}
			}
			p.parts = append(p.parts, &flowPart{topic: t, part: part, current: slices.Clone(cur), rf: len(cur)})
			p.total += len(cur)
		}
	}
	p.assign()
	p.chooseLeaders()

	out := Plan{Partitions: []Partition{}}
	for _, pp := range p.parts {
		if slices.Equal(pp.current, pp.target) {
			continue
		}
		moves := 0
		for _, b := range pp.target {
			if !slices.Contains(pp.current, b) {
				moves++
			}
		}
		out.Moves += moves
		if pp.current[0] != pp.target[0] {
			out.LeaderChanges++
		}
		out.Partitions = append(out.Partitions, Partition{Topic: pp.topic, Partition: pp.part,
			Current: pp.current, Target: pp.target, Moves: moves})
	}
	return out, nil
}

type flowPlanner struct {
	brokers  []int32
	rack     map[int32]string
	numRacks int
	parts    []*flowPart
	total    int // replicas
}

// maxPerRack is how many replicas of a partition with rf replicas one rack
// may hold.
func (p *flowPlanner) maxPerRack(rf int) int {
	if p.numRacks >= rf {
		return 1
	}
	return (rf + p.numRacks - 1) / p.numRacks
}

// assign chooses every partition's replicas by one min-cost flow: each
// replica is a unit from its partition, through one of the partition's
// racks (capacity: the rack limit), to a broker (capacity 1: a broker holds
// a partition once), to the sink. A broker's replicas beyond its fair
// share cost a convex amount (unitCost), so the cheapest flow is the most
// balanced one; a replica on a broker that does not hold it now costs 1 more, so among
// balanced assignments the one with the fewest moves wins. Breaking a rack
// limit (only when unavoidable) costs more than anything else.
func (p *flowPlanner) assign() {
	g := &flowGraph{}
	src, sink := g.node(), g.node()
	brokerNode := map[int32]int{}
	for _, b := range p.brokers {
		brokerNode[b] = g.node()
	}
	big := int64(p.total + 1)
	rackPenalty := big * int64(p.total+1) * int64(p.total+1) * int64(len(p.brokers)+1)
	edges := make([]map[int32]int, len(p.parts))
	for i, pp := range p.parts {
		pn := g.node()
		g.edge(src, pn, pp.rf, 0)
		edges[i] = map[int32]int{}
		rackNode := map[string]int{}
		for _, b := range p.brokers {
			r := p.rack[b]
			rn, ok := rackNode[r]
			if !ok {
				rn = g.node()
				rackNode[r] = rn
				g.edge(pn, rn, p.maxPerRack(pp.rf), 0)
				g.edge(pn, rn, pp.rf, rackPenalty)
			}
			cost := int64(1)
			if slices.Contains(pp.current, b) {
				cost = 0
			}
			edges[i][b] = g.edge(rn, brokerNode[b], 1, cost)
		}
	}
	for _, b := range p.brokers {
		for j := range len(p.parts) {
			g.edge(brokerNode[b], sink, 1, unitCost(j, p.total/len(p.brokers), big))
		}
	}
	g.minCostFlow(src, sink, p.total)
	for i, pp := range p.parts {
		for _, b := range p.brokers {
			if g.edges[edges[i][b]].flow > 0 {
				pp.target = append(pp.target, b)
			}
		}
	}
}

// chooseLeaders orders each target so the first replica (the preferred
// leader) is balanced across brokers, keeping the current leader where
// balance allows: a min-cost flow from partitions to their replicas where
// balance costs dominate and changing a leader costs 1.
func (p *flowPlanner) chooseLeaders() {
	g := &flowGraph{}
	src, sink := g.node(), g.node()
	brokerNode := map[int32]int{}
	for _, b := range p.brokers {
		brokerNode[b] = g.node()
	}
	big := int64(len(p.parts) + 1)
	edges := make([]map[int32]int, len(p.parts))
	for i, pp := range p.parts {
		pn := g.node()
		g.edge(src, pn, 1, 0)
		edges[i] = map[int32]int{}
		for _, b := range pp.target {
			cost := int64(1)
			if b == pp.current[0] {
				cost = 0
			}
			edges[i][b] = g.edge(pn, brokerNode[b], 1, cost)
		}
	}
	for _, b := range p.brokers {
		for j := range len(p.parts) {
			g.edge(brokerNode[b], sink, 1, unitCost(j, len(p.parts)/len(p.brokers), big))
		}
	}
	g.minCostFlow(src, sink, len(p.parts))
	for i, pp := range p.parts {
		l := pp.target[0]
		for b, e := range edges[i] {
			if g.edges[e].flow > 0 {
				l = b
			}
		}
		// Keep the current order of the others where they stay, so a
		// partition that keeps its replicas and leader is unchanged.
		rest := slices.DeleteFunc(slices.Clone(pp.target), func(b int32) bool { return b == l })
		pos := func(b int32) int {
			if i := slices.Index(pp.current, b); i >= 0 {
				return i
			}
			return len(pp.current) + slices.Index(pp.target, b)
		}
		slices.SortStableFunc(rest, func(a, b int32) int { return cmp.Compare(pos(a), pos(b)) })
		pp.target = append([]int32{l}, rest...)
	}
}

// unitCost is the cost of a broker's j-th unit (replica or leadership)
// when each broker's fair share is at least floor: free up to floor, then
// convex, so a cheapest flow leaves every broker at floor or floor+1 when it
// can, and the free units let many augmenting paths share one phase.
func unitCost(j, floor int, big int64) int64 {
	if j < floor {
		return 0
	}
	k := int64(j - floor + 1)
	return k * k * big
}

// flowGraph is a small min-cost flow (successive shortest paths with
// Bellman-Ford queues), enough for assignment-sized problems.
type flowGraph struct {
	adj   [][]int
	edges []flowEdge
}

type flowEdge struct {
	to, cap, flow int
	cost          int64
}

func (g *flowGraph) node() int {
	g.adj = append(g.adj, nil)
	return len(g.adj) - 1
}

// edge adds from->to and its residual twin; it returns the forward edge.
func (g *flowGraph) edge(from, to, capacity int, cost int64) int {
	g.adj[from] = append(g.adj[from], len(g.edges))
	g.edges = append(g.edges, flowEdge{to: to, cap: capacity, cost: cost})
	g.adj[to] = append(g.adj[to], len(g.edges))
	g.edges = append(g.edges, flowEdge{to: from, cap: 0, cost: -cost})
	return len(g.edges) - 2
}

// minCostFlow sends up to want units from src to sink at least cost
// (primal-dual: shortest distances by a queue-based Bellman-Ford, then as
// many augmenting paths as fit along edges on shortest paths).
func (g *flowGraph) minCostFlow(src, sink, want int) {
	n := len(g.adj)
	const inf = int64(1) << 62
	dist := make([]int64, n)
	inQueue := make([]bool, n)
	onPath := make([]bool, n)
	next := make([]int, n)
	var dfs func(u, limit int) int
	dfs = func(u, limit int) int {
		if u == sink {
			return limit
		}
		onPath[u] = true
		defer func() { onPath[u] = false }()
		pushed := 0
		for ; next[u] < len(g.adj[u]) && pushed < limit; next[u]++ {
			ei := g.adj[u][next[u]]
			e := &g.edges[ei]
			if e.cap-e.flow <= 0 || onPath[e.to] || dist[e.to] != dist[u]+e.cost {
				continue
			}
			if f := dfs(e.to, min(limit-pushed, e.cap-e.flow)); f > 0 {
				g.edges[ei].flow += f
				g.edges[ei^1].flow -= f
				pushed += f
				if pushed == limit {
					break
				}
			}
		}
		return pushed
	}
	for sent := 0; sent < want; {
		for i := range dist {
			dist[i] = inf
		}
		dist[src] = 0
		queue := []int{src}
		inQueue[src] = true
		for len(queue) > 0 {
			u := queue[0]
			queue = queue[1:]
			inQueue[u] = false
			for _, ei := range g.adj[u] {
				e := &g.edges[ei]
				if e.cap-e.flow > 0 && dist[u]+e.cost < dist[e.to] {
					dist[e.to] = dist[u] + e.cost
					if !inQueue[e.to] {
						queue = append(queue, e.to)
						inQueue[e.to] = true
					}
				}
			}
		}
		if dist[sink] == inf {
			return
		}
		clear(next)
		f := dfs(src, want-sent)
		if f == 0 {
			return
		}
		sent += f
	}
}
