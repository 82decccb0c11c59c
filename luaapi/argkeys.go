package luaapi

import (
	"slices"
	"strings"
)

// What the REPL's completion asks of the declarations: the keys a call's
// tables take (ArgKeys), and what a call takes at one position inside its
// arguments (ExpectedAt): a name from the cluster, or one of a fixed set.
// Completion reads declarations only; it never runs Lua code.

// NameKind is the kind of name from the cluster an argument takes. The
// shared Kafka field types carry it (kafkatypes.go: topicName, groupID,
// principal, brokerID), so every function taking a topic gets topics
// completed without saying so itself.
type NameKind string

const (
	NameTopic     NameKind = "topic"
	NameGroup     NameKind = "group"
	NamePrincipal NameKind = "principal" // TYPE:NAME, "User:alice"
	NameBroker    NameKind = "broker"    // a broker id
	NameConfig    NameKind = "config"    // a topic or broker config name
	NameSubject   NameKind = "subject"   // a Schema Registry subject
)

// NameKinds lists every kind, in a stable order.
var NameKinds = []NameKind{NameTopic, NameGroup, NamePrincipal, NameBroker, NameConfig, NameSubject}

// Step is one step from a call's argument list to a value inside it: the
// first step is an argument position, the next ones array items or table
// keys. lag("x") is {Arg(1)}; describe_topics{"x"} is {Arg(1), Item(1)};
// describe_acls{principal="x"} is {Arg(1), Key("principal")}.
type Step struct {
	Index int    // > 0: the Index-th argument, or array item
	Key   string // when Index is 0: the value of this table key
}

// Arg is the n-th argument (1-based); Item the n-th array item; Key a
// table key.
func Arg(n int) Step       { return Step{Index: n} }
func Item(n int) Step      { return Step{Index: n} }
func Key(name string) Step { return Step{Key: name} }

// Expected is what a call takes at one position, for completion.
type Expected struct {
	Kind   NameKind // a name from the cluster; "" when none
	Values []string // the declared values when it takes one of a fixed set
}

// IsZero reports that nothing is known about the position.
func (e Expected) IsZero() bool { return e.Kind == "" && len(e.Values) == 0 }

// ExpectedAt says what the function named name takes at path, read from
// its declaration: the kind of name (a topic where describe_topics' names
// go) and the allowed values (an ACL operation). name may be a method name
// (c:lag) or a dotted library name. The zero Expected when it is not a
// declared function or the path leads nowhere.
func ExpectedAt(name string, path []Step) Expected {
	f := declaredFunc(name)
	if f == nil || len(path) == 0 || path[0].Index < 1 {
		return Expected{}
	}
	for _, t := range argTypes(f, path[0].Index) {
		if e := expectIn(t, path[1:], 0); !e.IsZero() {
			return e
		}
	}
	return Expected{}
}

// argTypes are the types a value at argument position n is read with: the
// parameter's, and the options table's when it may come there (after the
// parameters, or in place of an optional one: lag{partial=true}).
func argTypes(f *Func, n int) []Type {
	var out []Type
	switch {
	case f.Variadic && len(f.Params) > 0 && n >= len(f.Params):
		out = append(out, f.Params[len(f.Params)-1].Type)
	case n <= len(f.Params):
		out = append(out, f.Params[n-1].Type)
	}
	if f.hasOptionsTable() && (n == len(f.Params)+1 || n <= len(f.Params) && f.Params[n-1].Optional) {
		out = append(out, f.optionsRecord())
	}
	return out
}

