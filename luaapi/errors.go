package luaapi

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/alerts"
	"github.com/kadmin-lua/kadmin-lua/luaapi/output"
)

const errorTypeName = "kafka.error"

// installErrorType creates the metatable of error values: tostring(err)
// gives "op: resource: CODE: message".
func installErrorType(L *lua.LState) {
	mt := L.NewTypeMetatable(errorTypeName)
	mt.RawSetString("__kind", lua.LString("object"))
	mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		t := L.CheckTable(1)
		L.Push(lua.LString(errorText(t)))
		return 1
	}))
}

// errorTable builds a Lua error value from an engine error. results, when
// not nil, holds every item of a failed batch.
func errorTable(L *lua.LState, op string, e *engine.Error, results lua.LValue) *lua.LTable {
	t := L.CreateTable(0, 6)
	t.RawSetString("code", lua.LString(e.Code))
	t.RawSetString("message", lua.LString(e.Message))
	t.RawSetString("retriable", lua.LBool(e.Retriable))
	if op != "" {
		t.RawSetString("op", lua.LString(op))
	}
	if e.Resource != "" {
		t.RawSetString("resource", lua.LString(e.Resource))
	}
	if e.Mechanism != "" {
		t.RawSetString("mechanism", lua.LString(e.Mechanism))
	}
	if results != nil {
		t.RawSetString("results", results)
	}
	t.Metatable = L.GetTypeMetatable(errorTypeName)
	return t
}

// isErrorValue reports whether v is one of our error tables.
func isErrorValue(L *lua.LState, v lua.LValue) (*lua.LTable, bool) {
	t, ok := v.(*lua.LTable)
	if !ok {
		return nil, false
	}
	return t, t.Metatable == L.GetTypeMetatable(errorTypeName)
}

func errorText(t *lua.LTable) string {
	get := func(k string) string {
		if v := t.RawGetString(k); v != lua.LNil {
			return lua.LVAsString(v)
		}
		return ""
	}
	var parts []string
	for _, p := range []string{get("op"), get("resource")} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	code, msg := get("code"), get("message")
	if code != "" && code != engine.CodeInvalidArgument && code != "FAIL" {
		if m := get("mechanism"); m != "" {
			code += " (" + m + ")"
		}
		parts = append(parts, code)
	}
	if op := get("op"); op != "" {
		// An engine package that names its call itself (engine/moves'
		// "reassign: ...") is not named twice.
		msg = strings.TrimPrefix(msg, op+": ")
	}
	if msg != "" && msg != code {
		parts = append(parts, msg)
	}
	return strings.Join(parts, ": ")
}

// raise throws err as a Lua error value for op. It does not return.
func raise(L *lua.LState, op string, err error, results lua.LValue) {
	L.Error(errorTable(L, op, toEngineError(L, err), results), 0)
}

func toEngineError(L *lua.LState, err error) *engine.Error {
	var e *engine.Error
	if errors.As(err, &e) {
		return e
	}
	if ctx := L.Context(); ctx != nil && ctx.Err() != nil {
		return engine.AsError(ctx.Err(), "")
	}
	return engine.AsError(err, "")
}

// batchError summarizes a failed batch: the first failure, and exactly which
// items were applied (a read: succeeded) and which failed. Under a dry run
// (or validate_only) nothing was applied: it says which items would be and
// which were refused.
func batchError(items []engine.Item, mutating, dryRun bool) *engine.Error {
	if !slices.ContainsFunc(items, func(it engine.Item) bool { return it.Failure() != nil }) {
		return nil // no key named (some are formatted) and no list built
	}
	var first *engine.Error
	var ok, failed []string
	var phases phaseCounts
	for _, it := range items {
		if f := it.Failure(); f != nil {
			if first == nil {
				first = f
			}
			failed = append(failed, it.Key())
			phases.add(it)
		} else {
			ok = append(ok, it.Key())
		}
	}
	if first == nil {
		return nil
	}
	e := *first
	if e.Resource == "" && len(failed) > 0 {
		e.Resource = failed[0]
	}
	applied := "none"
	if len(ok) > 0 {
		applied = nameList(ok)
	}
	switch {
	case dryRun:
		e.Message = fmt.Sprintf("%s (dry run, nothing changed: %d of %d refused in validation: %s; would apply: %s)", e.Message,
			len(failed), len(items), nameList(failed), applied)
	case len(items) > 1:
		done := "applied"
		if !mutating {
			done = "succeeded" // a read changed nothing
		}
		e.Message = fmt.Sprintf("%s (%d of %d failed%s: %s; %s: %s)", e.Message, len(failed), len(items),
			phases, nameList(failed), done, applied)
	}
	return &e
}

// phaseCounts counts failed items by the phase of a paged read they
// failed in (lag's failed_in), so that the error a read raises says it:
// the rows that do are not in a CronJob's log.
type phaseCounts map[string]int

