package luatest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/luaapi"
	"github.com/kadmin-lua/kadmin-lua/scripts"
)

// The exit codes run() reports, as `kadmin-lua run` exits
// (cmd/kadmin-lua/exitcodes.go, docs/cli.md).
const (
	exitOK          = 0
	exitScript      = 1
	exitUsage       = 2
	exitKafka       = 3
	exitCheck       = 4
	exitInterrupted = 130
)

// ranRunbook is what one run of a runbook did.
type ranRunbook struct {
	exit           int
	err            string
	values         []lua.LValue // in the runbook's state
	stdout, stderr string
	plan           []string          // the dry-run lines, "op: what"
	changes        []auditlog.Change // what the audit log says it changed
	checks         []string
}

// run(name, arg...[, {dry_run = true, env = {K = "v"}}]) -> {exit, ok,
// rows, values, error, stdout, stderr, plan, changes, checks}
func (t *testEnv) luaRun(L *lua.LState, dryRun bool) int {
	fn := "run"
	if dryRun {
		fn = "dry_run"
	}
	t.needTest(L, fn)
	name, args, env, dry := t.runArgs(L, fn)
	got, err := t.runbook(L.Context(), name, args, env, dryRun || dry)
	if err != nil {
		L.RaiseError("%s: %v", fn, err)
	}
	L.Push(t.resultTable(L, got))
	return 1
}

// runArgs reads run's arguments: a name, strings (numbers are turned
// into strings, as a shell would pass them), and a trailing options table.
func (t *testEnv) runArgs(L *lua.LState, fn string) (name string, args []string, env map[string]string, dryRun bool) {
	name = L.CheckString(1)
	top := L.GetTop()
	if opts, ok := L.Get(top).(*lua.LTable); ok && top > 1 {
		top--
		var bad string
		opts.ForEach(func(k, v lua.LValue) {
			switch lua.LVAsString(k) {
			case "dry_run":
				dryRun = lua.LVAsBool(v)
			case "env":
				e, ok := v.(*lua.LTable)
				if !ok {
					bad = "env must be a table of variables"
					return
				}
				env = map[string]string{}
				e.ForEach(func(k, v lua.LValue) { env[lua.LVAsString(k)] = lua.LVAsString(v) })
			default:
				bad = fmt.Sprintf("unknown option %q (dry_run, env)", lua.LVAsString(k))
			}
		})
		if bad != "" {
			L.RaiseError("%s: %s", fn, bad)
		}
	}
	for i := 2; i <= top; i++ {
		switch v := L.Get(i).(type) {
		case lua.LString, lua.LNumber:
			args = append(args, lua.LVAsString(v))
		default:
			L.ArgError(i, "a runbook's arguments are strings, as on a command line")
		}
	}
	return name, args, env, dryRun
}

// runbook runs name with args on the test's cluster in a runtime of its
// own, built as `kadmin-lua run` builds one.
func (t *testEnv) runbook(ctx context.Context, name string, args []string, env map[string]string, dryRun bool) (*ranRunbook, error) {
	do, err := t.resolve(name, args)
	if err != nil {
		return nil, err
	}
	before, err := t.readAudit()
	if err != nil {
		return nil, err
	}
	var stdout, stderr lockedBuffer
	rt, err := t.r.o.NewRuntime(luaapi.Options{Config: t.config(dryRun), Stdout: &stdout, Stderr: &stderr,
		Stdin: strings.NewReader(""), Env: func(k string) string { return env[k] }, ConnectGuard: t.guard})
	if err != nil {
		return nil, err
	}
	defer rt.Close()
	vals, runErr := do(ctx, rt)
	got := &ranRunbook{stdout: stdout.String(), stderr: stderr.String(), checks: rt.CheckFailures(), values: vals}
	got.exit, got.err = exitOf(runErr, got.checks)
	if ctx.Err() != nil {
		return nil, ctx.Err() // the test's time is up: stop it, not the runbook alone
	}
	got.plan = planLines(got.stderr)
	after, err := t.readAudit()
	if err != nil {
		return nil, err
	}
	got.changes = after[len(before):]
	return got, nil
}

// resolve finds what name runs, in this order: a file beside the test
// file (name, or name.lua), one in the directory above when the test sits
// in a tests/ directory (scripts/tests/x_test.lua tests scripts/x.lua), a
// runbook built into kadmin-lua, a plugin's command.
func (t *testEnv) resolve(name string, args []string) (func(context.Context, *luaapi.Runtime) ([]lua.LValue, error), error) {
	dir := filepath.Dir(t.file)
	dirs := []string{dir}
	if filepath.Base(dir) == "tests" {
		dirs = append(dirs, filepath.Dir(dir))
	}
	for _, d := range dirs {
		for _, p := range []string{name, name + ".lua"} {
			p = filepath.Join(d, p)
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				return func(ctx context.Context, rt *luaapi.Runtime) ([]lua.LValue, error) { return rt.DoFile(ctx, p, args) }, nil
			}
		}
	}
	if p, ok := scripts.Lookup(name); ok {
		return func(ctx context.Context, rt *luaapi.Runtime) ([]lua.LValue, error) {
			return rt.DoFS(ctx, scripts.FS, p, args)
		}, nil
	}
	return func(ctx context.Context, rt *luaapi.Runtime) ([]lua.LValue, error) {
		if _, _, ok := rt.Command(name); ok {
			return rt.RunCommand(ctx, name, args)
		}
		return nil, &luaapi.RunError{Kind: luaapi.KindScript, Message: fmt.Sprintf(
			"no runbook %q: not a file in %s, a built-in runbook or a plugin command", name, strings.Join(dirs, " or "))}
	}, nil
}

