package output

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// A table's cells: a value as the text of one cell (a nested record as
// key=value pairs, an assignment as "orders[0,1,2]", at most
// maxRecordsInCell records), escaped for the terminal.

// isTopicPartitions: an array of {topic=, partition=} only (an assignment),
// which reads best on one line: "orders[0,1,2] payments[0]".
func isTopicPartitions(t *lua.LTable) bool {
	for i := 1; i <= t.Len(); i++ {
		r, ok := t.RawGetInt(i).(*lua.LTable)
		if !ok {
			return false
		}
		if values, others := r.KeyCounts(); values+others != 2 {
			return false
		}
		if _, ok := r.RawGetString("topic").(lua.LString); !ok || r.RawGetString("partition") == lua.LNil {
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
		topic := CellText(lua.LVAsString(r.RawGetString("topic")))
		if _, seen := parts[topic]; !seen {
			order = append(order, topic)
		}
		parts[topic] = append(parts[topic], CellText(lua.LVAsString(r.RawGetString("partition"))))
	}
	out := make([]string, 0, len(order))
	for _, topic := range order {
		out = append(out, topic+"["+strings.Join(parts[topic], ",")+"]")
	}
	return strings.Join(out, " ")
}

// appendCell appends the cell of one value, found under key, to dst:
// scalars as escaped text, a declared time (fs) as RFC 3339, errors by
// code, arrays of scalars joined, records and maps as key=value. g counts
// what it writes: a row can refer to one big string many times.
func appendCell(dst []byte, g *Guard, key, v lua.LValue, fs *Shape) ([]byte, error) {
	switch v := v.(type) {
	case *lua.LNilType:
		return dst, g.Str(key, "")
	case lua.LString:
		if err := g.Str(key, string(v)); err != nil { // before the copy
			return dst, err
		}
		return append(dst, CellText(string(v))...), nil
	case lua.LNumber:
		start := len(dst)
		dst = appendNumber(dst, v, fs)
		return dst, g.Count(key, len(dst)-start)
	case lua.LBool:
		s := strconv.FormatBool(bool(v))
		return append(dst, s...), g.Str(key, s)
	}
	s, err := cell(g, key, v, fs, false)
	return append(dst, s...), err
}

// cell renders one value, found under key, inside a table (see
// appendCell); fs is its declared shape, or nil. nested: the value is
// inside another cell, where a record or map is braced.
// maxRecordsInCell: a cell shows up to this many records whole (a config's
// synonyms: {name=retention.ms source=DYNAMIC_TOPIC_CONFIG value=...});
// more are counted, "[5 items]".
const maxRecordsInCell = 3

func cell(g *Guard, key, v lua.LValue, fs *Shape, nested bool) (string, error) {
	var s string
	switch v := v.(type) {
	case *lua.LNilType:
	case lua.LString:
		if err := g.Str(key, string(v)); err != nil { // before the copy
			return "", err
		}
		return CellText(string(v)), nil
	case lua.LNumber:
		s = string(appendNumber(nil, v, fs))
	case lua.LBool:
		s = strconv.FormatBool(bool(v))
	case *lua.LTable:
		if code := v.RawGetString("code"); code != lua.LNil && v.RawGetString("message") != lua.LNil {
			s = CellText(lua.LVAsString(code))
			break
		}
		if isTopicPartitions(v) {
			s = topicPartitionsCell(v)
			break
		}
		if err := g.Enter(key, v); err != nil {
			return "", err
		}
		defer g.Leave(v)
		if IsArray(v) {
			var parts []string
			for i := 1; i <= v.Len(); i++ {
				e := v.RawGetInt(i)
				if _, nested := e.(*lua.LTable); nested && v.Len() > maxRecordsInCell {
					return fmt.Sprintf("[%d items]", v.Len()), nil
				}
				p, err := cell(g, lua.LNumber(i), e, fs.Elem(), true)
				if err != nil {
					return "", err
				}
				parts = append(parts, p)
			}
			if _, records := v.RawGetInt(1).(*lua.LTable); records {
				s = strings.Join(parts, " ") // {name=a value=1} {name=b value=2}
			} else {
				s = strings.Join(parts, ",")
			}
			break
		}
		var err error
		if s, err = keyValueCell(g, v, fs); err != nil {
			return "", err
		}
		if nested {
			s = "{" + s + "}"
		}
	default:
		s = v.String()
	}
	return s, g.Str(key, s)
}

// keyValueCell renders a record or a map as `key=value` pairs in key
// order, separated by spaces, as kafka.log writes fields: a quota entity
// reads `client_id=app user=alice`, a filter `operation=write
// principal=User:bob`. Keys are escaped like any cell text.
func keyValueCell(g *Guard, t *lua.LTable, fs *Shape) (string, error) {
	var keys []lua.LValue
	t.ForEach(func(k, _ lua.LValue) { keys = append(keys, k) })
	slices.SortFunc(keys, func(a, b lua.LValue) int { return strings.Compare(a.String(), b.String()) })
	var b strings.Builder
	for i, k := range keys {
		vs := fs.Elem() // a map's values
		if ks, ok := k.(lua.LString); ok && fs.Is(KindRecord) {
			vs = fs.Field(string(ks))
		}
		p, err := cell(g, k, t.RawGet(k), vs, true)
		if err != nil {
			return "", err
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(CellText(k.String()))
		b.WriteByte('=')
		b.WriteString(p)
	}
	return b.String(), nil
}
