package output

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	lua "github.com/yuin/gopher-lua"
)

// Outputs are the formats --output and kafka.pp print in.
var Outputs = []string{"table", "json", "ndjson", "yaml"}

// noRows is what a table prints for an empty array: a result with no rows.
const noRows = "(no rows)"

// printOne writes one value the way format asks: "json" as indented
// JSON, "ndjson" as a compact JSON line per element of an array, "yaml" as
// YAML, "table" as an aligned table for arrays of records and as indented
// Lua otherwise (print.go: Print). A function's result is printed with its
// declared shape (Host.ShapeOf): times in tables, nulls in JSON.
func printOne(out *printBuf, h Host, v lua.LValue, format string) error {
	if rows := h.RowsOf(v); rows != nil {
		return printRows(out, h, rows, format)
	}
	switch format {
	case "json":
		return writeJSONShaped(out, v, h.ShapeOf(v), h.Null(), "  ")
	case "ndjson":
		return writeNDJSON(out, v, h.ShapeOf(v), h.Null())
	case "yaml":
		return writeYAML(out, v, h.ShapeOf(v), h.Null())
	}
	if t, ok := v.(*lua.LTable); ok {
		if text, isErr := h.ErrorText(t); isErr {
			out.WriteString(TerminalText(text))
			return nil
		}
		if note := h.Note(t); note != "" {
			out.WriteString(note)
			return nil
		}
		shape := h.ShapeOf(t)
		if IsArray(t) && t.Len() == 0 {
			out.WriteString(noRows)
			return nil
		}
		if rows, cols, ok := recordRows(t); ok {
			return renderTable(out, rows, cols, "", NewGuard("value"), shape.rows(), nil)
		}
		// One result record (describe_cluster, plan_reassignment, ...):
		// a one-row table, its arrays of records as sub-tables.
		if len(Columns(t)) > 0 && !IsArray(t) {
			wrapped := &lua.LTable{}
			wrapped.Append(t)
			if rows, cols, ok := recordRows(wrapped); ok {
				return renderTable(out, rows, cols, "", NewGuard("value"), shape.rows(), nil)
			}
		}
		return writeLuaLiteral(out, h, v)
	}
	if v == lua.LNil {
		out.WriteString("nil")
		return nil
	}
	// A string is printed as text, as print would, but escaped: it may
	// come from the cluster.
	s, err := h.Display(v)
	if err != nil {
		return fmt.Errorf("value: %w", err)
	}
	out.WriteString(TerminalText(s))
	return nil
}

// rowSet is the rows of a table: the records of an array, or (rows set)
// records made for a map of records.
type rowSet struct {
	t    *lua.LTable
	rows []*lua.LTable
	n    int
}

func (s rowSet) row(i int) *lua.LTable {
	if s.rows != nil {
		return s.rows[i]
	}
	return s.t.RawGetInt(i + 1).(*lua.LTable)
}

// recordRows recognizes an array of records (tables with string keys) and
// picks the columns: the first record's declared order, then any other keys
// in sorted order.
func recordRows(t *lua.LTable) (rowSet, []string, bool) {
	n := t.Len()
	if n == 0 || !IsArray(t) {
		return rowSet{}, nil, false
	}
	set := rowSet{t: t, n: n}
	cols, ok := rowColumns(set)
	return set, cols, ok
}

// rowColumns picks the columns of rows; ok is false when some row is not
// a record or no column has a value.
func rowColumns(set rowSet) ([]string, bool) {
	var cols, extra []string
	var seen map[string]bool // past a few columns; a scan before
	has := func(c string) bool {
		if seen != nil {
			return seen[c]
		}
		return slices.Contains(cols, c) || slices.Contains(extra, c)
	}
	add := func(list *[]string, c string) {
		*list = append(*list, c)
		if seen == nil && len(cols)+len(extra) > 16 {
			seen = map[string]bool{}
			for _, x := range slices.Concat(cols, extra) {
				seen[x] = true
			}
		}
		if seen != nil {
			seen[c] = true
		}
	}
	var lastMeta lua.LValue
	for i := range set.n {
		row, ok := rowAt(set, i)
		if !ok || (IsArray(row) && row.Len() > 0) {
			return nil, false
		}
		if row.Metatable != lastMeta { // records of one type share theirs
			lastMeta = row.Metatable
			for _, c := range Columns(row) {
				if !has(c) {
					add(&cols, c)
				}
			}
		}
		row.ForEach(func(k, _ lua.LValue) {
			if ks, ok := k.(lua.LString); ok && !has(string(ks)) {
				add(&extra, string(ks))
			}
		})
	}
	slices.Sort(extra) // map order is random: sort, then put identifying keys first
	slices.SortStableFunc(extra, func(a, b string) int { return keyRank(a) - keyRank(b) })
	// Drop declared columns no row has a value for (omitted optional fields).
	var used []string
	for _, c := range append(cols, extra...) {
		for i := range set.n {
			if set.row(i).RawGetString(c) != lua.LNil {
				used = append(used, c)
				break
			}
		}
	}
	return used, len(used) > 0
}

