package bench

import (
	"context"
	"fmt"
	"os"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// A seeded cluster: 3 kfake brokers in this process, on loopback, that
// both programs of a workload talk to.
type seeded struct {
	fake  *kfake.Cluster
	cl    *kgo.Client
	adm   *kadm.Client
	addrs []string
	temps []string // directories a seed made, removed by close
	stops []func() // what a seed started beside the cluster (a registry), stopped by close
}

func startCluster() (*seeded, error) {
	fake, err := kfake.NewCluster(kfake.NumBrokers(3))
	if err != nil {
		return nil, err
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(fake.ListenAddrs()...),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerLinger(0))
	if err != nil {
		fake.Close()
		return nil, err
	}
	return &seeded{fake: fake, cl: cl, adm: kadm.NewClient(cl), addrs: fake.ListenAddrs()}, nil
}

func (s *seeded) close() {
	for _, stop := range s.stops {
		stop()
	}
	for _, d := range s.temps {
		_ = os.RemoveAll(d)
	}
	s.cl.Close()
	s.fake.Close()
}

// topics creates count topics named prefix%05d of partitions each (RF 1).
func (s *seeded) topics(ctx context.Context, prefix string, count, partitions int) ([]string, error) {
	names := make([]string, count)
	for i := range names {
		names[i] = fmt.Sprintf("%s%05d", prefix, i)
	}
	for start := 0; start < count; start += 500 {
		created, err := s.adm.CreateTopics(ctx, int32(partitions), 1, nil, names[start:min(start+500, count)]...)
		if err != nil {
			return nil, err
		}
		if err := created.Error(); err != nil {
			return nil, err
		}
	}
	return names, nil
}

// produce writes n(topic index, partition) records into each partition of
// topics and returns the end offsets it made.
func (s *seeded) produce(ctx context.Context, topics []string, partitions int, n func(t, p int) int) (map[string][]int64, error) {
	ends := map[string][]int64{}
	var batch []*kgo.Record
	flush := func() error {
		err := s.cl.ProduceSync(ctx, batch...).FirstErr()
		batch = batch[:0]
		return err
	}
	for ti, t := range topics {
		ends[t] = make([]int64, partitions)
		for p := range partitions {
			for range n(ti, p) {
				batch = append(batch, &kgo.Record{Topic: t, Partition: int32(p), Value: []byte("x")})
				ends[t][p]++
			}
			if len(batch) >= 5000 {
				if err := flush(); err != nil {
					return nil, err
				}
			}
		}
	}
	if len(batch) > 0 {
		if err := flush(); err != nil {
			return nil, err
		}
	}
	return ends, nil
}

// commit commits, for group, at(topic index, partition) on every partition
// of topics (clamped to the end offsets) and returns the lag that leaves:
// end minus committed, summed.
func (s *seeded) commit(ctx context.Context, group string, topics []string, ends map[string][]int64, at func(t, p int) int64) (int64, error) {
	offsets := kadm.Offsets{}
	var lag int64
	for ti, t := range topics {
		for p, end := range ends[t] {
			o := min(at(ti, p), end)
			offsets.Add(kadm.Offset{Topic: t, Partition: int32(p), At: o, LeaderEpoch: -1})
			lag += end - o
		}
	}
	resp, err := s.adm.CommitOffsets(ctx, group, offsets)
	if err != nil {
		return 0, err
	}
	return lag, resp.Error()
}
