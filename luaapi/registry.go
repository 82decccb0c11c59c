package luaapi

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

// Func declares one Lua function.
type Func struct {
	Name string // snake_case, named after the Kafka admin operation
	Area string // the file it lives in: "topics", "groups", ...
	// Params are the positional arguments and Options the keys of the
	// options table that follows them. The dispatcher reads every argument
	// through them before Run, so Run gets typed values (param[T](c, name))
	// and a refused call sends nothing. help, docs and completion describe
	// the call from the same declaration.
	Params  []Param
	Options []Field
	// TableCall: the function is called with one table of named arguments,
	// reset_offsets{group=, to=}; its keys are Options (some Required).
	TableCall bool
	// NoArgs: the function takes no arguments at all (describe_cluster()).
	NoArgs bool
	// CheckArgs, when set, checks rules across arguments the Types cannot
	// (a TableCall's keys have no record of their own). It runs after the
	// arguments are read, before confirmation and before anything is sent.
	CheckArgs func(c *Call) error
	// Variadic: the last parameter repeats (kafka.pp(value...)); Run gets
	// its values as []any.
	Variadic bool
	// Batch: the result is one item per request item, each with its own
	// error; the function takes {partial=}.
	Batch bool
	// ValidateOnly: Kafka can check this mutation without applying it; the
	// function takes {validate_only=} and --dry-run uses it. Set by
	// register from the engine's operations table, never declared.
	ValidateOnly bool
	Args         string // transitional: the call's shape for undeclared functions (plugins)
	Returns      string // the result's shape, typed (results.go: Shape)
	Summary      string // one line
	Doc          string // paragraphs, plain text
	Example      string // Lua that runs against the demo cluster (tested)
	// Mutating (changes the cluster: dry-run and audit apply) and
	// Destructive (the REPL asks first unless --yes) are set by register
	// from the function's row in the engine's operations table
	// (engine/operations.go), never declared: one table says it.
	Mutating    bool
	Destructive bool
	Operation   *engine.Operation // that row; nil for a function that changes nothing
	Aliases     []string          // other names (kafka-python's) bound to the same function
	// Needs is what the function needs of a cluster beyond what every
	// Kafka kadmin-lua supports has (3.9 on, ZooKeeper or KRaft): a
	// request from a release on, KRaft, a finalized feature. The
	// dispatcher checks them against the cluster's ApiVersions answer
	// before Run, so a cluster without them gets UNSUPPORTED_VERSION
	// naming the need and is sent nothing else; help, docs and
	// docs/compatibility.md show them. Nil: works on every supported Kafka.
	Needs      []engine.Need
	SecretArgs []int // positions (1-based) of arguments that are secrets: never audited or shown
	// DryRunKey, when set, is a key of the first argument's table that asks
	// for a dry run of this call alone: reset_offsets{..., dry_run=true}.
	DryRunKey string
	// Run does the work. It returns a Go value (structs with json tags,
	// slices, maps, scalars) that the dispatcher converts to Lua; a slice of
	// engine.Item gets batch-error handling.
	Run func(c *Call) (any, error)
	// Native, instead of Run, implements a library function (kafka.sleep,
	// kafka.json.encode, help, ...) that needs no client. Its Name is the
	// dotted path it is installed at.
	// It gets the call with its arguments read through the declaration
	// (param[T](c, name)).
	Native func(r *Runtime, c *Call) int

	opts atomic.Pointer[funcOptions] // options(), worked out once (params.go)

	shapeOnce sync.Once // resultShape(), parsed once (results.go)
	shape     *Shape
}

// IsAdmin reports whether f is an admin function (a global and a client
// method) rather than a library function.
func (f *Func) IsAdmin() bool { return f.Native == nil }

var registry = map[string]*Func{}

// register adds declarations; called from each area file's init.
func register(fs ...*Func) {
	for _, f := range fs {
		if f.Mutating || f.Destructive || f.ValidateOnly || f.Operation != nil {
			panic("luaapi: " + f.Name + ": Mutating, Destructive and ValidateOnly come from engine's operations table, not the declaration")
		}
		if op := engine.LookupOperation(f.Name); op != nil && f.IsAdmin() {
			f.Operation = op
			f.Mutating, f.Destructive, f.ValidateOnly = true, op.Destructive, op.DryRun == engine.DryRunValidate
		}
		for _, n := range append([]string{f.Name}, f.Aliases...) {
			if _, dup := registry[n]; dup {
				panic("luaapi: function declared twice: " + n)
			}
			registry[n] = f
		}
	}
	sortedFuncs.Store(nil)
}

// sortedFuncs is Funcs' answer, worked out once after the declarations.
var sortedFuncs atomic.Pointer[[]*Func]

// Funcs returns every declared function (not aliases), sorted by area then
// name. The caller must not change the list.
func Funcs() []*Func {
	if fs := sortedFuncs.Load(); fs != nil {
		return *fs
	}
	var out []*Func
	for n, f := range registry {
		if n == f.Name {
			out = append(out, f)
		}
	}
	slices.SortFunc(out, func(a, b *Func) int {
		if c := strings.Compare(a.Area, b.Area); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	sortedFuncs.Store(&out)
	return out
}

// Lookup finds a function by name or alias.
func Lookup(name string) *Func { return registry[name] }
