package luaapi

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

// Parsing plugins: the table a plugin module returns is read by the same
// declared types as every function's arguments (RecordType, MapOf, ...),
// so its mistakes read like theirs: an unknown key names the nearest
// allowed one, a wrong kind says what was expected. The errors become
// PluginErrors naming the file and, where the source shows it, the line.

// Plugin is a loaded plugin: a Lua module in a plugin directory that
// returns {name=, version=, description=, functions={...}, commands={...}}.
// docs/plugins.md describes the shape.
type Plugin struct {
	Name        string          `json:"name"`
	Version     string          `json:"version"`
	Description string          `json:"description"`
	File        string          `json:"file"`
	Functions   []PluginFunc    `json:"functions"` // sorted by name; never null
	Commands    []PluginCommand `json:"commands"`  // sorted by name; never null
}

// PluginFunc is a function a plugin adds as a global.
type PluginFunc struct {
	Name    string `json:"name"`
	Args    string `json:"args"`
	Returns string `json:"returns"`
	Summary string `json:"summary"`
	Doc     string `json:"doc"`
	Example string `json:"example"`
	Line    int    `json:"line"` // where fn is defined in the plugin's file

	fn   *lua.LFunction
	help *Func
}

// PluginCommand is a command a plugin adds: `kadmin-lua run NAME ARGS...`.
type PluginCommand struct {
	Name    string `json:"name"`
	Summary string `json:"summary"`
	Usage   string `json:"usage"` // the arguments, e.g. "[TOPIC...]"
	Doc     string `json:"doc"`
	Line    int    `json:"line"`

	run    *lua.LFunction
	plugin *Plugin
}

var (
	commandNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`) })
	identRE       = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })
	luaKeywords   = []string{"and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
		"local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while"}
)

// pluginText is a descriptive field; a number (version = 1.2) is read as
// its string.
var pluginText = Custom("string", `"text"`, func(_ *reader, v lua.LValue, at string) (any, error) {
	switch v := v.(type) {
	case lua.LString:
		return string(v), nil
	case lua.LNumber:
		return v.String(), nil
	}
	return nil, argErr(at, "must be a string, got %s", v.Type())
}, lua.LTString, lua.LTNumber)

// pluginFuncName is a key of functions: a Lua name, as it becomes a global.
var pluginFuncName = NonEmptyStr().Checked("function name", func(s string) error {
	if !identRE().MatchString(s) || slices.Contains(luaKeywords, s) {
		return errors.New("a function's name must be a Lua name (letters, digits and _)")
	}
	return nil
}).Sample("f")

// pluginCommandName is a key of commands: `kadmin-lua run NAME`.
var pluginCommandName = NonEmptyStr().Checked("command name", func(s string) error {
	if !commandNameRE().MatchString(s) {
		return errors.New("a command's name must be letters, digits, -, _ and .")
	}
	return nil
}).Sample("c")

// bareFunc reads a function given alone where an entry table may go.
func bareFunc[T any](wrap func(*lua.LFunction) T) Type {
	return Custom("function", "print", func(_ *reader, v lua.LValue, _ string) (any, error) {
		return wrap(v.(*lua.LFunction)), nil
	}, lua.LTFunction)
}

// pluginFuncEntry is functions.NAME: a function, or a table with its help.
var pluginFuncEntry = OneOf(
	bareFunc(func(fn *lua.LFunction) PluginFunc { return PluginFunc{fn: fn} }),
	Record(
		Field{Name: "summary", Type: pluginText, Doc: "one line for help()"},
		Field{Name: "args", Type: pluginText, Doc: `the call's shape: "(names[, partitions])"`},
		Field{Name: "returns", Type: pluginText, Doc: "the result's shape"},
		Field{Name: "doc", Type: pluginText, Doc: "paragraphs for help(fn)"},
		Field{Name: "example", Type: pluginText, Doc: "Lua that calls the function"},
		Field{Name: "fn", Type: FuncType{}, Required: true, Doc: "the function"},
	).Then(func(rec Rec, _ string) (any, error) {
		return PluginFunc{Summary: get[string](rec, "summary"), Args: get[string](rec, "args"), Returns: get[string](rec, "returns"),
			Doc: get[string](rec, "doc"), Example: get[string](rec, "example"), fn: get[*lua.LFunction](rec, "fn")}, nil
	}),
).Described("function or {summary=, args=, returns=, doc=, example=, fn=function}")

