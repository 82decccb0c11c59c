package luatest

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/fixture"
	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

//go:embed assert.lua
var assertLua string

// callTimeout is each Kafka call's deadline in a test: an in-process
// cluster answers in milliseconds, and a test of a fault that does not
// clear fails in seconds rather than in --timeout's thirty.
const callTimeout = 10 * time.Second

// collected is what a test file registered when it was loaded.
type collected struct {
	tests   []registered
	fixture *fixture.Fixture
	// fixtureSet: fixture() was called (a second call is an error).
	fixtureSet bool
}

// testEnv is one Lua state of a test file: loading it (collect only), or
// running one of its tests on a cluster.
type testEnv struct {
	r       *runner
	rt      *luaapi.Runtime
	file    string
	collect *collected

	// While a test runs:
	cluster   *fixture.Cluster
	fixture   *fixture.Fixture
	auditPath string
	audit     *auditlog.Log // nil under a dry run
	out       io.Writer
}

func (t *testEnv) running() bool { return t.cluster != nil }

// config is the engine configuration of the test's cluster: the runtime
// is built as `run` builds one, with the test's audit log and dry-run.
func (t *testEnv) config(dryRun bool) engine.Config {
	cfg := engine.Config{Timeout: callTimeout, DryRun: t.r.o.DryRun || dryRun}
	if t.cluster != nil {
		cfg.Brokers = t.cluster.Addrs
	}
	if t.audit != nil {
		cfg.Audit = t.audit
	}
	return cfg
}

// guard refuses kafka.connect to any broker but the test's own, unless
// the run allows real clusters.
func (t *testEnv) guard(brokers []string) error {
	if t.r.o.AllowRealClusters {
		return nil
	}
	for _, b := range brokers {
		if !t.ownBroker(b) {
			return fmt.Errorf("%s is not this test's cluster (%s): a test reaches no other cluster unless kadmin-lua test is given --allow-real-clusters",
				b, strings.Join(t.cluster.Addrs, ","))
		}
	}
	return nil
}

func (t *testEnv) ownBroker(b string) bool {
	host, port, err := net.SplitHostPort(b)
	if err != nil {
		return false
	}
	for _, a := range t.cluster.Addrs {
		ah, ap, _ := net.SplitHostPort(a)
		if port == ap && (host == ah || host == "localhost" || host == "127.0.0.1") {
			return true
		}
	}
	return false
}

// install puts the test functions into the state's globals, from
// Globals: the Go ones, and those assert.lua defines (its assert table,
// expect and an expectation's methods), each called through its
// declaration. They are set raw: the built-in globals are sealed against
// scripts, not against the tool.
func (t *testEnv) install() {
	L := t.rt.L
	fn, err := L.Load(strings.NewReader(assertLua), "assert.lua")
	if err != nil {
		panic(err) // embedded: a syntax error is a bug, caught by every test
	}
	L.Push(fn)
	L.Push(L.NewFunction(raiseAtTest))
	L.Call(1, 1)
	lib := L.CheckTable(-1)
	L.Pop(1)
	// Where each owner's names go, and where assert.lua defines them.
	into := map[string]*lua.LTable{"": L.G.Global}
	from := map[string]*lua.LTable{"": lib}
	for _, owner := range []string{"assert", "expectation"} {
		tbl := lib.RawGetString(owner).(*lua.LTable)
		into[owner], from[owner] = tbl, tbl
	}
	L.G.Global.RawSetString("assert", into["assert"])
	for _, g := range Globals {
		owner, key, _ := g.Owner()
		if g.Is != "" || g.Name == "assert" {
			continue // a table assert.lua made
		}
		var lfn *lua.LFunction
		if g.impl == nil {
			lfn = from[owner].RawGetString(key).(*lua.LFunction)
		}
		into[owner].RawSetString(key, L.NewFunction(t.declared(g, lfn)))
	}
}

// declared is g's function, reading its arguments through g's declaration
// first, as the dispatcher reads a built-in's: a call its declaration
// refuses raises "name: argument: reason" and runs nothing. lfn is the Lua
// function to call for one with no Go implementation.
func (t *testEnv) declared(g Global, lfn *lua.LFunction) lua.LGFunction {
	_, _, method := g.Owner()
	return func(L *lua.LState) int {
		top := L.GetTop()
		if g.Declared() {
			first := 1
			if method {
				first = 2 // self, the expectation
			}
			vals := make([]lua.LValue, 0, top)
			for i := first; i <= top; i++ {
				vals = append(vals, L.Get(i))
			}
			if err := luaapi.CheckCall(g.Func, vals); err != nil {
				L.RaiseError("%s: %s", g.Name, luaapi.ArgMessage(err))
			}
		}
		if g.impl != nil {
			return g.impl(t, L)
		}
		L.Push(lfn)
		for i := 1; i <= top; i++ {
			L.Push(L.Get(i))
		}
		L.Call(top, lua.MultRet)
		return L.GetTop() - top
	}
}

