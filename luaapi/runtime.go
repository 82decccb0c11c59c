package luaapi

import (
	"context"
	"io"
	"io/fs"
	"os"
	pathpkg "path"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

// Options configure a Runtime. The zero value runs scripts with no default
// cluster, writing to os.Stdout/os.Stderr.
type Options struct {
	// Config is the default cluster: globals and kafka.default. Its Audit
	// and DryRun are the runtime's, for every client it makes
	// (kafka.connect's too): where mutations are written ahead, and the
	// dry-run floor that kafka.dry_run can raise and never lower.
	Config engine.Config
	// Resolve turns kafka.connect{profile=...} into a config. nil: profiles
	// are not supported.
	Resolve func(profile string) (engine.Config, error)
	// ConnectGuard, when set, is asked before kafka.connect makes a client
	// for other brokers than the default cluster's: an error refuses the
	// call (kadmin-lua test keeps a test on its own in-process cluster).
	ConnectGuard func(brokers []string) error

	Stdout, Stderr io.Writer
	Stdin          io.Reader
	Env            func(string) string // kafka.env; os.Getenv when nil

	// Confirm asks before a destructive call; nil never asks (scripts and
	// --yes). It returns false to decline.
	Confirm func(prompt string) bool
	// Ask asks a question a call needs answered while it runs (reassign
	// after Ctrl-C: cancel the moves in flight?); nil, and false, take the
	// answer that changes nothing more (--yes, no terminal). In the REPL
	// Confirm, its line editor's question, asks instead.
	Ask func(question string) bool

	PluginPath []string // directories searched by require, before the script's own
	Output     string   // Outputs: "table" (default), "json", "ndjson", "yaml"; for kafka.pp and returned values

	// MaxMemory stops a chunk whose heap passes this many bytes with a
	// MEMORY error, and caps string.rep and table.concat; 0: no limit.
	MaxMemory int64
	// Runaway is called when the heap goes on growing past twice
	// MaxMemory after the chunk was stopped (Go code that does not stop
	// when canceled); the CLI ends the process. nil: nothing is done.
	Runaway func(error)
	// Shared, when set, is the default cluster's connection, kept by the
	// caller across runtimes (loop mode); its configuration replaces
	// Config, Audit and DryRun included.
	Shared *SharedClient
	// Cluster names the default cluster in dry-run plans: its profile
	// (run --profiles). Empty: its seed brokers.
	Cluster string
	// Demo: the default cluster is the embedded demo cluster (kfake),
	// which accepts reassignments and moves no replica; the reassignment
	// functions say so on stderr.
	Demo bool

	// ProgressEvery is how often a call still waiting says so on stderr
	// when stderr is not a terminal (progress.go): DefaultProgressEvery
	// when zero, never when negative.
	ProgressEvery time.Duration
}

// Runtime is one Lua state with kafka functions bound to a default client.
// It is not safe for concurrent use: one chunk runs at a time.
type Runtime struct {
	L    *lua.LState
	opts Options
	conv *converter

	mu       sync.Mutex
	dflt     *clientHandle
	clients  []*clientHandle
	dryRun   bool
	failures []string                 // failed kafka.check messages
	funcOf   map[*lua.LFunction]*Func // for help(fn)
	plug     *pluginState             // what LoadPlugins installed; nil before
	metrics  *metricSet               // kafka.metric's figures; nil before the first
	// notifyDeliveries and notifyFailures count kafka.notify's POSTs that
	// went through and those that failed (NotifyCounts).
	notifyDeliveries, notifyFailures int

	objects map[*lua.LTable]*clientHandle // client objects, for NamesOf (completion_names.go)
	// resultMetas are the metatables naming a function's result (results.go:
	// tagResult), one per function and original metatable.
	resultMetas map[resultMetaKey]*lua.LTable
	mutations   atomic.Int64 // calls of mutating functions (Mutations)
	ran         bool         // a chunk has been called
	// stderrTerm: whether Stderr is a terminal (progress.go), asked once.
	stderrTerm *bool
	// idleProgress: the last call's progress, for the next (progress.go).
	idleProgress *progress
	// builtins keeps the built-in globals from being replaced
	// (builtins.go).
	builtins *builtinGuard
	// planned are the last dry-run results whose plan was printed
	// (dryrun_once.go).
	planned []*lua.LTable
	// watchClock and watchScreen are watch's time and terminal (watch.go);
	// nil: the real ones. Tests set them.
	watchClock  watchClock
	watchScreen watchScreen
	watching    bool // a watch runs: mutating functions are refused
	// callerCtx is the context Call was given, while it runs; life ends
	// at Close. A returned iterator's pages are read under both (rows.go).
	callerCtx context.Context
	life      context.Context
	endLife   context.CancelFunc
}

// New builds a runtime: a fresh Lua state with an explicit set of libraries.
func New(opts Options) *Runtime {
	if opts.Stdout == nil {
		opts.Stdout = os.Stdout
	}
	if opts.Stderr == nil {
		opts.Stderr = os.Stderr
	}
	if opts.Stdin == nil {
		opts.Stdin = os.Stdin
	}
	if opts.Env == nil {
		opts.Env = os.Getenv
	}
	if opts.Output == "" {
		opts.Output = "table"
	}
	L := lua.NewState(lua.Options{
		SkipOpenLibs: true,
		// Results of thousands of partitions need room: let the registry
		// grow instead of failing with "registry overflow". It starts
		// small: zeroing 16K slots was a tenth of `return 1`'s start-up.
		RegistrySize:        1024,
		RegistryMaxSize:     1024 * 1024 * 8,
		RegistryGrowStep:    1024,
		CallStackSize:       1024,
		MinimizeStackMemory: true,
	})
	L.Options.OpenFile = openScriptFile // no file of procfs (scriptfiles.go)
	r := &Runtime{L: L, opts: opts}
	r.life, r.endLife = context.WithCancel(context.Background())
	r.conv = newConverter(L)
	r.openLibs()
	r.capStringBuilders()
	installErrorType(L)
	if opts.Shared != nil {
		r.opts.Config = opts.Shared.Config()
		r.dflt = &clientHandle{rt: r, cfg: r.opts.Config, name: "default", cluster: opts.Cluster,
			conn: &opts.Shared.conn, borrowed: true}
	} else {
		r.dflt = r.newHandle(opts.Config, "default", opts.Cluster)
	}
	r.dryRun = r.opts.Config.DryRun
	r.installKafka()
	r.protectBuiltins()
	r.installCallHint()
	return r
}

// Close closes every client the runtime opened, then the Lua state.
func (r *Runtime) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.endLife()
	if p := r.idleProgress; p != nil {
		p.release() // its timer, left armed for reuse, would hold the runtime
		r.idleProgress = nil
	}
	r.dflt.close()
	for _, c := range r.clients {
		c.close()
	}
	r.L.Close()
}

