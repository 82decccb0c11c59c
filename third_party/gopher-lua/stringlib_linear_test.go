package lua

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// gsubCases are string.gsub calls with the results PUC Lua 5.1.5 gives
// (lua5.1, checked by hand): string, table and function replacements,
// %0 to %9 and %%, anchors, the count limit, empty matches.
var gsubCases = []struct{ call, want string }{
	{`("hello world"):gsub("o", "0")`, `"hell0 w0rld" 2`},
	{`("hello world"):gsub("(o)", "[%1]")`, `"hell[o] w[o]rld" 2`},
	{`("hello world"):gsub("o", "%0%0")`, `"helloo woorld" 2`},
	{`("hello world"):gsub("(l)(l)", "%2%1")`, `"hello world" 1`},
	{`("hello world"):gsub("l+", "%%")`, `"he%o wor%d" 2`},
	{`("hello world"):gsub("(h)(e)(l)(l)(o)( )(w)(o)(r)", "%9%8%7%6%5%4%3%2%1")`, `"row ollehld" 1`},
	{`("hello world"):gsub("%w+", "<%0>")`, `"<hello> <world>" 2`},
	{`("hello world"):gsub("^hello", "X")`, `"X world" 1`},
	{`("hello hello"):gsub("^hello", "X")`, `"X hello" 1`},
	{`("hello world"):gsub("world$", "X")`, `"hello X" 1`},
	{`("hello world"):gsub("^", "X")`, `"Xhello world" 1`},
	{`("hello world"):gsub("$", "X")`, `"hello worldX" 1`},
	{`("abc"):gsub("", "-")`, `"-a-b-c-" 4`},
	{`("abc"):gsub("b*", "X")`, `"XaXXcX" 4`},
	{`("abc"):gsub("x*", "-")`, `"-a-b-c-" 4`},
	{`(""):gsub("", "X")`, `"X" 1`},
	{`(""):gsub("a", "X")`, `"" 0`},
	{`("aaa"):gsub("a", "b", 2)`, `"bba" 2`},
	{`("aaa"):gsub("a", "b", 0)`, `"aaa" 0`},
	{`("aaa"):gsub("a", "b", -1)`, `"aaa" 0`},
	{`("aaa"):gsub("a", "b", 10)`, `"bbb" 3`},
	{`("aaa"):gsub("a", "b", 1.5)`, `"baa" 1`},
	{`("aaa"):gsub("a", "b", nil)`, `"bbb" 3`},
	{`("abc"):gsub("%w", "%1")`, `"abc" 3`},
	{`("hello world"):gsub("()o", "%1")`, `"hell5 w8rld" 2`},
	{`("key = value"):gsub("(%w+)%s*=%s*(%w+)", "%2 = %1")`, `"value = key" 1`},
	{`("x^2"):gsub("%^", "**")`, `"x**2" 1`},
	{`("a.b.c"):gsub("%.", "/")`, `"a/b/c" 2`},
	{`("abc"):gsub(".", {a = 1, b = "B"})`, `"1Bc" 3`},
	{`("abc"):gsub("(.)", {a = "A", c = false})`, `"Abc" 3`},
	{`("$name is $age"):gsub("%$(%w+)", {name = "bob", age = 42})`, `"bob is 42" 2`},
	{`("abc"):gsub("%w", function(c) return c:upper() .. "." end)`, `"A.B.C." 3`},
	{`("abc"):gsub("%w", function(c) if c == "b" then return nil end return "[" .. c .. "]" end)`, `"[a]b[c]" 3`},
	{`("a=1, b=2"):gsub("(%w+)=(%w+)", function(k, v) return v .. "=" .. k end)`, `"1=a, 2=b" 2`},
	{`("hello"):gsub("()ll()", function(a, b) return a .. "-" .. b end)`, `"he3-5o" 1`},
	{`("THE (quick) fox"):gsub("%((%w+)%)", "<%1>")`, `"THE <quick> fox" 1`},
	{`("f(a(b)c)d"):gsub("%b()", "[]")`, `"f[]d" 1`},
	{`("  trim  "):gsub("^%s*(.-)%s*$", "%1")`, `"trim" 1`},
	{`("one two  three"):gsub("%s+", " ")`, `"one two three" 2`},
	{`("abc"):gsub("[ac]", "%%%0")`, `"%ab%c" 2`},
	{`("abc"):gsub("[^b]", ".")`, `".b." 2`},
}

func luaResults(t *testing.T, L *LState, call string) string {
	t.Helper()
	if err := L.DoString(`local s, n = ` + call + ` return string.format("%q", s) .. " " .. n`); err != nil {
		t.Fatalf("%s: %v", call, err)
	}
	defer L.Pop(1)
	return L.Get(-1).String()
}

func TestGsubLua51Cases(t *testing.T) {
	L := NewState()
	defer L.Close()
	for _, c := range gsubCases {
		if got := luaResults(t, L, c.call); got != c.want {
			t.Errorf("%s: got %s, want %s", c.call, got, c.want)
		}
	}
}

