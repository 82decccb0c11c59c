package lua

import (
	"fmt"
	"strings"

	"github.com/yuin/gopher-lua/pm"
)

const emptyLString LString = LString("")

func OpenString(L *LState) int {
	var mod *LTable
	//_, ok := L.G.builtinMts[int(LTString)]
	//if !ok {
	mod = L.RegisterModule(StringLibName, strFuncs).(*LTable)
	gmatch := L.NewFunction(strGmatch)
	mod.RawSetString("gmatch", gmatch)
	mod.RawSetString("gfind", gmatch)
	mod.RawSetString("__index", mod)
	L.G.builtinMts[int(LTString)] = mod
	//}
	L.Push(mod)
	return 1
}

var strFuncs = map[string]LGFunction{
	"byte":    strByte,
	"char":    strChar,
	"dump":    strDump,
	"find":    strFind,
	"format":  strFormat,
	"gsub":    strGsub,
	"len":     strLen,
	"lower":   strLower,
	"match":   strMatch,
	"rep":     strRep,
	"reverse": strReverse,
	"sub":     strSub,
	"upper":   strUpper,
}

func strByte(L *LState) int {
	str := L.CheckString(1)
	start := L.OptInt(2, 1) - 1
	end := L.OptInt(3, -1)
	l := len(str)
	if start < 0 {
		start = l + start + 1
	}
	if end < 0 {
		end = l + end + 1
	}

	if L.GetTop() == 2 {
		if start < 0 || start >= l {
			return 0
		}
		L.Push(LNumber(str[start]))
		return 1
	}

	start = intMax(start, 0)
	end = intMin(end, l)
	if end < 0 || end <= start || start >= l {
		return 0
	}

	for i := start; i < end; i++ {
		L.Push(LNumber(str[i]))
	}
	return end - start
}

func strChar(L *LState) int {
	top := L.GetTop()
	bytes := make([]byte, L.GetTop())
	for i := 1; i <= top; i++ {
		bytes[i-1] = uint8(L.CheckInt(i))
	}
	L.Push(LString(string(bytes)))
	return 1
}

func strDump(L *LState) int {
	L.RaiseError("GopherLua does not support the string.dump")
	return 0
}

func strFind(L *LState) int {
	str := L.CheckString(1)
	pattern := L.CheckString(2)
	if len(pattern) == 0 {
		L.Push(LNumber(1))
		L.Push(LNumber(0))
		return 2
	}
	init := luaIndex2StringIndex(str, L.OptInt(3, 1), true)
	plain := false
	if L.GetTop() == 4 {
		plain = LVAsBool(L.Get(4))
	}

	if plain {
		pos := strings.Index(str[init:], pattern)
		if pos < 0 {
			L.Push(LNil)
			return 1
		}
		L.Push(LNumber(init+pos) + 1)
		L.Push(LNumber(init + pos + len(pattern)))
		return 2
	}

	md := firstMatch(L, pattern, str, init)
	if md == nil {
		L.Push(LNil)
		return 1
	}
	L.Push(LNumber(md.Capture(0) + 1))
	L.Push(LNumber(md.Capture(1)))
	for i := 2; i < md.CaptureLength(); i += 2 {
		if md.IsPosCapture(i) {
			L.Push(LNumber(md.Capture(i)))
		} else {
			L.Push(LString(str[md.Capture(i):md.Capture(i+1)]))
		}
	}
	return md.CaptureLength()/2 + 1
}

// firstMatch is the first match of pattern in str from init on, or nil.
func firstMatch(L *LState, pattern, str string, init int) *pm.MatchData {
	ok, _, _, md, err := compileLuaPattern(L, pattern).Next(unsafeFastStringToReadOnlyBytes(str), init)
	if err != nil {
		L.RaiseError(err.Error())
	}
	if !ok {
		return nil
	}
	return md
}

func strFormat(L *LState) int {
	str := L.CheckString(1)
	args := make([]interface{}, L.GetTop()-1)
	top := L.GetTop()
	for i := 2; i <= top; i++ {
		args[i-2] = L.Get(i)
	}
	npat := strings.Count(str, "%") - strings.Count(str, "%%")
	args = args[:intMin(npat, len(args))]
	plainFormatArgs(str, args)
	L.Push(LString(fmt.Sprintf(str, args...)))
	return 1
}

