package luaapi

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/luaapi/output"
)

func TestExpectedAt(t *testing.T) {
	for _, tc := range []struct {
		fn   string
		path []Step
		want Expected
	}{
		{"lag", []Step{Arg(1)}, Expected{Kind: NameGroup}},
		{"lag", []Step{Arg(1), Item(2)}, Expected{Kind: NameGroup}},
		{"c:lag", []Step{Arg(1)}, Expected{Kind: NameGroup}},
		{"kafka.default:lag", []Step{Arg(1)}, Expected{Kind: NameGroup}},
		{"describe_consumer_groups", []Step{Arg(1), Item(1)}, Expected{Kind: NameGroup}},
		{"describe_topics", []Step{Arg(1), Item(3)}, Expected{Kind: NameTopic}},
		{"fetch_offsets", []Step{Arg(2)}, Expected{Kind: NameTopic}},
		{"describe_acls", []Step{Arg(1), Key("principal")}, Expected{Kind: NamePrincipal}},
		{"delete_acls", []Step{Arg(1), Item(1), Key("principal")}, Expected{Kind: NamePrincipal}},
		{"delete_acls", []Step{Arg(1), Key("principal")}, Expected{Kind: NamePrincipal}},
		{"describe_delegation_tokens", []Step{Arg(1)}, Expected{Kind: NamePrincipal}},
		{"unregister_broker", []Step{Arg(1)}, Expected{Kind: NameBroker}},
		{"describe_configs", []Step{Arg(1), Key("broker")}, Expected{Kind: NameBroker, Values: []string{"default"}}},
		{"describe_configs", []Step{Arg(1), Item(1), Key("topic")}, Expected{Kind: NameTopic}},
		{"describe_configs", []Step{Arg(1), Key("group")}, Expected{Kind: NameGroup}},
		{"reset_offsets", []Step{Arg(1), Key("group")}, Expected{Kind: NameGroup}},
		{"reset_offsets", []Step{Arg(1), Key("topics"), Item(1)}, Expected{Kind: NameTopic}},
		{"reset_offsets", []Step{Arg(1), Key("topics"), Item(1), Key("topic")}, Expected{Kind: NameTopic}},
		{"reset_offsets", []Step{Arg(1), Key("to"), Key("group")}, Expected{Kind: NameGroup}},
		{"reset_offsets", []Step{Arg(1), Key("to")}, Expected{Values: []string{"earliest", "latest", "current"}}},
		{"delete_records", []Step{Arg(1), Item(1), Key("topic")}, Expected{Kind: NameTopic}},
		{"alter_partition_reassignments", []Step{Arg(1), Item(1), Key("replicas"), Item(1)}, Expected{Kind: NameBroker}},
		{"alter_partition_reassignments", []Step{Arg(1), Item(1), Key("topic")}, Expected{Kind: NameTopic}},
		{"create_topics", []Step{Arg(1), Item(1), Key("assignment"), Item(1), Item(1)}, Expected{Kind: NameBroker}},
		{"describe_log_dirs", []Step{Arg(1), Key("brokers"), Item(2)}, Expected{Kind: NameBroker}},
		{"describe_acls", []Step{Arg(1), Key("permission")}, Expected{Values: []string{"allow", "deny", "any"}}},
		{"create_topics", []Step{Arg(1), Item(1)}, Expected{}},              // a new topic's name
		{"create_topics", []Step{Arg(1), Item(1), Key("name")}, Expected{}}, // the same
		{"create_topics", []Step{Arg(2), Key("if_not_exists")}, Expected{}},
		{"lag", []Step{Arg(2)}, Expected{}},
		{"lag", []Step{Key("x")}, Expected{}},
		{"no_such_function", []Step{Arg(1)}, Expected{}},
		{"describe_topics", nil, Expected{}},
	} {
		got := ExpectedAt(tc.fn, tc.path)
		assert.Equal(t, tc.want.Kind, got.Kind, "%s %v", tc.fn, tc.path)
		assert.ElementsMatch(t, tc.want.Values, got.Values, "%s %v", tc.fn, tc.path)
	}
}

