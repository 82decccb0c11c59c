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
	"sync"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/internal/boundedfile"
)

// Loading plugins: finding the modules in the plugin directories, running
// them, and installing what they declare (functions as globals, commands
// for RunCommand, help). plugins_parse.go reads the table a module returns.

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

// pluginNameRE is a plugin's name: its file's, without .lua.
var pluginNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`) })

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
	if len(files) > 0 {
		r.L.G.Global.ForEach(func(k, _ lua.LValue) {
			if s, ok := k.(lua.LString); ok {
				builtin[string(s)] = true
			}
		})
	}
	st := &pluginState{funcs: map[string]*PluginFunc{}, owner: map[*Func]*Plugin{}, commands: map[string]*PluginCommand{}}
	funcFrom := map[string]*Plugin{}
	cmdFrom := map[string]*Plugin{}
	modules := map[string]lua.LValue{} // for package.loaded: plugins and library modules
	for _, pf := range files {
		if r.isBuiltinModule(pf.name) {
			return &PluginError{Plugin: pf.name, File: pf.path,
				Msg: fmt.Sprintf("a plugin cannot be named like the built-in module %s (require(%q) is the tool's); rename the file", pf.name, pf.name)}
		}
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
			if builtin[f.Name] || r.isBuiltinGlobal(f.Name) {
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
			if !pluginNameRE().MatchString(name) {
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
	src, err := boundedfile.Read(pf.path, MaxScriptBytes) // a plugin is a regular file
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
		done := r.loadingPlugin(pf.name, pf.path)
		vals, err = r.Call(ctx, fn, lua.LString(pf.name))
		done()
		if err == nil {
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
