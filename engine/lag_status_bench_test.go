package engine

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kadmin-lua/kadmin-lua/engine/state"
)

// lag_status against lag() alone on 300 groups x 100 partitions with a
// 10-sample store: what judging costs over sampling (issue 19 bounds it at
// 20%; the whole-process figure is bench workload LS).
func BenchmarkLagStatus(b *testing.B) {
	c, err := kfake.NewCluster(kfake.NumBrokers(3))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	kc, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		b.Fatal(err)
	}
	defer kc.Close()
	adm := kadm.NewClient(kc)
	ctx := context.Background()
	var topics []string
	for i := range 10 {
		topics = append(topics, fmt.Sprintf("t%d", i))
	}
	if _, err := adm.CreateTopics(ctx, 10, 1, nil, topics...); err != nil {
		b.Fatal(err)
	}
	var rs []*kgo.Record
	for _, t := range topics {
		for p := range int32(10) {
			rs = append(rs, &kgo.Record{Topic: t, Partition: p, Value: []byte("v")}, &kgo.Record{Topic: t, Partition: p, Value: []byte("v")})
		}
	}
	if err := kc.ProduceSync(ctx, rs...).FirstErr(); err != nil {
		b.Fatal(err)
	}
	var groups []string
	for g := range 300 {
		os := kadm.Offsets{}
		for _, t := range topics {
			for p := range int32(10) {
				os.Add(kadm.Offset{Topic: t, Partition: p, At: int64(g % 2), LeaderEpoch: -1})
			}
		}
		name := fmt.Sprintf("g%03d", g)
		groups = append(groups, name)
		if _, err := adm.CommitOffsets(ctx, name, os); err != nil {
			b.Fatal(err)
		}
	}
	cl, err := New(Config{Brokers: c.ListenAddrs(), State: state.New(state.Options{})})
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	id, _ := cl.ClusterID(ctx)
	lags, err := cl.Lag(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now().Add(-11 * time.Minute)
	for k := range 10 {
		if err := RecordLag(cl.State(), id, "", start.Add(time.Duration(k)*time.Minute), lags); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("lag", func(b *testing.B) {
		for range b.N {
			if _, err := cl.Lag(ctx, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("lag_status", func(b *testing.B) {
		for range b.N {
			if _, err := cl.LagStatus(ctx, nil, LagStatusOptions{Partitions: true}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
