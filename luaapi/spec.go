package luaapi

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"
	"go.yaml.in/yaml/v3"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

// A desired-state spec (docs/reconcile.md) is read here: a Lua file
// returning a table, or the same structure in YAML or JSON. Its rows are
// read by the very types the admin functions declare (a topic row as
// create_topics reads a spec, an ACL row as create_acls reads a row), so
// a spec refuses what those calls refuse, with the same messages, prefixed
// with the row's place: file:line, and the path in the document.

// specKinds are a spec's top-level keys.
var specKinds = []string{"topics", "acls", "quotas", "scram_users", "group_configs", "client_metrics", "broker_configs", "owns", "policies"}

// quotaRow is a spec's quota row: alter_client_quotas' entity and set
// (the entity's quotas, whole).
var quotaRow = Record(
	Field{Name: "entity", Type: quotaEntity(false), Required: true, Doc: "{user=, client_id=, ip=}"},
	Field{Name: "set", Type: MapOf[string, float64](NonEmptyStr(), Number(0)), Required: true, Doc: "the entity's quotas, whole: {key = number}"},
).Then(func(rec Rec, _ string) (any, error) {
	return engine.QuotaSpec{Entity: get[map[string]string](rec, "entity"), Set: get[map[string]float64](rec, "set")}, nil
})

// scramUserRow is alter_user_scram_credentials' upsert with the password
// replaced by where to read it: never the spec, never the plan.
var scramUserRow = Record(
	Field{Name: "user", Type: NonEmptyStr(), Required: true},
	Field{Name: "mechanism", Type: scramMechanism, Doc: `"SCRAM-SHA-256" when left out`},
	Field{Name: "iterations", Type: Int32(4096).Between(4096, 16384).Named("SCRAM iteration count"), Doc: "4096 when left out"},
	Field{Name: "password_env", Type: NonEmptyStr(), Doc: "the environment variable holding the password"},
	Field{Name: "password_file", Type: NonEmptyStr(), Doc: "the file holding the password (a trailing newline is dropped)"},
).Then(func(rec Rec, at string) (any, error) {
	if rec.Has("password_env") == rec.Has("password_file") {
		return nil, argErr(at, "must give exactly one of password_env and password_file (a password is never written in a spec)")
	}
	return engine.SCRAMUserSpec{User: get[string](rec, "user"), Mechanism: mechanismOf(rec).String(), Iterations: get[int32](rec, "iterations"),
		PasswordEnv: get[string](rec, "password_env"), PasswordFile: get[string](rec, "password_file")}, nil
})

// configRow is alter_configs' row for one resource type with set only:
// the resource's dynamic configs, whole.
func configRow(kind string, key Field) Type {
	return Record(key, Field{Name: "set", Type: configMap, Required: true, Doc: "the resource's dynamic configs, whole"}).Then(func(rec Rec, _ string) (any, error) {
		name := rec[key.Name]
		s, ok := name.(string)
		if !ok {
			s = fmt.Sprint(name)
		}
		if kind == engine.KindBrokerConfig && s == "" {
			s = "default"
		}
		return engine.ConfigSpec{Kind: kind, Name: s, Set: get[map[string]string](rec, "set")}, nil
	})
}

// configKinds are the spec's config kinds: the key, the engine kind and
// the row's resource field (as alter_configs names it).
var specConfigKinds = []struct {
	key, kind string
	field     Field
}{
	{"group_configs", engine.KindGroupConfig, Field{Name: engine.ConfigGroup, Type: groupID, Required: true, Doc: "a group"}},
	{"client_metrics", engine.KindClientMetrics, Field{Name: engine.ConfigClientMetrics, Type: NonEmptyStr(), Required: true, Doc: "a client-metrics subscription"}},
	{"broker_configs", engine.KindBrokerConfig, Field{Name: engine.ConfigBroker, Type: brokerOrDefault, Required: true, Doc: `a broker id, or "default"`}},
}