// CheckFailures returns the messages of failed kafka.check calls.
func (r *Runtime) CheckFailures() []string { return r.failures }

// Options returns the runtime's options.
func (r *Runtime) Options() Options { return r.opts }

// ask is the function a running call asks its questions with, nil for
// none.
func (r *Runtime) ask() func(string) bool {
	if r.opts.Confirm != nil {
		return r.opts.Confirm
	}
	return r.opts.Ask
}

// SetConfirm sets the question asked before a destructive call (the REPL
// reads the answer from its prompt); nil never asks.
func (r *Runtime) SetConfirm(fn func(prompt string) bool) { r.opts.Confirm = fn }

// openLibs opens the libraries scripts may use. Left out: os.exit (skips
// cleanup and the audit log; use kafka.fail), os.execute/remove/rename,
// io.popen, debug, a process-wide collectgarbage, and gopher-lua's
// _printregs. Files of procfs do not open (New: scriptfiles.go).
func (r *Runtime) openLibs() {
	L := r.L
	for _, lib := range []struct {
		name string
		fn   lua.LGFunction
	}{
		{lua.LoadLibName, lua.OpenPackage},
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath},
		{lua.OsLibName, lua.OpenOs},
		{lua.IoLibName, lua.OpenIo},
		{lua.CoroutineLibName, lua.OpenCoroutine},
	} {
		L.Push(L.NewFunction(lib.fn))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	if os, ok := L.GetGlobal("os").(*lua.LTable); ok {
		for _, name := range []string{"exit", "execute", "remove", "rename", "tmpname", "setlocale", "setenv"} {
			os.RawSetString(name, lua.LNil)
		}
		// os.getenv reads what kafka.env reads (Options.Env): the CLI
		// hides the audit log's key, and in a fleet other profiles'
		// credentials, from both.
		os.RawSetString("getenv", L.NewFunction(func(L *lua.LState) int {
			if v := r.opts.Env(L.CheckString(1)); v != "" {
				L.Push(lua.LString(v))
			} else {
				L.Push(lua.LNil)
			}
			return 1
		}))
	}
	if io, ok := L.GetGlobal("io").(*lua.LTable); ok {
		io.RawSetString("popen", lua.LNil)
	}
	L.SetGlobal("collectgarbage", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(0))
		return 1
	}))
	L.SetGlobal("print", L.NewFunction(r.print))
	L.SetGlobal("_printregs", lua.LNil) // gopher-lua's VM debugging aid, undocumented

	r.setPackagePath("")
}