// plainFormatArgs replaces, in place, the arguments of string.format that
// fmt can format directly with the plain Go values LString.Format and
// LNumber.Format would hand it: a string for %s, an int64 for %d, a
// float64 for %f, ... Those methods rebuild the directive and call
// fmt.Fprintf again for every argument, which made string.format several
// times slower than fmt.Sprintf (PATCHES.md, 5). The output is the same.
// A directive it does not know (%i, %*d, %[2]d, ...) leaves the rest as
// they were.
func plainFormatArgs(format string, args []interface{}) {
	arg := 0
	for i := 0; i < len(format) && arg < len(args); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		if i < len(format) && format[i] == '%' {
			continue
		}
		for i < len(format) && strings.IndexByte("-+ #0", format[i]) >= 0 {
			i++
		}
		for i < len(format) && (format[i] >= '0' && format[i] <= '9' || format[i] == '.') {
			i++
		}
		if i >= len(format) {
			return
		}
		switch v := args[arg].(type) {
		case LString:
			switch format[i] {
			case 's', 'q', 'v', 'x', 'X':
				args[arg] = string(v)
			case 'd', 'i':
				return // LString.Format's own reading of a number
			}
		case LNumber:
			switch format[i] {
			case 'b', 'c', 'd', 'o', 'x', 'X', 'U':
				args[arg] = int64(v)
			case 'e', 'E', 'f', 'F', 'g', 'G':
				args[arg] = float64(v)
			case 's', 'q':
				args[arg] = v.String()
			case 'v':
				if isInteger(v) {
					args[arg] = int64(v)
				} else {
					args[arg] = float64(v)
				}
			default:
				return // %i, %*d, %[n]d, ...: the methods handle them
			}
		}
		switch format[i] {
		case '*', '[':
			return
		}
		arg++
	}
}

func strGsub(L *LState) int {
	str := L.CheckString(1)
	pat := L.CheckString(2)
	L.CheckTypes(3, LTString, LTTable, LTFunction)
	repl := L.CheckAny(3)
	limit := -1 // every match
	if L.Get(4) != LNil {
		limit = intMax(L.CheckInt(4), 0) // Lua 5.1: at most n, so none for n <= 0
	}

	p := compileLuaPattern(L, pat)
	src := unsafeFastStringToReadOnlyBytes(str)
	var pieces []replPiece
	if s, ok := repl.(LString); ok {
		pieces = parseReplacement(string(s))
	}
	// The result is built once, as the matches are found: the copy of the
	// whole string per match was quadratic (PATCHES.md, 6).
	var b strings.Builder
	n, copied := 0, 0
	for sp := 0; sp <= len(src) && n != limit; {
		if n%gsubCheckEvery == gsubCheckEvery-1 && p.Interrupt != nil {
			if err := p.Interrupt(); err != nil {
				L.RaiseError(err.Error())
			}
		}
		ok, start, end, md, err := p.Next(src, sp)
		if err != nil {
			L.RaiseError(err.Error())
		}
		if !ok {
			break
		}
		if n++; n == 1 {
			b.Grow(len(str))
		}
		b.WriteString(str[copied:start])
		copied = start
		switch lv := repl.(type) {
		case LString:
			writeReplacement(L, &b, pieces, md, str)
			copied = end
		case *LTable:
			if v := gsubTableValue(L, lv, md, str); !LVIsFalse(v) {
				b.WriteString(LVAsString(v))
				copied = end
			}
		case *LFunction:
			if v := gsubCall(L, lv, md, str); !LVIsFalse(v) {
				b.WriteString(LVAsString(v))
				copied = end
			}
		}
		sp = intMax(start+1, end)
		if p.MustHead() {
			break
		}
	}
	if n == 0 {
		L.SetTop(1)
		L.Push(LNumber(0))
		return 2
	}
	b.WriteString(str[copied:])
	L.Push(LString(b.String()))
	L.Push(LNumber(n))
	return 2
}

// gsubCheckEvery is how many matches string.gsub makes between two looks
// at the state's context (the matcher itself looks every few thousand
// steps and positions).
const gsubCheckEvery = 1024

