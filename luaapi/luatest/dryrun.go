package luatest

import (
	"encoding/json"
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/fixture"
	"github.com/kadmin-lua/kadmin-lua/snapshot"
)

// assert.dry_run_matches(name, arg...) runs the runbook under --dry-run,
// then for real on the same cluster, and fails unless the dry run
// announced exactly what the real run did: each change the audit log
// records was announced by a dry-run line of the same function naming it,
// and each line announcing a change was followed by one. It returns both
// results (run()'s tables). A dry run that said "nothing to do" while the
// real run changed a topic is the bug this catches.
func (t *testEnv) luaDryRunMatches(L *lua.LState) int {
	t.needTest(L, "assert.dry_run_matches")
	if t.audit == nil {
		L.RaiseError("assert.dry_run_matches: the run is a dry run (--dry-run): there is no real run to compare with")
	}
	name, args, env, _ := t.runArgs(L, "assert.dry_run_matches")
	dry, err := t.runbook(L.Context(), name, args, env, true)
	if err != nil {
		L.RaiseError("assert.dry_run_matches: %v", err)
	}
	real, err := t.runbook(L.Context(), name, args, env, false)
	if err != nil {
		L.RaiseError("assert.dry_run_matches: %v", err)
	}
	if problems := compareDryRun(dry.plan, real.changes); len(problems) > 0 {
		msg := fmt.Sprintf("the dry run of %s did not announce what its real run did:\n  %s\ndry-run lines:\n  %s\nchanges (audit log):\n  %s",
			name, strings.Join(problems, "\n  "), orNone(dry.plan), orNone(changeLines(real.changes)))
		L.RaiseError("%s", msg)
	}
	if dry.exit != real.exit {
		L.RaiseError("the dry run of %s exited %d, its real run %d (%s)", name, dry.exit, real.exit, real.err)
	}
	L.Push(t.resultTable(L, dry))
	L.Push(t.resultTable(L, real))
	return 2
}

func orNone(lines []string) string {
	if len(lines) == 0 {
		return "(none)"
	}
	return strings.Join(lines, "\n  ")
}

// changeLines are the applied changes, "op: key".
func changeLines(changes []auditlog.Change) []string {
	var out []string
	for _, c := range changes {
		for _, k := range appliedKeys(c) {
			out = append(out, c.Intent.Op+": "+k)
		}
	}
	return out
}

func appliedKeys(c auditlog.Change) []string {
	var keys []string
	if c.Outcome != nil {
		for _, it := range c.Outcome.Items {
			if it.Applied() {
				keys = append(keys, it.Key)
			}
		}
	}
	return keys
}

// compareDryRun lists where a dry run's lines ("op: what") and a real
// run's audited changes disagree. A line saying an item "would fail" or
// that the call "nothing changed" announces no change.
func compareDryRun(plan []string, changes []auditlog.Change) []string {
	type line struct{ op, text string }
	var announced []line
	for _, p := range plan {
		op, text, _ := strings.Cut(p, ": ")
		if text == "nothing changed" || strings.Contains(text, ": would fail: ") {
			continue
		}
		announced = append(announced, line{op, text})
	}
	doneOps := map[string][]string{} // op -> keys applied
	var problems []string
	for _, c := range changes {
		keys := appliedKeys(c)
		if len(keys) == 0 {
			continue
		}
		doneOps[c.Intent.Op] = append(doneOps[c.Intent.Op], keys...)
		for _, k := range keys {
			found := false
			for _, a := range announced {
				if a.op == c.Intent.Op && strings.Contains(a.text, k) {
					found = true
					break
				}
			}
			if !found {
				problems = append(problems, fmt.Sprintf("done, not announced: %s: %s", c.Intent.Op, k))
			}
		}
	}
	for _, a := range announced {
		keys, ok := doneOps[a.op]
		if !ok {
			problems = append(problems, fmt.Sprintf("announced, not done: %s: %s", a.op, a.text))
			continue
		}
		// A line naming an item ("orders: would apply") must name one
		// that was done; a line naming none (a plan's own wording) is
		// matched by the function having changed something.
		if item, _, ok := strings.Cut(a.text, ": would apply"); ok && !contains(keys, item) {
			problems = append(problems, fmt.Sprintf("announced, not done: %s: %s", a.op, a.text))
		}
	}
	return problems
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// snapshot([{records = n}]) -> the test's cluster now, as a fixture table
// (topics, groups, ACLs, quotas, SCRAM users): what to compare before and
// after a run, or to pass to changes().
func (t *testEnv) luaSnapshot(L *lua.LState) int {
	t.needTest(L, "snapshot")
	o := snapshot.Options{}
	if opts, ok := L.Get(1).(*lua.LTable); ok {
		o.Records = int(lua.LVAsNumber(opts.RawGetString("records"))) // 0 when not given
	}
	cl, err := engine.New(t.config(false))
	if err != nil {
		L.RaiseError("snapshot: %v", err)
	}
	defer cl.Close()
	f, err := snapshot.Take(L.Context(), cl, o)
	if err != nil {
		L.RaiseError("%v", err)
	}
	f.Source = nil // when it was taken: not part of the state
	v, err := viaJSON(L, f)
	if err != nil {
		L.RaiseError("snapshot: %v", err)
	}
	L.Push(v)
	return 1
}

// changes(before, after) -> the rows of the plan table that take the
// cluster from before to after (two snapshot() tables): {action, kind,
// name, change}.
func (t *testEnv) luaChanges(L *lua.LState) int {
	read := func(i int) *fixture.Fixture {
		g, err := goValue(L.CheckTable(i), "snapshot")
		if err != nil {
			L.ArgError(i, err.Error())
		}
		b, err := json.Marshal(g)
		if err != nil {
			L.ArgError(i, err.Error())
		}
		file, line := callerLine(L)
		f, err := fixture.Parse(b, fixture.ParseOptions{Name: file, Line: line})
		if err != nil {
			L.ArgError(i, "not a snapshot: "+err.Error())
		}
		return f
	}
	before, after := read(1), read(2)
	v, err := viaJSON(L, snapshot.Diff(before, after))
	if err != nil {
		L.RaiseError("changes: %v", err)
	}
	if v == lua.LNil {
		v = L.NewTable()
	}
	L.Push(v)
	return 1
}
