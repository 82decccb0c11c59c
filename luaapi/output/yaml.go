package output

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	lua "github.com/yuin/gopher-lua"
	yaml "go.yaml.in/yaml/v3"
)

// YAML output (-o yaml) holds the same data as JSON output: the same keys
// (sorted, declared fields a row lacks as null), numbers as JSON writes
// them (times in milliseconds), so a YAML reader gets what a JSON reader
// gets. The nodes are built here and written by go.yaml.in/yaml/v3, which
// quotes what needs quoting ("true", "0123", ": ") and writes a string
// that is not UTF-8 as !!binary, the bytes read back exactly.
//
// Strings from a cluster reach a terminal escaped (DESIGN, invariant 6).
// The library escapes control characters itself but writes characters
// YAML calls printable (bidi overrides, zero-width spaces) as they are, in
// any style. A string holding one is therefore given the double-quoted
// style, and in the encoded text each such character, which can then only
// stand inside a double-quoted scalar, is replaced by its \u escape, which
// YAML reads back as the same character.
//
// An array is written yamlBatch elements at a time, each batch a sequence
// of its own whose text continues the one before: a million rows need no
// more memory than a batch.

const yamlBatch = 256

type yamlWriter struct {
	null   lua.LValue
	g      *Guard
	buf    bytes.Buffer
	escape bool // a string in the batch holds a character to escape
}

// writeYAML writes v as YAML with its declared shape s (nil: none).
func writeYAML(out *printBuf, v lua.LValue, s *Shape, null lua.LValue) error {
	w := &yamlWriter{null: null, g: NewGuard("value")}
	t, ok := v.(*lua.LTable)
	if !ok || !IsArray(t) || t.Len() == 0 {
		n, err := w.node(lua.LNil, 0, v, s)
		if err != nil {
			return err
		}
		return w.encode(out, n)
	}
	if err := w.g.Enter(lua.LNil, t); err != nil {
		return err
	}
	for start := 1; start <= t.Len(); start += yamlBatch {
		seq := &yaml.Node{Kind: yaml.SequenceNode}
		for i := start; i < start+yamlBatch && i <= t.Len(); i++ {
			n, err := w.node(nil, i, t.RawGetInt(i), s.Elem())
			if err != nil {
				return err
			}
			seq.Content = append(seq.Content, n)
		}
		if err := w.encode(out, seq); err != nil {
			return err
		}
	}
	w.g.Leave(t)
	return nil
}

func (w *yamlWriter) encode(out *printBuf, n *yaml.Node) error {
	w.buf.Reset()
	enc := yaml.NewEncoder(&w.buf)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	b := w.buf.Bytes()
	if w.escape {
		b = escapeYAMLText(b)
		w.escape = false
	}
	out.Write(b)
	return out.err
}

// escapeYAMLText replaces each character that YAML writes as it is but a
// terminal must not get (printable says which) by its \u escape.
func escapeYAMLText(b []byte) []byte {
	var out []byte
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError || r < utf8.RuneSelf || printable(r) {
			out = append(out, b[i:i+size]...)
		} else if r > 0xffff {
			out = fmt.Appendf(out, `\U%08X`, r)
		} else {
			out = fmt.Appendf(out, `\u%04X`, r)
		}
		i += size
	}
	return out
}

func yamlScalar(tag, value string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: value}
}

// str is a string's node: tagged !!str (so "true" stays a string), but
// untagged when it is not UTF-8, for the library to write it as !!binary.
func (w *yamlWriter) str(s string) *yaml.Node {
	if !utf8.ValidString(s) {
		return yamlScalar("", s)
	}
	n := yamlScalar("!!str", s)
	if !plain(s) {
		n.Style = yaml.DoubleQuotedStyle
		w.escape = w.escape || strings.IndexFunc(s, func(r rune) bool { return r >= utf8.RuneSelf && !printable(r) }) >= 0
	}
	return n
}

// node builds v's node, found under key (under index idx of an array when
// key is nil), with its declared shape s (nil: none).
func (w *yamlWriter) node(key lua.LValue, idx int, v lua.LValue, s *Shape) (*yaml.Node, error) {
	count := func(n int) error {
		if key == nil {
			return w.g.countIndex(idx, n)
		}
		return w.g.Count(key, n)
	}
	if v == w.null {
		return yamlScalar("!!null", "null"), count(4)
	}
	switch v := v.(type) {
	case *lua.LNilType:
		return yamlScalar("!!null", "null"), count(4)
	case lua.LBool:
		return yamlScalar("!!bool", strconv.FormatBool(bool(v))), count(5)
	case lua.LNumber:
		f := float64(v)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, w.g.errorAt(keyOf(key, idx), "YAML output has no %v (JSON has none)", f)
		}
		if f == math.Trunc(f) && math.Abs(f) < 1e15 {
			return yamlScalar("!!int", strconv.FormatInt(int64(f), 10)), count(16)
		}
		return yamlScalar("!!float", strconv.FormatFloat(f, 'g', -1, 64)), count(24)
	case lua.LString:
		return w.str(string(v)), count(len(v))
	case *lua.LTable:
		if err := count(2); err != nil {
			return nil, err
		}
		var err error
		if key == nil {
			err = w.g.enterIndex(idx, v)
		} else {
			err = w.g.Enter(key, v)
		}
		if err != nil {
			return nil, err
		}
		n, err := w.table(v, s)
		if err != nil {
			return nil, err
		}
		w.g.Leave(v)
		return n, nil
	}
	return nil, w.g.errorAt(keyOf(key, idx), "YAML output cannot hold a %s", v.Type())
}

func (w *yamlWriter) table(t *lua.LTable, s *Shape) (*yaml.Node, error) {
	if IsArray(t) {
		seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		if t.Len() == 0 {
			seq.Style = yaml.FlowStyle // []
		}
		for i := 1; i <= t.Len(); i++ {
			n, err := w.node(nil, i, t.RawGetInt(i), s.Elem())
			if err != nil {
				return nil, err
			}
			seq.Content = append(seq.Content, n)
		}
		return seq, nil
	}
	pairs, err := objectPairs(nil, t, s, w.g, "YAML output")
	if err != nil {
		return nil, err
	}
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	if len(pairs) == 0 {
		m.Style = yaml.FlowStyle // {}
	}
	for _, p := range pairs {
		if err := w.g.Str(p.lkey, p.key); err != nil {
			return nil, err
		}
		n, err := w.node(p.lkey, 0, p.val, p.shape)
		if err != nil {
			return nil, err
		}
		m.Content = append(m.Content, w.str(p.key), n)
	}
	return m, nil
}