// nameSetType reads an owns list: a string is a prefix, {match="RE2"} a
// pattern.
var nameSetType = List[engine.NameMatcher](OneOf(
	Custom("name prefix", `"team-a."`, func(r *reader, v lua.LValue, at string) (any, error) {
		s, err := Str().read(r, v, at)
		if err != nil {
			return nil, err
		}
		return engine.NameMatcher{Prefix: s.(string)}, nil
	}, lua.LTString),
	Record(Field{Name: "match", Type: regexpType, Required: true}).Then(func(rec Rec, _ string) (any, error) {
		return engine.NameMatcher{Match: get[*regexp.Regexp](rec, "match")}, nil
	}),
).Described(`a name prefix or {match = "RE2"}`)).Items("entry").ArrayOnly()

var ownsType = Record(
	Field{Name: "topics", Type: nameSetType, Doc: "the topic names the spec owns"},
	Field{Name: "acls", Type: Record(Field{Name: "principals", Type: nameSetType, Required: true})},
	Field{Name: "quotas", Type: nameSetType, Doc: `the quota entities, as "user=alice" or "client_id=app,user=alice"`},
	Field{Name: "scram_users", Type: nameSetType, Doc: "the SCRAM user names"},
	Field{Name: "group_configs", Type: nameSetType, Doc: "the group ids"},
	Field{Name: "client_metrics", Type: nameSetType, Doc: "the client-metrics subscription names"},
	Field{Name: "broker_configs", Type: nameSetType, Doc: `broker ids and "default"`},
)

var policiesType = Record(
	Field{Name: "topic_name", Type: regexpType, Doc: "every topic name must match (RE2, unanchored)"},
	Field{Name: "min_replication_factor", Type: replicationFactor},
	Field{Name: "min_insync_replicas", Type: Int32(1)},
	Field{Name: "max_partitions", Type: partitionCount},
	Field{Name: "required_configs", Type: List[string](NonEmptyStr()).ArrayOnly()},
)

// loc is where a value of a spec sits in its file: its line and its
// children's, keyed by field name or "#N" for the Nth array item.
type loc struct {
	line  int
	kids  map[string]*loc // by field name
	items []*loc          // the array items, "#1" first
}

func (l *loc) kid(k string) *loc {
	if l == nil {
		return nil
	}
	if n, err := strconv.Atoi(strings.TrimPrefix(k, "#")); err == nil && strings.HasPrefix(k, "#") {
		return l.item(n)
	}
	return l.kids[k]
}

// lineOr is l's line, else (l unknown) outer's.
func (l *loc) lineOr(outer *loc) int {
	switch {
	case l != nil && l.line > 0:
		return l.line
	case outer != nil:
		return outer.line
	}
	return 0
}

// item is the nth array item's location (1-based), nil when unknown.
func (l *loc) item(n int) *loc {
	if l == nil || n < 1 || n > len(l.items) {
		return nil
	}
	return l.items[n-1]
}

// ReadSpec reads a spec file: .yaml, .yml or .json as a document, anything
// else as Lua run in r (a chunk that returns the spec table; kafka.env
// works in it). Every problem is named with its file:line and path, and
// nothing is sent.
func (r *Runtime) ReadSpec(ctx context.Context, path string) (engine.Spec, error) {
	src, err := readFileBounded(path, MaxScriptBytes)
	if err != nil {
		return engine.Spec{}, specErr(path, 0, "", "%v", err)
	}
	var v lua.LValue
	var where *loc
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml", ".json":
		var doc yaml.Node
		if err := yaml.Unmarshal(src, &doc); err != nil {
			return engine.Spec{}, documentErr(path, err)
		}
		if len(doc.Content) == 0 {
			return engine.Spec{}, specErr(path, 0, "", "the document is empty")
		}
		v, where, err = r.yamlValue(doc.Content[0], path, "")
		if err != nil {
			return engine.Spec{}, err
		}
	default:
		if v, where, ok := literalSpec(r.L, src); ok {
			return readSpec(v, path, where, r.null())
		}
		// Parsed once, for the chunk to run and for its rows' lines.
		var fn *lua.LFunction
		chunk, err := parse.Parse(strings.NewReader(string(src)), path)
		if err == nil {
			var proto *lua.FunctionProto
			if proto, err = lua.Compile(chunk, path); err == nil {
				fn = r.L.NewFunctionFromProto(proto)
			}
		}
		if err != nil { // Compile says it as every script's syntax error
			if _, cerr := r.Compile(path, string(src)); cerr != nil {
				err = cerr
			}
			return engine.Spec{}, err
		}
		vals, err := r.Call(ctx, fn)
		if err != nil {
			return engine.Spec{}, err
		}
		if len(vals) == 0 {
			return engine.Spec{}, specErr(path, 0, "", "the file must return the spec table, returns nothing")
		}
		v = vals[0]
		where = returnedTable(chunk)
	}
	return readSpec(v, path, where, r.null())
}

