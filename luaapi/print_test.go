package luaapi

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/luaapi/output"
)

// heapWatcher is a writer that remembers the largest live heap seen while
// it was written to (collecting garbage first, now and then).
type heapWatcher struct {
	n, writes int
	peak      uint64
}

func (h *heapWatcher) Write(p []byte) (int, error) {
	h.n += len(p)
	if h.writes++; h.writes%32 == 0 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		h.peak = max(h.peak, ms.HeapAlloc)
	}
	return len(p), nil
}

// Printing a big result streams it: the heap does not grow with the
// output (the rows themselves are the script's).
func TestPrintStreamsInBoundedMemory(t *testing.T) {
	e := newBareEnv(t, Options{})
	vals, err := e.rt.DoString(context.Background(), "rows", `
		local rows = {}
		-- Long names: output of many megabytes from rows few enough to
		-- print quickly under -race.
		local prefix = "topic-" .. string.rep("x", 100) .. "-"
		for i = 1, 60000 do
			rows[i] = {topic = prefix .. (i % 100), partition = i % 1000, offset = i, lag = 7}
		end
		return rows`)
	require.NoError(t, err)
	for _, format := range Outputs {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		w := &heapWatcher{}
		require.NoError(t, e.rt.Print(w, vals, format))
		assert.Greater(t, w.n, 6<<20, "%s: the output is bigger than what the heap may grow by", format)
		assert.Less(t, int64(w.peak)-int64(ms.HeapAlloc), int64(4<<20), format)
	}
}

// Print writes exactly what Format returns.
func TestPrintIsFormat(t *testing.T) {
	e := newBareEnv(t, Options{})
	vals, err := e.rt.DoString(context.Background(), "v", `
		local rows = {}
		for i = 1, 3000 do rows[i] = {name = "n" .. i, n = i / 3, ok = i % 2 == 0, tags = {"a", i}} end
		return rows, {a = {1, 2, {b = "x\27"}}}, "text", 42, nil`)
	require.NoError(t, err)
	for _, format := range Outputs {
		want, err := e.rt.Format(vals, format)
		require.NoError(t, err)
		var b bytes.Buffer
		require.NoError(t, e.rt.Print(&b, vals, format))
		assert.Equal(t, want, b.String(), format)
		assert.Greater(t, b.Len(), output.HoldBack/10)
	}
}

// A value that cannot be printed prints nothing when its output is
// small (held back), and stops where it fails when it is big.
func TestPrintErrorsAfterHoldBack(t *testing.T) {
	e := newBareEnv(t, Options{})
	var b bytes.Buffer
	small := e.run(`return {1, 2, print}`)
	err := e.rt.Print(&b, []lua.LValue{small}, "json")
	require.EqualError(t, err, "value[3]: JSON cannot hold a function")
	assert.Empty(t, b.String())

	// Several blocks of output, under the hold-back: still nothing.
	medium := e.run(`local t = {} for i = 1, 20000 do t[i] = "row " .. i end t[#t + 1] = print return t`)
	err = e.rt.Print(&b, []lua.LValue{medium}, "json")
	require.EqualError(t, err, "value[20001]: JSON cannot hold a function")
	assert.Empty(t, b.String())

	big := e.run(`local t = {} for i = 1, 100000 do t[i] = "row " .. i end t[#t + 1] = print return t`)
	err = e.rt.Print(&b, []lua.LValue{big}, "json")
	require.EqualError(t, err, "value[100001]: JSON cannot hold a function")
	assert.True(t, strings.HasPrefix(b.String(), "[\n  \"row 1\",\n"), "past the hold-back the output went out")
	assert.Greater(t, b.Len(), output.HoldBack)
	assert.NotContains(t, b.String(), "row 100000", "the block being printed when it failed is not written")
}

type failingWriter struct{ after int }

func (f *failingWriter) Write(p []byte) (int, error) {
	if f.after -= len(p); f.after < 0 {
		return 0, errors.New("broken pipe")
	}
	return len(p), nil
}

func TestPrintWriteErrors(t *testing.T) {
	e := newBareEnv(t, Options{})
	big := e.run(`local t = {} for i = 1, 300000 do t[i] = i end return t`)
	err := e.rt.Print(&failingWriter{after: output.HoldBack}, []lua.LValue{big}, "json")
	var we *WriteError
	require.ErrorAs(t, err, &we)
	assert.EqualError(t, we.Err, "broken pipe")
	require.ErrorAs(t, e.rt.Print(&failingWriter{}, []lua.LValue{lua.LNumber(1)}, "table"), &we)
}
