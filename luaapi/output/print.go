package output

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
	// HoldBack is how much output is held back before the first write:
	// a value that turns out not to be printable (a cycle, a function
	// under -o json) prints nothing as long as its output is smaller.
	HoldBack = 1 << 20
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

// Host is what the printers need from the runtime the values belong to
// (luaapi's Runtime is one).
type Host interface {
	// Null is the value printed as JSON's null (kafka.json.null).
	Null() lua.LValue
	// ShapeOf is the declared shape of v when v is a function's result,
	// else nil.
	ShapeOf(v lua.LValue) *Shape
	// ErrorText is the message of t when t is an error value (ok true);
	// a table prints it instead of the table.
	ErrorText(t *lua.LTable) (text string, ok bool)
	// Note is the line a table prints instead of t, or "": a dry run's
	// result whose plan was printed.
	Note(t *lua.LTable) string
	// Display is tostring(v), which may run a __tostring metamethod.
	Display(v lua.LValue) (string, error)
}

// Print writes values to w the way format (one of Outputs) asks, one line
// block per value, streaming: see printBuf. A value that cannot be printed
// is an error naming where in it ("value.a: cyclic table"); what was
// already written (past HoldBack of output) stays written. Failing to
// write is a *WriteError.
func Print(w io.Writer, h Host, values []lua.LValue, format string) error {
	out := newPrintBuf(w, HoldBack)
	for _, v := range values {
		start := out.Len()
		err := printOne(out, h, v, format)
		if out.err != nil {
			return &WriteError{Err: out.err}
		}
		if err != nil {
			return err
		}
		// One line block per value; an empty array under ndjson is no
		// line at all.
		if (out.Len() == start && format != "ndjson") || (out.Len() > start && out.lastByte() != '\n') {
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

// FormatData renders v, plain data with no declared shape (luaapi's
// FormatGo converts it from Go), as "json", "ndjson" or "yaml" output
// writes a function's result; any other format is "json".
func FormatData(v lua.LValue, format string) (string, error) {
	var b strings.Builder
	out := newPrintBuf(&b, 0)
	var err error
	switch format {
	case "ndjson":
		err = writeNDJSON(out, v, nil, nil)
	case "yaml":
		err = writeYAML(out, v, nil, nil)
	default:
		err = writeJSONShaped(out, v, nil, nil, "  ")
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
