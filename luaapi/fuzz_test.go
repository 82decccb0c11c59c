package luaapi

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
)

// FuzzCallArguments drives random Lua values through every declared admin
// function on kfake. Whatever the values, the call must not panic; and a
// call refused for its arguments must name the function, send no request
// and write no audit line. `make test` runs it briefly; `go test -fuzz
// FuzzCallArguments ./luaapi/` runs it for as long as you like.
func FuzzCallArguments(f *testing.F) {
	for _, seed := range [][]byte{
		{0, 4, 3, 'a', 'b', 'c'},
		{1, 5, 2, 4, 1, 'x', 3, 2},
		{2, 6, 2, 0, 1, 3, 0},
		{3, 3, 1, 5, 1, 7, 0},
		{4, 3, 4, 6, 1, 1, 1},
		{5, 5, 1, 6, 2, 2, 1, 9, 9, 9, 9, 9, 9, 9, 9},
	} {
		f.Add(seed)
	}
	fz := newFuzzEnv(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		funcs := adminFuncs()
		fn := funcs[int(data[0])%len(funcs)]
		fz.call(t, fn, data[1:])
	})
}

type fuzzEnv struct {
	mu        sync.Mutex
	cluster   *kfake.Cluster
	rt        *Runtime
	requests  *atomic.Int64
	auditPath string
}

func newFuzzEnv(f *testing.F) *fuzzEnv {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "t", "kept"))
	require.NoError(f, err)
	f.Cleanup(c.Close)
	dir := f.TempDir()
	auditPath := filepath.Join(dir, "audit.jsonl")
	audit, err := auditlog.Open(auditPath)
	require.NoError(f, err)
	rt := New(Options{Config: engine.Config{Brokers: c.ListenAddrs(), Timeout: 2 * time.Second, Audit: audit},
		Stdout: discard{}, Stderr: discard{}})
	f.Cleanup(rt.Close)
	return &fuzzEnv{cluster: c, rt: rt, requests: countCallRequests(c), auditPath: auditPath}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func (fz *fuzzEnv) call(t *testing.T, fn *Func, data []byte) {
	fz.mu.Lock()
	defer fz.mu.Unlock()
	L := fz.rt.L
	g := &luaGen{L: L, data: data, keys: fuzzKeys(fn)}
	n := g.byte() % 4
	args := make([]lua.LValue, n)
	for i := range args {
		args[i] = g.value(0)
	}
	auditBefore := fileSize(t, fz.auditPath)
	before := fz.requests.Load()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	L.SetContext(ctx)
	defer L.RemoveContext()
	err := L.CallByParam(lua.P{Fn: L.GetGlobal(fn.Name), NRet: 0, Protect: true}, args...)
	if err == nil {
		return
	}
	re := classify(L, ctx, err)
	if re.Code != engine.CodeInvalidArgument {
		return
	}
	msg := re.Message
	if !strings.Contains(msg, fn.Name+": ") {
		t.Fatalf("%s: a refused call's error names the function: %s", fn.Name, msg)
	}
	if got := fz.requests.Load(); got != before {
		t.Fatalf("%s: refused (%s) after sending %d requests", fn.Name, msg, got-before)
	}
	if fileSize(t, fz.auditPath) != auditBefore {
		t.Fatalf("%s: refused (%s) yet audited", fn.Name, msg)
	}
}

func fileSize(t *testing.T, path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// fuzzKeys are the table keys the generator draws from: the function's
// option and record field names (so generated tables reach deep into the
// declaration), and a few others.
func fuzzKeys(fn *Func) []string {
	keys := []string{"name", "topic", "partition", "offset", "group", "x", "partial"}
	for _, o := range fn.options() {
		keys = append(keys, o.Name, o.Name+"s")
	}
	for _, p := range fn.Params {
		if r, ok := p.Type.(*RecordType); ok {
			keys = append(keys, r.Names()...)
		}
	}
	return keys
}

// luaGen turns fuzz bytes into Lua values: scalars of every kind (with
// NaN, infinities, 2^32+1, 2^63 among the numbers), strings, arrays,
// records and tables that contain themselves.
type luaGen struct {
	L      *lua.LState
	data   []byte
	keys   []string
	tables []*lua.LTable
}

func (g *luaGen) byte() byte {
	if len(g.data) == 0 {
		return 0
	}
	b := g.data[0]
	g.data = g.data[1:]
	return b
}

var specialNumbers = []float64{0, 1, -1, 0.5, math.NaN(), math.Inf(1), math.Inf(-1), 1 << 31, 1<<32 + 1, 1 << 53, 1 << 63, -(1 << 63), math.MaxInt16 + 1}

func (g *luaGen) value(depth int) lua.LValue {
	kind := g.byte() % 10
	if depth > 6 && kind >= 5 {
		kind = 0
	}
	switch kind {
	case 0:
		return lua.LNil
	case 1:
		return lua.LBool(g.byte()%2 == 0)
	case 2:
		return lua.LNumber(specialNumbers[int(g.byte())%len(specialNumbers)])
	case 3:
		var buf [8]byte
		for i := range buf {
			buf[i] = g.byte()
		}
		return lua.LNumber(int64(binary.LittleEndian.Uint64(buf[:])) % 100000)
	case 4:
		n := int(g.byte())
		var b strings.Builder
		for i := 0; i < n && len(g.data) > 0; i++ {
			b.WriteByte(g.byte())
		}
		return lua.LString(b.String())
	case 5:
		return lua.LString(g.keys[int(g.byte())%len(g.keys)])
	case 6, 7:
		t := g.L.NewTable()
		g.tables = append(g.tables, t)
		for i, n := 0, int(g.byte()%5); i < n; i++ {
			t.Append(g.value(depth + 1))
		}
		return t
	case 8:
		t := g.L.NewTable()
		g.tables = append(g.tables, t)
		for i, n := 0, int(g.byte()%5); i < n; i++ {
			t.RawSetString(g.keys[int(g.byte())%len(g.keys)], g.value(depth+1))
		}
		return t
	}
	if len(g.tables) > 0 { // a table met before: may make a cycle
		return g.tables[int(g.byte())%len(g.tables)]
	}
	return g.L.NewFunction(func(*lua.LState) int { return 0 })
}
