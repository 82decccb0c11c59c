package output

import (
	"io"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Marks remembers the cells of the aligned tables it printed, so that the
// next print marks the cells that changed since (luaapi's watch). A cell is
// known by its row and column: a row by the values of its identifying
// columns (name, group, topic, partition, id, member_id, broker; keyRank)
// under its parent row, or by its place when it has none, so that a row
// coming or going does not mark every row after it. A changed cell, and
// every cell of a new row, is shown with ChangedMark after it (counted in
// the column's width) and, when Style is set, wrapped by Style (terminal
// escapes, not counted). The first print marks nothing.
type Marks struct {
	// Style, when set, wraps a changed cell's text (a terminal's reverse
	// video); what it adds takes no room on the screen.
	Style func(string) string

	prev, cur map[string]string
	parent    string // the row (or value) whose sub-table is being printed
	changed   map[string]bool
}

// ChangedMark follows a changed cell.
const ChangedMark = "*"

// NewMarks is a Marks that has printed nothing yet.
func NewMarks() *Marks { return &Marks{cur: map[string]string{}, changed: map[string]bool{}} }

// Changed is how many cells (or whole values that are no table) the last
// print marked.
func (m *Marks) Changed() int { return len(m.changed) }

// next starts a print: what the last one showed is what this one is
// compared with.
func (m *Marks) next() {
	if m.prev != nil || len(m.cur) > 0 {
		m.prev = m.cur
	}
	m.cur = make(map[string]string, len(m.prev))
	m.changed = map[string]bool{}
	m.parent = ""
}

// mark records what the cell id shows now and reports whether it changed.
// It is called once per pass over a table, with the same text each time.
func (m *Marks) mark(id, text string) bool {
	m.cur[id] = text
	if m.prev == nil {
		return false
	}
	old, had := m.prev[id]
	if had && old == text {
		return false
	}
	m.changed[id] = true
	return true
}

// rowIDs names the rows of set under m.parent.
func (m *Marks) rowIDs(set rowSet, cols []string) []string {
	var idCols []string
	for _, c := range cols {
		if keyRank(c) < 0 {
			idCols = append(idCols, c)
		}
	}
	ids := make([]string, set.n)
	seen := make(map[string]bool, set.n)
	for i := range set.n {
		row := set.row(i)
		var b strings.Builder
		b.WriteString(m.parent)
		for _, c := range idCols {
			b.WriteString("\x00")
			b.WriteString(c)
			b.WriteString("=")
			b.WriteString(lua.LVAsString(row.RawGetString(c)))
		}
		id := b.String()
		if len(idCols) == 0 || seen[id] {
			id += "\x00#" + strconv.Itoa(i+1)
		}
		seen[id] = true
		ids[i] = id
	}
	return ids
}

// PrintMarked writes values as Print does under "table", marking what
// changed since the last PrintMarked with the same m: cells of aligned
// tables one by one, any other value whole (ChangedMark after it).
func PrintMarked(w io.Writer, h Host, values []lua.LValue, m *Marks) error {
	m.next()
	out := newPrintBuf(w, HoldBack) // held: a value that is no table is compared whole
	out.marks = m
	for i, v := range values {
		start := out.Len()
		m.parent = "\x01" + strconv.Itoa(i+1)
		err := printOne(out, h, v, "table")
		if out.err != nil {
			return &WriteError{Err: out.err}
		}
		if err != nil {
			return err
		}
		if !out.tabled && start >= out.flushed && m.mark(m.parent, out.since(start)) {
			// No table: the value is marked whole, after its last line.
			mark := ChangedMark
			if m.Style != nil {
				mark = m.Style(mark)
			}
			out.WriteString(mark)
		}
		if out.Len() == start || out.lastByte() != '\n' {
			out.WriteByte('\n')
		}
		out.tabled = false
	}
	if err := out.Flush(); err != nil {
		return &WriteError{Err: err}
	}
	return nil
}
