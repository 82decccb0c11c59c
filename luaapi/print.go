package luaapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/luaapi/output"
)

// How values are printed (table, JSON, NDJSON, YAML, Lua) is package
// output's. The runtime gives the printers what only it knows, as their
// output.Host: kafka.json.null, a result's declared shape, error values, the
// dry-run results whose plan was printed, and tostring.

// Outputs are the formats --output and kafka.pp print in.
var Outputs = output.Outputs

// WriteError is Print's error when the output could not be written.
type WriteError = output.WriteError

// TerminalText returns s with what could drive a terminal escaped:
// controls as \x1b (\n and \t are kept, for multi-line messages), other
// non-printing characters as \u202e, bytes that are not UTF-8 as \xff.
// Backslashes are kept as they are. For error messages and printed results.
func TerminalText(s string) string { return output.TerminalText(s) }

// The one escaping rule's other forms (luaapi/output/escape.go), for the
// CLI's own printers: CellText for one-line text (a table cell, a header, a
// line prefix), MessageText for an error on lines of its own, LogValue for
// a key=value log line, EscapeJSON for encoding/json's output.
func CellText(s string) string    { return output.CellText(s) }
func MessageText(s string) string { return output.MessageText(s) }
func LogValue(s string) string    { return output.LogValue(s) }
func EscapeJSON(b []byte) []byte  { return output.EscapeJSON(b) }

// Print writes values as Format renders them, streaming: a result of a
// million rows is printed with no more memory than a block of output. A
// value that cannot be printed is an error naming where in it ("value.a:
// cyclic table"); what was already written (past output.HoldBack of output)
// stays written. Failing to write is a *WriteError.
//
// An iterator a paged read returned ({iterate = true}) prints as its rows,
// read as they are printed, under the memory limit when no chunk is
// running; its error (a page that could not be read, rows that failed) is
// the *RunError the chunk would have raised.
func (r *Runtime) Print(w io.Writer, values []lua.LValue, format string) error {
	h := (*printHost)(r)
	if r.L.Context() == nil && r.opts.MaxMemory > 0 && h.printsRows(values) {
		ctx, stop := watchMemory(context.Background(), r.opts.MaxMemory, r.opts.Runaway, true)
		defer stop()
		r.L.SetContext(ctx)
		defer r.L.RemoveContext()
	}
	return output.Print(w, h, values, format)
}

// Format renders values the way --output asks (Outputs): "json" as
// indented JSON (arrays stay arrays, [] for empty), "ndjson" a line per
// element, "yaml", "table" as an aligned table for arrays of records and as
// indented Lua otherwise. One value per line block.
func (r *Runtime) Format(values []lua.LValue, format string) (string, error) {
	var b strings.Builder
	if err := r.Print(&b, values, format); err != nil {
		return "", err
	}
	return b.String(), nil
}

// FormatGo renders a Go value (structs with json tags, slices, maps) as
// "json", "ndjson" or "yaml" output does a function's result: the same
// conversion, keys, quoting and escaping. For commands that print data
// without a runtime (version, undo, runbooks).
func FormatGo(v any, format string) (string, error) {
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	return output.FormatData(newConverter(L).toLua(v), format)
}

// printHost is the Runtime as the printers' output.Host.
type printHost Runtime

func (h *printHost) Null() lua.LValue { return (*Runtime)(h).null() }

func (h *printHost) ShapeOf(v lua.LValue) *Shape { return shapeOf(v) }

func (h *printHost) ErrorText(t *lua.LTable) (string, bool) {
	if _, ok := isErrorValue(h.L, t); !ok {
		return "", false
	}
	return errorText(t), true
}

func (h *printHost) Note(t *lua.LTable) string { return (*Runtime)(h).plannedNote(t) }

// Display is tostring(v). A __tostring metamethod is Lua code, and Format
// runs after the chunk, outside its protected call: an error there would
// crash the process. So it is called protected, and under the memory
// limit when no chunk is running.
func (h *printHost) Display(v lua.LValue) (string, error) {
	r := (*Runtime)(h)
	L := r.L
	fn := L.GetMetaField(v, "__tostring")
	if fn == lua.LNil {
		return v.String(), nil
	}
	if L.Context() == nil && r.opts.MaxMemory > 0 {
		ctx, stop := watchMemory(context.Background(), r.opts.MaxMemory, r.opts.Runaway, true)
		defer stop()
		L.SetContext(ctx)
		defer L.RemoveContext()
	}
	top := L.GetTop()
	defer L.SetTop(top)
	L.Push(fn)
	L.Push(v)
	if err := L.PCall(1, 1, nil); err != nil {
		var api *lua.ApiError
		if errors.As(err, &api) && api.Object != nil {
			return "", fmt.Errorf("__tostring failed: %s", lua.LVAsString(api.Object))
		}
		return "", fmt.Errorf("__tostring failed: %w", err)
	}
	s, ok := L.Get(-1).(lua.LString)
	if !ok {
		return "", fmt.Errorf("__tostring returned a %s, not a string", L.Get(-1).Type())
	}
	return string(s), nil
}