// exitOf is the exit code `kadmin-lua run` would give.
func exitOf(err error, checks []string) (int, string) {
	var re *luaapi.RunError
	switch {
	case err == nil && len(checks) > 0:
		return exitCheck, ""
	case err == nil:
		return exitOK, ""
	case errors.As(err, &re):
		switch re.Kind {
		case luaapi.KindSyntax:
			return exitUsage, re.Message
		case luaapi.KindKafka:
			return exitKafka, re.Message
		case luaapi.KindCanceled:
			return exitInterrupted, re.Message
		}
		return exitScript, re.Message
	}
	return exitScript, err.Error()
}

var planSuffix = regexp.MustCompile(` \(on [^()]*\)$`)

// planLines are the dry-run lines of stderr, "op: what", without the
// cluster each names.
func planLines(stderr string) []string {
	var out []string
	for _, line := range strings.Split(stderr, "\n") {
		if rest, ok := strings.CutPrefix(line, "dry-run: "); ok {
			out = append(out, planSuffix.ReplaceAllString(rest, ""))
		}
	}
	return out
}

// readAudit reads the test's audit log (nothing under a dry run).
func (t *testEnv) readAudit() ([]auditlog.Change, error) {
	if t.audit == nil {
		return nil, nil
	}
	changes, _, err := auditlog.ReadFile(t.auditPath, auditlog.Options{})
	return changes, err
}

// resultTable is run()'s result.
func (t *testEnv) resultTable(L *lua.LState, got *ranRunbook) *lua.LTable {
	res := L.NewTable()
	res.RawSetString("exit", lua.LNumber(got.exit))
	res.RawSetString("ok", lua.LBool(got.exit == exitOK))
	if got.err != "" {
		res.RawSetString("error", lua.LString(got.err))
	}
	values := L.NewTable()
	for i, v := range got.values {
		c, err := copyInto(L, v, fmt.Sprintf("value #%d", i+1))
		if err != nil {
			L.RaiseError("run: the runbook returned what a test cannot hold: %v", err)
		}
		values.Append(c)
		if i == 0 {
			res.RawSetString("rows", c)
		}
	}
	res.RawSetString("values", values)
	res.RawSetString("stdout", lua.LString(got.stdout))
	res.RawSetString("stderr", lua.LString(got.stderr))
	res.RawSetString("plan", luaValue(L, got.plan))
	res.RawSetString("changes", changesTable(L, got.changes))
	res.RawSetString("checks", luaValue(L, got.checks))
	return res
}

// changesTable is the audit log's entries as data: {op, args, items =
// {{key, outcome, error}}, applied = {keys}}.
func changesTable(L *lua.LState, changes []auditlog.Change) *lua.LTable {
	out := L.NewTable()
	for _, c := range changes {
		e := L.NewTable()
		e.RawSetString("op", lua.LString(c.Intent.Op))
		if len(c.Intent.Args) > 0 {
			var args any
			if json.Unmarshal(c.Intent.Args, &args) == nil {
				e.RawSetString("args", luaValue(L, args))
			}
		}
		items, applied := L.NewTable(), L.NewTable()
		if c.Outcome != nil {
			for _, it := range c.Outcome.Items {
				row := L.NewTable()
				row.RawSetString("key", lua.LString(it.Key))
				row.RawSetString("outcome", lua.LString(it.Outcome))
				if it.Error != "" {
					row.RawSetString("error", lua.LString(it.Error))
				}
				items.Append(row)
				if it.Applied() {
					applied.Append(lua.LString(it.Key))
				}
			}
			if c.Outcome.Error != "" {
				e.RawSetString("error", lua.LString(c.Outcome.Error))
			}
		}
		e.RawSetString("items", items)
		e.RawSetString("applied", applied)
		out.Append(e)
	}
	return out
}

// audit() -> the changes the test's audit log holds so far, as run()'s
// changes.
func (t *testEnv) luaAudit(L *lua.LState) int {
	t.needTest(L, "audit")
	changes, err := t.readAudit()
	if err != nil {
		L.RaiseError("audit: %v", err)
	}
	L.Push(changesTable(L, changes))
	return 1
}