func rowAt(set rowSet, i int) (*lua.LTable, bool) {
	if set.rows != nil {
		return set.rows[i], true
	}
	row, ok := set.t.RawGetInt(i + 1).(*lua.LTable)
	return row, ok
}

// keyRank orders the usual identifying keys first in tables without a
// declared order; the rest stay sorted.
func keyRank(k string) int {
	for i, p := range []string{"name", "group", "topic", "partition", "id", "member_id", "broker"} {
		if k == p {
			return i - 10
		}
	}
	return 0
}

// renderTable prints rows as an aligned table. A column that holds arrays of
// records (a topic's partitions, a group's members or lag per partition) is
// not squeezed into a cell: each row is followed by that array as an
// indented sub-table, the way kafka-consumer-groups --describe reads.
// rs is the rows' declared shape (nil: none): a time column prints as RFC
// 3339.
//
// It goes over the rows twice: once for the columns' widths (and the
// guard's counts), then to print. No cell is kept in between.
//
// cont, when not nil, is the table these rows continue (a streamed
// result's earlier blocks, rows.go): with the same columns they go on
// under its header, no narrower than it; other columns start a new table.
func renderTable(out *printBuf, set rowSet, cols []string, indent string, g *Guard, rs *Shape, cont *tableSoFar) error {
	var flat, nested []string
	for _, c := range cols {
		// One level of sub-tables; deeper ones are summarized in a cell.
		if indent == "" && holdsRecords(set, c) {
			nested = append(nested, c)
		} else {
			flat = append(flat, c)
		}
	}
	if len(flat) == 0 { // nothing to head the sub-tables: show them as cells
		flat, nested = cols, nil
	}
	keys := make([]lua.LValue, len(flat))
	width := make([]int, len(flat))
	shapes := make([]*Shape, len(flat))
	for j, c := range flat {
		keys[j] = lua.LString(c)
		width[j] = utf8.RuneCountInString(strings.ToUpper(CellText(c)))
		shapes[j] = rs.Field(c)
	}
	var buf []byte
	var err error
	m := out.marks
	var ids []string // the rows' names, when changed cells are marked
	var parent string
	if m != nil {
		parent = m.parent
		out.tabled = true
		ids = m.rowIDs(set, cols)
	}
	for i := range set.n {
		row := set.row(i)
		if err := g.enterIndex(i+1, row); err != nil {
			return err
		}
		for j := range flat {
			if buf, err = appendCell(buf[:0], g, keys[j], row.RawGetString(flat[j]), shapes[j]); err != nil {
				return err
			}
			n := utf8.RuneCount(buf)
			if m != nil && m.mark(ids[i]+"\x00"+flat[j], string(buf)) {
				n += len(ChangedMark)
			}
			width[j] = max(width[j], n)
		}
		g.Leave(row)
	}

	// The header, then each row and its sub-tables.
	var line []byte
	endLine := func() {
		line = append(bytesTrimRight(line), '\n')
		out.Write(line)
		line = line[:0]
	}
	if cont.needsHeader(flat, width) {
		line = append(line, indent...)
		for j, c := range flat {
			line = appendPadded(line, strings.ToUpper(CellText(c)), width[j], j < len(flat)-1)
		}
		endLine()
	}
	g.quiet++ // counted in the first pass
	defer func() { g.quiet-- }()
	for i := range set.n {
		row := set.row(i)
		line = append(line, indent...)
		for j := range flat {
			if buf, err = appendCell(buf[:0], g, keys[j], row.RawGetString(flat[j]), shapes[j]); err != nil {
				return err
			}
			if m != nil && m.mark(ids[i]+"\x00"+flat[j], string(buf)) {
				line = appendMarked(line, string(buf), width[j], j < len(flat)-1, m.Style)
				continue
			}
			line = appendPadded(line, string(buf), width[j], j < len(flat)-1)
		}
		endLine()
		for _, c := range nested {
			sub, ok := row.RawGetString(c).(*lua.LTable)
			if !ok {
				continue
			}
			if subRows, subCols, ok := subTable(sub); ok {
				if err := g.enterIndex(i+1, row); err != nil {
					return err
				}
				if err := g.Enter(lua.LString(c), sub); err != nil {
					return err
				}
				if len(nested) > 1 {
					// Two sub-tables or more (describe_quorum's voters and
					// observers): each says which it is.
					out.WriteString(indent + "  " + CellText(c) + ":\n")
				}
				g.quiet--
				if m != nil {
					m.parent = ids[i] + "\x00" + c
				}
				err := renderTable(out, subRows, subCols, indent+"  ", g, rs.Field(c).Elem(), nil)
				if m != nil {
					m.parent = parent
				}
				g.quiet++
				if err != nil {
					return err
				}
				g.Leave(sub)
				g.Leave(row)
			}
		}
		if out.err != nil {
			return out.err
		}
	}
	return nil
}

