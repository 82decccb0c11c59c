package luaapi

import (
	"context"
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
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
var iterateOption = Field{Name: "iterate", Type: Bool(), Doc: "return an iterator for a generic for (`for row in f(..., {iterate = true}) do`) instead of a table: rows are read a page at a time and made as the loop asks for them, so a script that keeps none of them never holds the whole cluster"}

// iterCtx is the context an iterator's pages are read under: the runtime's
// (Ctrl-C ends it), not the call's, which is over once the iterator is
// returned.
func (c *Call) iterCtx() context.Context {
	if ctx := c.L.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
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
	r, name, partial := c.rt, c.Fn.Name, c.partial
	var (
		page        []T
		at, n       int
		done        bool
		first       *engine.Error
		failed      []string
		failedCount int
	)
	finish := func() {
		if !done {
			done = true
			closeRead()
		}
	}
	return r.L.NewFunction(func(L *lua.LState) int {
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
					raise(L, name, iterationError(first, failed, failedCount, n, noun), nil)
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
			if len(failed) < maxNamesListed {
				failed = append(failed, row.Key())
			}
		}
		L.Push(r.conv.toLua(row))
		return 1
	})
}

// iterationError is what an iteration raises at its end when rows failed:
// the first failure, with how many of how many failed and which.
func iterationError(first *engine.Error, failed []string, count, total int, noun string) *engine.Error {
	e := *first
	if e.Resource == "" && len(failed) > 0 {
		e.Resource = failed[0]
	}
	names := nameList(failed)
	if count > len(failed) {
		names = fmt.Sprintf("%s and %d more", names, count-len(failed))
	}
	e.Message = fmt.Sprintf("%s (%d of %d %s failed: %s; the loop had every row, each with its error)", e.Message, count, total, noun, names)
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
