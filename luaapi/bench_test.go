package luaapi

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

// Benchmarks of the hot paths (make bench): Go -> Lua conversion of
// results, reading arguments through the declarations, and printing
// returned values as JSON and as a table. docs/benchmarks.md has the
// numbers and what pprof showed.

// lagResult is lag() of groups x partitions, as the engine returns it.
func lagResult(groups, partitions int) []engine.GroupLag {
	out := make([]engine.GroupLag, groups)
	for g := range out {
		ps := make([]engine.PartitionLag, partitions)
		for p := range ps {
			ps[p] = engine.PartitionLag{Topic: fmt.Sprintf("topic-%02d", p/30), Partition: int32(p % 30),
				Committed: int64(1000 + p), EndOffset: int64(1010 + p), Lag: 10}
		}
		out[g] = engine.GroupLag{Group: fmt.Sprintf("group-%03d", g), State: "Empty", TotalLag: int64(10 * partitions), Partitions: ps}
	}
	return out
}

// BenchmarkConvertLag converts lag() of 100 groups x 300 partitions (workload
// L's result): 30,000 partition records.
func BenchmarkConvertLag(b *testing.B) {
	rt := New(Options{})
	defer rt.Close()
	res := lagResult(100, 300)
	b.ReportAllocs()
	for b.Loop() {
		rt.conv.toLua(res)
	}
}

func benchParse(b *testing.B, name, args string) {
	rt := New(Options{})
	defer rt.Close()
	vals, err := rt.DoString(context.Background(), "args", "return "+args)
	if err != nil {
		b.Fatal(err)
	}
	f := Lookup(name)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseArgs(f, vals, rt.null()); err != nil {
			b.Fatal(err)
		}
	}
}

// Arguments of one call of workload R's runbook.
func BenchmarkParseArgsAlterConfigs(b *testing.B) {
	benchParse(b, "alter_configs", `{{topic = "r-00001", set = {["retention.ms"] = "86400000"}}}, {validate_only = false}`)
}

// create_topics of 1000 specs (workload C's call, at a fifth).
func BenchmarkParseArgsCreateTopics1000(b *testing.B) {
	var src string
	for i := range 1000 {
		src += fmt.Sprintf(`{name = "c-%05d", partitions = 6, replication_factor = 1, configs = {["retention.ms"] = 1000}},`, i)
	}
	benchParse(b, "create_topics", "{"+src+"}")
}

func BenchmarkParseArgsLag(b *testing.B) {
	benchParse(b, "lag", `{"orders-processor"}, {partial = true}`)
}

// rowsValue is n lag rows built in Lua, as a script returns them.
func rowsValue(b *testing.B, rt *Runtime, n int) lua.LValue {
	vals, err := rt.DoString(context.Background(), "rows", fmt.Sprintf(`
		local rows = {}
		for i = 1, %d do
			rows[i] = {topic = "topic-" .. (i %% 100), partition = i %% 1000, committed = i, end_offset = i + 7, lag = 7}
		end
		return rows`, n))
	if err != nil {
		b.Fatal(err)
	}
	return vals[0]
}

type goRow struct {
	Committed int64  `json:"committed"`
	EndOffset int64  `json:"end_offset"`
	Lag       int64  `json:"lag"`
	Partition int    `json:"partition"`
	Topic     string `json:"topic"`
}

// BenchmarkPrintRows prints 100,000 rows returned by a script, as -o json
// and -o table do, beside encoding/json writing the same rows from Go
// structs (keys in the same order, indented the same way).
func BenchmarkPrintRows(b *testing.B) {
	const n = 100_000
	rt := New(Options{})
	defer rt.Close()
	rows := rowsValue(b, rt, n)
	for _, output := range []string{"json", "table"} {
		b.Run(output, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				w := bufio.NewWriter(io.Discard)
				if err := rt.Print(w, []lua.LValue{rows}, output); err != nil {
					b.Fatal(err)
				}
				_ = w.Flush()
			}
		})
	}
	b.Run("encoding_json", func(b *testing.B) {
		goRows := make([]goRow, n)
		for i := range goRows {
			j := i + 1
			goRows[i] = goRow{Topic: fmt.Sprintf("topic-%d", j%100), Partition: j % 1000, Committed: int64(j), EndOffset: int64(j + 7), Lag: 7}
		}
		b.ReportAllocs()
		for b.Loop() {
			w := bufio.NewWriter(io.Discard)
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			if err := enc.Encode(goRows); err != nil {
				b.Fatal(err)
			}
			_ = w.Flush()
		}
	})
}

// BenchmarkReadSpecPL reads workload PL's spec (bench/workload_plan.go):
// 5,000 topic rows and their 10,000 ACL rows, data only, 1.1 MB.
func BenchmarkReadSpecPL(b *testing.B) {
	var s strings.Builder
	s.WriteString("return {\n  topics = {\n")
	for i := range 5000 {
		fmt.Fprintf(&s, "    {name = \"pl-%05d\", partitions = 1, configs = {[\"retention.ms\"] = \"86400000\"}},\n", i)
	}
	s.WriteString("  },\n  acls = {\n")
	for i := range 5000 {
		for _, op := range []string{"read", "write"} {
			fmt.Fprintf(&s, "    {principal = \"User:pl-%05d\", operation = %q, resource_type = \"topic\", resource_name = \"pl-%05d\"},\n", i, op, i)
		}
	}
	s.WriteString("  },\n  owns = {topics = {\"pl-\"}, acls = {principals = {\"User:pl-\"}}},\n}\n")
	path := filepath.Join(b.TempDir(), "spec.lua")
	require.NoError(b, os.WriteFile(path, []byte(s.String()), 0o600))
	b.ReportAllocs()
	for b.Loop() {
		spec, err := ReadSpec(context.Background(), path, SpecOptions{})
		require.NoError(b, err)
		require.Len(b, spec.ACLs, 10000)
	}
}

// topicsPage is a page of describe_topics as the engine hands it over
// streamed: topics x partitions, three replicas each.
func topicsPage(topics, partitions int) []engine.TopicDescription {
	out := make([]engine.TopicDescription, topics)
	for t := range out {
		ps := make([]engine.PartitionInfo, partitions)
		for p := range ps {
			rs := []int32{int32(p % 3), int32((p + 1) % 3), int32((p + 2) % 3)}
			ps[p] = engine.PartitionInfo{Partition: int32(p), Leader: rs[0], LeaderEpoch: 1, Replicas: rs, ISR: rs, OfflineReplicas: []int32{}}
		}
		out[t] = engine.TopicDescription{Name: fmt.Sprintf("d-%04d", t), ID: "JLr9VmiLht_wxmOo3H1n8w", Partitions: ps}
	}
	return out
}

// BenchmarkConvertTopicsPage converts one streamed page of describe_topics
// (20 topics x 1,000 partitions: workload DT's page) topic by topic, as
// the iterator does.
func BenchmarkConvertTopicsPage(b *testing.B) {
	rt := New(Options{})
	defer rt.Close()
	page := topicsPage(20, 1000)
	// counted: what a script that only counts (#t.partitions) pays, the
	// partitions left unmade (lazyFields); read: a script that reads them.
	for _, read := range []bool{false, true} {
		b.Run(map[bool]string{false: "counted", true: "read"}[read], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for i := range page {
					t := rt.conv.toLua(&page[i]).(*lua.LTable)
					ps := t.RawGetString("partitions").(*lua.LTable)
					if read {
						ps.RawGetInt(1)
					} else if ps.Len() != len(page[i].Partitions) {
						b.Fatal("partitions miscounted")
					}
				}
			}
		})
	}
}