// compileLuaPattern compiles a pattern for L: a bad pattern raises, and
// the match stops when L's context is done (Ctrl-C, a deadline, the
// embedding program's memory watchdog), raising the context's error as the
// VM does between instructions.
func compileLuaPattern(L *LState, pattern string) *pm.Pattern {
	p, err := pm.Compile(pattern)
	if err != nil {
		L.RaiseError(err.Error())
	}
	p.Reuse = true // every caller reads a match before it looks for the next
	if ctx := L.Context(); ctx != nil {
		p.Interrupt = func() error {
			select {
			case <-ctx.Done():
				return ctx.Err()
			default:
				return nil
			}
		}
	}
	return p
}

// replPiece is one part of a gsub replacement string: literal text, or
// the capture numbered capture (0: the whole match) when capture >= 0.
type replPiece struct {
	lit     string
	capture int
}

// parseReplacement reads a replacement string once, as the flag scanner
// read it for each match: %% is %, %0 to %9 a capture, % before any other
// character (or at the end) stays as written.
func parseReplacement(repl string) []replPiece {
	var out []replPiece
	var lit []byte
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		switch {
		case c != '%':
			lit = append(lit, c)
		case i+1 < len(repl) && repl[i+1] == '%':
			lit = append(lit, '%')
			i++
		case i == len(repl)-1:
			lit = append(lit, '%')
		case repl[i+1] >= '0' && repl[i+1] <= '9':
			if len(lit) > 0 {
				out = append(out, replPiece{lit: string(lit), capture: -1})
				lit = lit[:0]
			}
			out = append(out, replPiece{capture: int(repl[i+1] - '0')})
			i++
		default:
			lit = append(lit, '%', repl[i+1])
			i++
		}
	}
	if len(lit) > 0 {
		out = append(out, replPiece{lit: string(lit), capture: -1})
	}
	return out
}

func writeReplacement(L *LState, b *strings.Builder, pieces []replPiece, md *pm.MatchData, str string) {
	for _, pc := range pieces {
		if pc.capture < 0 {
			b.WriteString(pc.lit)
		} else {
			b.WriteString(capturedString(L, md, str, 2*pc.capture))
		}
	}
}

// gsubTableValue is the table's value for a match: keyed by the first
// capture, or the whole match when there is none.
func gsubTableValue(L *LState, repl *LTable, match *pm.MatchData, str string) LValue {
	idx := 0
	if match.CaptureLength() > 2 { // has captures
		idx = 2
	}
	if match.IsPosCapture(idx) {
		return L.GetTable(repl, LNumber(match.Capture(idx)))
	}
	return L.GetField(repl, str[match.Capture(idx):match.Capture(idx+1)])
}

// gsubCall calls the replacement function with the match's captures (or
// the whole match) and returns its first result.
func gsubCall(L *LState, repl *LFunction, match *pm.MatchData, str string) LValue {
	L.Push(repl)
	nargs := 0
	if match.CaptureLength() > 2 { // has captures
		for i := 2; i < match.CaptureLength(); i += 2 {
			if match.IsPosCapture(i) {
				L.Push(LNumber(match.Capture(i)))
			} else {
				L.Push(LString(capturedString(L, match, str, i)))
			}
			nargs++
		}
	} else {
		L.Push(LString(capturedString(L, match, str, 0)))
		nargs++
	}
	L.Call(nargs, 1)
	return L.reg.Pop()
}

func checkCaptureIndex(L *LState, m *pm.MatchData, idx int) {
	if idx <= 2 {
		return
	}
	if idx >= m.CaptureLength() {
		L.RaiseError("invalid capture index")
	}
}

func capturedString(L *LState, m *pm.MatchData, str string, idx int) string {
	checkCaptureIndex(L, m, idx)
	if idx >= m.CaptureLength() && idx == 2 {
		idx = 0
	}
	if m.IsPosCapture(idx) {
		return fmt.Sprint(m.Capture(idx))
	} else {
		return str[m.Capture(idx):m.Capture(idx+1)]
	}

}

