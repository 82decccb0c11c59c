package luaapi

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	lua "github.com/yuin/gopher-lua"
)

// Format renders values the way --output asks: "json" as indented JSON
// (arrays stay arrays, [] for empty), "table" as an aligned table for arrays
// of records and as indented Lua otherwise. One value per line block.
func (r *Runtime) Format(values []lua.LValue, output string) (string, error) {
	var b strings.Builder
	for _, v := range values {
		s, err := r.formatOne(v, output)
		if err != nil {
			return "", err
		}
		b.WriteString(s)
		if !strings.HasSuffix(s, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String(), nil
}

// Print writes values to w as Format renders them.
func (r *Runtime) Print(w io.Writer, values []lua.LValue, output string) error {
	s, err := r.Format(values, output)
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, s)
	return err
}

func (r *Runtime) formatOne(v lua.LValue, output string) (string, error) {
	if output == "json" {
		return encodeJSON(v, r.null(), "  ")
	}
	if t, ok := v.(*lua.LTable); ok {
		if _, isErr := isErrorValue(r.L, t); isErr {
			return TerminalText(errorText(t)), nil
		}
		if rows, cols, ok := recordRows(t); ok {
			return renderTable(rows, cols, "", newGuard("value"))
		}
		// One result record (describe_cluster, plan_reassignment, ...):
		// a one-row table, its arrays of records as sub-tables.
		if len(columns(t)) > 0 && !isArray(t) {
			wrapped := &lua.LTable{}
			wrapped.Append(t)
			if rows, cols, ok := recordRows(wrapped); ok {
				return renderTable(rows, cols, "", newGuard("value"))
			}
		}
		return r.luaLiteral(v)
	}
	if v == lua.LNil {
		return "nil", nil
	}
	// A string is printed as text, as print would, but escaped: it may
	// come from the cluster.
	s, err := r.display(v)
	if err != nil {
		return "", fmt.Errorf("value: %w", err)
	}
	return TerminalText(s), nil
}

// recordRows recognizes an array of records (tables with string keys) and
// picks the columns: the first record's declared order, then any other keys
// in sorted order.
func recordRows(t *lua.LTable) ([]*lua.LTable, []string, bool) {
	if !isArray(t) || t.Len() == 0 {
		return nil, nil, false
	}
	var rows []*lua.LTable
	seen := map[string]bool{}
	var cols, extra []string
	for i := 1; i <= t.Len(); i++ {
		row, ok := t.RawGetInt(i).(*lua.LTable)
		if !ok || (isArray(row) && row.Len() > 0) {
			return nil, nil, false
		}
		rows = append(rows, row)
		for _, c := range columns(row) {
			if !seen[c] {
				seen[c] = true
				cols = append(cols, c)
			}
		}
		row.ForEach(func(k, _ lua.LValue) {
			ks, ok := k.(lua.LString)
			if ok && !seen[string(ks)] {
				seen[string(ks)] = true
				extra = append(extra, string(ks))
			}
		})
	}
	slices.Sort(extra) // map order is random: sort, then put identifying keys first
	slices.SortStableFunc(extra, func(a, b string) int { return keyRank(a) - keyRank(b) })
	// Drop declared columns no row has a value for (omitted optional fields).
	var used []string
	for _, c := range append(cols, extra...) {
		for _, row := range rows {
			if row.RawGetString(c) != lua.LNil {
				used = append(used, c)
				break
			}
		}
	}
	return rows, used, len(used) > 0
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
func renderTable(rows []*lua.LTable, cols []string, indent string, g *valueGuard) (string, error) {
	var flat, nested []string
	for _, c := range cols {
		// One level of sub-tables; deeper ones are summarized in a cell.
		if indent == "" && holdsRecords(rows, c) {
			nested = append(nested, c)
		} else {
			flat = append(flat, c)
		}
	}
	if len(flat) == 0 { // nothing to head the sub-tables: show them as cells
		flat, nested = cols, nil
	}
	cells := make([][]string, len(rows)+1)
	width := make([]int, len(flat))
	cells[0] = make([]string, len(flat))
	for j, c := range flat {
		cells[0][j] = strings.ToUpper(cellText(c))
		width[j] = utf8.RuneCountInString(cells[0][j])
	}
	for i, row := range rows {
		cells[i+1] = make([]string, len(flat))
		if err := g.enter(lua.LNumber(i+1), row); err != nil {
			return "", err
		}
		for j, c := range flat {
			s, err := cell(g, lua.LString(c), row.RawGetString(c))
			if err != nil {
				return "", err
			}
			cells[i+1][j] = s
			width[j] = max(width[j], utf8.RuneCountInString(s))
		}
		g.leave(row)
	}
	var b strings.Builder
	for i, line := range cells {
		var row strings.Builder
		row.WriteString(indent)
		for j, s := range line {
			row.WriteString(s)
			if j < len(line)-1 {
				row.WriteString(strings.Repeat(" ", width[j]-utf8.RuneCountInString(s)+2))
			}
		}
		b.WriteString(strings.TrimRight(row.String(), " "))
		b.WriteByte('\n')
		if i == 0 {
			continue
		}
		for _, c := range nested {
			sub, ok := rows[i-1].RawGetString(c).(*lua.LTable)
			if !ok {
				continue
			}
			if subRows, subCols, ok := subTable(sub); ok {
				if err := g.enter(lua.LNumber(i), rows[i-1]); err != nil {
					return "", err
				}
				if err := g.enter(lua.LString(c), sub); err != nil {
					return "", err
				}
				s, err := renderTable(subRows, subCols, indent+"  ", g)
				if err != nil {
					return "", err
				}
				g.leave(sub)
				g.leave(rows[i-1])
				b.WriteString(s)
			}
		}
	}
	return b.String(), nil
}

// holdsRecords reports whether column c is, in some row, a non-empty array
// of records.
func holdsRecords(rows []*lua.LTable, c string) bool {
	for _, row := range rows {
		if t, ok := row.RawGetString(c).(*lua.LTable); ok {
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
func subTable(t *lua.LTable) ([]*lua.LTable, []string, bool) {
	if t.Len() > 0 {
		return recordRows(t)
	}
	var keys []string
	allRecords := true
	t.ForEach(func(k, v lua.LValue) {
		ks, ok := k.(lua.LString)
		rec, isTable := v.(*lua.LTable)
		if !ok || !isTable || (isArray(rec) && rec.Len() > 0) {
			allRecords = false
			return
		}
		keys = append(keys, string(ks))
	})
	if !allRecords || len(keys) == 0 {
		return nil, nil, false
	}
	slices.Sort(keys)
	arr := &lua.LTable{}
	for _, k := range keys {
		src := t.RawGetString(k).(*lua.LTable)
		row := &lua.LTable{Metatable: src.Metatable}
		src.ForEach(func(kk, vv lua.LValue) { row.RawSet(kk, vv) })
		row.RawSetString("name", lua.LString(k))
		arr.Append(row)
	}
	rows, cols, ok := recordRows(arr)
	if ok {
		cols = append([]string{"name"}, slices.DeleteFunc(cols, func(c string) bool { return c == "name" })...)
	}
	return rows, cols, ok
}

// isTopicPartitions: an array of {topic=, partition=} only (an assignment),
// which reads best on one line: "orders[0,1,2] payments[0]".
func isTopicPartitions(t *lua.LTable) bool {
	for i := 1; i <= t.Len(); i++ {
		r, ok := t.RawGetInt(i).(*lua.LTable)
		if !ok {
			return false
		}
		n := 0
		r.ForEach(func(_, _ lua.LValue) { n++ })
		if _, ok := r.RawGetString("topic").(lua.LString); !ok || n != 2 || r.RawGetString("partition") == lua.LNil {
			return false
		}
	}
	return t.Len() > 0
}

func topicPartitionsCell(t *lua.LTable) string {
	var order []string
	parts := map[string][]string{}
	for i := 1; i <= t.Len(); i++ {
		r := t.RawGetInt(i).(*lua.LTable)
		topic := cellText(lua.LVAsString(r.RawGetString("topic")))
		if _, seen := parts[topic]; !seen {
			order = append(order, topic)
		}
		parts[topic] = append(parts[topic], cellText(lua.LVAsString(r.RawGetString("partition"))))
	}
	out := make([]string, 0, len(order))
	for _, topic := range order {
		out = append(out, topic+"["+strings.Join(parts[topic], ",")+"]")
	}
	return strings.Join(out, " ")
}

// cell renders one value, found under key, inside a table: scalars as
// escaped text, errors by code, arrays of scalars joined, bigger things
// summarized. g counts what it writes: a row can refer to one big string
// many times.
func cell(g *valueGuard, key, v lua.LValue) (string, error) {
	var s string
	switch v := v.(type) {
	case *lua.LNilType:
	case lua.LString:
		if err := g.str(key, string(v)); err != nil { // before the copy
			return "", err
		}
		return cellText(string(v)), nil
	case lua.LNumber:
		s = v.String()
	case lua.LBool:
		s = strconv.FormatBool(bool(v))
	case *lua.LTable:
		if code := v.RawGetString("code"); code != lua.LNil && v.RawGetString("message") != lua.LNil {
			s = cellText(lua.LVAsString(code))
			break
		}
		if isTopicPartitions(v) {
			s = topicPartitionsCell(v)
			break
		}
		if isArray(v) {
			if err := g.enter(key, v); err != nil {
				return "", err
			}
			defer g.leave(v)
			var parts []string
			for i := 1; i <= v.Len(); i++ {
				e := v.RawGetInt(i)
				if _, nested := e.(*lua.LTable); nested {
					if v.Len() == 1 {
						return "[1 item]", nil
					}
					return fmt.Sprintf("[%d items]", v.Len()), nil
				}
				p, err := cell(g, lua.LNumber(i), e)
				if err != nil {
					return "", err
				}
				parts = append(parts, p)
			}
			s = strings.Join(parts, ",")
			break
		}
		n := 0
		v.ForEach(func(_, _ lua.LValue) { n++ })
		s = fmt.Sprintf("{%d keys}", n)
	default:
		s = v.String()
	}
	return s, g.str(key, s)
}
