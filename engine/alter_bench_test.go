package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
)

// BenchmarkAlterConfigsOne is one alter_configs call of workload R
// (docs/benchmarks.md) through the engine: what a call costs on top of
// the request.
func BenchmarkAlterConfigsOne(b *testing.B) {
	c, err := kfake.NewCluster(kfake.NumBrokers(3))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	cl, err := New(Config{Brokers: c.ListenAddrs()})
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	names := make([]string, 100)
	for i := range names {
		names[i] = fmt.Sprintf("r-%05d", i)
	}
	if _, err := cl.adm.CreateTopics(context.Background(), 1, 1, nil, names...); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		alt := ConfigAlteration{Resource: ConfigResource{Type: ConfigTopic, Name: names[i%len(names)]},
			Set: map[string]string{"retention.ms": "86400000"}}
		if _, err := cl.AlterConfigs(context.Background(), []ConfigAlteration{alt}, AlterConfigsOptions{}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
