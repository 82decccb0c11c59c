package output

import (
	"fmt"
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Shape is the structure of a function's result as its declaration says
// (Func.Returns): "{{name=string, partitions={{partition=int, leader=int,
// replicas={int...}}...}, error=error?}...}". One declaration feeds help,
// `doc --json` (its "result"), docs/api.md, the REPL's completion of
// `list_topics()[1].` (without calling: a call from completion could change
// the cluster) and the printers: a time column prints as RFC 3339 in tables,
// a declared field a row lacks is null in JSON.
//
// The notation:
//
//	string int number bool time error   scalars; time is epoch milliseconds
//	duration rate                       duration is milliseconds (lag_ms), rate per second
//	json                                a value decoded from JSON (peek's values)
//	{k=T, k2=T}                         a record, fields in declared order
//	{T...}                              a list of T
//	{[string]=T}                        a map from strings to T
//	T?                                  an optional field: absent (nil) in some rows
//
// A field left untyped (`k=`, as plugins may write) or `{...}` is "any".
type Shape struct {
	Kind     ShapeKind
	Optional bool              // a record field that may be absent
	keys     []string          // a record's keys, in declared order
	sorted   []string          // the same, sorted (JSON writes keys sorted)
	fields   map[string]*Shape // their shapes
	// sortedKeys and sortedShapes go with sorted: each key boxed once,
	// its shape (the JSON writer merges them with a row's sorted keys).
	sortedKeys   []lua.LValue
	sortedShapes []*Shape
	elem         *Shape // a list's elements, a map's values
}

// ShapeKind is a value's declared type.
type ShapeKind string

// The kinds of values a result holds.
const (
	KindAny    ShapeKind = "any"
	KindString ShapeKind = "string"
	KindInt    ShapeKind = "int"
	KindNumber ShapeKind = "number"
	KindBool   ShapeKind = "bool"
	// KindTime is epoch milliseconds: a number in Lua, JSON and YAML, RFC
	// 3339 (UTC, milliseconds) in tables; a negative value (-1: unknown)
	// prints as the number.
	KindTime ShapeKind = "time"
	// KindDuration is a length of time in milliseconds (lag_ms, stuck_ms):
	// a number in Lua, JSON and YAML, as a person reads it in tables
	// (Duration: 450ms, 12.3s, 4m10s); a negative one stays the number.
	KindDuration ShapeKind = "duration"
	// KindRate is a number per second (records/s): a number in Lua, JSON
	// and YAML, rounded in tables (Rate: 11.4, 0.052), where
	// 11.356151627336526 said nothing more.
	KindRate ShapeKind = "rate"
	// KindError is an error value ({code=, message=, retriable=, ...}):
	// a batch item's failure.
	KindError ShapeKind = "error"
	// KindJSON is a value decoded from JSON text the cluster holds (a
	// record's value): a string, number, bool, table or kafka.json.null.
	// Declared, unlike an untyped field: its type is the record's own.
	KindJSON   ShapeKind = "json"
	KindList   ShapeKind = "list"
	KindMap    ShapeKind = "map"
	KindRecord ShapeKind = "record"
)

var scalarKinds = []ShapeKind{KindString, KindInt, KindNumber, KindBool, KindTime, KindDuration, KindRate, KindError, KindJSON}

// Field is the shape of a record's key; nil when s has no such key.
func (s *Shape) Field(key string) *Shape {
	if s == nil {
		return nil
	}
	return s.fields[key]
}

// Elem is the shape of a list's elements (or a map's values).
func (s *Shape) Elem() *Shape {
	if s == nil {
		return nil
	}
	return s.elem
}

// Keys are a record's keys, in declared order.
func (s *Shape) Keys() []string {
	if s == nil {
		return nil
	}
	return s.keys
}

// Is reports whether s is of kind k (false for a nil s).
func (s *Shape) Is(k ShapeKind) bool { return s != nil && s.Kind == k }

// rows is the shape of the rows a table printer shows for a value of shape
// s: a list's records, or the record itself (one result record).
func (s *Shape) rows() *Shape {
	if s.Is(KindList) {
		return s.elem
	}
	return s
}

// AddField adds a field to the record s, after the declared ones.
func (s *Shape) AddField(key string, v *Shape) {
	s.keys = append(s.keys, key)
	s.fields[key] = v
	s.sorted = slices.Sorted(slices.Values(s.keys))
	s.sortedKeys, s.sortedShapes = nil, nil
	for _, k := range s.sorted {
		s.sortedKeys = append(s.sortedKeys, lua.LString(k))
		s.sortedShapes = append(s.sortedShapes, s.fields[k])
	}
}

// ShapeDoc is a shape as data, for `doc --json`: a JSON-schema-like
// object. A record lists its fields in declared order, each with its name;
// a list has items, a map keys (their type) and values.
type ShapeDoc struct {
	Type     ShapeKind  `json:"type"`
	Optional bool       `json:"optional,omitempty"`
	Fields   []FieldDoc `json:"fields,omitempty"`
	Items    *ShapeDoc  `json:"items,omitempty"`
	Keys     ShapeKind  `json:"keys,omitempty"`
	Values   *ShapeDoc  `json:"values,omitempty"`
}

// FieldDoc is one field of a record in a ShapeDoc.
type FieldDoc struct {
	Name string `json:"name"`
	ShapeDoc
}

// Doc is s as data; nil for a nil s.
func (s *Shape) Doc() *ShapeDoc {
	if s == nil {
		return nil
	}
	d := &ShapeDoc{Type: s.Kind, Optional: s.Optional}
	switch s.Kind {
	case KindRecord:
		d.Fields = []FieldDoc{}
		for _, k := range s.keys {
			d.Fields = append(d.Fields, FieldDoc{Name: k, ShapeDoc: *s.fields[k].Doc()})
		}
	case KindList:
		d.Items = s.elem.Doc()
	case KindMap:
		d.Keys, d.Values = KindString, s.elem.Doc()
	}
	return d
}

// ParseShape reads the Returns notation (see Shape).
func ParseShape(src string) (*Shape, error) {
	p := &shapeParser{s: src}
	s, err := p.value()
	if err != nil {
		return nil, err
	}
	if p.skip(); p.i != len(p.s) {
		return nil, p.errorf("trailing text")
	}
	if s.Optional {
		return nil, p.errorf("a result cannot be optional")
	}
	return s, nil
}

type shapeParser struct {
	s string
	i int
}

func (p *shapeParser) skip() {
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
	}
}