// specErr is a spec's error: "FILE:LINE: path: message".
// documentErr says a YAML or JSON spec's syntax error in the file's own
// format, at its line: yaml.v3 reads both and says "yaml: line 3: ...".
func documentErr(path string, err error) error {
	format := "YAML"
	if strings.EqualFold(filepath.Ext(path), ".json") {
		format = "JSON"
	}
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, after, ok := strings.Cut(rest, ": "); ok {
			if l, err := strconv.Atoi(n); err == nil {
				line, msg = l, after
			}
		}
	}
	return specErr(path, line, "", "not valid %s: %s", format, msg)
}

func specErr(file string, line int, at, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if at != "" {
		msg = at + ": " + msg
	}
	if line > 0 {
		return &engine.Error{Code: engine.CodeInvalidArgument, Message: fmt.Sprintf("%s:%d: %s", file, line, msg)}
	}
	return &engine.Error{Code: engine.CodeInvalidArgument, Message: file + ": " + msg}
}

// specLine finds the deepest line a type's error path reaches under l: the
// path "topics #2: configs: retention.ms" walks #2, then configs.
func specLine(l *loc, rest string) int {
	line := 0
	if l != nil {
		line = l.line
	}
	for _, seg := range strings.Split(rest, ": ") {
		if l = l.kid(seg); l == nil {
			break
		}
		if l.line > 0 {
			line = l.line
		}
	}
	return line
}

