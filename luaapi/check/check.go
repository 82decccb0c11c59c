// Package check reads Lua scripts, runbooks and plugins without running
// them and finds what would fail at run time: syntax errors, unknown
// globals and fields of the built-in tables (with the name meant),
// calls whose arguments their declaration refuses (arity, unknown option
// keys, literals of the wrong kind or out of range), flags a runbook reads
// but does not declare, and plugin tables of the wrong shape. It also
// lists what a script can change: every call of a mutating function.
//
// Calls are held to the declarations in luaapi, through the same Types the
// dispatcher reads arguments with: a literal value is read by the Type's
// own reader (so check says what the call would raise), and a value
// known only in part (a table with a variable in it) is walked along the
// Type's parts, each literal inside read by its own. Nothing that depends
// on a value check cannot see is reported.
package check

import (
	"errors"
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"

	"github.com/kadmin-lua/kadmin-lua/luaapi"
	"github.com/kadmin-lua/kadmin-lua/luaapi/meta"
)

// Finding is one mistake, where it is.
type Finding struct {
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	Kind    string `json:"kind"` // syntax, global, field, builtin, call, flag, plugin
	Message string `json:"message"`
}

// Change is a call of a function that changes the cluster.
type Change struct {
	Line        int    `json:"line"`
	Col         int    `json:"col"`
	Function    string `json:"function"`
	Destructive bool   `json:"destructive"`
}

// Report is what check found in one file.
type Report struct {
	File     string    `json:"file"`
	Findings []Finding `json:"findings"` // by line, then column; never null
	Changes  []Change  `json:"changes"`  // by line, then column; never null
}

// Checker checks files against one runtime's surface: the built-in
// globals and the plugins' functions.
type Checker struct {
	surface  *meta.Surface
	globals  map[string]bool     // built-in globals
	plugins  map[string]bool     // plugin functions (globals too)
	argKinds map[string][]string // lib/args.lua's flag kinds, by the script's directory
	L        *lua.LState         // builds the literal tables read by the Types
}

// New makes a checker for a runtime with these plugins loaded.
func New(plugins []*luaapi.Plugin) *Checker {
	s := meta.LiveSurface()
	c := &Checker{surface: s, globals: map[string]bool{}, plugins: map[string]bool{}, argKinds: map[string][]string{},
		L: lua.NewState(lua.Options{SkipOpenLibs: true})}
	for _, g := range s.Globals() {
		c.globals[g] = true
	}
	c.globals["arg"] = true // set for each script run
	for _, p := range plugins {
		for _, f := range p.Functions {
			c.plugins[f.Name] = true
		}
	}
	return c
}

// Close releases the checker's Lua state.
func (c *Checker) Close() { c.L.Close() }

// Check reads one script's source; name is the file as it is to be
// reported.
func (c *Checker) Check(name string, src []byte) *Report {
	r := &Report{File: name, Findings: []Finding{}, Changes: []Change{}}
	if strings.HasPrefix(string(src), "#!") { // a shebang line, as run allows it
		src = append([]byte("--"), src...)
	}
	chunk, err := parse.Parse(strings.NewReader(string(src)), name)
	if err != nil {
		r.Findings = append(r.Findings, syntaxFinding(err))
		return r
	}
	w := newWalker(c, r, src)
	if IsTestFile(name) {
		w.test = testSurface()
	}
	w.file(chunk)
	slices.SortStableFunc(r.Findings, func(a, b Finding) int { return cmpPos(a.Line, a.Col, b.Line, b.Col) })
	slices.SortStableFunc(r.Changes, func(a, b Change) int { return cmpPos(a.Line, a.Col, b.Line, b.Col) })
	return r
}

func cmpPos(l1, c1, l2, c2 int) int {
	if l1 != l2 {
		return l1 - l2
	}
	return c1 - c2
}

// syntaxFinding is the parser's error where it says.
func syntaxFinding(err error) Finding {
	var pe *parse.Error
	if errors.As(err, &pe) {
		msg := strings.TrimSpace(pe.Message)
		if pe.Token != "" {
			msg += " near '" + pe.Token + "'"
		}
		if !strings.HasPrefix(msg, "syntax error") {
			msg = "syntax error: " + msg
		}
		return Finding{Line: pe.Pos.Line, Col: max(pe.Pos.Column, 1), Kind: "syntax", Message: msg}
	}
	var le *lua.ApiError
	if errors.As(err, &le) {
		return Finding{Line: 1, Col: 1, Kind: "syntax", Message: strings.TrimSpace(le.Object.String())}
	}
	return Finding{Line: 1, Col: 1, Kind: "syntax", Message: strings.TrimSpace(err.Error())}
}

// positions finds the column of a name on a line, from the script's
// tokens (the AST keeps lines only). Each token is handed out once, in
// order, so two findings about one name on a line get their own columns.
type positions struct {
	byLine map[int][]token
	lines  []string
}

type token struct {
	col  int
	text string
	used bool
}

func newPositions(src []byte) *positions {
	p := &positions{byLine: map[int][]token{}, lines: strings.Split(string(src), "\n")}
	sc := parse.NewScanner(strings.NewReader(string(src)), "")
	lx := &parse.Lexer{}
	for {
		tok, err := sc.Scan(lx)
		if err != nil || tok.Type < 0 {
			break
		}
		lx.PrevTokenType = tok.Type
		p.byLine[tok.Pos.Line] = append(p.byLine[tok.Pos.Line], token{col: tok.Pos.Column, text: tok.Str})
	}
	return p
}

// col is the column of the first unclaimed token text on line (1 when
// none is found); claim marks it as taken.
func (p *positions) col(line int, text string, claim bool) int {
	toks := p.byLine[line]
	for i := range toks {
		if toks[i].text == text && !toks[i].used {
			if claim {
				toks[i].used = true
			}
			return toks[i].col
		}
	}
	for i := range toks {
		if toks[i].text == text {
			return toks[i].col
		}
	}
	if line >= 1 && line <= len(p.lines) && text != "" {
		if i := strings.Index(p.lines[line-1], text); i >= 0 {
			return i + 1 // inside a string: "--max" in a usage line
		}
	}
	if len(toks) > 0 {
		return toks[0].col
	}
	return 1
}

// first is the first line a token text is on.
func (p *positions) first(text string) (int, bool) {
	best := 0
	for line, toks := range p.byLine {
		for _, t := range toks {
			if t.text == text && (best == 0 || line < best) {
				best = line
			}
		}
	}
	return best, best > 0
}

// lineOf is a node's line, or fallback when the parser left none.
func lineOf(n ast.PositionHolder, fallback int) int {
	if n != nil && n.Line() > 0 {
		return n.Line()
	}
	return fallback
}

// argMessage is a refused call's message as the dispatcher raises it:
// "create_topics: spec #1: partitions must be ...".
func argMessage(fn string, err error) string { return fn + ": " + luaapi.ArgMessage(err) }
