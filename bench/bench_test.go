// Package bench compares kadmin-lua (Lua -> luaapi -> engine -> kadm) with a
// plain kadm program doing the same work against the same in-process cluster.
// Run with `make bench`; read ns/op and allocs side by side. These are
// benchmarks, never timed assertions.
package bench

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

const topics = 50

func cluster(b *testing.B) *kfake.Cluster {
	c, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.DefaultNumPartitions(4))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	return c
}

func seed(b *testing.B, adm *kadm.Client) {
	names := make([]string, topics)
	for i := range names {
		names[i] = fmt.Sprintf("t%03d", i)
	}
	if _, err := adm.CreateTopics(context.Background(), 4, 3, nil, names...); err != nil {
		b.Fatal(err)
	}
}

func plainAdmin(b *testing.B, c *kfake.Cluster) *kadm.Client {
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(cl.Close)
	return kadm.NewClient(cl)
}

func luaRuntime(b *testing.B, c *kfake.Cluster) *luaapi.Runtime {
	rt := luaapi.New(luaapi.Options{Config: engine.Config{Brokers: c.ListenAddrs()}, Stdout: io.Discard, Stderr: io.Discard})
	b.Cleanup(rt.Close)
	return rt
}

func runLua(b *testing.B, rt *luaapi.Runtime, src string) {
	fn, err := rt.Compile("bench", src)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := rt.Call(context.Background(), fn); err != nil {
			b.Fatal(err)
		}
	}
}

// Describe every topic: metadata for 50 topics x 4 partitions.
func BenchmarkDescribeTopics_kadm(b *testing.B) {
	c := cluster(b)
	adm := plainAdmin(b, c)
	seed(b, adm)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		td, err := adm.ListTopics(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := adm.Metadata(context.Background(), td.Names()...); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDescribeTopics_kadminLua(b *testing.B) {
	c := cluster(b)
	seed(b, plainAdmin(b, c))
	runLua(b, luaRuntime(b, c), `local n = {} for _, x in ipairs(list_topics()) do n[#n+1] = x.name end
return describe_topics(n)`)
}

// End offsets of every partition of every topic.
func BenchmarkListOffsets_kadm(b *testing.B) {
	c := cluster(b)
	adm := plainAdmin(b, c)
	seed(b, adm)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := adm.ListEndOffsets(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkListOffsets_kadminLua(b *testing.B) {
	c := cluster(b)
	seed(b, plainAdmin(b, c))
	runLua(b, luaRuntime(b, c), `local n = {} for _, x in ipairs(list_topics()) do n[#n+1] = x.name end
return list_offsets(n)`)
}

// Create and delete 10 topics.
func BenchmarkCreateDeleteTopics_kadm(b *testing.B) {
	c := cluster(b)
	adm := plainAdmin(b, c)
	names := make([]string, 10)
	for i := range names {
		names[i] = fmt.Sprintf("cd%02d", i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := adm.CreateTopics(context.Background(), 2, 1, nil, names...); err != nil {
			b.Fatal(err)
		}
		if _, err := adm.DeleteTopics(context.Background(), names...); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCreateDeleteTopics_kadminLua(b *testing.B) {
	c := cluster(b)
	runLua(b, luaRuntime(b, c), `local n = {} for i = 0, 9 do n[#n+1] = {name = string.format("cd%02d", i), partitions = 2, replication_factor = 1} end
create_topics(n)
local d = {} for i, s in ipairs(n) do d[i] = s.name end
delete_topics(d)`)
}

// L and X in-process, for pprof: `go test -run '^$' -bench 'L_' -cpuprofile
// cpu.out ./bench/`. The whole-process runs (bench.Run) are the measure.
func benchSeeded(b *testing.B, seedFn func(context.Context, *seeded, Scale) (func(int) ([]string, []string), string, error)) *seeded {
	s, err := startCluster()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.close)
	if _, _, err := seedFn(context.Background(), s, Full); err != nil {
		b.Fatal(err)
	}
	return s
}

func BenchmarkL_kadm(b *testing.B) {
	s := benchSeeded(b, seedL)
	adm := plainAdmin(b, s.fake)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := adm.Lag(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkL_kadminLua(b *testing.B) {
	s := benchSeeded(b, seedL)
	src, _ := workloadFS.ReadFile("workloads/L.lua")
	runLua(b, luaRuntime(b, s.fake), string(src))
}

func BenchmarkX_kadm(b *testing.B) {
	s := benchSeeded(b, seedX)
	adm := plainAdmin(b, s.fake)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := adm.Lag(context.Background(), "x"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkX_kadminLua(b *testing.B) {
	s := benchSeeded(b, seedX)
	runLua(b, luaRuntime(b, s.fake), `local group = "x"
local sum = 0
for _, g in ipairs(lag({group})) do
  for _, p in ipairs(g.partitions) do
    if p.lag > 0 then sum = sum + p.lag end
  end
end
return sum`)
}

func BenchmarkC_kadminLua(b *testing.B) {
	s := benchSeeded(b, seedC)
	src, _ := workloadFS.ReadFile("workloads/C.lua")
	rt := luaRuntime(b, s.fake)
	fn, err := rt.Compile("C.lua", string(src))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := rt.Call(context.Background(), fn, lua.LString("c-"), lua.LString("5000")); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkC_kadm(b *testing.B) {
	s := benchSeeded(b, seedC)
	adm := plainAdmin(b, s.fake)
	names := make([]string, 5000)
	for i := range names {
		names[i] = fmt.Sprintf("c-%05d", i)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := adm.CreateTopics(context.Background(), 6, 1, nil, names...); err != nil {
			b.Fatal(err)
		}
		if _, err := adm.DeleteTopics(context.Background(), names...); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkR_kadminLua(b *testing.B) {
	s := benchSeeded(b, seedR)
	src, _ := workloadFS.ReadFile("workloads/R.lua")
	rt := luaRuntime(b, s.fake)
	fn, err := rt.Compile("R.lua", string(src))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := rt.Call(context.Background(), fn, lua.LString("r-"), lua.LString("500"), lua.LString("86400000")); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkR_kadm(b *testing.B) {
	s := benchSeeded(b, seedR)
	adm := plainAdmin(b, s.fake)
	v := "86400000"
	b.ReportAllocs()
	for b.Loop() {
		for i := range 500 {
			if _, err := adm.AlterTopicConfigs(context.Background(), []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "retention.ms", Value: &v}}, fmt.Sprintf("r-%05d", i)); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkR_engine(b *testing.B) {
	s := benchSeeded(b, seedR)
	cl, err := engine.New(engine.Config{Brokers: s.addrs})
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	b.ReportAllocs()
	for b.Loop() {
		for i := range 500 {
			alt := engine.ConfigAlteration{Resource: engine.ConfigResource{Type: engine.ConfigTopic, Name: fmt.Sprintf("r-%05d", i)},
				Set: map[string]string{"retention.ms": "86400000"}}
			if _, err := cl.AlterConfigs(context.Background(), []engine.ConfigAlteration{alt}, engine.AlterConfigsOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// DT in-process, for pprof (the whole-process run is the measure).
func BenchmarkDT_kadminLua(b *testing.B) {
	s := benchSeeded(b, seedDT)
	src, _ := workloadFS.ReadFile("workloads/DT.lua")
	runLua(b, luaRuntime(b, s.fake), string(src))
}