// expectIn walks t along path to a string or integer type.
func expectIn(t Type, path []Step, depth int) Expected {
	if depth > 8 {
		return Expected{}
	}
	switch t := t.(type) {
	case *StrType:
		if len(path) == 0 {
			return Expected{Kind: t.kind, Values: t.enum}
		}
	case *IntType:
		if len(path) == 0 {
			return Expected{Kind: t.kind}
		}
	case *CustomType:
		if t.like != nil {
			return expectIn(t.like, path, depth+1)
		}
	case *ListType:
		switch {
		case len(path) == 0 && t.single: // a lone element
			return expectIn(t.elem, nil, depth+1)
		case len(path) > 0 && path[0].Index > 0:
			return expectIn(t.elem, path[1:], depth+1)
		case len(path) > 0 && t.single: // a lone record's key
			return expectIn(t.elem, path, depth+1)
		}
	case *RecordType:
		if len(path) > 0 && path[0].Key != "" {
			if f := t.field(path[0].Key); f != nil {
				return expectIn(f.Type, path[1:], depth+1)
			}
		}
	case *MapType:
		if len(path) > 0 {
			return expectIn(t.val, path[1:], depth+1)
		}
	case *AltType:
		// A string where either alternative takes one: the first kind,
		// every value (a broker id or "default").
		var out Expected
		for _, a := range t.alts {
			e := expectIn(a, path, depth+1)
			if out.Kind == "" {
				out.Kind = e.Kind
			}
			out.Values = append(out.Values, e.Values...)
		}
		return out
	}
	return Expected{}
}

// KeyExpectedAt says what a key takes at path, the position of an item in
// a table the declaration reads as a map ({name = value}): alter_configs'
// set takes config names. The zero Expected otherwise.
func KeyExpectedAt(name string, path []Step) Expected {
	f := declaredFunc(name)
	if f == nil || len(path) < 2 || path[0].Index < 1 {
		return Expected{}
	}
	for _, t := range argTypes(f, path[0].Index) {
		if m, ok := typeAt(t, path[1:len(path)-1], 0).(*MapType); ok {
			return expectIn(m.key, nil, 0)
		}
	}
	return Expected{}
}

// typeAt walks t along path to the type found there, or nil.
func typeAt(t Type, path []Step, depth int) Type {
	if depth > 8 {
		return nil
	}
	if len(path) == 0 {
		return t
	}
	switch t := t.(type) {
	case *CustomType:
		if t.like != nil {
			return typeAt(t.like, path, depth+1)
		}
	case *ListType:
		switch {
		case path[0].Index > 0:
			return typeAt(t.elem, path[1:], depth+1)
		case t.single:
			return typeAt(t.elem, path, depth+1)
		}
	case *RecordType:
		if path[0].Key != "" {
			if f := t.field(path[0].Key); f != nil {
				return typeAt(f.Type, path[1:], depth+1)
			}
		}
	case *AltType:
		for _, a := range t.alts {
			if x := typeAt(a, path, depth+1); x != nil {
				return x
			}
		}
	}
	return nil
}

// ArgKeys lists the table keys a call of the function named name can take
// (its options and the fields of its record arguments), for completion
// inside the call: `create_topics({{na<Tab>` -> name. name may be a method
// name or a dotted library name; nil when it is not a declared function.
func ArgKeys(name string) []string {
	f := declaredFunc(name)
	if f == nil {
		return nil
	}
	var out []string
	for _, o := range f.options() {
		out = append(out, o.Name)
		out = append(out, recordKeys(o.Type, 0)...)
	}
	for _, p := range f.Params {
		out = append(out, recordKeys(p.Type, 0)...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// declaredFunc finds the declared function a call names: "lag",
// "c:lag", "kafka.default:lag", "kafka.json.encode".
func declaredFunc(name string) *Func {
	if i := strings.LastIndexAny(name, ".:"); i >= 0 && Lookup(name) == nil {
		name = name[i+1:]
	}
	f := Lookup(name)
	if f == nil || !f.declared() {
		return nil
	}
	return f
}

// recordKeys walks a Type for the field names of the records inside it.
func recordKeys(t Type, depth int) []string {
	if depth > 4 {
		return nil
	}
	switch t := t.(type) {
	case *RecordType:
		out := t.Names()
		for _, f := range t.Fields {
			out = append(out, recordKeys(f.Type, depth+1)...)
		}
		return out
	case *ListType:
		return recordKeys(t.elem, depth+1)
	case *AltType:
		var out []string
		for _, a := range t.alts {
			out = append(out, recordKeys(a, depth+1)...)
		}
		return out
	case *MapType:
		return recordKeys(t.val, depth+1)
	case *CustomType:
		if t.like != nil {
			return recordKeys(t.like, depth+1)
		}
	}
	return nil
}
