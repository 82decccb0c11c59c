package engine

import (
	"cmp"
	"context"
	"math"
	"slices"
)

// skew: how evenly partitions, leaders and bytes spread over brokers and
// racks (Metadata for the first two, the log dirs for bytes: sizes.go).

// SkewBroker is one broker's load in a skew report.
type SkewBroker struct {
	Broker     int32  `json:"broker"`
	Rack       string `json:"rack"`
	Partitions int    `json:"partitions"` // replicas it holds
	Leaders    int    `json:"leaders"`
	Bytes      int64  `json:"bytes"` // -1 when its log dirs could not be read
	Err        *Error `json:"error,omitempty"`
}

// SkewRack is one rack's load: its brokers' summed.
type SkewRack struct {
	Rack       string `json:"rack"`
	Brokers    int    `json:"brokers"`
	Partitions int    `json:"partitions"`
	Leaders    int    `json:"leaders"`
	Bytes      int64  `json:"bytes"`
}

// Spread is how uneven a load is: the largest over the mean, in percent
// (100 is perfectly even; 150 is a broker with half as much again as the
// mean), for partitions, leaders and bytes.
type Spread struct {
	Partitions float64 `json:"partitions_pct"`
	Leaders    float64 `json:"leaders_pct"`
	Bytes      float64 `json:"bytes_pct"`
}

// Skew is the skew report: per broker, per rack, and the spreads.
type Skew struct {
	Brokers    []SkewBroker `json:"brokers"`
	Racks      []SkewRack   `json:"racks"`
	Spread     Spread       `json:"spread"`
	RackSpread *Spread      `json:"rack_spread,omitempty"` // when brokers have racks
}

// Skew reports how evenly partitions (replicas), leaders and bytes are
// spread over the brokers and racks, for every topic or for topics. Every
// broker is a row, one holding nothing included (a broker just added).
// Partitions and leaders come from Metadata, bytes from the log dirs; a
// broker whose log dirs cannot be read has bytes -1 and its error, and is
// left out of the bytes spread.
func (c *Client) Skew(ctx context.Context, topics []string) (*Skew, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	d, err := c.lookSizes(ctx, topics)
	if err != nil {
		return nil, err
	}
	sizes := d.brokerSizes(false)
	out := &Skew{Brokers: make([]SkewBroker, 0, len(sizes)), Racks: []SkewRack{}}
	for _, s := range sizes {
		out.Brokers = append(out.Brokers, SkewBroker{Broker: s.Broker, Rack: s.Rack, Bytes: s.Bytes, Err: s.Err})
	}
	idx := map[int32]int{}
	for i, b := range out.Brokers {
		idx[b.Broker] = i
	}
	// Partitions and leaders from Metadata: the assignment, whatever the
	// disks say (a replica still being created counts).
	for tp, rs := range d.assigned {
		for _, r := range rs {
			if i, ok := idx[r]; ok {
				out.Brokers[i].Partitions++
			}
		}
		if i, ok := idx[d.leaders[tp]]; ok && d.leaders[tp] >= 0 {
			out.Brokers[i].Leaders++
		}
	}
	racks := map[string]*SkewRack{}
	anyRack := false
	for _, b := range out.Brokers {
		anyRack = anyRack || b.Rack != ""
		r := racks[b.Rack]
		if r == nil {
			r = &SkewRack{Rack: b.Rack}
			racks[b.Rack] = r
		}
		r.Brokers++
		r.Partitions += b.Partitions
		r.Leaders += b.Leaders
		if b.Bytes >= 0 && r.Bytes >= 0 {
			r.Bytes += b.Bytes
		} else {
			r.Bytes = -1
		}
	}
	out.Spread = spreadOf(len(out.Brokers), func(i int) (int, int, int64) {
		b := out.Brokers[i]
		return b.Partitions, b.Leaders, b.Bytes
	})
	if anyRack {
		for _, r := range racks {
			out.Racks = append(out.Racks, *r)
		}
		slices.SortFunc(out.Racks, func(a, b SkewRack) int { return cmp.Compare(a.Rack, b.Rack) })
		s := spreadOf(len(out.Racks), func(i int) (int, int, int64) {
			r := out.Racks[i]
			return r.Partitions, r.Leaders, r.Bytes
		})
		out.RackSpread = &s
	}
	return out, nil
}

// spreadOf is the max/mean of n rows' partitions, leaders and bytes (a
// negative bytes, unknown, is left out), in percent to one decimal; 100
// when there is nothing to spread.
func spreadOf(n int, row func(i int) (partitions, leaders int, bytes int64)) Spread {
	var ps, ls, bs []float64
	for i := range n {
		p, l, b := row(i)
		ps, ls = append(ps, float64(p)), append(ls, float64(l))
		if b >= 0 {
			bs = append(bs, float64(b))
		}
	}
	return Spread{Partitions: maxOverMean(ps), Leaders: maxOverMean(ls), Bytes: maxOverMean(bs)}
}

func maxOverMean(vs []float64) float64 {
	var sum, top float64
	for _, v := range vs {
		sum += v
		top = max(top, v)
	}
	if len(vs) == 0 || sum == 0 {
		return 100
	}
	return math.Round(top/(sum/float64(len(vs)))*1000) / 10
}
