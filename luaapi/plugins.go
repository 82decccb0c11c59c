package luaapi

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

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

// PluginError is a plugin that could not be loaded: a syntax error, an
// error raised while its module ran (Err is then the *RunError), or a
// returned table of the wrong shape or with a name already taken.
type PluginError struct {
	Plugin string
	File   string
	Line   int // 0 when no line can be named
	Msg    string
	Err    error
}

func (e *PluginError) Error() string {
	msg := e.Msg
	if !strings.HasPrefix(msg, e.File) {
		where := e.File
		if e.Line > 0 {
			where += ":" + strconv.Itoa(e.Line)
		}
		msg = where + ": " + msg
	}
	return "plugin " + e.Plugin + ": " + msg
}

func (e *PluginError) Unwrap() error { return e.Err }

// pluginState is what LoadPlugins installed.
type pluginState struct {
	plugins  []*Plugin
	funcs    map[string]*PluginFunc // by global name
	owner    map[*Func]*Plugin      // help(fn) -> the plugin that defines fn
	commands map[string]*PluginCommand
}

// pluginFile is a plugin found in a plugin directory.
type pluginFile struct{ name, path string }

var (
	pluginNameRE  = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)
	commandNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)
	identRE       = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// LoadPlugins runs every module in Options.PluginPath, in name order: each
// NAME.lua, or NAME/init.lua, directly in one of the directories. When two
// directories hold the same NAME, the first directory's wins (as require
// finds it). Files and directories whose names start with "_" or "." are
// skipped (helpers that plugins require). A module that returns a table
// with functions or commands is a plugin; any other module is a library
// that require returns without running it again (--plugin-path was a
// require path before it was a plugin path).
//
// All plugins are run and checked before any of them is installed: on an
// error no plugin function or command exists. A plugin's functions become
// globals (help and completion see them), its commands are run by
// RunCommand, and require(NAME) returns its table.
func (r *Runtime) LoadPlugins(ctx context.Context) error {
	if r.plug != nil {
		return errors.New("plugins are already loaded")
	}
	files, err := findPlugins(r.opts.PluginPath)
	if err != nil {
		return err
	}
	builtin := map[string]bool{"arg": true}
	r.L.G.Global.ForEach(func(k, _ lua.LValue) {
		if s, ok := k.(lua.LString); ok {
			builtin[string(s)] = true
		}
	})
	st := &pluginState{funcs: map[string]*PluginFunc{}, owner: map[*Func]*Plugin{}, commands: map[string]*PluginCommand{}}
	funcFrom := map[string]*Plugin{}
	cmdFrom := map[string]*Plugin{}
	modules := map[string]lua.LValue{} // for package.loaded: plugins and library modules
	for _, pf := range files {
		p, v, err := r.loadPlugin(ctx, pf)
		if err != nil {
			return err
		}
		modules[pf.name] = v
		if p == nil {
			continue
		}
		for i := range p.Functions {
			f := &p.Functions[i]
			conflict := &PluginError{Plugin: p.Name, File: p.File, Line: f.Line}
			if builtin[f.Name] {
				conflict.Msg = fmt.Sprintf("function %s would shadow the built-in %s; rename it", f.Name, f.Name)
				return conflict
			}
			if other := funcFrom[f.Name]; other != nil {
				conflict.Msg = fmt.Sprintf("function %s is already defined by plugin %s (%s); rename one of them", f.Name, other.Name, other.File)
				return conflict
			}
			funcFrom[f.Name] = p
		}
		for i := range p.Commands {
			c := &p.Commands[i]
			if other := cmdFrom[c.Name]; other != nil {
				return &PluginError{Plugin: p.Name, File: p.File, Line: c.Line,
					Msg: fmt.Sprintf("command %s is already defined by plugin %s (%s); rename one of them", c.Name, other.Name, other.File)}
			}
			cmdFrom[c.Name] = p
		}
		st.plugins = append(st.plugins, p)
	}
	// Everything loaded and checked: install.
	loaded, _ := r.L.GetField(r.L.GetGlobal("package"), "loaded").(*lua.LTable)
	for _, p := range st.plugins {
		for i := range p.Functions {
			f := &p.Functions[i]
			f.help = &Func{Name: f.Name, Area: "plugin " + p.Name, Args: f.Args, Returns: f.Returns,
				Summary: f.Summary, Doc: f.Doc, Example: f.Example}
			r.L.SetGlobal(f.Name, f.fn)
			r.funcOf[f.fn] = f.help
			st.funcs[f.Name] = f
			st.owner[f.help] = p
		}
		for i := range p.Commands {
			p.Commands[i].plugin = p
			st.commands[p.Commands[i].Name] = &p.Commands[i]
		}
	}
	if loaded != nil {
		for name, v := range modules {
			loaded.RawSetString(name, v)
		}
	}
	r.plug = st
	return nil
}