// appendPadded appends s, and the spaces up to width and the two between
// columns unless it is the last column.
func appendPadded(line []byte, s string, width int, more bool) []byte {
	line = append(line, s...)
	if more {
		for range width - utf8.RuneCountInString(s) + 2 {
			line = append(line, ' ')
		}
	}
	return line
}

// appendMarked is appendPadded for a changed cell: s and ChangedMark,
// wrapped by style (which takes no room) when there is one.
func appendMarked(line []byte, s string, width int, more bool, style func(string) string) []byte {
	shown := s + ChangedMark
	if style != nil {
		shown = style(shown)
	}
	line = append(line, shown...)
	if more {
		for range width - utf8.RuneCountInString(s+ChangedMark) + 2 {
			line = append(line, ' ')
		}
	}
	return line
}

func bytesTrimRight(b []byte) []byte {
	for len(b) > 0 && b[len(b)-1] == ' ' {
		b = b[:len(b)-1]
	}
	return b
}

// holdsRecords reports whether column c is, in some row, a non-empty array
// of records.
func holdsRecords(set rowSet, c string) bool {
	for i := range set.n {
		if t, ok := set.row(i).RawGetString(c).(*lua.LTable); ok {
			if _, isErr := t.RawGetString("code").(lua.LString); isErr {
				continue
			}
			if _, _, ok := subTable(t); ok && !isTopicPartitions(t) {
				return true
			}
		}
	}
	return false
}

// subTable reads a nested value as rows: an array of records as it is, or a
// map of records (describe_configs' configs) as rows sorted by key, the key
// in a first column named "name".
func subTable(t *lua.LTable) (rowSet, []string, bool) {
	if t.Len() > 0 {
		return recordRows(t)
	}
	var keys []string
	allRecords := true
	t.ForEach(func(k, v lua.LValue) {
		ks, ok := k.(lua.LString)
		rec, isTable := v.(*lua.LTable)
		if !ok || !isTable || (IsArray(rec) && rec.Len() > 0) {
			allRecords = false
			return
		}
		keys = append(keys, string(ks))
	})
	if !allRecords || len(keys) == 0 {
		return rowSet{}, nil, false
	}
	slices.Sort(keys)
	set := rowSet{rows: make([]*lua.LTable, 0, len(keys)), n: len(keys)}
	for _, k := range keys {
		src := t.RawGetString(k).(*lua.LTable)
		row := &lua.LTable{Metatable: src.Metatable}
		src.ForEach(func(kk, vv lua.LValue) { row.RawSet(kk, vv) })
		row.RawSetString("name", lua.LString(k))
		set.rows = append(set.rows, row)
	}
	cols, ok := rowColumns(set)
	if ok {
		cols = append([]string{"name"}, slices.DeleteFunc(cols, func(c string) bool { return c == "name" })...)
	}
	return set, cols, ok
}
