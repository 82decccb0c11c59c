package lua

import (
	"strings"
	"testing"
)

// Lazy arrays (PATCHES.md, 10): made on first use, the same table to
// every reader afterwards.

// lazyLetters is a lazy array of n strings "a", "b", ...; *made counts
// how many times it was made.
func lazyLetters(n int, made *int) *LTable {
	return NewLazyArray(n, func(tb *LTable) {
		*made++
		for i := range n {
			tb.RawSetInt(i+1, LString(string(rune('a'+i))))
		}
	})
}

func TestLazyArrayLengthDoesNotMakeIt(t *testing.T) {
	made := 0
	tb := lazyLetters(3, &made)
	errorIfNotEqual(t, 3, tb.Len())
	errorIfNotEqual(t, 3, tb.MaxN())
	errorIfNotEqual(t, 0, made)
	errorIfNotEqual(t, LString("b"), tb.RawGetInt(2))
	errorIfNotEqual(t, 1, made)
	errorIfNotEqual(t, 3, tb.Len())
	errorIfNotEqual(t, "1=a 2=b 3=c", pairsOrder(tb))
	errorIfNotEqual(t, 1, made)
	errorIfNotEqual(t, 0, NewLazyArray(0, func(*LTable) { t.Fatal("an empty lazy array is made") }).Len())
}

// Every way in makes it first: Go callers of each method, and Lua code
// through the VM and the table library.
func TestLazyArrayIsMadeByEveryReaderAndWriter(t *testing.T) {
	uses := map[string]func(tb *LTable) string{
		"RawGet":       func(tb *LTable) string { return tb.RawGet(LNumber(1)).String() },
		"RawGetH":      func(tb *LTable) string { return tb.RawGetH(LNumber(1)).String() + tb.RawGetInt(3).String() },
		"RawGetString": func(tb *LTable) string { return tb.RawGetString("x").String() + tb.RawGetInt(1).String() },
		"ForEach": func(tb *LTable) string {
			var out []string
			tb.ForEach(func(_, v LValue) { out = append(out, v.String()) })
			return strings.Join(out, "")
		},
		"Next":       func(tb *LTable) string { _, v := tb.Next(LNil); return v.String() },
		"KeyCounts":  func(tb *LTable) string { a, o := tb.KeyCounts(); return LNumber(a*10 + o).String() },
		"Append":     func(tb *LTable) string { tb.Append(LString("z")); return pairsOrder(tb) },
		"Insert":     func(tb *LTable) string { tb.Insert(1, LString("z")); return pairsOrder(tb) },
		"Remove":     func(tb *LTable) string { return tb.Remove(1).String() + pairsOrder(tb) },
		"RawSetInt":  func(tb *LTable) string { tb.RawSetInt(2, LString("z")); return pairsOrder(tb) },
		"RawSet":     func(tb *LTable) string { tb.RawSet(LString("k"), LTrue); return pairsOrder(tb) },
		"RawSetH":    func(tb *LTable) string { tb.RawSetH(LNumber(1.5), LTrue); return tb.RawGetInt(3).String() },
		"RawSetStr":  func(tb *LTable) string { tb.RawSetString("k", LTrue); return pairsOrder(tb) },
		"Metatables": func(tb *LTable) string { return tb.Metatable.String() + tb.RawGetInt(1).String() },
	}
	want := map[string]string{
		"RawGet": "a", "RawGetH": "nilc", "RawGetString": "nila", "ForEach": "abc", "Next": "a", "KeyCounts": "30",
		"Append": "1=a 2=b 3=c 4=z", "Insert": "1=z 2=a 3=b 4=c", "Remove": "a1=b 2=c", "RawSetInt": "1=a 2=z 3=c",
		"RawSet": "1=a 2=b 3=c k=true", "RawSetH": "c", "RawSetStr": "1=a 2=b 3=c k=true", "Metatables": "nila",
	}
	for name, use := range uses {
		made := 0
		errorIfNotEqual(t, want[name], use(lazyLetters(3, &made)))
		if made != 1 {
			t.Errorf("%s: made %d times", name, made)
		}
	}

	L := NewState()
	defer L.Close()
	for _, c := range []struct{ code, want string }{
		{`local s = "" for i, v in ipairs(t) do s = s .. i .. v end return s`, "1a2b3c"},
		{`local s = "" for k, v in pairs(t) do s = s .. k .. v end return s`, "1a2b3c"},
		{`return #t .. t[3]`, "3c"},
		{`table.sort(t, function(a, b) return a > b end) return table.concat(t)`, "cba"},
		{`table.insert(t, "d") return table.concat(t, ",")`, "a,b,c,d"},
		{`table.remove(t) return #t .. table.concat(t)`, "2ab"},
		{`t[2] = nil return tostring(t[2]) .. t[1]`, "nila"},
		{`return select("#", unpack(t)) .. next(t)`, "31"},
		{`setmetatable(t, {__index = function() return "m" end}) return t[9] .. t[1]`, "ma"},
	} {
		made := 0
		L.SetGlobal("t", lazyLetters(3, &made))
		if err := L.DoString(c.code); err != nil {
			t.Fatalf("%s: %v", c.code, err)
		}
		errorIfNotEqual(t, c.want, L.Get(-1).String())
		L.Pop(1)
		if made != 1 {
			t.Errorf("%s: made %d times", c.code, made)
		}
	}
}
