package luaapi

import (
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/luaapi/output"
)

var itemType = reflect.TypeOf((*engine.Item)(nil)).Elem()

// bind makes the Lua function for f on client h. self, when not nil, is the
// client object: a method call c:fn(...) passes it first and it is skipped.
func (r *Runtime) bind(h *clientHandle, f *Func, self lua.LValue) *lua.LFunction {
	fn := r.L.NewFunction(func(L *lua.LState) int {
		if f.Mutating {
			r.mutations.Add(1)
		}
		base := 1
		if self != nil && L.GetTop() >= 1 && L.Get(1) == self {
			base = 2
		}
		return r.dispatch(&Call{L: L, Fn: f, rt: r, h: h, base: base})
	})
	r.funcOf[fn] = f
	return fn
}

// dispatch runs one call with the shared conventions around it.
func (r *Runtime) dispatch(c *Call) int {
	f, L := c.Fn, c.L
	if f.declared() {
		if err := r.readArgs(c); err != nil {
			raise(L, f.Name, err, nil)
		}
	} else if t, ok := c.Arg(1).(*lua.LTable); ok && f.DryRunKey != "" && lua.LVAsBool(t.RawGetString(f.DryRunKey)) {
		c.dryRun = true
	}
	if f.Mutating && r.watching {
		// watch repeats reads; repeating a change every few seconds (and
		// asking to confirm it in the middle of the redraw) is refused
		// before anything is sent.
		raise(L, f.Name, argErr("", "changes the cluster, and watch only repeats what reads it"), nil)
	}
	if len(f.Needs) > 0 {
		if err := checkNeeds(c); err != nil {
			raise(L, f.Name, err, nil)
		}
	}
	if f.Destructive && !c.DryRun() && r.opts.Confirm != nil {
		if !r.opts.Confirm(r.confirmPrompt(c)) {
			raise(L, f.Name, &engine.Error{Code: engine.CodeCanceled, Message: "not confirmed; nothing was changed"}, nil)
		}
	}
	res, err := r.runReported(c)
	if e, ok := err.(*engine.Error); ok && e == nil {
		err = nil // a typed nil *engine.Error returned as error is no error
	}
	if err != nil {
		// The engine audits mutations where it sends them (engine/mutate.go).
		raise(L, f.Name, c.withMechanism(c.explainDenied(err)), nil)
	}
	items := asItems(res)
	c.explainDeniedItems(items)
	lv := r.conv.toLua(res)
	r.tagResult(f, lv)
	if f.Mutating && c.DryRun() {
		markDryRun(lv)
		r.printPlan(c, items)
		r.notePlanned(lv) // table output does not repeat it (dryrun_once.go)
	}
	if !c.partial {
		if be := batchError(items, f.Mutating, f.Mutating && c.ValidateOnly()); be != nil {
			raise(L, f.Name, c.withMechanism(be), lv)
		}
	}
	L.Push(lv)
	return 1
}

// readArgs reads the call's arguments through f's declaration and sets
// the options the dispatcher itself honours (partial, validate_only, the
// dry-run key). A refusal here sends nothing and audits nothing.
func (r *Runtime) readArgs(c *Call) error {
	a, err := parseArgs(c.Fn, argsOf(c.L, c.base), r.null())
	if err != nil {
		return err
	}
	c.args = a
	if c.Fn.CheckArgs != nil {
		if err := c.Fn.CheckArgs(c); err != nil {
			return err
		}
	}
	c.partial = get[bool](a.opts, "partial")
	c.validateOnly = get[bool](a.opts, "validate_only")
	if k := c.Fn.DryRunKey; k != "" && get[bool](a.opts, k) {
		c.dryRun = true
	}
	return nil
}

// itemSlices caches, per result type, whether it is a slice of
// engine.Item: Implements was a fortieth of an alter_configs call.
var itemSlices sync.Map // reflect.Type -> bool

// asItems returns res's elements when res is a slice of engine.Item.
func asItems(res any) []engine.Item {
	v := reflect.ValueOf(res)
	if v.Kind() != reflect.Slice {
		return nil
	}
	is, ok := itemSlices.Load(v.Type())
	if !ok {
		is = v.Type().Elem().Implements(itemType)
		itemSlices.Store(v.Type(), is)
	}
	if !is.(bool) {
		return nil
	}
	out := make([]engine.Item, v.Len())
	for i := range out {
		// A pointer to the element: boxing the element itself copied
		// it (an allocation per item: 5,000 for create_topics of 5,000).
		out[i] = v.Index(i).Addr().Interface().(engine.Item)
	}
	return out
}

