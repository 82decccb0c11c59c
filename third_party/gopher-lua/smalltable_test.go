package lua

import (
	"fmt"
	"strings"
	"testing"
)

// Tables with a few string keys keep them in tb.small (PATCHES.md, 4).

func pairsOrder(tb *LTable) string {
	var out []string
	for k, v := tb.Next(LNil); k != LNil; k, v = tb.Next(k) {
		out = append(out, fmt.Sprintf("%v=%v", k, v))
	}
	return strings.Join(out, " ")
}

func TestSmallTableKeepsInsertionOrder(t *testing.T) {
	tb := newLTable(0, 0)
	tb.RawSetInt(1, LString("a"))
	for _, k := range []string{"topic", "partition", "lag"} {
		tb.RawSetString(k, LString(k+"!"))
	}
	errorIfFalse(t, tb.isSmall(), "three string keys stay small")
	errorIfNotEqual(t, "1=a topic=topic! partition=partition! lag=lag!", pairsOrder(tb))
	errorIfNotEqual(t, LString("lag!"), tb.RawGetString("lag"))
	errorIfNotEqual(t, LString("lag!"), tb.RawGet(LString("lag")))
	errorIfNotEqual(t, LString("lag!"), tb.RawGetH(LString("lag")))
	errorIfNotEqual(t, LNil, tb.RawGetString("missing"))

	// Setting nil keeps the key's place; setting it again reuses it.
	tb.RawSetString("partition", LNil)
	errorIfNotEqual(t, "1=a topic=topic! lag=lag!", pairsOrder(tb))
	tb.RawSetH(LString("partition"), LNumber(3))
	errorIfNotEqual(t, "1=a topic=topic! partition=3 lag=lag!", pairsOrder(tb))
	var seen []string
	tb.ForEach(func(k, v LValue) { seen = append(seen, k.String()) })
	errorIfNotEqual(t, "1 topic partition lag", strings.Join(seen, " "))
}

func TestSmallTablePromotesPastSmallMax(t *testing.T) {
	tb := newLTable(0, 0)
	var want []string
	for i := range smallMax + 3 {
		k := fmt.Sprintf("k%02d", i)
		tb.RawSetString(k, LNumber(i))
		want = append(want, fmt.Sprintf("%s=%d", k, i))
		errorIfNotEqual(t, i < smallMax, tb.isSmall())
	}
	errorIfNotEqual(t, strings.Join(want, " "), pairsOrder(tb))
	for i := range smallMax + 3 {
		errorIfNotEqual(t, LNumber(i), tb.RawGetString(fmt.Sprintf("k%02d", i)))
	}
}

func TestSmallTablePromotesOnOtherKeys(t *testing.T) {
	tb := newLTable(0, 0)
	tb.RawSetString("a", LNumber(1))
	tb.RawSetString("b", LNumber(2))
	tb.RawSetString("a", LNil) // a deleted key keeps its place through promotion
	tb.RawSet(LTrue, LNumber(3))
	errorIfFalse(t, !tb.isSmall(), "a boolean key needs the maps")
	errorIfNotEqual(t, "b=2 true=3", pairsOrder(tb))
	tb.RawSetString("a", LNumber(4))
	errorIfNotEqual(t, "a=4 b=2 true=3", pairsOrder(tb))
}

func TestSmallTableNextWhileClearing(t *testing.T) {
	L := NewState()
	defer L.Close()
	// Lua allows clearing fields during a traversal.
	err := L.DoString(`
		local t = {x = 1, y = 2, z = 3, [1] = "a"}
		local n = 0
		for k in pairs(t) do t[k] = nil; n = n + 1 end
		assert(n == 4 and next(t) == nil)
		local r = {a = 1, b = 2}
		r.c = 3
		local s = ""
		for k, v in pairs(r) do s = s .. k .. v end
		assert(s == "a1b2c3", s)
	`)
	errorIfNotNil(t, err)
}

func TestNewRecordTables(t *testing.T) {
	rows := NewRecordTables(3, 2)
	for i := range rows {
		rows[i].RawSetString("a", LNumber(i))
		rows[i].RawSetString("b", LNumber(10*i))
		errorIfNotEqual(t, LNil, rows[i].Metatable)
	}
	// A row given more keys than it had room for grows without touching
	// its neighbour's slots.
	rows[0].RawSetString("c", LNumber(7))
	errorIfNotEqual(t, "a=0 b=0 c=7", pairsOrder(&rows[0]))
	errorIfNotEqual(t, "a=1 b=10", pairsOrder(&rows[1]))
	errorIfNotEqual(t, "a=2 b=20", pairsOrder(&rows[2]))
	wide := NewRecordTables(2, smallMax+1)
	wide[0].RawSetString("x", LTrue)
	errorIfNotEqual(t, "x=true", pairsOrder(&wide[0]))
	// Records of more fields than smallMax still get room for smallMax
	// keys: filling it allocates nothing (it grew from 4 by copying).
	keys := make([]LValue, smallMax)
	for i := range keys {
		keys[i] = LString(fmt.Sprintf("k%d", i))
	}
	allocs := testing.AllocsPerRun(10, func() {
		row := &NewRecordTables(1, smallMax+2)[0]
		for _, k := range keys {
			row.RawSetH(k, LTrue)
		}
	})
	if allocs > 2 { // the table and its slots at most
		t.Errorf("filling a wide record's room took %v allocations", allocs)
	}
}

func TestNewArrayTables(t *testing.T) {
	arrays := NewArrayTables([]int{2, 0, 1})
	for i := range arrays {
		errorIfNotEqual(t, LNil, arrays[i].Metatable)
	}
	arrays[0].Append(LNumber(1))
	arrays[0].Append(LNumber(2))
	arrays[2].Append(LNumber(9))
	// An array given more than its room grows without touching its
	// neighbour's elements; an empty one grows on its own.
	arrays[0].Append(LNumber(3))
	arrays[0].Insert(1, LNumber(0))
	arrays[1].Append(LNumber(5))
	errorIfNotEqual(t, 4, arrays[0].Len())
	errorIfNotEqual(t, LNumber(0), arrays[0].RawGetInt(1))
	errorIfNotEqual(t, LNumber(3), arrays[0].RawGetInt(4))
	errorIfNotEqual(t, 1, arrays[1].Len())
	errorIfNotEqual(t, LNumber(5), arrays[1].RawGetInt(1))
	errorIfNotEqual(t, 1, arrays[2].Len())
	errorIfNotEqual(t, LNumber(9), arrays[2].RawGetInt(1))
}

func TestKeyCounts(t *testing.T) {
	tb := newLTable(0, 0)
	for i := 1; i <= 3; i++ {
		tb.RawSetInt(i, LNumber(i))
	}
	a, o := tb.KeyCounts()
	errorIfNotEqual(t, 3, a)
	errorIfNotEqual(t, 0, o)
	tb.RawSetString("x", LTrue)
	tb.RawSetString("y", LTrue)
	tb.RawSetString("y", LNil)
	tb.RawSetInt(2, LNil)
	a, o = tb.KeyCounts()
	errorIfNotEqual(t, 2, a)
	errorIfNotEqual(t, 1, o)
	tb.RawSet(LNumber(0.5), LTrue) // a map key: the strings move to maps too
	tb.RawSetString("y", LTrue)
	a, o = tb.KeyCounts()
	errorIfNotEqual(t, 2, a)
	errorIfNotEqual(t, 3, o)
}