func readSpec(v lua.LValue, file string, where *loc, null lua.LValue) (engine.Spec, error) {
	var spec engine.Spec
	top, ok := v.(*lua.LTable)
	if !ok {
		return spec, specErr(file, specLine(where, ""), "", "the spec must be a table with keys %s, got %s", strings.Join(specKinds, ", "), describe(v))
	}
	if err := Record(fieldsOf(specKinds)...).unknownKeys(top, ""); err != nil {
		return spec, specErr(file, specLine(where, ""), "", "%s", err.(*engine.Error).Message)
	}
	rowCount := 0 // to make the maps below at their size
	for _, kind := range specKinds {
		if t, ok := top.RawGetString(kind).(*lua.LTable); ok {
			rowCount += t.Len()
		}
	}
	spec.Where = make(map[string]string, rowCount)
	// Rows are read without their inner paths, as parseArgs reads a
	// call; only a row that fails is read again for its error's path.
	rd := newReader(null)
	rd.unnamed = true
	fail := func(err error, kind string) error {
		msg := err.Error()
		if e, ok := err.(*engine.Error); ok {
			msg = e.Message
		}
		if !strings.HasPrefix(msg, kind) {
			msg = kind + ": " + msg // a list item's path does not repeat its list's
		}
		l := where.kid(kind)
		return specErr(file, specLine(l, strings.TrimPrefix(strings.TrimPrefix(msg, kind), " ")), "", "%s", msg)
	}
	// rows walks an array of rows, each read by t at "kind #N".
	rows := func(kind string, t Type, each func(x any, at string, line int) error) error {
		lv := top.RawGetString(kind)
		if lv == lua.LNil {
			return nil
		}
		tbl, ok := lv.(*lua.LTable)
		if !ok {
			return specErr(file, specLine(where, kind), kind, "must be an array of rows, got %s", describe(lv))
		}
		for k, _ := tbl.Next(lua.LNil); k != lua.LNil; k, _ = tbl.Next(k) {
			if n, ok := k.(lua.LNumber); !ok || float64(n) < 1 || float64(n) > float64(tbl.Len()) || float64(n) != float64(int(n)) {
				return specErr(file, specLine(where, kind), kind, "must be an array of rows, has the key %s", describe(k))
			}
		}
		for i := 1; i <= tbl.Len(); i++ {
			at := kind + " #" + strconv.Itoa(i)
			x, err := t.read(rd, tbl.RawGetInt(i), at)
			if err != nil {
				if _, named := t.read(newReader(null), tbl.RawGetInt(i), at); named != nil {
					err = named
				}
				return fail(err, kind)
			}
			line := where.kid(kind).item(i).lineOr(where.kid(kind))
			if err := each(x, at, line); err != nil {
				return err
			}
		}
		return nil
	}
	first := make(map[string]string, rowCount)
	seen := func(key, at string, line int) error {
		if prev, dup := first[key]; dup {
			return specErr(file, line, at, "%s is given twice (first at %s)", key, prev)
		}
		first[key] = at
		spec.Where[key] = file + ":" + strconv.Itoa(line)
		if line == 0 {
			spec.Where[key] = file + ": " + at
		}
		return nil
	}
	if err := rows("topics", topicSpec, func(x any, at string, line int) error {
		t := x.(engine.TopicSpec)
		spec.Topics = append(spec.Topics, t)
		return seen(engine.SpecKey(engine.KindTopic, t.Name), at, line)
	}); err != nil {
		return spec, err
	}
	if err := rows("acls", aclRow, func(x any, at string, line int) error {
		a := x.(engine.ACL)
		spec.ACLs = append(spec.ACLs, a)
		return seen(engine.SpecKey(engine.KindACL, a.String()), at, line)
	}); err != nil {
		return spec, err
	}
	if err := rows("quotas", quotaRow, func(x any, at string, line int) error {
		q := x.(engine.QuotaSpec)
		spec.Quotas = append(spec.Quotas, q)
		return seen(engine.SpecKey(engine.KindQuota, q.Entity.String()), at, line)
	}); err != nil {
		return spec, err
	}
	if err := rows("scram_users", scramUserRow, func(x any, at string, line int) error {
		u := x.(engine.SCRAMUserSpec)
		spec.SCRAMUsers = append(spec.SCRAMUsers, u)
		return seen(engine.SpecKey(engine.KindSCRAMUser, u.Key()), at, line)
	}); err != nil {
		return spec, err
	}
	for _, ck := range specConfigKinds {
		if err := rows(ck.key, configRow(ck.kind, ck.field), func(x any, at string, line int) error {
			c := x.(engine.ConfigSpec)
			spec.Configs = append(spec.Configs, c)
			return seen(engine.SpecKey(c.Kind, c.Name), at, line)
		}); err != nil {
			return spec, err
		}
	}
	if v := top.RawGetString("owns"); v != lua.LNil {
		x, err := ownsType.read(newReader(null), v, "owns")
		if err != nil {
			return spec, fail(err, "owns")
		}
		rec := x.(Rec)
		spec.Owns.Topics = ownedNames(rec, "topics")
		if rec.Has("acls") {
			spec.Owns.ACLPrincipals = ownedNames(get[Rec](rec, "acls"), "principals")
		}
		spec.Owns.Quotas, spec.Owns.SCRAMUsers = ownedNames(rec, "quotas"), ownedNames(rec, "scram_users")
		spec.Owns.Groups, spec.Owns.ClientMetrics = ownedNames(rec, "group_configs"), ownedNames(rec, "client_metrics")
		spec.Owns.Brokers = ownedNames(rec, "broker_configs")
	}
	if v := top.RawGetString("policies"); v != lua.LNil {
		x, err := policiesType.read(newReader(null), v, "policies")
		if err != nil {
			return spec, fail(err, "policies")
		}
		rec := x.(Rec)
		spec.Policies = engine.Policies{TopicName: get[*regexp.Regexp](rec, "topic_name"),
			MinReplicationFactor: get[int16](rec, "min_replication_factor"), MinInsyncReplicas: int(get[int32](rec, "min_insync_replicas")),
			MaxPartitions: get[int32](rec, "max_partitions"), RequiredConfigs: get[[]string](rec, "required_configs")}
	}
	return spec, nil
}

