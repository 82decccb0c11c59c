package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

// goRow is one row of P.lua, as a Go program would hold it: the fields in
// the order kadmin-lua's JSON sorts them, so both print the same bytes.
type goRow struct {
	Committed int64  `json:"committed"`
	EndOffset int64  `json:"end_offset"`
	Lag       int64  `json:"lag"`
	Partition int    `json:"partition"`
	Topic     string `json:"topic"`
}

// PrintRows times, in this process, printing the n rows a script returns
// (P.lua) through Runtime.Print, as JSON (J) and as a table (T), beside
// encoding/json writing the same rows from Go structs with the same
// indentation: rounds interleaved rounds. Output goes to a writer that
// drops it. Peak RSS does not apply here: workloads PJ and PT measure it.
func PrintRows(ctx context.Context, n, rounds int, log io.Writer) ([]Result, error) {
	rt := luaapi.New(luaapi.Options{Stdout: io.Discard, Stderr: io.Discard})
	defer rt.Close()
	src, err := workloadFS.ReadFile("workloads/P.lua")
	if err != nil {
		return nil, err
	}
	fn, err := rt.Compile("P.lua", string(src))
	if err != nil {
		return nil, err
	}
	vals, err := rt.Call(ctx, fn, lua.LString(strconv.Itoa(n)))
	if err != nil {
		return nil, err
	}
	rows := make([]goRow, n)
	for i := range rows {
		j := i + 1
		rows[i] = goRow{Committed: int64(j), EndOffset: int64(j + 7), Lag: 7, Partition: j % 1000, Topic: "topic-" + strconv.Itoa(j%100)}
	}
	if err := samePrinted(rt, vals, rows); err != nil {
		return nil, err
	}

	rowsText := thousands(n) + " rows"
	j := Result{Name: "J", Work: "printing " + rowsText + " as JSON (Runtime.Print, in process)",
		Yardstick: "encoding/json of the same rows from Go", Target: "<= 2x", Limit: 2}
	t := Result{Name: "T", Work: "printing " + rowsText + " as a table (Runtime.Print, in process)",
		Yardstick: "encoding/json of the same rows from Go", Target: "<= 2x", Limit: 2}
	timed := func(f func(io.Writer) error) (Sample, error) {
		start := time.Now()
		err := f(io.Discard)
		return Sample{Wall: time.Since(start)}, err
	}
	luaPrint := func(output string) func(io.Writer) error {
		return func(w io.Writer) error { return rt.Print(w, vals, output) }
	}
	goPrint := func(w io.Writer) error { return encodeRows(w, rows) }
	for r := range rounds {
		steps := []struct {
			f   func(io.Writer) error
			dst *[]Sample
		}{{luaPrint("json"), &j.A}, {goPrint, &j.B}, {luaPrint("table"), &t.A}}
		if r%2 == 1 {
			steps[0], steps[1] = steps[1], steps[0]
		}
		for _, s := range steps {
			sm, err := timed(s.f)
			if err != nil {
				return nil, err
			}
			*s.dst = append(*s.dst, sm)
		}
		t.B = append(t.B, j.B[len(j.B)-1])
		fmt.Fprintf(log, "J/T round %d: JSON %v, table %v, encoding/json %v\n", r+1,
			j.A[r].Wall.Round(time.Millisecond), t.A[r].Wall.Round(time.Millisecond), j.B[r].Wall.Round(time.Millisecond))
	}
	return []Result{j, t}, nil
}

func encodeRows(w io.Writer, rows []goRow) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rows); err != nil {
		return err
	}
	return bw.Flush()
}

// samePrinted checks that both sides print the same JSON (on the first
// thousand rows), so that they are timed doing the same work.
func samePrinted(rt *luaapi.Runtime, vals []lua.LValue, rows []goRow) error {
	k := min(len(rows), 1000)
	few := vals[0].(*lua.LTable)
	head := &lua.LTable{}
	for i := 1; i <= k; i++ {
		head.Append(few.RawGetInt(i))
	}
	var a, b bytes.Buffer
	if err := rt.Print(&a, []lua.LValue{head}, "json"); err != nil {
		return err
	}
	if err := encodeRows(&b, rows[:k]); err != nil {
		return err
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		return fmt.Errorf("kadmin-lua and encoding/json print different JSON:\n%.300s\n%.300s", a.String(), b.String())
	}
	return nil
}