func (pc *phaseCounts) add(it engine.Item) {
	p, ok := it.(interface{ FailurePhase() string })
	if !ok || p.FailurePhase() == "" {
		return
	}
	if *pc == nil {
		*pc = phaseCounts{}
	}
	(*pc)[p.FailurePhase()]++
}

// String is " in fetch_offsets" when every failure says the same phase,
// " (fetch_offsets 3, list_offsets 1)" when they say several, "" when
// none says one.
func (pc phaseCounts) String() string {
	switch names := slices.Sorted(maps.Keys(pc)); len(names) {
	case 0:
		return ""
	case 1:
		return " in " + names[0]
	default:
		parts := make([]string, len(names))
		for i, n := range names {
			parts[i] = fmt.Sprintf("%s %d", n, pc[n])
		}
		return " (" + strings.Join(parts, ", ") + ")"
	}
}

// maxNamesListed bounds the items an error names in a list: a read of
// 65,000 groups with one failure named the other 64,999 (err.results has
// every item).
const maxNamesListed = 50

// nameList joins names, the first maxNamesListed of them.
func nameList(names []string) string {
	if len(names) <= maxNamesListed {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:maxNamesListed], ", "), len(names)-maxNamesListed)
}

// ErrorKind classifies how a run ended, for exit codes.
type ErrorKind int

const (
	KindScript   ErrorKind = iota // a Lua runtime error, kafka.fail, a bad argument
	KindSyntax                    // the chunk did not compile
	KindKafka                     // a Kafka error code, connection, auth or timeout
	KindCanceled                  // interrupted (Ctrl-C, SIGINT)
)

// RunError is how a failed run is reported: what to print, and what kind of
// failure it was.
type RunError struct {
	Kind    ErrorKind
	Code    string // the error value's code, when there is one
	Message string
	Trace   string
}

func (e *RunError) Error() string { return e.Message }

// classify turns what PCall returned into a RunError.
func classify(L *lua.LState, ctx context.Context, err error) *RunError {
	if err == nil {
		return nil
	}
	if me := memoryCause(ctx); me != nil { // whatever the canceled call said
		return &RunError{Kind: KindScript, Code: CodeMemory, Message: CodeMemory + ": " + me.Error()}
	}
	var api *lua.ApiError
	if !errors.As(err, &api) {
		if ctx.Err() != nil {
			return &RunError{Kind: KindCanceled, Code: engine.CodeCanceled, Message: "interrupted"}
		}
		return &RunError{Kind: KindScript, Message: err.Error()}
	}
	if api.Type == lua.ApiErrorSyntax {
		return &RunError{Kind: KindSyntax, Message: syntaxMessage(api)}
	}
	re := &RunError{Kind: KindScript, Trace: api.StackTrace}
	if t, ok := isErrorValue(L, api.Object); ok {
		re.Code = lua.LVAsString(t.RawGetString("code"))
		re.Message = errorText(t)
		switch re.Code {
		case engine.CodeInvalidArgument, engine.CodeDryRun, engine.CodeUnknown, engine.CodeInternal, CodeMemory, engine.CodeAudit, alerts.CodeNotifyFailed, engine.CodeStateLocked, engine.CodeStateFile, "FAIL", "":
		case engine.CodeCanceled:
			re.Kind = KindCanceled
		default:
			re.Kind = KindKafka
		}
		return re
	}
	if api.Object != nil {
		re.Message = lua.LVAsString(api.Object)
		if tbl, ok := api.Object.(*lua.LTable); ok {
			re.Message = errorObjectText(tbl)
		}
	} else {
		re.Message = api.Error()
	}
	if ctx.Err() != nil && (strings.Contains(re.Message, "context canceled") || strings.Contains(re.Message, "context deadline")) {
		re.Kind, re.Code, re.Message = KindCanceled, engine.CodeCanceled, "interrupted"
	}
	return re
}

// errorObjectText renders a table raised with error(tbl) that is not one
// of ours: as compact JSON, or, for a table no text can hold (a cyclic
// one), a message that says so.
func errorObjectText(t *lua.LTable) string {
	v, err := goValue(t, "value")
	if err != nil {
		return "error(table): " + err.Error()
	}
	return output.CompactValue(v)
}

// syntaxMessage gives a syntax error as "file:line:column: message near
// 'token'", the file:line form editors and lua.c users expect (gopher-lua
// says "file line:3(column:5) near 'x':   syntax error").
func syntaxMessage(api *lua.ApiError) string {
	var pe *parse.Error
	if errors.As(api.Cause, &pe) {
		return fmt.Sprintf("%s:%d:%d: %s near '%s'", pe.Pos.Source, pe.Pos.Line, pe.Pos.Column, pe.Message, pe.Token)
	}
	if api.Object != nil {
		return lua.LVAsString(api.Object)
	}
	return api.Error()
}
