package output

import (
	"slices"

	lua "github.com/yuin/gopher-lua"
	yaml "go.yaml.in/yaml/v3"
)

// Rows is a value that hands out its rows one at a time: the iterator a
// paged read returns with {iterate = true}. Returned from a chunk, it is
// printed as the array of its rows would be, each row read as the
// printer gets to it, so the rows are never all held.
type Rows interface {
	// Next returns the next row, nil after the last. An error (a page
	// that could not be read, rows that failed) ends the printing.
	Next() (lua.LValue, error)
	// Shape is each row's declared shape, or nil.
	Shape() *Shape
}

// rowBlock is how many rows are printed at a time: a table's rows are
// aligned a block at a time, and each block is written on when done, so
// rows show as they come.
const rowBlock = 500

// printRows prints rows as format prints an array of them. JSON, NDJSON
// and YAML are the same text as the array's. A table is aligned a block
// at a time: a block goes on under the header of the one before, its
// columns no narrower, unless its columns differ (a new header then).
// What was printed is written on before an error from rows is returned,
// and JSON's array is then left open: a reader cannot take part of the
// rows for all of them.
func printRows(out *printBuf, h Host, rows Rows, format string) error {
	p := rowPrinter{out: out, h: h, rows: rows, shape: rows.Shape()}
	switch format {
	case "json", "ndjson":
		return p.json(format == "json")
	case "yaml":
		return p.yaml()
	}
	return p.table()
}

type rowPrinter struct {
	out   *printBuf
	h     Host
	rows  Rows
	shape *Shape
	n     int   // rows read
	err   error // the error the rows ended with
}

// block reads up to n rows; none at the end. The rows read before an
// error are returned with it: they are printed, then the error returned.
func (p *rowPrinter) block(dst []lua.LValue, n int) []lua.LValue {
	for len(dst) < n && p.err == nil {
		row, err := p.rows.Next()
		if err != nil {
			p.err = err
			break
		}
		if row == nil || row == lua.LNil {
			break
		}
		dst = append(dst, row)
	}
	return dst
}

// blockDone writes a printed block on; its error is the rows' when they
// ended with one.
func (p *rowPrinter) blockDone() error {
	if err := p.out.Flush(); err != nil {
		return err
	}
	return p.err
}

func (p *rowPrinter) json(indented bool) error {
	// Each row is written through a buffer of its own, emptied into out
	// after it: the guard's size counts one row's output, not all of it.
	row := newPrintBuf(p.out, 0)
	w := &jsonWriter{out: row, null: p.h.Null()}
	depth := 0
	if indented {
		w.indent, depth = "  ", 1
	}
	var block []lua.LValue
	for {
		if block = p.block(block[:0], rowBlock); len(block) == 0 {
			if p.err != nil {
				return p.blockDone()
			}
			break
		}
		for _, v := range block {
			p.n++
			switch {
			case !indented:
			case p.n == 1:
				row.WriteByte('[')
			default:
				row.WriteByte(',')
			}
			w.newline(depth)
			w.g = NewGuard("value") // a conversion of its own: the rows are never held together
			if err := w.value(nil, p.n, v, depth, p.shape); err != nil {
				return err
			}
			if !indented {
				row.WriteByte('\n')
			}
			_ = row.Flush()
			row.flushed = 0
		}
		if err := p.blockDone(); err != nil {
			return err
		}
	}
	switch {
	case !indented:
	case p.n == 0:
		p.out.WriteString("[]")
	default:
		w.out = p.out
		w.newline(0)
		p.out.WriteByte(']')
	}
	return p.out.err
}

func (p *rowPrinter) yaml() error {
	var block []lua.LValue
	for {
		if block = p.block(block[:0], yamlBatch); len(block) == 0 {
			if p.err != nil {
				return p.blockDone()
			}
			break
		}
		w := &yamlWriter{null: p.h.Null(), g: NewGuard("value")}
		seq := &yaml.Node{Kind: yaml.SequenceNode}
		for _, row := range block {
			p.n++
			n, err := w.node(nil, p.n, row, p.shape)
			if err != nil {
				return err
			}
			seq.Content = append(seq.Content, n)
		}
		if err := w.encode(p.out, seq); err != nil {
			return err
		}
		if err := p.blockDone(); err != nil {
			return err
		}
	}
	if p.n == 0 {
		return writeYAML(p.out, &lua.LTable{}, nil, p.h.Null())
	}
	return nil
}

func (p *rowPrinter) table() error {
	var (
		block []lua.LValue
		so    tableSoFar
	)
	for {
		if block = p.block(block[:0], rowBlock); len(block) == 0 {
			if p.err != nil {
				return p.blockDone()
			}
			break
		}
		set := rowSet{rows: make([]*lua.LTable, 0, len(block)), n: len(block)}
		for _, row := range block {
			if t, ok := row.(*lua.LTable); ok {
				set.rows = append(set.rows, t)
			}
		}
		cols, ok := rowColumns(set)
		if len(set.rows) < len(block) || !ok { // not records: each as it would print alone
			for _, row := range block {
				if err := printOne(p.out, p.h, row, "table"); err != nil {
					return err
				}
				p.out.WriteByte('\n')
			}
		} else if err := renderTable(p.out, set, cols, "", NewGuard("value"), p.shape, &so); err != nil {
			return err
		}
		p.n += len(block)
		if err := p.blockDone(); err != nil {
			return err
		}
	}
	if p.n == 0 {
		p.out.WriteString(noRows)
	}
	return p.out.err
}

// tableSoFar is the table a streamed result's blocks print into: its
// columns and their widths.
type tableSoFar struct {
	flat  []string
	width []int
}

// needsHeader reports whether rows with columns flat and widths width
// start a table (so, under a header): the first block, or one whose
// columns differ. Rows that continue the table are widened to its
// widths, and the table's widths to theirs. A nil t (a whole table) always
// needs its header.
func (t *tableSoFar) needsHeader(flat []string, width []int) bool {
	if t == nil {
		return true
	}
	if t.width != nil && slices.Equal(t.flat, flat) {
		for j := range width {
			width[j] = max(width[j], t.width[j])
		}
		t.width = width
		return false
	}
	t.flat, t.width = slices.Clone(flat), width
	return true
}
