package luaapi

import (
	"context"
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

// Call is one invocation of a Func: its arguments, its client, its context.
type Call struct {
	L       *lua.LState
	Fn      *Func
	rt      *Runtime
	h       *clientHandle
	base    int  // stack index of the first argument (2 for method calls)
	partial bool // {partial=true}: return failed items instead of raising
	// validateOnly: {validate_only=true} asked the broker to check without
	// applying, so nothing is written to the audit log.
	validateOnly bool
	dryRun       bool // this call asked for a dry run (Func.DryRunKey)
	plan         []string
	args         *parsedArgs // the arguments as the declaration read them
	progress     *progress   // reports the call on stderr while it waits (progress.go)
	iterStop     func()      // ends the context of the iterator's pages (rows.go: iterCtx)
}

// ValidateOnly reports whether a mutation must only be validated by the
// broker: {validate_only=true} or a dry run.
func (c *Call) ValidateOnly() bool { return c.validateOnly || c.DryRun() }

// Ctx is the call's context: Ctrl-C cancels it. In a dry run it says so
// to the engine, which then sends nothing but validate_only requests
// (engine.WithDryRun), whatever the function's Run forgot.
func (c *Call) Ctx() context.Context {
	ctx := c.L.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	if c.DryRun() {
		ctx = engine.WithDryRun(ctx)
	}
	return c.progressCtx(ctx)
}

// Client returns the engine client, connecting lazily.
func (c *Call) Client() (*engine.Client, error) { return c.h.get() }

// NArgs is how many arguments the caller passed.
func (c *Call) NArgs() int { return max(c.L.GetTop()-c.base+1, 0) }

// Arg returns argument n (1-based), nil when absent.
func (c *Call) Arg(n int) lua.LValue { return c.L.Get(c.base + n - 1) }

// DryRun reports whether mutations must change nothing.
func (c *Call) DryRun() bool { return c.rt.dryRun || c.dryRun }

// Plan adds a line to the dry-run plan printed on stderr. Outside a dry
// run it does nothing (formatting a line per item was a tenth of
// create_topics' CPU for 5,000 topics); callers whose arguments cost
// something to compute check c.DryRun() first.
func (c *Call) Plan(format string, args ...any) {
	if !c.DryRun() {
		return
	}
	c.plan = append(c.plan, fmt.Sprintf(format, args...))
}
