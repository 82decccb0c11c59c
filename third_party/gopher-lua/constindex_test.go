package lua

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/yuin/gopher-lua/parse"
)

func compileString(t *testing.T, src string) *FunctionProto {
	t.Helper()
	chunk, err := parse.Parse(strings.NewReader(src), "<test>")
	if err != nil {
		t.Fatal(err)
	}
	proto, err := Compile(chunk, "<test>")
	if err != nil {
		t.Fatal(err)
	}
	return proto
}

// Repeated constants share a slot, in first-use order, as with the scan.
func TestConstIndexSharesSlots(t *testing.T) {
	p := compileString(t, `local t = {a = "x", b = "x", [1] = 2, [2] = 2.5, c = "2", d = 2} return t.a, "y", 2`)
	var got []string
	for _, c := range p.Constants {
		got = append(got, fmt.Sprintf("%s:%s", c.Type(), c.String()))
	}
	want := "string:a string:x string:b number:1 number:2 number:2.5 string:c string:2 string:d string:y"
	if s := strings.Join(got, " "); s != want {
		t.Fatalf("constants\n got %s\nwant %s", s, want)
	}
}

// Many distinct constants compile in linear time.
func TestConstIndexManyConstants(t *testing.T) {
	var b strings.Builder
	b.WriteString("return {")
	for i := range 20000 {
		fmt.Fprintf(&b, "{name = %q},", fmt.Sprintf("topic-%05d", i))
	}
	b.WriteString("}")
	start := time.Now()
	p := compileString(t, b.String())
	if len(p.Constants) != 20001 {
		t.Fatalf("%d constants, want 20001", len(p.Constants))
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("compiling took %s", d)
	}
	L := NewState()
	defer L.Close()
	fn := L.NewFunctionFromProto(p)
	L.Push(fn)
	if err := L.PCall(0, 1, nil); err != nil {
		t.Fatal(err)
	}
	if n := L.Get(-1).(*LTable).Len(); n != 20000 {
		t.Fatalf("len %d", n)
	}
}
