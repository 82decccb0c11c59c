package luaapi

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// asLua runs src as gopher-lua does (the path literalSpec skips): the
// returned value and the lines exprLoc finds in the AST.
func asLua(t testing.TB, L *lua.LState, src string) (lua.LValue, *loc, error) {
	chunk, err := parse.Parse(strings.NewReader(src), "spec.lua")
	if err != nil {
		return nil, nil, err
	}
	proto, err := lua.Compile(chunk, "spec.lua")
	if err != nil {
		return nil, nil, err
	}
	L.Push(L.NewFunctionFromProto(proto))
	if err := L.PCall(0, 1, nil); err != nil {
		return nil, nil, err
	}
	v := L.Get(-1)
	L.Pop(1)
	where, _ := returnedTable(chunk)
	return v, where, nil
}

// luaText prints v with sorted keys, so two tables compare by contents.
func luaText(v lua.LValue) string {
	t, ok := v.(*lua.LTable)
	if !ok {
		return fmt.Sprintf("%s:%v", v.Type(), v)
	}
	var fields []string
	t.ForEach(func(k, v lua.LValue) { fields = append(fields, luaText(k)+"="+luaText(v)) })
	sort.Strings(fields)
	return "{" + strings.Join(fields, ",") + "}"
}

func locText(l *loc) string {
	if l == nil {
		return "nil"
	}
	var kids []string
	for k, kid := range l.kids {
		kids = append(kids, k+":"+locText(kid))
	}
	sort.Strings(kids)
	for i, item := range l.items {
		kids = append(kids, fmt.Sprintf("#%d:%s", i+1, locText(item)))
	}
	return fmt.Sprintf("%d{%s}", l.line, strings.Join(kids, ","))
}

// agrees fails t unless literalSpec, when it reads src, gives what running
// it gives.
func agrees(t testing.TB, src string) bool {
	L := lua.NewState()
	defer L.Close()
	v, where, ok := literalSpec(L, []byte(src))
	if !ok {
		return false
	}
	want, wantWhere, err := asLua(t, L, src)
	require.NoError(t, err, "literalSpec read what Lua refuses: %q", src)
	require.Equal(t, luaText(want), luaText(v), "value of %q", src)
	require.Equal(t, locText(wantWhere), locText(where), "lines of %q", src)
	return true
}

func TestLiteralSpecReadsDataOnlyChunksAsLuaDoes(t *testing.T) {
	for _, src := range []string{
		"return {}",
		"return {};",
		"  -- a spec\nreturn {\n  topics = {\n    {name = \"a\", partitions = 3, configs = {[\"retention.ms\"] = \"1000\"}},\n    'b',\n  },\n}\n-- end\n",
		"return {a = 1, 'x'; 'y', b = {true, false, -5, - 2.5e3, 1E-2, 0, 0.5}}",
		"return {\r\n  x = {\r\n    1,\r\n  },\r\n}\r\n",
		"return {s = 'caf\xc3\xa9 \x00 \xff', n = 123456789012345678901234567890, m = 9007199254740993}",
		"return\n{\n\n[\"with space\"]\n=\n{\n}\n}",
		"return {x = -\n 7}",
		"return {{{{{}}}}}",
		"return {topics = {\"a\", \"b\",}}",
	} {
		assert.True(t, agrees(t, src), "not read: %q", src)
	}
}

func TestLiteralSpecLeavesEverythingElseToLua(t *testing.T) {
	for _, src := range []string{
		"local x = 1\nreturn {x}",
		"return {kafka.env('A')}",
		"return {'a\\n'}",
		"return {[[long]]}",
		"return {x = [==[long]==]}",
		"--[[ a long comment ]] return {}",
		"return {0x10}",
		"return {010}",
		"return {nil}",
		"return {a = nil}",
		"return {[1] = 2}",
		"return {end = 1}",
		"return {goto = 1}",
		"return {a = 1 + 2}",
		"return {'a' .. 'b'}",
		"return {a == b}",
		"return {x = true and 1}",
		"return {1}\nreturn {2}",
		"return {a = 1, a = 2}", // refused by the Lua path, with both lines
		"return {1} x",
		"return {'unterminated}",
		"return {\r1}",
		"return {\n\r1}",
		"return {.5}",
		"return {1.}.x",
		"return {1abc}",
		"return 42",
		"return {f = function() end}",
		"return {\v}",
		"return " + strings.Repeat("{", maxLiteralDepth+1) + strings.Repeat("}", maxLiteralDepth+1),
		"",
		"return",
		"return {",
	} {
		L := lua.NewState()
		_, _, ok := literalSpec(L, []byte(src))
		L.Close()
		assert.False(t, ok, "read as data: %q", src)
	}
}

// A data-only spec reads to the same spec, with the same lines in its
// errors, as the same rows behind a local (which only Lua can run).
func TestDataOnlySpecReadsAsTheLuaOne(t *testing.T) {
	rows := "\n  topics = {\n    {name = \"a\", partitions = 3},\n    {name = \"b\",\n     partitions = -1},\n  },\n}\n"
	_, fastErr := readSpecText(t, "spec.lua", "return {"+rows)
	_, slowErr := readSpecText(t, "spec.lua", "local x = 1 return {"+rows)
	require.Error(t, fastErr)
	assert.Equal(t, slowErr.Error(), fastErr.Error())
	assert.Contains(t, fastErr.Error(), "spec.lua:5: topics #2: partitions")

	good := "\n  topics = {{name = \"a\", partitions = 3, configs = {[\"retention.ms\"] = 1000}}, \"b\"},\n" +
		"  acls = {{principal = \"User:a\", operation = \"read\", resource_type = \"topic\", resource_name = \"a\"}},\n}\n"
	fast, err := readSpecText(t, "spec.lua", "return {"+good)
	require.NoError(t, err)
	slow, err := readSpecText(t, "spec.lua", "local x = 1 return {"+good)
	require.NoError(t, err)
	for k, w := range slow.Where {
		assert.Equal(t, filepath.Base(w), filepath.Base(fast.Where[k]), k)
	}
	fast.Where, slow.Where = nil, nil
	assert.Equal(t, slow, fast)
}

func FuzzLiteralSpecAgreesWithLua(f *testing.F) {
	for _, s := range []string{
		"return {}",
		"return {a = 1, 'x', b = {true, -2.5}}",
		"return {\r\n x = {['k'] = \"v\"},\r\n}",
		"-- c\nreturn {{name = 'a', partitions = 3}}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		agrees(t, src)
	})
}
