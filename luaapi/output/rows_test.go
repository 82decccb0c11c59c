package output

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// plainHost prints plain values; the values in rows are its Rows.
type plainHost struct{ rows map[lua.LValue]Rows }

func (plainHost) Null() lua.LValue                     { return lua.LNil }
func (plainHost) ShapeOf(lua.LValue) *Shape            { return nil }
func (plainHost) ErrorText(*lua.LTable) (string, bool) { return "", false }
func (plainHost) Note(*lua.LTable) string              { return "" }
func (plainHost) Display(v lua.LValue) (string, error) { return v.String(), nil }
func (h plainHost) RowsOf(v lua.LValue) Rows           { return h.rows[v] }

// sliceRows hands out rows, then err.
type sliceRows struct {
	rows []lua.LValue
	err  error
}

func (s *sliceRows) Shape() *Shape { return nil }
func (s *sliceRows) Next() (lua.LValue, error) {
	if len(s.rows) == 0 {
		return nil, s.err
	}
	r := s.rows[0]
	s.rows = s.rows[1:]
	return r, nil
}

func nameRow(name string, n int) *lua.LTable {
	t := &lua.LTable{}
	t.RawSetString("name", lua.LString(name))
	t.RawSetString("n", lua.LNumber(n))
	return t
}

// A table streamed in blocks: later blocks go on under the first header,
// widened where their cells are wider; rows with other columns start a
// new table under their own header.
func TestStreamedTableGoesOnUnderOneHeader(t *testing.T) {
	var rows []lua.LValue
	for i := range rowBlock {
		rows = append(rows, nameRow("a", i%10))
	}
	rows = append(rows, nameRow("a-much-longer-name", 1))
	for range rowBlock - 1 {
		rows = append(rows, nameRow("b", 2))
	}
	other := &lua.LTable{}
	other.RawSetString("topic", lua.LString("orders"))
	rows = append(rows, other)
	fn := &lua.LFunction{}
	var b strings.Builder
	require.NoError(t, Print(&b, plainHost{rows: map[lua.LValue]Rows{fn: &sliceRows{rows: rows}}}, []lua.LValue{fn}, "table"))
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	require.Len(t, lines, 2*rowBlock+3, b.String())
	assert.Equal(t, "NAME  N", lines[0])
	assert.Equal(t, "a     0", lines[1])
	assert.Equal(t, "a-much-longer-name  1", lines[rowBlock+1], "the second block: no header, as wide as it needs")
	assert.Equal(t, "b                   2", lines[rowBlock+2])
	assert.Equal(t, "TOPIC", lines[2*rowBlock+1], "other columns: a header of their own")
	assert.Equal(t, "orders", lines[2*rowBlock+2])
}

// Rows that end with an error: the rows before it are printed, JSON's
// array is left open, and the error is Print's.
func TestStreamedRowsEndingInAnErrorKeepWhatWasPrinted(t *testing.T) {
	failed := errors.New("page 3 not read")
	for format, want := range map[string]string{
		"json":   "[\n  {\n    \"n\": 1,\n    \"name\": \"a\"\n  }",
		"ndjson": "{\"n\":1,\"name\":\"a\"}\n",
		"table":  "NAME  N\na     1\n",
	} {
		fn := &lua.LFunction{}
		var b strings.Builder
		err := Print(&b, plainHost{rows: map[lua.LValue]Rows{fn: &sliceRows{rows: []lua.LValue{nameRow("a", 1)}, err: failed}}}, []lua.LValue{fn}, format)
		require.ErrorIs(t, err, failed, format)
		assert.Equal(t, want, b.String(), fmt.Sprintf("-o %s", format))
	}
}
