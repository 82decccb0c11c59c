package luaapi

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/redact"
	"github.com/kadmin-lua/kadmin-lua/luaapi/output"
)

// installKafka builds the kafka table (also require("kafka")), binds every
// admin function as a global on the default client, and installs the
// library functions at their dotted paths.
func (r *Runtime) installKafka() {
	L := r.L
	kafka := L.NewTable()
	L.SetGlobal("kafka", kafka)
	r.funcOf = make(map[*lua.LFunction]*Func, 2*len(registry))
	def, defMethods := r.clientObjectMethods(r.dflt)
	kafka.RawSetString("default", def)
	nullUD := L.NewUserData()
	nullMT := L.NewTable()
	nullMT.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int { L.Push(lua.LString("null")); return 1 }))
	nullUD.Metatable = nullMT
	L.SetField(L.Get(lua.RegistryIndex), "kadmin.null", nullUD)

	for _, f := range Funcs() {
		if f.IsAdmin() {
			// The default client's methods are the globals: a method
			// call passes the client first, which the function skips.
			for _, name := range append([]string{f.Name}, f.Aliases...) {
				L.SetGlobal(name, defMethods.RawGetString(name))
			}
			continue
		}
		native := f
		fn := L.NewFunction(func(L *lua.LState) int {
			c := &Call{L: L, Fn: native, rt: r, base: 1}
			a, err := parseArgs(native, argsOf(L, 1), r.null())
			if err != nil {
				raise(L, native.Name, err, nil)
			}
			c.args = a
			return native.Native(r, c)
		})
		r.funcOf[fn] = f
		r.installAt(native.Name, fn)
	}
	if json, ok := kafka.RawGetString("json").(*lua.LTable); ok {
		json.RawSetString("null", nullUD)
	}
	// require("kafka") returns the same table.
	if pkg, ok := L.GetGlobal("package").(*lua.LTable); ok {
		if loaded, ok := pkg.RawGetString("loaded").(*lua.LTable); ok {
			loaded.RawSetString("kafka", kafka)
		}
	}
}

// argsOf returns the values on L's stack from index base.
func argsOf(L *lua.LState, base int) []lua.LValue {
	n := L.GetTop() - base + 1
	if n <= 0 {
		return nil
	}
	out := make([]lua.LValue, n)
	for i := range out {
		out[i] = L.Get(base + i)
	}
	return out
}

// installAt sets a dotted path ("kafka.json.encode", "help") to fn.
func (r *Runtime) installAt(path string, fn lua.LValue) {
	parts := strings.Split(path, ".")
	if len(parts) == 1 {
		r.L.SetGlobal(path, fn)
		return
	}
	t, _ := r.L.GetGlobal(parts[0]).(*lua.LTable)
	for _, p := range parts[1 : len(parts)-1] {
		next, ok := t.RawGetString(p).(*lua.LTable)
		if !ok {
			next = r.L.NewTable()
			t.RawSetString(p, next)
		}
		t = next
	}
	t.RawSetString(parts[len(parts)-1], fn)
}

func (r *Runtime) null() lua.LValue {
	return r.L.GetField(r.L.Get(lua.RegistryIndex), "kadmin.null")
}

// libError raises a library function's error, named after it.
func libError(L *lua.LState, name string, err error) int {
	raise(L, name, err, nil)
	return 0
}

