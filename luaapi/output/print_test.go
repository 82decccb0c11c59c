package output

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

func TestAppendLuaNumberIsToString(t *testing.T) {
	for _, f := range []float64{0, -0.0, 1, -1, 0.5, 1e15, 1e16, 1e21, 123456789012, 1.0 / 3, -2.5e-7, 9007199254740993} {
		n := lua.LNumber(f)
		assert.Equal(t, n.String(), string(appendLuaNumber(nil, n)), fmt.Sprint(f))
	}
}

// withDeclared merges the declared fields a table lacks into its sorted
// pairs, wherever they fall: before, between and after the given ones.
func TestWithDeclaredMergesMissingFieldsInOrder(t *testing.T) {
	s, err := ParseShape("{a=, b=, c=, d=, e=, f=}")
	require.NoError(t, err)
	for _, given := range [][]string{{"b", "d"}, {}, {"a", "f"}, {"a", "b", "c", "d", "e", "f"}, {"c"}, {"f"}} {
		var pairs []jsonPair
		for _, k := range given {
			pairs = append(pairs, jsonPair{key: k, lkey: lua.LString(k), val: lua.LString("v" + k)})
		}
		var keys []string
		for _, p := range withDeclared(pairs, s) {
			keys = append(keys, p.key)
			if slices.Contains(given, p.key) {
				assert.Equal(t, lua.LString("v"+p.key), p.val, p.key)
			} else {
				assert.Equal(t, lua.LNil, p.val, p.key)
			}
		}
		assert.Equal(t, []string{"a", "b", "c", "d", "e", "f"}, keys, "given %v", given)
	}
}

// recordingWriter keeps each write apart.
type recordingWriter struct{ writes []string }

func (r *recordingWriter) Write(b []byte) (int, error) {
	r.writes = append(r.writes, string(b))
	return len(b), nil
}

// Output held back in blocks is the same as output held whole: nothing is
// written before the hold-back is passed or Flush is called, then all of
// it in order; since and lastByte see across the blocks.
func TestPrintBufHoldsBackInBlocks(t *testing.T) {
	dst := &recordingWriter{}
	p := newPrintBuf(dst, 5*printBlock)
	var want []byte
	piece := func(i int) string { return fmt.Sprintf("row %d %s\n", i, string(make([]byte, i%300))) }
	for i := 0; len(want) < 4*printBlock+100; i++ {
		s := piece(i)
		switch i % 3 {
		case 0:
			_, _ = p.WriteString(s)
		case 1:
			_, _ = p.Write([]byte(s))
		default:
			for j := 0; j < len(s); j++ {
				require.NoError(t, p.WriteByte(s[j]))
			}
		}
		want = append(want, s...)
		require.Equal(t, len(want), p.Len())
		require.Equal(t, want[len(want)-1], p.lastByte())
	}
	assert.Empty(t, dst.writes, "under the hold-back nothing is written")
	assert.GreaterOrEqual(t, len(p.held), 4, "held as blocks")
	for _, start := range []int{0, 1, printBlock - 1, printBlock, 3*printBlock + 7, len(want) - 1, len(want)} {
		assert.Equal(t, string(want[start:]), p.since(start), "since %d", start)
	}
	WriteJSONString(p, "tail") // past the hold-back at the next full block
	want = append(want, `"tail"`...)
	for len(want) < 6*printBlock {
		_, _ = p.WriteString("0123456789")
		want = append(want, "0123456789"...)
	}
	assert.NotEmpty(t, dst.writes, "past the hold-back the output goes out")
	require.NoError(t, p.Flush())
	assert.Equal(t, string(want), strings.Join(dst.writes, ""))
	assert.Equal(t, want[len(want)-1], p.lastByte())
	assert.Equal(t, len(want), p.Len())
}