// Plugins returns the loaded plugins in name order.
func (r *Runtime) Plugins() []*Plugin {
	if r.plug == nil {
		return nil
	}
	return r.plug.plugins
}

// Command finds a plugin command by name, and the plugin that adds it.
func (r *Runtime) Command(name string) (*PluginCommand, *Plugin, bool) {
	if r.plug == nil {
		return nil, nil, false
	}
	c, ok := r.plug.commands[name]
	if !ok {
		return nil, nil, false
	}
	return c, c.plugin, true
}

// RunCommand runs a plugin command the way DoFile runs a script: arg[0] is
// the command's name, arg[1..] and ... are args; it returns what the
// command's run function returns.
func (r *Runtime) RunCommand(ctx context.Context, name string, args []string) ([]lua.LValue, error) {
	c, _, ok := r.Command(name)
	if !ok {
		return nil, &RunError{Kind: KindScript, Message: fmt.Sprintf("no plugin command named %q", name)}
	}
	return r.Call(ctx, c.run, r.setArg(name, args)...)
}

// findPlugins lists the plugins in dirs, sorted by name; the first
// directory holding a name wins. A directory that does not exist is
// skipped (the CLI checks the ones the user named).
func findPlugins(dirs []string) ([]pluginFile, error) {
	seen := map[string]bool{}
	var out []pluginFile
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("plugin directory %s: %w", dir, err)
		}
		// NAME.lua before NAME/init.lua, as require finds them.
		slices.SortStableFunc(entries, func(a, b fs.DirEntry) int {
			return boolCmp(a.IsDir(), b.IsDir())
		})
		for _, e := range entries {
			n := e.Name()
			if strings.HasPrefix(n, "_") || strings.HasPrefix(n, ".") {
				continue
			}
			var name, path string
			switch {
			case strings.HasSuffix(n, ".lua") && !e.IsDir():
				name, path = strings.TrimSuffix(n, ".lua"), filepath.Join(dir, n)
			case isDir(filepath.Join(dir, n)):
				path = filepath.Join(dir, n, "init.lua")
				if _, err := os.Stat(path); err != nil {
					continue // a directory without init.lua is not a plugin
				}
				name = n
			default:
				continue
			}
			if seen[name] {
				continue // an earlier directory, or NAME.lua, has it
			}
			if !pluginNameRE.MatchString(name) {
				return nil, &PluginError{Plugin: name, File: path,
					Msg: "a plugin's name (its file name) must be letters, digits, - and _ (start a helper's name with _ to keep it from loading as a plugin)"}
			}
			seen[name] = true
			out = append(out, pluginFile{name: name, path: path})
		}
	}
	slices.SortFunc(out, func(a, b pluginFile) int { return strings.Compare(a.name, b.name) })
	return out, nil
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// loadPlugin runs one module of a plugin directory and reads the value it
// returns. A table with functions or commands is a plugin (p); anything
// else is a library module that require finds (p is nil).
func (r *Runtime) loadPlugin(ctx context.Context, pf pluginFile) (p *Plugin, v lua.LValue, err error) {
	src, err := os.ReadFile(pf.path)
	if err != nil {
		return nil, nil, &PluginError{Plugin: pf.name, File: pf.path, Msg: "cannot read: " + err.Error()}
	}
	text := string(src)
	if strings.HasPrefix(text, "#!") {
		text = "--" + text
	}
	fn, err := r.Compile(pf.path, text)
	if err == nil {
		var vals []lua.LValue
		if vals, err = r.Call(ctx, fn, lua.LString(pf.name)); err == nil {
			v = lua.LTrue // what require stores for a module that returns nothing
			if len(vals) > 0 && vals[0] != lua.LNil {
				v = vals[0]
			}
			t, ok := v.(*lua.LTable)
			if !ok || (t.RawGetString("functions") == lua.LNil && t.RawGetString("commands") == lua.LNil) {
				return nil, v, nil
			}
			p, err := parsePlugin(pf, text, t)
			return p, v, err
		}
	}
	var re *RunError
	if errors.As(err, &re) {
		return nil, nil, &PluginError{Plugin: pf.name, File: pf.path, Msg: re.Message, Err: re}
	}
	return nil, nil, &PluginError{Plugin: pf.name, File: pf.path, Msg: err.Error(), Err: err}
}