func init() {
	register(
		&Func{Name: "kafka.connect", Area: "library", TableCall: true, Options: connectOptions,
			Returns: "client", Summary: "Connect to another cluster; the client has every admin function as a method.",
			Doc: "Returns a client object: `c:list_topics()`, `c:create_topics{...}`. It connects lazily, on the first call. Credentials stay with their cluster: `kafka.connect{}` is another client to the default cluster with its credentials; `brokers=` names another cluster, reached with no credentials unless the call names them (`sasl_mechanism` with `sasl_username`, whose password comes from KADMIN_SASL_PASSWORD and never from the script; `tls_cert`/`tls_key`) or a `profile` from the config file whose brokers include every seed. timeout is in milliseconds.",
			Example: `local c = kafka.connect{brokers = kafka.default:brokers()}
return #c:list_topics() >= 0`,
			Native: (*Runtime).libConnect},
		&Func{Name: "kafka.json.encode", Area: "library",
			Params:  []Param{{Name: "value", Type: AnyType{}, Optional: true, Doc: "the value to encode (nil and kafka.json.null are null)"}},
			Options: []Field{{Name: "indent", Type: Bool(), Doc: "indent nested values by two spaces"}},
			Returns: "string",
			Summary: "Encode a value as JSON with sorted keys; empty tables are [], kafka.json.null is null.",
			Example: `return kafka.json.encode({b = 1, a = {1, 2}})`,
			Native:  (*Runtime).libJSONEncode},
		&Func{Name: "kafka.json.decode", Area: "library",
			Params:  []Param{{Name: "text", Type: Str().MaxLen(math.MaxInt32), Doc: "a JSON document"}},
			Returns: "value",
			Summary: "Decode JSON; null becomes kafka.json.null.",
			Example: `return kafka.json.decode('{"a":[1,2]}').a[2]`,
			Native:  (*Runtime).libJSONDecode},
		&Func{Name: "kafka.pp", Area: "library", Variadic: true,
			Params:  []Param{{Name: "value", Type: AnyType{}, Optional: true, Doc: "the values to print, one after another"}},
			Returns: "nothing",
			Summary: "Pretty-print values to stdout: arrays of records as an aligned table, others as indented Lua (JSON under -o json).",
			Example: `kafka.pp(list_topics())`,
			Native:  (*Runtime).libPP},
		&Func{Name: "kafka.sleep", Area: "library",
			Params:  []Param{{Name: "ms", Type: sleepMillis, Doc: "how long to sleep"}},
			Returns: "nothing",
			Summary: "Sleep; Ctrl-C interrupts it.",
			Example: `kafka.sleep(10)`,
			Native:  (*Runtime).libSleep},
		&Func{Name: "kafka.now", Area: "library", NoArgs: true, Returns: "number",
			Summary: "Milliseconds since the Unix epoch (Kafka timestamps are in ms).",
			Example: `return kafka.now() > 0`,
			Native:  (*Runtime).libNow},
		&Func{Name: "kafka.env", Area: "library",
			Params: []Param{
				{Name: "name", Type: NonEmptyStr().Checked("variable name", nil), Doc: "the variable"},
				{Name: "default", Type: AnyType{}, Optional: true, Doc: "returned when the variable is unset or empty"},
			},
			Returns: "string or default",
			Summary: "Read an environment variable.",
			Example: `return kafka.env("KADMIN_NO_SUCH_VAR", "fallback")`,
			Native:  (*Runtime).libEnv},
		&Func{Name: "kafka.check", Area: "library",
			Params: []Param{
				{Name: "cond", Type: AnyType{}, Optional: true, Doc: "the check passes unless this is false or nil"},
				{Name: "message", Type: Str(), Optional: true, Doc: `what failed (default "check failed")`},
			},
			Returns: "cond",
			Summary: "Record a health check; when any check failed the run exits 4 at the end. Does not stop the script.",
			Example: `kafka.check(#list_topics() > 0, "cluster has topics")`,
			Native:  (*Runtime).libCheck},
		&Func{Name: "kafka.fail", Area: "library",
			Params:  []Param{{Name: "message", Type: AnyType{}, Optional: true, Doc: "the error message (any value: a caught error is shown as tostring gives it)"}},
			Returns: "never",
			Summary: "Stop the script with an error (exit 1).",
			Example: `local ok = pcall(kafka.fail, "stop here")
return ok == false`,
			Native: (*Runtime).libFail},
		&Func{Name: "kafka.dry_run", Area: "library",
			Params:  []Param{{Name: "on", Type: Bool(), Optional: true, Doc: "true: dry-run from now on; false: changes apply again; left out: only ask"}},
			Returns: "boolean",
			Summary: "Turn dry-run on or off for the rest of the run; returns the current setting. In dry-run, mutations validate and print their plan to stderr but change nothing.",
			Example: `kafka.dry_run(true)
local r = create_topics{"dry-run-example"}
kafka.dry_run(false)
return r[1].dry_run`,
			Native: (*Runtime).libDryRun},
		&Func{Name: "kafka.log.info", Area: "library", Params: logParams, Returns: "nothing",
			Summary: "Structured log line on stderr (also kafka.log.warn, kafka.log.error, kafka.log.debug).",
			Example: `kafka.log.info{msg = "checked", topics = 3}`,
			Native:  logAt("info")},
		&Func{Name: "kafka.log.warn", Area: "library", Params: logParams, Returns: "nothing", Summary: "Structured warning on stderr.",
			Example: `kafka.log.warn{msg = "under-replicated", topic = "orders", partitions = 2}`,
			Native:  logAt("warn")},
		&Func{Name: "kafka.log.error", Area: "library", Params: logParams, Returns: "nothing", Summary: "Structured error line on stderr.",
			Example: `kafka.log.error("lag check failed: " .. tostring(42) .. " groups unreadable")`,
			Native:  logAt("error")},
		&Func{Name: "kafka.log.debug", Area: "library", Params: logParams, Returns: "nothing",
			Summary: "Structured debug line on stderr.",
			Example: `kafka.log.debug{msg = "polling", interval_ms = 500}`,
			Native:  logAt("debug")},
		&Func{Name: "help", Area: "library",
			Params:  []Param{{Name: "fn", Type: OneOf(FuncType{}, Str()).Described("function or function name"), Optional: true, Doc: "the function to explain; left out: list every function"}},
			Returns: "nothing",
			Summary: "Show the functions, or one function's documentation.",
			Example: `help(create_topics)`,
			Native:  (*Runtime).libHelp},
	)
}

// sleepMillis is kafka.sleep's duration: whole milliseconds that a
// time.Duration holds.
var sleepMillis = Int64(0).Between(0, maxDurationMillis).Named("duration in ms")

// logParams is kafka.log.*'s argument.
var logParams = []Param{{Name: "message", Type: AnyType{}, Optional: true, Doc: "a message, or a table {msg=, key=value...} of fields (secret-named keys are redacted)"}}