// The word-at-a-time tests give what a byte-by-byte loop gives: every byte
// value at every place of strings around a word's length, and random
// strings of mixed bytes.
func TestPlainEightBytesAtATime(t *testing.T) {
	naivePlain := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if s[i] < 0x20 || s[i] >= 0x7f {
				return false
			}
		}
		return true
	}
	naiveJSON := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if !jsonPlain[s[i]] {
				return false
			}
		}
		return true
	}
	check := func(s string) {
		t.Helper()
		require.Equal(t, naivePlain(s), plain(s), "plain(%q)", s)
		require.Equal(t, naiveJSON(s), plainJSON(s), "plainJSON(%q)", s)
	}
	for n := 0; n <= 17; n++ {
		for at := 0; at < n; at++ {
			for c := 0; c < 256; c++ {
				b := []byte(strings.Repeat("a", n))
				b[at] = byte(c)
				check(string(b))
				b[(at+1)%n] = 0xff // a carry or a borrow beside it
				check(string(b))
			}
		}
	}
	rng := uint64(1)
	for range 20000 {
		b := make([]byte, rng%40)
		for i := range b {
			rng = rng*6364136223846793005 + 1442695040888963407
			b[i] = byte(0x1e + (rng>>33)%0x64) // mostly printable, some not
		}
		check(string(b))
	}
}

func BenchmarkPlainJSONValue(b *testing.B) {
	v := strings.Repeat("value-text 0123456789 ", 10)[:200]
	for b.Loop() {
		if !plainJSON(v) || !plain(v) {
			b.Fatal("not plain")
		}
	}
}

// Rows printed in one value, where recordLayout reuses the last row's
// merge, print as each row does alone (no layout to reuse): rows with the
// same keys, with fewer or more of them, in another order, with a
// non-string key, nested records, and a field the shape does not declare.
func TestRecordLayoutPrintsAsEachRowAlone(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	s, err := ParseShape("{{a=int, b=string?, c={{x=int, y=int?}...}, d=bool?}...}")
	require.NoError(t, err)
	rows := []string{
		`{a=1, b="x", c={{x=1, y=2}, {x=3}}, d=true}`,
		`{a=2, b="y", c={{x=4, y=5}, {x=6, y=7}}, d=false}`,
		`{a=3, c={}}`,
		`{a=4, b="z", c={{y=8, x=9}}}`,
		`{d=true, a=5, b="w", c={{x=1}}}`,
		`{a=6, b="v", c={{x=1, y=2}}, d=true, e="not declared"}`,
		`{a=7, b="u", c={{x=1, y=2}}, d=true}`,
		`{a=8, [1]="a number key"}`,
		`{a=9, b="t", c={{x=1, y=2}}, d=true}`,
	}
	require.NoError(t, L.DoString("return {"+strings.Join(rows, ", ")+"}"))
	all := L.Get(-1).(*lua.LTable)
	var alone []string
	for i := 1; i <= all.Len(); i++ {
		var b strings.Builder
		out := newPrintBuf(&b, 0)
		require.NoError(t, writeJSONShaped(out, all.RawGetInt(i), s.Elem(), lua.LNil, ""))
		require.NoError(t, out.Flush())
		alone = append(alone, b.String())
	}
	var b strings.Builder
	out := newPrintBuf(&b, 0)
	require.NoError(t, writeJSONShaped(out, all, s, lua.LNil, ""))
	require.NoError(t, out.Flush())
	assert.Equal(t, "["+strings.Join(alone, ",")+"]", b.String())
	assert.Contains(t, alone[2], `"b":null`, "a declared field a row lacks is null")

	// The second row is laid out as the first; the third is not.
	var l recordLayout
	g := NewGuard("value")
	first, err := objectPairs(nil, all.RawGetInt(1).(*lua.LTable), s.Elem(), g, "JSON")
	require.NoError(t, err)
	l.remember(first, all.RawGetInt(1).(*lua.LTable), s.Elem())
	_, ok := l.reuse(nil, all.RawGetInt(2).(*lua.LTable), s.Elem())
	assert.True(t, ok, "same keys: reused")
	_, ok = l.reuse(nil, all.RawGetInt(3).(*lua.LTable), s.Elem())
	assert.False(t, ok, "fewer keys: merged again")
	_, ok = l.reuse(nil, all.RawGetInt(2).(*lua.LTable), s)
	assert.False(t, ok, "another shape")
}