// The other pattern functions give Lua 5.1's results through the
// compiled pattern too (gmatch now finds one match per call).
func TestPatternFunctionsLua51Cases(t *testing.T) {
	L := NewState()
	defer L.Close()
	src := `local out = {}
	local function w(...) local t = {} for i = 1, select("#", ...) do t[#t + 1] = tostring((select(i, ...))) end out[#out + 1] = table.concat(t, " ") end
	for k, v in string.gmatch("a=1, b=2, c=3", "(%w+)=(%w+)") do w("kv", k, v) end
	for word in ("one two  three"):gmatch("%a+") do w("word", word) end
	for e in ("abc"):gmatch("") do w("empty", "[" .. e .. "]") end
	for e in ("abc"):gmatch("b*") do w("bstar", "[" .. e .. "]") end
	for p in ("hello"):gmatch("()l") do w("pos", p) end
	local it = ("a1b2"):gmatch("%d") w("iter", it(), it(), it(), it())
	w("find", ("hello world"):find("o w"))
	w("find", ("hello world"):find("o", 6))
	w("find", ("hello world"):find("(o)(r)"))
	w("find", ("hello world"):find("^world"))
	w("find", ("hello world"):find("l+", -3))
	w("find", ("a.b"):find(".", 1, true))
	w("match", ("key = value"):match("(%w+)%s*=%s*(%w+)"))
	w("match", ("hello"):match(".-(l+)(.*)"))
	w("match", ("  x  "):match("^%s*(.-)%s*$"))
	w("match", ("hello"):match("()ll()"))
	w("match", ("hello"):match("l", -2))
	return table.concat(out, "\n")`
	if err := L.DoString(src); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"kv a 1", "kv b 2", "kv c 3", "word one", "word two", "word three",
		"empty []", "empty []", "empty []", "empty []", "bstar []", "bstar [b]", "bstar []", "bstar []",
		"pos 3", "pos 4", "iter 1 2 nil",
		"find 5 7", "find 8 8", "find 8 9 o r", "find nil", "find 10 10", "find 2 2",
		"match key value", "match ll o", "match x", "match 3 5", "match l",
	}, "\n")
	if got := L.Get(-1).String(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// Errors found while matching are still raised.
func TestGsubErrors(t *testing.T) {
	L := NewState()
	defer L.Close()
	for call, want := range map[string]string{
		`("abc"):gsub("(a)", "%2")`:                       "invalid capture index",
		`("abc"):gsub("[a", "x")`:                         "unexpected EOS",
		`("abc"):gsub("a", function() error("boom") end)`: "boom",
	} {
		err := L.DoString(`return ` + call)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error with %q", call, err, want)
		}
	}
}

// A big gsub is right, and (BenchmarkGsub) linear.
func TestGsubLarge(t *testing.T) {
	L := NewState()
	defer L.Close()
	if err := L.DoString(`local s, n = string.rep("ab", 500000):gsub("b", "cc")
		assert(n == 500000 and #s == 1500000 and s:sub(1, 7) == "accacca" and s:sub(-3) == "acc")
		local t, m = string.rep("x", 300000):gsub("", "-")
		assert(m == 300001 and #t == 600001)`); err != nil {
		t.Fatal(err)
	}
}

// A long match stops when the state's context is done: between matches
// (gsub with many quick matches), between start positions, and inside one
// match attempt (a pattern that backtracks for minutes).
func TestPatternMatchingObservesTheContext(t *testing.T) {
	for name, src := range map[string]string{
		"gsub, many matches":      `string.rep("a", 2e7):gsub("a", "bb")`,
		"gsub, function":          `string.rep("a", 2e7):gsub("a", function(c) return c end)`,
		"find, backtracking":      `string.rep("a", 1e5):find(".-.-.-b")`,
		"match, many positions":   `string.rep("a", 1e8):match("b")`,
		"gmatch, one long search": `for x in string.rep("a", 1e5):gmatch(".-.-.-b") do end`,
	} {
		t.Run(name, func(t *testing.T) {
			L := NewState()
			defer L.Close()
			if err := L.DoString(`big = true`); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			L.SetContext(ctx)
			err := L.DoString(src)
			if err == nil || !strings.Contains(err.Error(), "context deadline exceeded") {
				t.Fatalf("got %v, want the context's error", err)
			}
		})
	}
}

// benchString runs src (which reads the global n) once per iteration.
func benchString(b *testing.B, src string, sizes ...int) {
	for _, n := range sizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			L := NewState()
			defer L.Close()
			L.SetGlobal("n", LNumber(n))
			fn, err := L.LoadString(src)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(n))
			for i := 0; i < b.N; i++ {
				L.Push(fn)
				if err := L.PCall(0, 0, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGsub: string.rep("a", n):gsub("a", "bb"), every character a
// match. The time per byte should not grow with n (it did: the whole
// string was copied for each match).
func BenchmarkGsub(b *testing.B) {
	benchString(b, `local s = string.rep("a", n):gsub("a", "bb")`, 10000, 100000, 1000000)
}

// BenchmarkGsubFunction: the same with a function replacement.
func BenchmarkGsubFunction(b *testing.B) {
	benchString(b, `local s = string.rep("a", n):gsub("a", function(c) return "bb" end)`, 100000, 1000000)
}

// BenchmarkGmatch: every word of n/2 words.
func BenchmarkGmatch(b *testing.B) {
	benchString(b, `local k = 0 for w in string.rep("a ", n / 2):gmatch("%a+") do k = k + 1 end`, 100000, 1000000)
}