func markDryRun(lv lua.LValue) {
	t, ok := lv.(*lua.LTable)
	if !ok {
		return
	}
	if output.IsArray(t) && t.Len() > 0 {
		for i := 1; i <= t.Len(); i++ {
			if rec, ok := t.RawGetInt(i).(*lua.LTable); ok {
				rec.RawSetString("dry_run", lua.LTrue)
			}
		}
		return
	}
	t.RawSetString("dry_run", lua.LTrue)
}

// printPlan writes the dry-run plan to stderr, once: the function's own
// lines, then the items the broker's validation (or the dry run's own
// checks) refused. An item that would apply is said only when the function
// wrote no plan line of its own; the returned rows (dry_run=true) carry the
// rest.
func (r *Runtime) printPlan(c *Call, items []engine.Item) {
	var b strings.Builder
	on := "" // every line names its cluster: a script may plan on several
	if c.h != nil {
		on = " (on " + c.h.label() + ")"
	}
	// Names in the lines come from the cluster: escaped, like table cells,
	// and kept on one line.
	line := func(format string, args ...any) {
		b.WriteString(CellText(fmt.Sprintf(format, args...)) + on + "\n")
	}
	for _, p := range c.plan {
		line("dry-run: %s: %s", c.Fn.Name, p)
	}
	for _, it := range items {
		f := it.Failure()
		if f == nil && len(c.plan) > 0 {
			continue
		}
		verdict := "would apply"
		if f != nil {
			e := *f
			if e.Resource == it.Key() {
				e.Resource = "" // the line names the item already
			}
			verdict = "would fail: " + e.Error()
		}
		line("dry-run: %s: %s: %s", c.Fn.Name, it.Key(), verdict)
	}
	if b.Len() == 0 {
		line("dry-run: %s: nothing changed", c.Fn.Name)
	}
	_, _ = io.WriteString(r.opts.Stderr, b.String())
}

func (r *Runtime) callArgs(c *Call) []any {
	args := make([]any, 0, c.NArgs())
	for i := 1; i <= c.NArgs(); i++ {
		if slices.Contains(c.Fn.SecretArgs, i) {
			args = append(args, "***")
			continue
		}
		args = append(args, fromLua(c.Arg(i)))
	}
	return args
}

// confirmPrompt is the question before a destructive call: the call as
// typed when short, else a summary (confirm.go).
func (r *Runtime) confirmPrompt(c *Call) string { return r.confirmText(c) }

// explainDenied names, in an authorization failure, the Kafka operation
// refused and the principal the call logged in as (engine/authz.go);
// the broker's request dump stays only under --verbose.
func (c *Call) explainDenied(err error) error {
	if c.h == nil {
		return err
	}
	if e := engine.AsError(err, ""); !engine.IsDenied(e) {
		return err
	}
	return engine.ExplainDenied(err, c.Fn.Name, c.h.principal(), c.h.cfg.Verbose != nil)
}

// explainDeniedItems is explainDenied for each failed item of a batch.
func (c *Call) explainDeniedItems(items []engine.Item) {
	if c.h == nil {
		return
	}
	for _, it := range items {
		if f := it.Failure(); engine.IsDenied(f) {
			engine.ExplainDeniedItem(f, c.Fn.Name, c.h.principal(), c.h.cfg.Verbose != nil)
		}
	}
}

// withMechanism names the call's SASL mechanism in a failed login's error.
func (c *Call) withMechanism(err error) error {
	if c.h == nil || c.h.cfg.SASL == nil {
		return err
	}
	return engine.WithMechanism(err, c.h.cfg.SASL.Mechanism)
}

// checkNeeds refuses a call the cluster cannot answer (its Kafka release,
// its mode, a feature it has not enabled) before anything but one
// ApiVersions question per client is sent.
func checkNeeds(c *Call) error {
	cl, err := c.Client()
	if err != nil {
		return err
	}
	return cl.Check(c.Ctx(), c.Fn.Needs...)
}
