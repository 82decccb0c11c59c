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
	dst io.Writer
	buf []byte
	// held are the full blocks held back before the first write: a list,
	// not one buffer grown by doubling, so holding back 330 KB (peek of
	// 1,000 records) copies nothing and touches no more memory than the
	// output itself (with no collection in a short run, each doubling
	// was fresh pages: a quarter of peek's page faults).
	held    [][]byte
	heldLen int
	flushed int // bytes already written to dst
	hold    int // bytes held back before the first write
	err     error
	last    byte // the last byte written on
	// marks, when set, marks the table cells that changed (PrintMarked);
	// tabled says the value being printed was an aligned table.
	marks  *Marks
	tabled bool
}

func newPrintBuf(dst io.Writer, hold int) *printBuf {
	return &printBuf{dst: dst, hold: hold, buf: make([]byte, 0, printBlock)}
}

// Len is how much has been printed, written on or not.
func (p *printBuf) Len() int { return p.flushed + p.heldLen + len(p.buf) }

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
// held-back start; before that, a full block is set aside for later.
func (p *printBuf) spill() {
	switch {
	case len(p.buf) < printBlock:
	case p.flushed > 0 || p.Len() >= p.hold:
		_ = p.Flush()
	default:
		p.held = append(p.held, p.buf)
		p.heldLen += len(p.buf)
		p.buf = make([]byte, 0, printBlock)
	}
}

// Flush writes what is buffered. The first write error is kept and
// returned from then on; later output is dropped.
func (p *printBuf) Flush() error {
	if b := p.lastByte(); p.Len() > p.flushed {
		p.last = b
	}
	for _, b := range append(p.held, p.buf) {
		if p.err == nil && len(b) > 0 {
			n, err := p.dst.Write(b)
			p.flushed += n
			if err == nil && n < len(b) {
				err = io.ErrShortWrite
			}
			p.err = err
		}
	}
	p.held, p.heldLen, p.buf = nil, 0, p.buf[:0]
	return p.err
}

// since is what was printed from offset start (at or past flushed) on.
func (p *printBuf) since(start int) string {
	var b strings.Builder
	at := p.flushed
	for _, c := range append(p.held, p.buf) {
		if from := start - at; from < len(c) {
			b.Write(c[max(from, 0):])
		}
		at += len(c)
	}
	return b.String()
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
	// RowsOf is v's rows when v hands them out one at a time (a paged
	// read's iterator), else nil.
	RowsOf(v lua.LValue) Rows
}

// Print writes values to w the way format (one of Outputs) asks, one line
// block per value, streaming: see printBuf. A value that cannot be printed
// is an error naming where in it ("value.a: cyclic table"); what was
// already written (past HoldBack of output) stays written. Failing to
// write is a *WriteError. A value that hands out rows (Rows) is printed
// as they come, and the error its rows end with is returned as it is.
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
	switch {
	case len(p.buf) > 0:
		return p.buf[len(p.buf)-1]
	case len(p.held) > 0:
		h := p.held[len(p.held)-1]
		return h[len(h)-1]
	}
	return p.last
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
