package luaapi

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/luaapi/output"
)

// newBareEnv is an env without a cluster, for what needs no Kafka.
func newBareEnv(t *testing.T, o Options) *env {
	t.Helper()
	e := &env{t: t, stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	o.Stdout, o.Stderr = e.stdout, e.stderr
	e.rt = New(o)
	t.Cleanup(e.rt.Close)
	return e
}

// setLimit lowers a conversion limit for one test.
func setLimit(t *testing.T, limit *int, v int) {
	old := *limit
	*limit = v
	t.Cleanup(func() { *limit = old })
}

const cyclic = `local t = {} t.a = t t.b = t `

// Each converter stops at the first cycle and says where it is; before,
// a table that contains itself made them grow without bound.
func TestConvertersRefuseCyclicTables(t *testing.T) {
	e := newBareEnv(t, Options{})
	for src, want := range map[string]string{
		cyclic + `return kafka.json.encode(t)`:                  "kafka.json.encode: value.a: cyclic table (it contains itself)",
		cyclic + `kafka.pp({x = {t}})`:                          "kafka.pp: value.x[1].a: cyclic table (it contains itself)",
		cyclic + `kafka.log.info{msg = "m", cfg = t}`:           "kafka.log.info: cfg.a: cyclic table (it contains itself)",
		cyclic + `error(t)`:                                     "error(table): value.a: cyclic table (it contains itself)",
		`local t = {1, 2} t[3] = t return kafka.json.encode(t)`: "kafka.json.encode: value[3]: cyclic table (it contains itself)",
		`local t = {} t[{}] = 1 return kafka.json.encode(t)`:    "kafka.json.encode: value[table]: JSON cannot hold a table key",
	} {
		start := time.Now()
		re := e.runErr(src)
		assert.Equal(t, want, re.Message, src)
		assert.Equal(t, KindScript, re.Kind, src)
		assert.Less(t, time.Since(start), 5*time.Second, src)
	}
	assert.Empty(t, e.stdout.String(), "kafka.pp printed nothing")
	assert.Empty(t, e.stderr.String(), "kafka.log printed nothing")

	// A returned value is formatted by Format, for the table and JSON
	// outputs alike.
	vals, err := e.rt.DoString(context.Background(), "t", cyclic+`return {list = {t}}`)
	require.NoError(t, err)
	for _, output := range []string{"table", "json"} {
		_, err = e.rt.Format(vals, output)
		require.Error(t, err, output)
		assert.Equal(t, "value.list[1].a: cyclic table (it contains itself)", err.Error(), output)
	}
}

// The error value carries the function and the code scripts test for.
func TestCyclicTableErrorIsAnErrorValue(t *testing.T) {
	e := newBareEnv(t, Options{})
	v := e.run(cyclic + `
		local ok, err = pcall(kafka.json.encode, t)
		return {ok = ok, code = err.code, op = err.op, message = err.message}`)
	tbl := v.(*lua.LTable)
	assert.Equal(t, lua.LFalse, tbl.RawGetString("ok"))
	assert.Equal(t, lua.LString(engine.CodeInvalidArgument), tbl.RawGetString("code"))
	assert.Equal(t, lua.LString("kafka.json.encode"), tbl.RawGetString("op"))
	assert.Equal(t, lua.LString("value.a: cyclic table (it contains itself)"), tbl.RawGetString("message"))
}

// The same table reached twice, on different paths, is not a cycle.
func TestSharedTablesAreNotCycles(t *testing.T) {
	e := newBareEnv(t, Options{})
	assert.Equal(t, `{"a":[1,2],"b":[1,2],"c":{"d":[1,2]}}`,
		e.json(`local s = {1, 2} return {a = s, b = s, c = {d = s}}`))
	assert.Equal(t, lua.LString(`{"a":[1,2],"b":[1,2]}`), e.run(`local s = {1, 2} return kafka.json.encode{a = s, b = s}`))
	vals, err := e.rt.DoString(context.Background(), "t", `local s = {1, 2} return {a = s, b = s}`)
	require.NoError(t, err)
	out, err := e.rt.Format(vals, "table")
	require.NoError(t, err)
	assert.Equal(t, "{\n  a = {1, 2},\n  b = {1, 2},\n}\n", out)
	assert.Equal(t, map[string]any{"a": []any{1.0, 2.0}, "b": []any{1.0, 2.0}}, fromLua(vals[0]))
}

func TestConvertersRefuseDeepNesting(t *testing.T) {
	e := newBareEnv(t, Options{})
	nest := func(n int) string {
		return `local t = {} local top = t for i = 2, ` + strconv.Itoa(n) + ` do t.x = {} t = t.x end return top`
	}
	// 200 deep is fine, 201 is not.
	e.run(`local v = (function() ` + nest(200) + ` end)() kafka.json.encode(v) kafka.pp(v)`)
	re := e.runErr(`local v = (function() ` + nest(201) + ` end)() return kafka.json.encode(v)`)
	assert.Equal(t, "kafka.json.encode: value"+strings.Repeat(".x", 7)+"...(185 more)..."+strings.Repeat(".x", 8)+
		": nested more than 200 tables deep", re.Message)
	re = e.runErr(`local v = (function() ` + nest(1000) + ` end)() kafka.pp(v)`)
	assert.Contains(t, re.Message, "kafka.pp: value.x.x.x.x.x.x.x...(185 more)....x.x.x.x.x.x.x.x: ")
	assert.Contains(t, re.Message, ": nested more than 200 tables deep")
}

// A small value can stand for a huge one: each level refers twice to the
// one below, 2^100 elements in all, no cycle anywhere. The element budget
// stops it.
func TestConvertersStopAtTheElementBudget(t *testing.T) {
	setLimit(t, &output.MaxElements, 100_000) // the default takes seconds
	e := newBareEnv(t, Options{})
	const dag = `local t = {} for i = 1, 100 do t = {t, t} end `
	for src, want := range map[string]string{
		dag + `return kafka.json.encode(t)`:        "kafka.json.encode: value[1][1]",
		dag + `kafka.pp(t)`:                        "kafka.pp: value[1][1]",
		dag + `kafka.log.info{msg = "m", dag = t}`: "kafka.log.info: dag[1][1]",
	} {
		// No clock here (speed lives in benchmarks): a converter that did
		// not stop at the budget would walk 2^100 elements and never
		// return, which the test's deadline catches.
		re := e.runErr(src)
		assert.Contains(t, re.Message, want, src)
		assert.Contains(t, re.Message, "too large to convert (more than", src)
	}
	// fromLua (audit lines, prompts) never fails: it marks the part.
	vals, err := e.rt.DoString(context.Background(), "t", dag+`return {a = 1, dag = t}`)
	require.NoError(t, err)
	setLimit(t, &output.MaxGoElements, 1000)
	got := fromLua(vals[0]).(map[string]any)
	assert.Equal(t, 1.0, got["a"])
	assert.Contains(t, output.CompactValue(got), "too large to convert")
}

// One big string referred to many times is as big as its copies.
func TestConvertersStopAtTheByteBudget(t *testing.T) {
	setLimit(t, &output.MaxBytes, 1<<20)
	e := newBareEnv(t, Options{})
	const many = `local s = string.rep("x", 100000) local t = {} for i = 1, 100 do t[i] = s end `
	re := e.runErr(many + `return kafka.json.encode(t)`)
	assert.Equal(t, "kafka.json.encode: value[11]: too large to convert (more than 1 MiB of text in all)", re.Message)
	re = e.runErr(many + `kafka.pp({t})`)
	assert.Contains(t, re.Message, "kafka.pp: value[1][11]: too large to convert")
	re = e.runErr(many + `kafka.pp({{name = "a", values = t}})`) // a table cell
	assert.Contains(t, re.Message, "kafka.pp: value[1].values[11]: too large to convert")
	e.run(`local s = string.rep("x", 100000) return kafka.json.encode{s, s, s}`)
}

// fromLua feeds audit lines and confirm prompts: it must always give
// something to write, with the part that cannot be shown marked.
func TestFromLuaMarksCycles(t *testing.T) {
	e := newBareEnv(t, Options{})
	vals, err := e.rt.DoString(context.Background(), "t", cyclic+`t.n = 1 return t`)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{
		"a": "<cyclic table (it contains itself)>",
		"b": "<cyclic table (it contains itself)>",
		"n": 1.0,
	}, fromLua(vals[0]))
	_, err = goValue(vals[0], "args")
	assert.EqualError(t, err, "args.a: cyclic table (it contains itself)")
}