// strMatchData is a gmatch iterator's state (its closure's upvalue): the
// next position to try.
// Matches are found one call at a time, as Lua 5.1 does, rather than all
// at once when gmatch is called.
type strMatchData struct {
	str  string
	pos  int
	done bool
	pat  *pm.Pattern
}

func strGmatchIter(L *LState) int {
	md := L.Get(UpvalueIndex(1)).(*LUserData).Value.(*strMatchData)
	str := md.str
	if md.done || md.pos > len(str) {
		return 0
	}
	ok, start, end, match, err := md.pat.Next(unsafeFastStringToReadOnlyBytes(str), md.pos)
	if err != nil {
		L.RaiseError(err.Error())
	}
	if !ok {
		md.done = true
		return 0
	}
	md.pos = intMax(start+1, end)
	md.done = md.pat.MustHead()
	if match.CaptureLength() == 2 {
		L.Push(LString(str[match.Capture(0):match.Capture(1)]))
		return 1
	}

	for i := 2; i < match.CaptureLength(); i += 2 {
		if match.IsPosCapture(i) {
			L.Push(LNumber(match.Capture(i)))
		} else {
			L.Push(LString(str[match.Capture(i):match.Capture(i+1)]))
		}
	}
	return match.CaptureLength()/2 - 1
}

func strGmatch(L *LState) int {
	str := L.CheckString(1)
	pattern := L.CheckString(2)
	p := compileLuaPattern(L, pattern)
	// One closure over the iterator's state, as Lua 5.1's gmatch returns:
	// it can be called on its own (s:gmatch(p)()), not only from a for.
	ud := L.NewUserData()
	ud.Value = &strMatchData{str: str, pat: p}
	L.Push(L.NewClosure(strGmatchIter, ud))
	return 1
}

func strLen(L *LState) int {
	str := L.CheckString(1)
	L.Push(LNumber(len(str)))
	return 1
}

func strLower(L *LState) int {
	str := L.CheckString(1)
	L.Push(LString(strings.ToLower(str)))
	return 1
}

func strMatch(L *LState) int {
	str := L.CheckString(1)
	pattern := L.CheckString(2)
	offset := L.OptInt(3, 1)
	l := len(str)
	if offset < 0 {
		offset = l + offset + 1
	}
	offset--
	if offset < 0 {
		offset = 0
	}

	md := firstMatch(L, pattern, str, offset)
	if md == nil {
		L.Push(LNil)
		return 0
	}
	nsubs := md.CaptureLength() / 2
	switch nsubs {
	case 1:
		L.Push(LString(str[md.Capture(0):md.Capture(1)]))
		return 1
	default:
		for i := 2; i < md.CaptureLength(); i += 2 {
			if md.IsPosCapture(i) {
				L.Push(LNumber(md.Capture(i)))
			} else {
				L.Push(LString(str[md.Capture(i):md.Capture(i+1)]))
			}
		}
		return nsubs - 1
	}
}

func strRep(L *LState) int {
	str := L.CheckString(1)
	n := L.CheckInt(2)
	if n < 0 {
		L.Push(emptyLString)
	} else {
		L.Push(LString(strings.Repeat(str, n)))
	}
	return 1
}

func strReverse(L *LState) int {
	str := L.CheckString(1)
	bts := []byte(str)
	out := make([]byte, len(bts))
	for i, j := 0, len(bts)-1; j >= 0; i, j = i+1, j-1 {
		out[i] = bts[j]
	}
	L.Push(LString(string(out)))
	return 1
}

func strSub(L *LState) int {
	str := L.CheckString(1)
	start := luaIndex2StringIndex(str, L.CheckInt(2), true)
	end := luaIndex2StringIndex(str, L.OptInt(3, -1), false)
	l := len(str)
	if start >= l || end < start {
		L.Push(emptyLString)
	} else {
		L.Push(LString(str[start:end]))
	}
	return 1
}

func strUpper(L *LState) int {
	str := L.CheckString(1)
	L.Push(LString(strings.ToUpper(str)))
	return 1
}

func luaIndex2StringIndex(str string, i int, start bool) int {
	if start && i != 0 {
		i -= 1
	}
	l := len(str)
	if i < 0 {
		i = l + i + 1
	}
	i = intMax(0, i)
	if !start && i > l {
		i = l
	}
	return i
}

//