func (r *Runtime) libJSONEncode(c *Call) int {
	L := c.L
	indent := ""
	if param[bool](c, "indent") {
		indent = "  "
	}
	s, err := output.EncodeJSON(L.Get(1), r.null(), indent)
	if err != nil {
		return libError(L, "kafka.json.encode", argErr("", "%v", err))
	}
	L.Push(lua.LString(s))
	return 1
}

func (r *Runtime) libJSONDecode(c *Call) int {
	L := c.L
	v, err := r.decodeJSON(L.CheckString(1), r.null())
	if err != nil {
		return libError(L, "kafka.json.decode", argErr("", "invalid JSON: %v", err))
	}
	L.Push(v)
	return 1
}

func (r *Runtime) libPP(c *Call) int {
	L := c.L
	vals := make([]lua.LValue, 0, L.GetTop())
	for i := 1; i <= L.GetTop(); i++ {
		vals = append(vals, L.Get(i))
	}
	// A failure to write is ignored, as print ignores it.
	if err := r.Print(r.opts.Stdout, vals, r.opts.Output); err != nil && !errors.As(err, new(*WriteError)) {
		return libError(L, "kafka.pp", argErr("", "%v", err))
	}
	return 0
}

func (r *Runtime) libSleep(c *Call) int {
	L := c.L
	t := time.NewTimer(time.Duration(param[int64](c, "ms")) * time.Millisecond)
	defer t.Stop()
	ctx := L.Context()
	if ctx == nil {
		<-t.C
		return 0
	}
	select {
	case <-t.C:
	case <-ctx.Done():
		return libError(L, "kafka.sleep", engine.AsError(ctx.Err(), ""))
	}
	return 0
}

func (r *Runtime) libNow(c *Call) int {
	L := c.L
	L.Push(lua.LNumber(time.Now().UnixMilli()))
	return 1
}

func (r *Runtime) libEnv(c *Call) int {
	L := c.L
	name := L.CheckString(1)
	if v := r.opts.Env(name); v != "" {
		L.Push(lua.LString(v))
	} else {
		L.Push(L.Get(2))
	}
	return 1
}

func (r *Runtime) libCheck(c *Call) int {
	L := c.L
	cond := L.Get(1)
	if !lua.LVAsBool(cond) {
		msg := L.OptString(2, "check failed")
		r.failures = append(r.failures, msg)
		fmt.Fprintf(r.opts.Stderr, "check failed: %s\n", CellText(msg))
	}
	L.Push(cond)
	return 1
}

func (r *Runtime) libFail(c *Call) int {
	L := c.L
	msg := L.ToStringMeta(L.Get(1)).String()
	L.Error(errorTable(L, "", &engine.Error{Code: "FAIL", Message: msg}, nil), 0)
	return 0
}

func (r *Runtime) libDryRun(c *Call) int {
	L := c.L
	if on, ok := L.Get(1).(lua.LBool); ok { // true, false or nothing: checked by the declaration
		// The command line's --dry-run is a floor: the script, and the
		// plugins before it, may raise it, and false lowers it only back
		// to the floor. A runbook that wraps a step in dry_run(true) ...
		// dry_run(false) still dry-runs whole under --dry-run; the value
		// returned, and a line on stderr, say that it stays on.
		r.dryRun = bool(on) || r.opts.Config.DryRun
		if !bool(on) && r.opts.Config.DryRun {
			c.logLine("warn", "kafka.dry_run: stays on: the command line's --dry-run cannot be turned off from inside the run")
		}
	}
	L.Push(lua.LBool(r.dryRun))
	return 1
}

// logAt writes "time level msg key=value ..." lines to stderr; the values of
// secret-named keys are redacted at any depth (redact.Value).
func logAt(level string) func(r *Runtime, c *Call) int {
	return func(r *Runtime, c *Call) int {
		L := c.L
		var b strings.Builder
		fmt.Fprintf(&b, "%s %s", time.Now().UTC().Format(time.RFC3339), strings.ToUpper(level))
		switch v := L.Get(1).(type) {
		case *lua.LTable:
			if m := v.RawGetString("msg"); m != lua.LNil {
				fmt.Fprintf(&b, " %s", output.CellText(lua.LVAsString(m)))
			}
			var keys []string
			v.ForEach(func(k, _ lua.LValue) {
				if ks, ok := k.(lua.LString); ok && ks != "msg" {
					keys = append(keys, string(ks))
				}
			})
			slices.Sort(keys)
			for _, k := range keys {
				gv, err := goValue(v.RawGetString(k), k)
				if err != nil {
					return libError(L, "kafka.log."+level, argErr("", "%v", err))
				}
				// Secrets are hidden at any depth (redact.Value).
				red, _ := redact.Value(map[string]any{k: gv}).(map[string]any)
				fmt.Fprintf(&b, " %s=%s", output.CellText(k), output.CompactValue(red[k]))
			}
		default:
			fmt.Fprintf(&b, " %s", output.CellText(L.ToStringMeta(v).String()))
		}
		b.WriteByte('\n')
		_, _ = io.WriteString(r.opts.Stderr, b.String())
		return 0
	}
}