// setPackagePath sets package.path explicitly (never from LUA_PATH): the
// plugin path, then the script's directory.
func (r *Runtime) setPackagePath(scriptDir string) {
	var parts []string
	dirs := append([]string{}, r.opts.PluginPath...)
	if scriptDir != "" {
		dirs = append(dirs, scriptDir)
	}
	for _, d := range dirs {
		parts = append(parts, filepath.Join(d, "?.lua"), filepath.Join(d, "?", "init.lua"))
	}
	if pkg, ok := r.L.GetGlobal("package").(*lua.LTable); ok {
		pkg.RawSetString("path", lua.LString(strings.Join(parts, ";")))
		pkg.RawSetString("cpath", lua.LString(""))
	}
}

func (r *Runtime) print(L *lua.LState) int {
	n := L.GetTop()
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteByte('\t')
		}
		b.WriteString(L.ToStringMeta(L.Get(i)).String())
	}
	b.WriteByte('\n')
	_, _ = io.WriteString(r.opts.Stdout, b.String())
	return 0
}

// Compile parses a chunk. Syntax errors come back as *RunError of
// KindSyntax, with file:line in the message.
func (r *Runtime) Compile(name, src string) (*lua.LFunction, error) {
	fn, err := r.L.Load(strings.NewReader(src), name)
	if err != nil {
		msg := err.Error()
		if api, ok := err.(*lua.ApiError); ok {
			msg = syntaxMessage(api)
		}
		return nil, &RunError{Kind: KindSyntax, Message: msg}
	}
	return fn, nil
}

// Call runs a compiled chunk with args under ctx and returns its results.
// Ctrl-C (ctx canceled) stops both the Lua code and the Kafka call in flight.
func (r *Runtime) Call(ctx context.Context, fn *lua.LFunction, args ...lua.LValue) ([]lua.LValue, error) {
	L := r.L
	outer := r.callerCtx
	r.callerCtx = ctx
	defer func() { r.callerCtx = outer }()
	if r.opts.MaxMemory > 0 {
		var stop func()
		ctx, stop = watchMemory(ctx, r.opts.MaxMemory, r.opts.Runaway, r.ran)
		defer stop()
	}
	r.ran = true
	L.SetContext(ctx)
	defer L.RemoveContext()
	top := L.GetTop()
	L.Push(fn)
	for _, a := range args {
		L.Push(a)
	}
	if err := L.PCall(len(args), lua.MultRet, nil); err != nil {
		L.SetTop(top)
		return nil, classify(L, ctx, err)
	}
	n := L.GetTop() - top
	out := make([]lua.LValue, n)
	for i := range n {
		out[i] = L.Get(top + 1 + i)
	}
	L.SetTop(top)
	return out, nil
}