// ownedNames is an owns list, non-nil when given (an empty list owns
// nothing beyond the listed rows, as a missing one does, but says so).
func ownedNames(rec Rec, key string) engine.NameSet {
	if !rec.Has(key) {
		return nil
	}
	return append(engine.NameSet{}, get[[]engine.NameMatcher](rec, key)...)
}

func fieldsOf(names []string) []Field {
	out := make([]Field, len(names))
	for i, n := range names {
		out[i] = Field{Name: n, Type: Str()}
	}
	return out
}

// returnedTable is the location tree of the table constructor a chunk
// returns last, when it returns one literally.
func returnedTable(chunk []ast.Stmt) *loc {
	for i := len(chunk) - 1; i >= 0; i-- {
		if ret, ok := chunk[i].(*ast.ReturnStmt); ok && len(ret.Exprs) > 0 {
			return exprLoc(ret.Exprs[0])
		}
	}
	return nil
}

func exprLoc(e ast.Expr) *loc {
	l := &loc{line: e.Line()}
	t, ok := e.(*ast.TableExpr)
	if !ok {
		return l
	}
	l.kids = map[string]*loc{}
	n := 0
	for _, f := range t.Fields {
		kid := exprLoc(f.Value)
		switch k := f.Key.(type) {
		case nil:
			n++
			l.items = append(l.items, kid)
		case *ast.StringExpr:
			l.kids[k.Value] = kid
		}
	}
	return l
}

// yamlValue turns a YAML (or JSON) node into the Lua value a Lua spec
// would give, with its location tree.
func (r *Runtime) yamlValue(n *yaml.Node, file, at string) (lua.LValue, *loc, error) {
	l := &loc{line: n.Line}
	switch n.Kind {
	case yaml.AliasNode:
		return r.yamlValue(n.Alias, file, at)
	case yaml.MappingNode:
		t := r.L.NewTable()
		l.kids = map[string]*loc{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				return nil, nil, specErr(file, k.Line, at, "keys must be strings")
			}
			lv, kl, err := r.yamlValue(v, file, subPath(at, k.Value))
			if err != nil {
				return nil, nil, err
			}
			if lv == lua.LNil {
				continue
			}
			var key lua.LValue = lua.LString(k.Value)
			if k.Tag == "!!int" && strings.HasPrefix(at, "topics #") { // assignment = {0: [1, 2]}
				if i, err := strconv.Atoi(k.Value); err == nil {
					key = lua.LNumber(i)
				}
			}
			t.RawSet(key, lv)
			l.kids[k.Value] = kl
		}
		return t, l, nil
	case yaml.SequenceNode:
		t := r.L.NewTable()
		l.items = make([]*loc, 0, len(n.Content))
		for i, c := range n.Content {
			lv, kl, err := r.yamlValue(c, file, fmt.Sprintf("%s #%d", at, i+1))
			if err != nil {
				return nil, nil, err
			}
			t.RawSetInt(i+1, lv)
			l.items = append(l.items, kl)
		}
		return t, l, nil
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return lua.LNil, l, nil
		case "!!bool":
			var b bool
			if err := n.Decode(&b); err != nil {
				return nil, nil, specErr(file, n.Line, at, "%v", err)
			}
			return lua.LBool(b), l, nil
		case "!!int", "!!float":
			var f float64
			if err := n.Decode(&f); err != nil {
				return nil, nil, specErr(file, n.Line, at, "%v", err)
			}
			return lua.LNumber(f), l, nil
		}
		return lua.LString(n.Value), l, nil
	}
	return nil, nil, specErr(file, n.Line, at, "unsupported YAML node")
}