// Every argument and field named after a Kafka resource takes it through
// the shared type, so it completes the cluster's names.
func TestResourceArgumentsNameTheirKind(t *testing.T) {
	kinds := map[string]NameKind{
		"topic": NameTopic, "topics": NameTopic, "group": NameGroup, "groups": NameGroup,
		"principal": NamePrincipal, "owners": NamePrincipal, "broker": NameBroker, "brokers": NameBroker,
	}
	checked := 0
	var walk func(f *Func, at string, typ Type, depth int)
	check := func(f *Func, at, name string, typ Type) {
		want, ok := kinds[name]
		if !ok {
			return
		}
		checked++
		got := expectIn(typ, nil, 0).Kind
		if got == "" {
			got = expectIn(typ, []Step{Item(1)}, 0).Kind
		}
		assert.Equal(t, want, got, "%s: %s", f.Name, at)
	}
	walk = func(f *Func, at string, typ Type, depth int) {
		if depth > 6 {
			return
		}
		switch t := typ.(type) {
		case *RecordType:
			for _, fl := range t.Fields {
				check(f, at+"."+fl.Name, fl.Name, fl.Type)
				walk(f, at+"."+fl.Name, fl.Type, depth+1)
			}
		case *ListType:
			walk(f, at+"[]", t.elem, depth+1)
		case *AltType:
			for _, a := range t.alts {
				walk(f, at, a, depth+1)
			}
		case *MapType:
			walk(f, at+"{}", t.val, depth+1)
		case *CustomType:
			if t.like != nil {
				walk(f, at, t.like, depth+1)
			}
		}
	}
	for _, f := range Funcs() {
		if !f.IsAdmin() {
			continue
		}
		for _, p := range f.Params {
			check(f, p.Name, p.Name, p.Type)
			walk(f, p.Name, p.Type, 0)
		}
		for _, o := range f.options() {
			check(f, "options."+o.Name, o.Name, o.Type)
			walk(f, "options."+o.Name, o.Type, 0)
		}
	}
	assert.Greater(t, checked, 40)
}

func TestArgKeysReachCustomTypes(t *testing.T) {
	assert.Subset(t, ArgKeys("delete_records"), []string{"topic", "partition", "offset"})
	assert.Subset(t, ArgKeys("alter_partition_reassignments"), []string{"topic", "partition", "replicas"})
	assert.Subset(t, ArgKeys("c:describe_acls"), []string{"principal", "operation"})
	assert.Nil(t, ArgKeys("no_such_function"))
}

// Every declared result shape reads: the REPL completes fields of results
// from it.
func TestResultShapesParse(t *testing.T) {
	n := 0
	for _, f := range Funcs() {
		if !strings.HasPrefix(f.Returns, "{") {
			continue
		}
		_, err := output.ParseShape(f.Returns)
		require.NoError(t, err, f.Name)
		n++
	}
	assert.Greater(t, n, 40)

	s := ResultShape("describe_topics")
	require.NotNil(t, s)
	assert.Equal(t, KindList, s.Kind)
	assert.Equal(t, []string{"name", "id", "internal", "partitions", "error"}, s.Elem().Keys())
	assert.Equal(t, []string{"partition", "leader", "leader_epoch", "replicas", "isr", "offline_replicas", "elr", "last_known_elr", "error"},
		s.Elem().Field("partitions").Elem().Keys())
	assert.Equal(t, KindString, s.Elem().Field("name").Kind, "a scalar")
	assert.Equal(t, KindInt, s.Elem().Field("partitions").Elem().Field("replicas").Elem().Kind)
	assert.True(t, s.Elem().Field("error").Optional)
	assert.Nil(t, s.Field("name"), "a list has no named fields")
	cfg := ResultShape("c:describe_configs").Elem().Field("configs")
	assert.Equal(t, KindMap, cfg.Kind)
	assert.Empty(t, cfg.Keys())
	assert.Equal(t, []string{"value", "source", "sensitive", "read_only", "synonyms"}, cfg.Elem().Keys())
	assert.Equal(t, []string{"leader", "epoch", "high_watermark", "voters", "observers"}, ResultShape("describe_quorum").Keys())
	assert.Equal(t, KindTime, ResultShape("describe_quorum").Field("observers").Elem().Field("last_fetch_timestamp").Kind)
	assert.Equal(t, []string{"name", "missing", "error", "dry_run"}, ResultShape("delete_topics").Elem().Keys(),
		"a mutating function's rows declare dry_run")
	assert.Nil(t, ResultShape("kafka.json.encode"))
	assert.Nil(t, ResultShape("no_such_function"))
	assert.Nil(t, (*Shape)(nil).Field("x"))
	// Plugins may leave fields untyped.
	untyped, err := output.ParseShape("{{name=, size=}...}")
	require.NoError(t, err)
	assert.Equal(t, KindAny, untyped.Elem().Field("size").Kind)

	// Every admin function declares every field's type.
	for _, f := range adminFuncs() {
		var walk func(path string, s *Shape)
		walk = func(path string, s *Shape) {
			assert.NotEqual(t, KindAny, s.Kind, "%s: %s has no declared type", f.Name, path)
			for _, k := range s.Keys() {
				walk(path+"."+k, s.Field(k))
			}
			if s.Elem() != nil {
				walk(path+"[]", s.Elem())
			}
		}
		require.NotNil(t, f.resultShape(), f.Name)
		walk(f.Name+"()", f.resultShape())
	}

	for _, bad := range []string{"{", "{a=", "{a=, b}", "{{a=}}", "{[k]", "{a=}x", "{{a=}...", "", "{a=integer}",
		"{[int]=string}", "{a=int, a=int}", "{a=int}?", "{int}"} {
		_, err := output.ParseShape(bad)
		assert.Error(t, err, bad)
	}
}
