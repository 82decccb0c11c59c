package luaapi

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

// The compiled converter (convert.go) against the shapes results take.

type convRow struct {
	Topic   string         `json:"topic"`
	Part    int32          `json:"partition"`
	Offset  int64          `json:"offset"`
	Member  string         `json:"member_id,omitempty"`
	Epoch   *int32         `json:"epoch"`
	Err     *engine.Error  `json:"error,omitempty"`
	When    time.Time      `json:"when,omitempty"`
	Tags    []string       `json:"tags,omitempty"`
	Raw     []byte         `json:"raw,omitempty"`
	Big     uint64         `json:"big,omitempty"`
	Ratio   float64        `json:"ratio,omitempty"`
	Flag    bool           `json:"flag,omitempty"`
	Extra   any            `json:"extra,omitempty"`
	Configs map[string]int `json:"configs,omitempty"`
	Next    *convRow       `json:"next,omitempty"`
	hidden  int
}

func convRuntime(t *testing.T) *Runtime {
	t.Helper()
	rt := New(Options{})
	t.Cleanup(rt.Close)
	return rt
}

// toLuaThenRun converts v, binds it to the global v and runs src.
func toLuaThenRun(t *testing.T, rt *Runtime, v any, src string) lua.LValue {
	t.Helper()
	rt.L.SetGlobal("v", rt.conv.toLua(v))
	vals, err := rt.DoString(context.Background(), "test", src)
	require.NoError(t, err)
	require.Len(t, vals, 1)
	return vals[0]
}

func TestConvertRecords(t *testing.T) {
	rt := convRuntime(t)
	epoch := int32(7)
	when := time.UnixMilli(1_700_000_000_123)
	rows := []convRow{
		{Topic: "orders", Part: 0, Offset: 5, Epoch: &epoch, Tags: []string{"a", "b"}, Raw: []byte("xy"),
			Big: 1 << 40, Ratio: 0.5, Flag: true, Extra: lua.LString("as is"), When: when,
			Configs: map[string]int{"k": 1}, Next: &convRow{Topic: "inner", Offset: -1}},
		{Topic: "orders", Part: 1, Offset: 100_000, Member: "m1", Err: &engine.Error{Code: "TIMEOUT", Message: "slow"},
			Tags: []string{}, Extra: 42},
		{Topic: "payments", Part: 2, Offset: -1},
	}
	got := toLuaThenRun(t, rt, rows, `
		local a, b, c = v[1], v[2], v[3]
		assert(#v == 3)
		assert(a.topic == "orders" and a.partition == 0 and a.offset == 5 and a.epoch == 7)
		assert(a.member_id == nil and a.error == nil, "omitempty leaves empty fields out")
		assert(a.tags[1] == "a" and a.tags[2] == "b" and a.raw == "xy" and a.big == 2^40)
		assert(a.ratio == 0.5 and a.flag == true and a.extra == "as is" and a.when == 1700000000123)
		assert(a.configs.k == 1 and getmetatable(a.configs).__kind == "object")
		assert(a.next.topic == "inner" and a.next.offset == -1 and a.next.next == nil)
		assert(b.topic == "orders" and b.partition == 1 and b.offset == 100000 and b.member_id == "m1")
		assert(b.error.code == "TIMEOUT" and b.error.message == "slow" and tostring(b.error):find("TIMEOUT"))
		assert(type(b.tags) == "table" and #b.tags == 0, "an empty slice is kept, a nil one left out")
		assert(b.extra == 42 and b.epoch == nil and b.when == nil)
		assert(c.topic == "payments" and c.offset == -1 and c.hidden == nil)
		-- rows are tables of their own: changing one leaves the others
		a.topic = "changed"; a.more1 = 1; a.more2 = 2; a.more3 = 3
		assert(b.topic == "orders" and c.topic == "payments" and b.more1 == nil)
		local cols = getmetatable(c).__columns
		return table.concat(cols, ",")
	`)
	require.Equal(t, "topic,partition,offset,member_id,epoch,error,when,tags,raw,big,ratio,flag,extra,configs,next", lua.LVAsString(got))
}

func TestConvertScalarsAndContainers(t *testing.T) {
	rt := convRuntime(t)
	require.Equal(t, lua.LNil, rt.conv.toLua(nil))
	require.Equal(t, lua.LNil, rt.conv.toLua((*convRow)(nil)))
	require.Equal(t, lua.LNumber(3), rt.conv.toLua(int16(3)))
	require.Equal(t, lua.LNumber(5000), rt.conv.toLua(5000))
	require.Equal(t, lua.LString("x"), rt.conv.toLua("x"))
	require.Equal(t, lua.LTrue, rt.conv.toLua(true))
	got := toLuaThenRun(t, rt, map[string][]int32{"t": {1, 2}}, `return v.t[2] + #v.t`)
	require.Equal(t, lua.LNumber(4), got)
	got = toLuaThenRun(t, rt, convRow{Topic: "one"}, `return v.topic .. v.partition`)
	require.Equal(t, lua.LString("one0"), got)
	got = toLuaThenRun(t, rt, []any{"a", 1, nil, true}, `return tostring(v[1]) .. v[2] .. tostring(v[3]) .. tostring(v[4])`)
	require.Equal(t, lua.LString("a1niltrue"), got)
	got = toLuaThenRun(t, rt, [2]string{"p", "q"}, `return v[1] .. v[2]`)
	require.Equal(t, lua.LString("pq"), got)
}

// A string field caches its last box; a new value must not reuse it.
func TestConvertStringBoxesFollowValues(t *testing.T) {
	rt := convRuntime(t)
	rows := make([]convRow, 0, 6)
	for _, s := range []string{"a", "a", "b", "", "b", "a"} {
		rows = append(rows, convRow{Topic: s, Member: s})
	}
	got := toLuaThenRun(t, rt, rows, `
		local s = {}
		for i, r in ipairs(v) do s[i] = r.topic .. "/" .. (r.member_id or "-") end
		return table.concat(s, " ")`)
	require.Equal(t, "a/a a/a b/b /- b/b a/a", lua.LVAsString(got))
}