func (p *shapeParser) errorf(format string, args ...any) error {
	return fmt.Errorf("result shape %q at %d: %s", p.s, p.i, fmt.Sprintf(format, args...))
}

func (p *shapeParser) eat(tok string) bool {
	p.skip()
	if strings.HasPrefix(p.s[p.i:], tok) {
		p.i += len(tok)
		return true
	}
	return false
}

func (p *shapeParser) word() string {
	p.skip()
	start := p.i
	for p.i < len(p.s) && (isLetter(p.s[p.i]) || p.s[p.i] >= '0' && p.s[p.i] <= '9') {
		p.i++
	}
	return p.s[start:p.i]
}

// value reads a type, then a `?` making it optional.
func (p *shapeParser) value() (*Shape, error) {
	s, err := p.typ()
	if err != nil {
		return nil, err
	}
	if p.eat("?") {
		s.Optional = true
	}
	return s, nil
}

func (p *shapeParser) typ() (*Shape, error) {
	if !p.eat("{") {
		w := p.word()
		if w == "" {
			return nil, p.errorf("a value is missing")
		}
		if !slices.Contains(scalarKinds, ShapeKind(w)) {
			return nil, p.errorf("unknown type %q (want one of %v, or a table)", w, scalarKinds)
		}
		return &Shape{Kind: ShapeKind(w)}, nil
	}
	switch {
	case p.eat("..."): // structure not said
		if !p.eat("}") {
			return nil, p.errorf("want }")
		}
		return &Shape{Kind: KindAny}, nil
	case p.eat("["): // {[string]=T}: a map
		if k := p.word(); k != string(KindString) {
			return nil, p.errorf("map keys must be string, got %q", k)
		}
		if !p.eat("]") || !p.eat("=") {
			return nil, p.errorf("want ]=")
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		if !p.eat("}") {
			return nil, p.errorf("want }")
		}
		return &Shape{Kind: KindMap, elem: v}, nil
	}
	// A list {T...} or a record {k=T, ...}: a record's first key is a word
	// followed by =.
	save := p.i
	if w := p.word(); w != "" && p.eat("=") {
		p.i = save
		return p.record()
	}
	p.i = save
	elem, err := p.value()
	if err != nil {
		return nil, err
	}
	if !p.eat("...") || !p.eat("}") {
		return nil, p.errorf("want ...}")
	}
	return &Shape{Kind: KindList, elem: elem}, nil
}

// record reads `k=T, k2=T}` after the opening brace.
func (p *shapeParser) record() (*Shape, error) {
	s := &Shape{Kind: KindRecord, fields: map[string]*Shape{}}
	for {
		key := p.word()
		if key == "" || !p.eat("=") {
			return nil, p.errorf("want key=")
		}
		if s.fields[key] != nil {
			return nil, p.errorf("%s declared twice", key)
		}
		p.skip()
		v := &Shape{Kind: KindAny} // untyped: `k=,`
		if p.i < len(p.s) && p.s[p.i] != ',' && p.s[p.i] != '}' {
			var err error
			if v, err = p.value(); err != nil {
				return nil, err
			}
		}
		s.AddField(key, v)
		if p.eat("}") {
			return s, nil
		}
		if !p.eat(",") {
			return nil, p.errorf("want , or }")
		}
	}
}

func isLetter(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
