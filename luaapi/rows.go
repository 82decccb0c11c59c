package luaapi

import (
	"context"
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/luaapi/output"
)

// Rows that stream: the whole-cluster reads (lag, lag_status,
// describe_topics, list_offsets, topic_sizes) can return, with
// {iterate = true}, an iterator instead of a table, for a generic for:
//
//	for g in lag(nil, {summary = true, iterate = true}) do ... end
//
// The engine reads a page at a time (the next page while the script
// handles this one), each row is made a Lua table when the iterator
// returns it, and nothing keeps the rows already returned: a script that
// does not keep them never holds the whole cluster.

// iterateOption is the option every paged read takes.
var iterateOption = Field{Name: "iterate", Type: Bool(), Doc: "return an iterator for a generic for (`for row in f(..., {iterate = true}) do`) instead of a table: rows are read a page at a time and made as the loop asks for them, so a script that keeps none of them never holds the whole cluster; returned from a chunk (-e, run, the REPL) it prints as the table would, its rows as they come"}

// iterCtx is the context an iterator's pages are read under. It is not
// the call's, which is over once the iterator is returned, nor the
// chunk's, which ends with the chunk (a returned iterator is read by the
// printer after it): it is the context the chunk was run with (Ctrl-C
// ends it), also ended by the memory limit firing in the chunk, by the
// runtime's Close, and by the iterator's end (rowIterator calls
// c.iterStop).
func (c *Call) iterCtx() context.Context {
	r, running := c.rt, c.L.Context()
	base := r.callerCtx
	if base == nil {
		base = running
	}
	if base == nil {
		base = context.Background()
	}
	ctx, cancel := context.WithCancelCause(base)
	stops := []func() bool{context.AfterFunc(r.life, func() { cancel(nil) })}
	if running != nil && running != base {
		stops = append(stops, context.AfterFunc(running, func() {
			if me := memoryCause(running); me != nil {
				cancel(me)
			}
		}))
	}
	c.iterStop = func() {
		for _, stop := range stops {
			stop()
		}
		cancel(nil)
	}
	return ctx
}

// rowIterator makes the Lua iterator over a paged read: each call returns
// the next row, nil after the last. next returns the next page (nil after
// the last), closeRead lets go of the read (called once: at the end, on
// an error, or never if the loop stops early; the read then ends with the
// runtime's context). A row with an error is returned like any other; at
// the end the iterator raises, as the call without iterate would (unless
// {partial=true}), naming the items that failed, so that a loop that went
// through a partial read ends as a failure.
func rowIterator[T any, PT interface {
	*T
	engine.Item
}](c *Call, noun string, next func() ([]T, error), closeRead func()) *lua.LFunction {
	r, name, partial, stop := c.rt, c.Fn.Name, c.partial, c.iterStop
	var (
		page        []T
		at, n       int
		done        bool
		first       *engine.Error
		failed      []string
		failedCount int
		phases      phaseCounts
	)
	finish := func() {
		if !done {
			done = true
			closeRead()
			if stop != nil {
				stop()
			}
		}
	}
	tag := r.L.NewUserData()
	tag.Value = rowsTag{fn: c.Fn}
	return r.L.NewClosure(func(L *lua.LState) int {
		for at >= len(page) {
			if done {
				L.Push(lua.LNil)
				return 1
			}
			p, err := next()
			if err != nil {
				finish()
				raise(L, name, err, nil)
			}
			if p == nil {
				finish()
				if first != nil && !partial {
					raise(L, name, iterationError(first, failed, failedCount, n, noun, phases), nil)
				}
				L.Push(lua.LNil)
				return 1
			}
			page, at = p, 0
		}
		row := PT(&page[at])
		at++
		n++
		if f := row.Failure(); f != nil {
			if first == nil {
				first = f
			}
			failedCount++
			phases.add(row)
			if len(failed) < maxNamesListed {
				failed = append(failed, row.Key())
			}
		}
		L.Push(r.conv.toLua(row))
		return 1
	}, tag)
}

// iterationError is what an iteration raises at its end when rows failed:
// the first failure, with how many of how many failed and which.
func iterationError(first *engine.Error, failed []string, count, total int, noun string, phases phaseCounts) *engine.Error {
	e := *first
	if e.Resource == "" && len(failed) > 0 {
		e.Resource = failed[0]
	}
	names := nameList(failed)
	if count > len(failed) {
		names = fmt.Sprintf("%s and %d more", names, count-len(failed))
	}
	e.Message = fmt.Sprintf("%s (%d of %d %s failed%s: %s; the loop had every row, each with its error)", e.Message, count, total, noun, phases, names)
	return &e
}

// readAll reads a paged read to its end into one table's rows (a filter
// without iterate); closeRead lets go of it.
func readAll[T any](next func() ([]T, error), closeRead func()) ([]T, error) {
	defer closeRead()
	out := []T{}
	for {
		page, err := next()
		if err != nil {
			return nil, err
		}
		if page == nil {
			return out, nil
		}
		out = append(out, page...)
	}
}

// rowsTag marks the iterators rowIterator makes (their one upvalue), so
// that the printers can tell them from other functions: returned from a
// chunk, an iterator prints as its rows (printHost.RowsOf).
type rowsTag struct{ fn *Func }

// RowsOf is v's rows when v is an iterator of a paged read.
func (h *printHost) RowsOf(v lua.LValue) output.Rows {
	f, ok := v.(*lua.LFunction)
	if !ok || !f.IsG || len(f.Upvalues) != 1 {
		return nil
	}
	ud, ok := f.Upvalues[0].Value().(*lua.LUserData)
	if !ok {
		return nil
	}
	tag, ok := ud.Value.(rowsTag)
	if !ok {
		return nil
	}
	return &printedRows{r: (*Runtime)(h), fn: f, shape: tag.fn.resultShape().Elem()}
}

// printedRows reads an iterator for the printers.
type printedRows struct {
	r     *Runtime
	fn    *lua.LFunction
	shape *Shape
}

func (p *printedRows) Shape() *Shape { return p.shape }

// Next calls the iterator protected (it raises when a page cannot be read,
// and at its end when rows failed): its error is a *RunError, as the
// chunk's would have been, so the exit code is the same.
func (p *printedRows) Next() (lua.LValue, error) {
	L := p.r.L
	ctx := L.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil { // the memory limit, while printing
		return nil, classify(L, ctx, err)
	}
	top := L.GetTop()
	defer L.SetTop(top)
	L.Push(p.fn)
	if err := L.PCall(0, 1, nil); err != nil {
		return nil, classify(L, ctx, err)
	}
	return L.Get(-1), nil
}

// printsRows reports whether any of values is an iterator the printers
// read.
func (h *printHost) printsRows(values []lua.LValue) bool {
	for _, v := range values {
		if h.RowsOf(v) != nil {
			return true
		}
	}
	return false
}
