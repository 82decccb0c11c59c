package main

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// lagTime is workload LT as a developer would write it with kadm and a kgo
// consumer: kadm's lag, then one consumer (no group) of every lagging
// partition from its smallest unread offset, polled until each group's
// first unread record of each partition has been seen. It returns how many
// (group, partition) rows got a time, and the oldest of those times.
func lagTime(ctx context.Context, brokers []string, adm *kadm.Client) (int, int64) {
	lags, err := adm.Lag(ctx)
	check(err)
	type tp struct {
		t string
		p int32
	}
	wanted := map[tp][]int64{}
	from := map[string]map[int32]kgo.Offset{}
	low := map[tp]int64{}
	for _, g := range lags {
		check(g.Error())
		for t, ps := range g.Lag {
			for p, l := range ps {
				check(l.Err)
				if l.Lag <= 0 {
					continue
				}
				at := l.Commit.At
				if at < 0 {
					at = l.Start.Offset
				}
				k := tp{t, p}
				wanted[k] = append(wanted[k], at)
				if cur, ok := low[k]; !ok || at < cur {
					low[k] = at
				}
			}
		}
	}
	if len(wanted) == 0 {
		return 0, 0
	}
	for k, at := range low {
		if from[k.t] == nil {
			from[k.t] = map[int32]kgo.Offset{}
		}
		from[k.t][k.p] = kgo.NewOffset().At(at)
	}
	cons, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ConsumePartitions(from),
		kgo.FetchMaxPartitionBytes(64<<10), kgo.FetchMaxWait(100*time.Millisecond))
	check(err)
	defer cons.Close()
	// Per partition, the records seen so far, in offset order.
	seen := map[tp][]*kgo.Record{}
	need := len(wanted)
	done := map[tp]bool{}
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	for need > 0 {
		fs := cons.PollFetches(ctx)
		if ctx.Err() != nil {
			break
		}
		fs.EachRecord(func(r *kgo.Record) {
			k := tp{r.Topic, r.Partition}
			seen[k] = append(seen[k], r)
		})
		for k, offs := range wanted {
			if done[k] || len(seen[k]) == 0 {
				continue
			}
			last := seen[k][len(seen[k])-1].Offset
			highest := offs[0]
			for _, o := range offs {
				highest = max(highest, o)
			}
			if last >= highest {
				done[k] = true
				need--
				cons.PauseFetchPartitions(map[string][]int32{k.t: {k.p}})
			}
		}
	}
	n, oldest := 0, int64(0)
	for k, offs := range wanted {
		for _, o := range offs {
			for _, r := range seen[k] {
				if r.Offset >= o {
					ts := r.Timestamp.UnixMilli()
					if n == 0 || ts < oldest {
						oldest = ts
					}
					n++
					break
				}
			}
		}
	}
	return n, oldest
}