// pluginCommandEntry is commands.NAME: a function, or a table with its help.
var pluginCommandEntry = OneOf(
	bareFunc(func(fn *lua.LFunction) PluginCommand { return PluginCommand{run: fn} }),
	Record(
		Field{Name: "summary", Type: pluginText, Doc: "one line for kadmin-lua plugins"},
		Field{Name: "usage", Type: pluginText, Doc: `the arguments: "[TOPIC...]"`},
		Field{Name: "doc", Type: pluginText, Doc: "paragraphs"},
		Field{Name: "run", Type: FuncType{}, Required: true, Doc: "the command: gets the arguments as ... and arg"},
	).Then(func(rec Rec, _ string) (any, error) {
		return PluginCommand{Summary: get[string](rec, "summary"), Usage: get[string](rec, "usage"), Doc: get[string](rec, "doc"),
			run: get[*lua.LFunction](rec, "run")}, nil
	}),
).Described("function or {summary=, usage=, doc=, run=function}")

// pluginTableType is the table a plugin module returns.
var pluginTableType = Record(
	Field{Name: "name", Type: pluginText, Doc: "the plugin's name, which is its file's"},
	Field{Name: "version", Type: pluginText},
	Field{Name: "description", Type: pluginText},
	Field{Name: "functions", Type: MapOf[string, PluginFunc](pluginFuncName, pluginFuncEntry).
		Described("table {NAME = function or {summary=, args=, returns=, doc=, example=, fn=function}}"),
		Doc: "functions added as globals"},
	Field{Name: "commands", Type: MapOf[string, PluginCommand](pluginCommandName, pluginCommandEntry).
		Described("table {NAME = function or {summary=, usage=, doc=, run=function}}"),
		Doc: "commands for kadmin-lua run NAME"},
)

// parsePlugin reads a plugin module's table. src is the module's source,
// for the lines errors name.
func parsePlugin(pf pluginFile, src string, t *lua.LTable) (*Plugin, error) {
	rec, err := pluginTableType.readFields(newReader(lua.LNil), t, "")
	if err != nil {
		msg := err.Error()
		var e *engine.Error
		if errors.As(err, &e) {
			msg = e.Message
		}
		return nil, &PluginError{Plugin: pf.name, File: pf.path, Line: errorLine(src, msg), Msg: msg}
	}
	fail := func(line int, format string, args ...any) error {
		return &PluginError{Plugin: pf.name, File: pf.path, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	if name := get[string](rec, "name"); name != "" && name != pf.name {
		return nil, fail(lineOf(src, "name"), "name: is %q but the file makes it %q; a plugin is named after its file", name, pf.name)
	}
	p := &Plugin{Name: pf.name, File: pf.path, Version: get[string](rec, "version"), Description: get[string](rec, "description"),
		Functions: []PluginFunc{}, Commands: []PluginCommand{}}
	fns := get[map[string]PluginFunc](rec, "functions")
	for _, name := range slices.Sorted(maps.Keys(fns)) {
		f := fns[name]
		f.Name, f.Line = name, definedAt(f.fn, src, name)
		if f.Args == "" {
			f.Args = "..."
		}
		if f.Returns == "" {
			f.Returns = "..."
		}
		p.Functions = append(p.Functions, f)
	}
	cmds := get[map[string]PluginCommand](rec, "commands")
	for _, name := range slices.Sorted(maps.Keys(cmds)) {
		c := cmds[name]
		c.Name, c.Line = name, definedAt(c.run, src, name)
		p.Commands = append(p.Commands, c)
	}
	if len(p.Functions) == 0 && len(p.Commands) == 0 {
		return nil, fail(0, "defines no functions and no commands")
	}
	return p, nil
}

var unknownKeyRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`unknown key "([^"]*)"`) })

// errorLine is the line of src an error about the plugin table is about:
// the line setting an unknown key, else the deepest key of the error's
// path ("functions: f: fn: ...") that src sets; 0 when none is found.
func errorLine(src, msg string) int {
	if m := unknownKeyRE().FindStringSubmatch(msg); m != nil {
		if line := lineOf(src, m[1]); line > 0 {
			return line
		}
	}
	path := strings.Split(msg, ": ")
	for i := len(path) - 2; i >= 0; i-- { // the last part is the complaint
		if line := lineOf(src, strings.TrimPrefix(path[i], "key ")); line > 0 {
			return line
		}
	}
	return 0
}

// definedAt is the line a Lua function starts at, else the line that
// names key.
func definedAt(fn *lua.LFunction, src, key string) int {
	if fn != nil && fn.Proto != nil && fn.Proto.LineDefined > 0 {
		return fn.Proto.LineDefined
	}
	return lineOf(src, key)
}

// lineOf is the first line of src that sets key (`key =` or
// `["key"] =`), 0 when none does: where to look for a shape error in a
// table, which Lua does not record lines for.
func lineOf(src, key string) int {
	q := regexp.QuoteMeta(key)
	re := regexp.MustCompile(`(^|[^A-Za-z0-9_.])` + q + `\s*=[^=]|\[\s*["']` + q + `["']\s*\]\s*=`)
	for i, line := range strings.Split(src, "\n") {
		if re.MatchString(line + " ") {
			return i + 1
		}
	}
	return 0
}
