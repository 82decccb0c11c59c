package luaapi

import (
	"io"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Printing streams: the JSON, table and Lua printers write to a printBuf
// as they walk the value, so a result of a million rows is printed with no
// more memory than a block of output (the rows themselves are the
// script's). What is printed is the same as building it whole.

const (
	// printBlock is how much output is written at a time.
	printBlock = 64 << 10
	// printHold is how much output is held back before the first write:
	// a value that turns out not to be printable (a cycle, a function
	// under -o json) prints nothing as long as its output is smaller.
	printHold = 1 << 20
)

// printBuf buffers the printers' output and counts it (the guard limits
// output by size).
type printBuf struct {
	dst     io.Writer
	buf     []byte
	flushed int // bytes already written to dst
	hold    int // bytes held back before the first write
	err     error
	last    byte // the last byte written on
}

func newPrintBuf(dst io.Writer, hold int) *printBuf {
	return &printBuf{dst: dst, hold: hold, buf: make([]byte, 0, 512)} // grows as the output does
}

// Len is how much has been printed, written on or not.
func (p *printBuf) Len() int { return p.flushed + len(p.buf) }

func (p *printBuf) Write(b []byte) (int, error) {
	p.buf = append(p.buf, b...)
	p.spill()
	return len(b), nil
}

func (p *printBuf) WriteString(s string) (int, error) {
	p.buf = append(p.buf, s...)
	p.spill()
	return len(s), nil
}

func (p *printBuf) WriteByte(c byte) error {
	p.buf = append(p.buf, c)
	if len(p.buf) >= printBlock {
		p.spill()
	}
	return nil
}

// spill writes the buffer on once it holds a block, and is past the
// held-back start.
func (p *printBuf) spill() {
	if len(p.buf) >= printBlock && (p.flushed > 0 || len(p.buf) >= p.hold) {
		_ = p.Flush()
	}
}

// Flush writes what is buffered. The first write error is kept and
// returned from then on; later output is dropped.
func (p *printBuf) Flush() error {
	if len(p.buf) > 0 {
		p.last = p.buf[len(p.buf)-1]
	}
	if p.err == nil && len(p.buf) > 0 {
		n, err := p.dst.Write(p.buf)
		p.flushed += n
		if err == nil && n < len(p.buf) {
			err = io.ErrShortWrite
		}
		p.err = err
	}
	p.buf = p.buf[:0]
	return p.err
}

// Print writes values as Format renders them, streaming: see printBuf. A
// value that cannot be printed is an error naming where in it ("value.a:
// cyclic table"); what was already written (past printHold of output)
// stays written. Failing to write is a *WriteError.
func (r *Runtime) Print(w io.Writer, values []lua.LValue, output string) error {
	out := newPrintBuf(w, printHold)
	for _, v := range values {
		start := out.Len()
		err := r.printOne(out, v, output)
		if out.err != nil {
			return &WriteError{Err: out.err}
		}
		if err != nil {
			return err
		}
		// One line block per value; an empty array under ndjson is no
		// line at all.
		if (out.Len() == start && output != "ndjson") || (out.Len() > start && out.lastByte() != '\n') {
			out.WriteByte('\n')
		}
	}
	if err := out.Flush(); err != nil {
		return &WriteError{Err: err}
	}
	return nil
}

// WriteError is Print's error when the output could not be written.
type WriteError struct{ Err error }

func (e *WriteError) Error() string { return e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }

// lastByte is the last byte printed.
func (p *printBuf) lastByte() byte {
	if len(p.buf) == 0 {
		return p.last
	}
	return p.buf[len(p.buf)-1]
}

// Format renders values the way --output asks (Outputs; printOne): "json"
// as indented JSON (arrays stay arrays, [] for empty), "ndjson" a line per
// element, "yaml", "table" as an aligned table for arrays of records and as
// indented Lua otherwise. One value per line block.
func (r *Runtime) Format(values []lua.LValue, output string) (string, error) {
	var b strings.Builder
	if err := r.Print(&b, values, output); err != nil {
		return "", err
	}
	return b.String(), nil
}

// FormatGo renders a Go value (structs with json tags, slices, maps) as
// "json", "ndjson" or "yaml" output does a function's result: the same
// conversion, keys, quoting and escaping. For commands that print data
// without a runtime (version, undo, runbooks).
func FormatGo(v any, output string) (string, error) {
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	lv := newConverter(L).toLua(v)
	var b strings.Builder
	out := newPrintBuf(&b, 0)
	var err error
	switch output {
	case "ndjson":
		err = writeNDJSON(out, lv, nil, nil)
	case "yaml":
		err = writeYAML(out, lv, nil, nil)
	default:
		err = writeJSONShaped(out, lv, nil, nil, "  ")
		out.WriteByte('\n')
	}
	if err != nil {
		return "", err
	}
	if err := out.Flush(); err != nil {
		return "", err
	}
	return b.String(), nil
}
