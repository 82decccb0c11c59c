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
}

// ValidateOnly reports whether a mutation must only be validated by the
// broker: {validate_only=true} or a dry run.
func (c *Call) ValidateOnly() bool { return c.validateOnly || c.DryRun() }

// Ctx is the call's context: Ctrl-C cancels it.
func (c *Call) Ctx() context.Context {
	if ctx := c.L.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}

// Client returns the engine client, connecting lazily.
func (c *Call) Client() (*engine.Client, error) { return c.h.get() }

// NArgs is how many arguments the caller passed.
func (c *Call) NArgs() int { return max(c.L.GetTop()-c.base+1, 0) }

// Arg returns argument n (1-based), nil when absent.
func (c *Call) Arg(n int) lua.LValue { return c.L.Get(c.base + n - 1) }

// DryRun reports whether mutations must change nothing.
func (c *Call) DryRun() bool { return c.rt.dryRun || c.dryRun }

// Plan adds a line to the dry-run plan printed on stderr.
func (c *Call) Plan(format string, args ...any) {
	c.plan = append(c.plan, fmt.Sprintf(format, args...))
}

// Options reads the optional options table at argument n. "partial" is
// accepted by every batch function and handled by the dispatcher.
func (c *Call) Options(n int, allowed ...string) (*fields, error) {
	v := c.Arg(n)
	if v == lua.LNil {
		return newFields(&lua.LTable{}, "options"), nil
	}
	if _, ok := v.(*lua.LTable); !ok {
		return nil, argErr(fmt.Sprintf("argument #%d (options)", n), "must be a table, got %s", describe(v))
	}
	f := newFields(v, "options", append(allowed, "partial")...)
	c.partial = f.boolean("partial")
	c.validateOnly = f.has("validate_only") && lua.LVAsBool(f.get("validate_only"))
	return f, f.err
}

// Strings reads argument n as a string or array of strings. When optional
// and absent it returns nil.
func (c *Call) Strings(n int, what string, optional bool) ([]string, error) {
	v := c.Arg(n)
	if v == lua.LNil {
		if optional {
			return nil, nil
		}
		return nil, argErr(what, "is required")
	}
	out, err := stringList(v, what)
	if err != nil {
		return nil, err
	}
	if len(out) == 0 && !optional {
		return nil, argErr(what, "must name at least one")
	}
	return out, nil
}

// Table reads argument n as a table.
func (c *Call) Table(n int, what string) (*lua.LTable, error) {
	t, ok := c.Arg(n).(*lua.LTable)
	if !ok {
		return nil, argErr(what, "must be a table, got %s", describe(c.Arg(n)))
	}
	return t, nil
}

// optionsAndClient reads the options table at argument n (allowing those
// keys and partial), then connects: the common start of most functions'
// Run.
func (c *Call) optionsAndClient(n int, allowed ...string) (*fields, *engine.Client, error) {
	o, err := c.Options(n, allowed...)
	if err != nil {
		return nil, nil, err
	}
	cl, err := c.Client()
	return o, cl, err
}

// clientAfterOptions is optionsAndClient for a function whose only option
// is partial.
func (c *Call) clientAfterOptions(n int) (*engine.Client, error) {
	_, cl, err := c.optionsAndClient(n)
	return cl, err
}