// raiseAtTest raises its message at the first line outside assert.lua:
// the test's line that made the failed check.
func raiseAtTest(L *lua.LState) int {
	msg := L.CheckString(1)
	for level := 1; ; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			break
		}
		if _, err := L.GetInfo("Sl", dbg, nil); err != nil || dbg.CurrentLine <= 0 || dbg.Source == "assert.lua" {
			continue
		}
		L.Error(lua.LString(fmt.Sprintf("%s:%d: %s", dbg.Source, dbg.CurrentLine, msg)), 0)
	}
	L.Error(lua.LString(msg), 0)
	return 0
}

// callerLine is the file and line of the Lua code calling the running Go
// function.
func callerLine(L *lua.LState) (string, int) {
	dbg, ok := L.GetStack(1)
	if !ok {
		return "", 0
	}
	if _, err := L.GetInfo("Sl", dbg, nil); err != nil {
		return "", 0
	}
	return dbg.Source, dbg.CurrentLine
}

func (t *testEnv) needTest(L *lua.LState, fn string) {
	if !t.running() {
		L.RaiseError("%s: call it inside a test (test(name, function() ... end))", fn)
	}
}

// test(name, fn [, {fixture = ..., timeout = ms}])
func (t *testEnv) luaTest(L *lua.LState) int {
	name := L.CheckString(1)
	fn := L.CheckFunction(2)
	if strings.TrimSpace(name) == "" {
		L.ArgError(1, "a test needs a name")
	}
	reg := registered{name: name, fn: fn}
	file, line := callerLine(L)
	reg.where = fmt.Sprintf("%s:%d", file, line)
	if opts, ok := L.Get(3).(*lua.LTable); ok {
		var bad string
		opts.ForEach(func(k, v lua.LValue) {
			switch lua.LVAsString(k) {
			case "fixture":
				if !t.running() { // read once, when the file is loaded
					reg.fixture, reg.fixtureErr = t.r.fixtureValue(v, t.file, reg.where)
				}
			case "timeout": // an integer >= 1, as the declaration read it
				reg.timeout = time.Duration(lua.LVAsNumber(v)) * time.Millisecond
			default:
				bad = fmt.Sprintf("unknown option %q (fixture, timeout)", lua.LVAsString(k))
			}
		})
		if bad != "" {
			L.ArgError(3, bad)
		}
	} else if L.GetTop() >= 3 && L.Get(3) != lua.LNil {
		L.ArgError(3, "options must be a table {fixture = ..., timeout = ms}")
	}
	if slices.ContainsFunc(t.collect.tests, func(r registered) bool { return r.name == name }) {
		L.RaiseError("test %q is registered twice", name)
	}
	t.collect.tests = append(t.collect.tests, reg)
	return 0
}

// fixture{...} or fixture("file.json"): the cluster every test of the file
// starts from. Read when the file is loaded; refused at its line.
func (t *testEnv) luaFixture(L *lua.LState) int {
	if t.running() {
		return 0 // read when the file was loaded
	}
	if t.collect.fixtureSet {
		L.RaiseError("fixture: the file gives its fixture twice")
	}
	t.collect.fixtureSet = true
	file, line := callerLine(L)
	f, err := t.r.fixtureValue(L.Get(1), t.file, fmt.Sprintf("%s:%d", file, line))
	if err != nil {
		L.Error(lua.LString(err.Error()), 0) // it names its file and line
	}
	t.collect.fixture = f
	return 0
}

// fixtureValue reads a fixture given in Lua: a table, or the path of a
// file (relative to the test file's directory).
func (r *runner) fixtureValue(v lua.LValue, testFile, where string) (*fixture.Fixture, error) {
	line := 0
	if i := strings.LastIndexByte(where, ':'); i >= 0 {
		line, _ = strconv.Atoi(where[i+1:])
	}
	switch v := v.(type) {
	case lua.LString:
		p := string(v)
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(testFile), p)
		}
		return r.fixtureFile(p)
	case *lua.LTable:
		g, err := goValue(v, "fixture")
		if err != nil {
			return nil, fmt.Errorf("%s: %v", where, err)
		}
		if g == nil {
			g = map[string]any{}
		}
		b, err := json.Marshal(g)
		if err != nil {
			return nil, fmt.Errorf("%s: fixture: %v", where, err)
		}
		return fixture.Parse(b, fixture.ParseOptions{Name: testFile, Line: line})
	}
	return nil, fmt.Errorf("%s: fixture takes a table or a file name, got a %s", where, v.Type())
}

// broker_down(id), broker_up(id)
func (t *testEnv) luaBroker(L *lua.LState, fn string) int {
	t.needTest(L, fn)
	id := int(lua.LVAsNumber(L.Get(1))) // a broker id, as the declaration read it
	var err error
	if fn == "broker_down" {
		err = t.cluster.BrokerDown(int32(id))
	} else {
		err = t.cluster.BrokerUp(int32(id))
	}
	if err != nil {
		L.RaiseError("%s: %v", fn, err)
	}
	return 0
}

// cluster() -> {brokers = {"127.0.0.1:port", ...}}: where the test's
// cluster listens (kafka.connect{brokers = cluster().brokers}).
func (t *testEnv) luaCluster(L *lua.LState) int {
	t.needTest(L, "cluster")
	tb := L.NewTable()
	tb.RawSetString("brokers", luaValue(L, t.cluster.Addrs))
	L.Push(tb)
	return 1
}
