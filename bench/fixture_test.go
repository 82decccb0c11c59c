package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kadmin-lua/kadmin-lua/fixture"
	"github.com/kadmin-lua/kadmin-lua/luaapi/luatest"
)

// A large layout (issue 34): 1,000 topics of 3 partitions on 3 brokers,
// with configs, offsets and 200 groups, parsed and validated from JSON and
// started as an in-process cluster. This is what `kadmin-lua --fixture`
// and a test on a snapshot of a sizeable cluster pay before running.
func bigFixture(topics int) []byte {
	var b strings.Builder
	b.WriteString(`{"brokers": [{"id": 1, "rack": "a"}, {"id": 2, "rack": "b"}, {"id": 3, "rack": "c"}], "topics": [`)
	for i := range topics {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"name": "topic-%04d", "partitions": 3, "replication_factor": 3, "configs": {"retention.ms": "86400000"},
 "offsets": [{"partition": 0, "start": 1000000, "end": 1000050}]}`, i)
	}
	b.WriteString(`], "groups": [`)
	for i := range topics / 5 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"name": "group-%04d", "offsets": [{"topic": "topic-%04d", "partition": 0, "offset": 1000040}]}`, i, i)
	}
	b.WriteString("]}")
	return []byte(b.String())
}

func BenchmarkFixtureParse1000Topics(b *testing.B) {
	doc := bigFixture(1000)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := fixture.Parse(doc, fixture.ParseOptions{Name: "big.json"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFixtureStart1000Topics: parse, validate, start and seed (one op
// is one whole cluster, torn down after).
func BenchmarkFixtureStart1000Topics(b *testing.B) {
	doc := bigFixture(1000)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		f, err := fixture.Parse(doc, fixture.ParseOptions{Name: "big.json"})
		if err != nil {
			b.Fatal(err)
		}
		c, err := fixture.Start(context.Background(), f)
		if err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
}

// A suite of 50 tests (issue 34): one file, each test on its own fresh
// cluster (3 brokers, 2 topics, a group), running a runbook and checking
// the cluster. One op is the whole `kadmin-lua test` run.
func BenchmarkLuaTestSuite50(b *testing.B) {
	dir := b.TempDir()
	var suite strings.Builder
	suite.WriteString(`fixture{topics = {{name = "orders", partitions = 6, replication_factor = 3, records = 60},
  {name = "payments", partitions = 3, replication_factor = 3}}, groups = {{name = "billing", lag = {orders = {1, 2, 3, 4, 5, 6}}}}}
`)
	for i := range 50 {
		fmt.Fprintf(&suite, `test("case %d", function()
  local r = run("add-partitions", "orders", "%d")
  expect(r.exit):is(0)
  expect(#describe_topics("orders")[1].partitions):is(%d)
  expect(lag("billing")[1].total_lag):is(21)
end)
`, i, 7+i%5, 7+i%5)
	}
	if err := os.WriteFile(filepath.Join(dir, "suite_test.lua"), []byte(suite.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		sum, err := luatest.Run(context.Background(), luatest.Options{Paths: []string{dir}, Stdout: io.Discard})
		if err != nil {
			b.Fatal(err)
		}
		if sum.Failed > 0 || sum.Passed != 50 {
			b.Fatalf("%d passed, %d failed", sum.Passed, sum.Failed)
		}
	}
}