// DoString compiles and runs src, named name in messages.
func (r *Runtime) DoString(ctx context.Context, name, src string) ([]lua.LValue, error) {
	fn, err := r.Compile(name, src)
	if err != nil {
		return nil, err
	}
	return r.Call(ctx, fn)
}

// DoFile runs a script file the way lua.c does: `arg` holds the script
// name at 0 and the arguments from 1, and the chunk gets them as `...`.
func (r *Runtime) DoFile(ctx context.Context, path string, args []string) ([]lua.LValue, error) {
	src, err := readFileBounded(path, MaxScriptBytes)
	if err != nil {
		return nil, &RunError{Kind: KindScript, Message: "cannot read script: " + err.Error()}
	}
	r.setPackagePath(filepath.Dir(path))
	return r.runScript(ctx, path, string(src), args)
}

// DoFS runs a script from fsys (the runbooks built into the binary) the
// way DoFile runs one from disk; require finds modules in fsys next to it.
func (r *Runtime) DoFS(ctx context.Context, fsys fs.FS, path string, args []string) ([]lua.LValue, error) {
	src, err := fs.ReadFile(fsys, path)
	if err != nil {
		return nil, &RunError{Kind: KindScript, Message: "cannot read script: " + err.Error()}
	}
	r.addFSLoader(fsys, pathpkg.Dir(path))
	return r.runScript(ctx, path, string(src), args)
}

// addFSLoader lets require("a.b") find dir/a/b.lua in fsys, after the
// usual searchers.
func (r *Runtime) addFSLoader(fsys fs.FS, dir string) {
	loaders, ok := r.L.GetField(r.L.GetGlobal("package"), "loaders").(*lua.LTable)
	if !ok {
		return
	}
	loaders.Append(r.L.NewFunction(func(L *lua.LState) int {
		name := pathpkg.Join(dir, strings.ReplaceAll(L.CheckString(1), ".", "/")+".lua")
		src, err := fs.ReadFile(fsys, name)
		if err != nil {
			L.Push(lua.LString("\n\tno built-in file '" + name + "'"))
			return 1
		}
		fn, err := L.Load(strings.NewReader(string(src)), name)
		if err != nil {
			L.RaiseError("%s", err.Error())
		}
		L.Push(fn)
		return 1
	}))
}

// runScript compiles and runs a script with lua.c's `arg` and `...`.
func (r *Runtime) runScript(ctx context.Context, name, text string, args []string) ([]lua.LValue, error) {
	if strings.HasPrefix(text, "#!") { // allow a shebang line, as lua.c does
		text = "--" + text
	}
	path := name
	fn, err := r.Compile(path, text)
	if err != nil {
		return nil, err
	}
	return r.Call(ctx, fn, r.setArg(path, args)...)
}

// setArg sets the global arg as lua.c does (arg[0] = name, arg[1..] =
// args) and returns args as the chunk's ... values.
func (r *Runtime) setArg(name string, args []string) []lua.LValue {
	argt := r.L.NewTable()
	argt.RawSetInt(0, lua.LString(name))
	vals := make([]lua.LValue, len(args))
	for i, a := range args {
		argt.RawSetInt(i+1, lua.LString(a))
		vals[i] = lua.LString(a)
	}
	r.L.SetGlobal("arg", argt)
	return vals
}

// EvalLine is the REPL's evaluation, as lua.c does it: try "return <src>"
// first so expressions print, then src as a statement. incomplete is true
// when src is an unfinished chunk that needs more lines.
func (r *Runtime) EvalLine(ctx context.Context, src string) (values []lua.LValue, incomplete bool, err error) {
	fn, cerr := r.Compile("stdin", "return "+src)
	if cerr != nil {
		fn, cerr = r.Compile("stdin", src)
	}
	if cerr != nil {
		if strings.Contains(cerr.Error(), "EOF") {
			return nil, true, nil
		}
		return nil, false, cerr
	}
	values, err = r.Call(ctx, fn)
	return values, false, err
}
