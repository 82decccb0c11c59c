package luaapi

import (
	"fmt"
	"strings"
)

// Shape is the structure of a function's result as its declaration says
// (Func.Returns, "{{name=, partitions={{partition=, leader=}...}}...}"):
// the keys of its records, its arrays' elements, its maps' values. The REPL
// completes `list_topics()[1].` from it without calling the function (a
// call from completion could change the cluster).
type Shape struct {
	keys   []string          // a record's keys, in declared order
	fields map[string]*Shape // their shapes (nil: a scalar, or not said)
	elem   *Shape            // an array's elements, a map's values
}

// ResultShape is the shape of what the function named name returns (a
// method name or dotted library name, as ArgKeys takes), or nil when its
// declaration says no structure ("string", "value") or name is unknown.
func ResultShape(name string) *Shape {
	if i := strings.LastIndexAny(name, ".:"); i >= 0 && Lookup(name) == nil {
		name = name[i+1:]
	}
	f := Lookup(name)
	if f == nil || !strings.HasPrefix(f.Returns, "{") {
		return nil
	}
	s, err := parseShape(f.Returns)
	if err != nil {
		return nil
	}
	return s
}

// Field is the shape of a record's key; nil when s has no such key.
func (s *Shape) Field(key string) *Shape {
	if s == nil {
		return nil
	}
	return s.fields[key]
}

// Elem is the shape of an array's elements (or a map's values).
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

// parseShape reads the Returns notation: {k=, k2={...}} a record,
// {{...}...} an array of them, {[key]={...}} a map, {...} a table whose
// structure is not said, a bare word (number) a scalar.
func parseShape(src string) (*Shape, error) {
	p := &shapeParser{s: src}
	s, err := p.value()
	if err != nil {
		return nil, err
	}
	if p.skip(); p.i != len(p.s) {
		return nil, p.errorf("trailing text")
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

// value reads a table or a bare word (nil shape).
func (p *shapeParser) value() (*Shape, error) {
	p.skip()
	if !p.eat("{") {
		start := p.i
		for p.i < len(p.s) && !strings.ContainsRune(",}", rune(p.s[p.i])) {
			p.i++
		}
		if p.i == start {
			return nil, p.errorf("a value is missing")
		}
		return nil, nil
	}
	switch {
	case p.eat("..."): // structure not said
		if !p.eat("}") {
			return nil, p.errorf("want }")
		}
		return &Shape{}, nil
	case p.eat("}"):
		return &Shape{}, nil
	case strings.HasPrefix(p.s[p.i:], "{"): // an array
		elem, err := p.value()
		if err != nil {
			return nil, err
		}
		if !p.eat("...") || !p.eat("}") {
			return nil, p.errorf("want ...}")
		}
		return &Shape{elem: elem}, nil
	}
	return p.record()
}

// record reads `k=, k2=value, [key]=value}` after the opening brace.
func (p *shapeParser) record() (*Shape, error) {
	s := &Shape{fields: map[string]*Shape{}}
	for {
		p.skip()
		if p.eat("[") { // {[key]=value}: a map
			end := strings.IndexByte(p.s[p.i:], ']')
			if end < 0 {
				return nil, p.errorf("want ]")
			}
			p.i += end + 1
			if !p.eat("=") {
				return nil, p.errorf("want =")
			}
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			s.elem = v
		} else {
			start := p.i
			for p.i < len(p.s) && (isLetter(p.s[p.i]) || p.s[p.i] >= '0' && p.s[p.i] <= '9') {
				p.i++
			}
			key := p.s[start:p.i]
			if key == "" || !p.eat("=") {
				return nil, p.errorf("want key=")
			}
			p.skip()
			var v *Shape
			if p.i < len(p.s) && p.s[p.i] != ',' && p.s[p.i] != '}' {
				var err error
				if v, err = p.value(); err != nil {
					return nil, err
				}
			}
			s.keys = append(s.keys, key)
			s.fields[key] = v
		}
		if p.eat("}") {
			return s, nil
		}
		if !p.eat(",") {
			return nil, p.errorf("want , or }")
		}
	}
}

func isLetter(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