// pluginTable reads a plugin table's string-keyed fields, refusing keys
// not in allowed (a typo must not silently drop a summary or a function).
type pluginTable struct {
	pf   pluginFile
	src  string
	what string // "", "functions.NAME", ...
	vals map[string]lua.LValue
}

func (pt *pluginTable) errf(key string, format string, args ...any) *PluginError {
	what := pt.what
	if key != "" {
		if what != "" {
			what += "."
		}
		what += key
	}
	if what != "" {
		format = what + ": " + format
	}
	line := 0
	if key != "" {
		line = lineOf(pt.src, key)
	}
	if line == 0 && pt.what != "" {
		line = lineOf(pt.src, pt.what[strings.LastIndex(pt.what, ".")+1:])
	}
	return &PluginError{Plugin: pt.pf.name, File: pt.pf.path, Line: line, Msg: fmt.Sprintf(format, args...)}
}

func readTable(pf pluginFile, src, what string, t *lua.LTable, allowed ...string) (*pluginTable, error) {
	pt := &pluginTable{pf: pf, src: src, what: what, vals: map[string]lua.LValue{}}
	var err error
	t.ForEach(func(k, v lua.LValue) {
		if err != nil {
			return
		}
		s, ok := k.(lua.LString)
		if !ok {
			err = pt.errf("", "keys must be names, got %s %s", k.Type(), k.String())
			return
		}
		if allowed != nil && !slices.Contains(allowed, string(s)) {
			err = pt.errf(string(s), "unknown key (allowed: %s)", strings.Join(allowed, ", "))
			return
		}
		pt.vals[string(s)] = v
	})
	return pt, err
}

func (pt *pluginTable) str(key string) (string, error) {
	switch v := pt.vals[key].(type) {
	case nil, *lua.LNilType:
		return "", nil
	case lua.LString:
		return string(v), nil
	case lua.LNumber:
		return v.String(), nil
	default:
		return "", pt.errf(key, "must be a string, got %s", v.Type())
	}
}

func (pt *pluginTable) table(key string) (*lua.LTable, error) {
	switch v := pt.vals[key].(type) {
	case nil, *lua.LNilType:
		return nil, nil
	case *lua.LTable:
		return v, nil
	default:
		return nil, pt.errf(key, "must be a table, got %s", v.Type())
	}
}

func (pt *pluginTable) function(key string) (*lua.LFunction, error) {
	fn, ok := pt.vals[key].(*lua.LFunction)
	if !ok {
		t := lua.LTNil
		if v := pt.vals[key]; v != nil {
			t = v.Type()
		}
		return nil, pt.errf(key, "must be a function, got %s", t)
	}
	return fn, nil
}

// strs reads several string fields into dst, in order.
func (pt *pluginTable) strs(keys []string, dst ...*string) error {
	for i, k := range keys {
		s, err := pt.str(k)
		if err != nil {
			return err
		}
		*dst[i] = s
	}
	return nil
}

func parsePlugin(pf pluginFile, src string, t *lua.LTable) (*Plugin, error) {
	top, err := readTable(pf, src, "", t, "name", "version", "description", "functions", "commands")
	if err != nil {
		return nil, err
	}
	p := &Plugin{Name: pf.name, File: pf.path, Functions: []PluginFunc{}, Commands: []PluginCommand{}}
	var name string
	if err := top.strs([]string{"name", "version", "description"}, &name, &p.Version, &p.Description); err != nil {
		return nil, err
	}
	if name != "" && name != pf.name {
		return nil, top.errf("name", "is %q but the file makes it %q; a plugin is named after its file", name, pf.name)
	}
	fns, err := top.table("functions")
	if err != nil {
		return nil, err
	}
	cmds, err := top.table("commands")
	if err != nil {
		return nil, err
	}
	if fns != nil {
		if p.Functions, err = parseEntries(top, fns, "functions", parseFunc); err != nil {
			return nil, err
		}
	}
	if cmds != nil {
		if p.Commands, err = parseEntries(top, cmds, "commands", parseCommand); err != nil {
			return nil, err
		}
	}
	if len(p.Functions) == 0 && len(p.Commands) == 0 {
		return nil, top.errf("", "defines no functions and no commands")
	}
	return p, nil
}

