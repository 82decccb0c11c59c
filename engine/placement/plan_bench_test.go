package placement

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// The planners at issue 30's scale: 100,000 partitions of RF 3 over 50
// brokers in 3 racks, placed rack-aware round robin on 45 of them (5 new
// brokers to fill), sizes up to 1 GiB, 16 TiB disks. The min-cost flow
// planner it replaced (flowBalance) is measured at 10,000 partitions: at
// 100,000 its graph does not fit in memory.

type benchLayout struct {
	Layout
	all []int32
}

func syntheticLayout(partitions, brokers, used int) benchLayout {
	rng := rand.New(rand.NewPCG(1, 2))
	in := Layout{Current: map[string]map[int32][]int32{}, Racks: map[int32]string{}, Sizes: map[string]map[int32]int64{}, Disks: map[int32]Disk{}}
	var all []int32
	for b := range int32(brokers) {
		all = append(all, b)
		in.Racks[b] = fmt.Sprint("r", b%3)
	}
	disk := map[int32]int64{}
	for p := range partitions {
		tp := fmt.Sprintf("t%03d", p%100)
		if in.Current[tp] == nil {
			in.Current[tp], in.Sizes[tp] = map[int32][]int32{}, map[int32]int64{}
		}
		// Kafka's rack-alternating round robin over the first used brokers.
		a := int32((p*7 + p/used) % used)
		b := (a + 1 + int32(p/used)%int32(used-1)) % int32(used)
		for b%3 == a%3 {
			b = (b + 1) % int32(used)
		}
		c := (b + 1) % int32(used)
		for c%3 == a%3 || c%3 == b%3 {
			c = (c + 1) % int32(used)
		}
		size := rng.Int64N(1 << 30)
		if a < 5 { // a few brokers lead the big partitions
			size *= 3
		}
		in.Current[tp][int32(p/100)], in.Sizes[tp][int32(p/100)] = []int32{a, b, c}, size
		disk[a] += size
		disk[b] += size
		disk[c] += size
	}
	for _, b := range all {
		in.Disks[b] = Disk{TotalBytes: 1 << 44, UsableBytes: 1<<44 - disk[b]}
	}
	in.Brokers = all
	return benchLayout{Layout: in, all: all}
}

func benchPlan(b *testing.B, partitions int, plan func(benchLayout) (Plan, error)) {
	in := syntheticLayout(partitions, 50, 45)
	b.ReportAllocs()
	b.ResetTimer()
	moves := 0
	for range b.N {
		p, err := plan(in)
		if err != nil {
			b.Fatal(err)
		}
		moves = p.Moves
	}
	b.ReportMetric(float64(moves), "moves")
}

func BenchmarkPlan100kCount(b *testing.B) {
	benchPlan(b, 100_000, func(in benchLayout) (Plan, error) { return Rebalance(in.Layout, Options{}) })
}

func BenchmarkPlan100kBytes(b *testing.B) {
	benchPlan(b, 100_000, func(in benchLayout) (Plan, error) { return Rebalance(in.Layout, Options{By: ByBytes}) })
}

func BenchmarkPlan100kDrain(b *testing.B) {
	benchPlan(b, 100_000, func(in benchLayout) (Plan, error) { return Drain(in.Layout, []int32{7}, Options{}) })
}

func BenchmarkPlan100kLeaders(b *testing.B) {
	benchPlan(b, 100_000, func(in benchLayout) (Plan, error) { return Rebalance(in.Layout, Options{LeadersOnly: true}) })
}

func BenchmarkPlan100kReplicationFactor(b *testing.B) {
	benchPlan(b, 100_000, func(in benchLayout) (Plan, error) {
		return Rebalance(in.Layout, Options{ReplicationFactor: 4})
	})
}

func BenchmarkPlan10kCount(b *testing.B) {
	benchPlan(b, 10_000, func(in benchLayout) (Plan, error) { return Rebalance(in.Layout, Options{}) })
}

func BenchmarkPlan10kFlowBefore(b *testing.B) {
	benchPlan(b, 10_000, func(in benchLayout) (Plan, error) { return flowBalance(in.Layout) })
}

// BenchmarkPlan1MCount is ten times issue 30's scale: 60,000 replicas a
// broker, where reading a broker's whole list for each pick took 80 s.
func BenchmarkPlan1MCount(b *testing.B) {
	benchPlan(b, 1_000_000, func(in benchLayout) (Plan, error) { return Rebalance(in.Layout, Options{}) })
}
