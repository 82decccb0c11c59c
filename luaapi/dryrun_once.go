package luaapi

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/luaapi/output"
)

// A dry run shows its plan once. The plan lines on stderr (printPlan) say
// what each item would do, or that it would fail and why; the returned
// rows (dry_run=true) hold the same facts. In table output, which is for
// people, a result whose plan was printed is therefore not printed again
// as a table: one line says how many rows it has and where the data is.
// json, ndjson and yaml, which are for programs, print the rows in full,
// as does a result reshaped by the script (a new table is not the result).

// plannedKeep is how many recent dry-run results are remembered: a
// script's `return r` is one of the last few; older ones are printed in
// full, which costs nothing but the repetition.
const plannedKeep = 16

// notePlanned remembers lv as a result whose plan is printed.
func (r *Runtime) notePlanned(lv lua.LValue) {
	t, ok := lv.(*lua.LTable)
	if !ok {
		return
	}
	if len(r.planned) >= plannedKeep {
		r.planned = r.planned[1:]
	}
	r.planned = append(r.planned, t)
}

// plannedNote is the line printed instead of t's table when t is a dry-run
// result whose plan was printed, or "".
func (r *Runtime) plannedNote(t *lua.LTable) string {
	for _, p := range r.planned {
		if p == t {
			n := 1
			if output.IsArray(t) {
				n = t.Len()
			}
			rows := "rows"
			if n == 1 {
				rows = "row"
			}
			return fmt.Sprintf("(dry run: %d %s, as the dry-run lines say; --output json prints the rows)", n, rows)
		}
	}
	return ""
}