// parseEntries reads functions = {NAME = ...} or commands = {NAME = ...},
// sorted by name.
func parseEntries[T any](top *pluginTable, t *lua.LTable, what string, parse func(pt *pluginTable, name string, v lua.LValue) (T, error)) ([]T, error) {
	entries, err := readTable(top.pf, top.src, what, t)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(entries.vals))
	for n := range entries.vals {
		names = append(names, n)
	}
	slices.Sort(names)
	out := make([]T, 0, len(names))
	for _, n := range names {
		e, err := parse(entries, n, entries.vals[n])
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

var luaKeywords = []string{"and", "break", "do", "else", "elseif", "end", "false", "for", "function", "if", "in",
	"local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while"}

// parseFunc reads functions.NAME: a function, or {summary=, args=,
// returns=, doc=, example=, fn=}.
func parseFunc(entries *pluginTable, name string, v lua.LValue) (PluginFunc, error) {
	f := PluginFunc{Name: name}
	if !identRE.MatchString(name) || slices.Contains(luaKeywords, name) {
		return f, entries.errf(name, "a function's name must be a Lua name (letters, digits and _)")
	}
	switch v := v.(type) {
	case *lua.LFunction:
		f.fn = v
	case *lua.LTable:
		pt, err := readTable(entries.pf, entries.src, entries.what+"."+name, v, "summary", "args", "returns", "doc", "example", "fn")
		if err != nil {
			return f, err
		}
		if err := pt.strs([]string{"summary", "args", "returns", "doc", "example"}, &f.Summary, &f.Args, &f.Returns, &f.Doc, &f.Example); err != nil {
			return f, err
		}
		if f.fn, err = pt.function("fn"); err != nil {
			return f, err
		}
	default:
		return f, entries.errf(name, "must be a function or {summary=, args=, returns=, doc=, example=, fn=function}, got %s", v.Type())
	}
	if f.Args == "" {
		f.Args = "..."
	}
	if f.Returns == "" {
		f.Returns = "..."
	}
	f.Line = definedAt(f.fn, entries.src, name)
	return f, nil
}

// parseCommand reads commands.NAME: a function, or {summary=, usage=,
// doc=, run=}.
func parseCommand(entries *pluginTable, name string, v lua.LValue) (PluginCommand, error) {
	c := PluginCommand{Name: name}
	if !commandNameRE.MatchString(name) {
		return c, entries.errf(name, "a command's name must be letters, digits, -, _ and .")
	}
	switch v := v.(type) {
	case *lua.LFunction:
		c.run = v
	case *lua.LTable:
		pt, err := readTable(entries.pf, entries.src, entries.what+"."+name, v, "summary", "usage", "doc", "run")
		if err != nil {
			return c, err
		}
		if err := pt.strs([]string{"summary", "usage", "doc"}, &c.Summary, &c.Usage, &c.Doc); err != nil {
			return c, err
		}
		if c.run, err = pt.function("run"); err != nil {
			return c, err
		}
	default:
		return c, entries.errf(name, "must be a function or {summary=, usage=, doc=, run=function}, got %s", v.Type())
	}
	c.Line = definedAt(c.run, entries.src, name)
	return c, nil
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

// pluginFunc finds a plugin function by name, for help("name").
func (r *Runtime) pluginFunc(name string) *Func {
	if r.plug == nil {
		return nil
	}
	if f, ok := r.plug.funcs[name]; ok {
		return f.help
	}
	return nil
}

// pluginHelp is help(fn) for a plugin function: its help and where it
// comes from. ok is false when f is not a plugin function.
func (r *Runtime) pluginHelp(f *Func) (string, bool) {
	if r.plug == nil {
		return "", false
	}
	p, ok := r.plug.owner[f]
	if !ok {
		return "", false
	}
	from := "plugin " + p.Name
	if p.Version != "" {
		from += " " + p.Version
	}
	return FuncHelp(f) + fmt.Sprintf("\nFrom %s (%s).\n", from, p.File), true
}

// pluginIndex is help()'s "plugins" section: each plugin's functions.
func (r *Runtime) pluginIndex() string {
	if r.plug == nil || len(r.plug.funcs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nplugins (kadmin-lua plugins lists their commands too):\n")
	for _, p := range r.plug.plugins {
		if len(p.Functions) == 0 {
			continue
		}
		fmt.Fprintf(&b, "  %s:\n", p.Name)
		for _, f := range p.Functions {
			fmt.Fprintf(&b, "    %-32s %s\n", f.Name, f.Summary)
		}
	}
	return b.String()
}
