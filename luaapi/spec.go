package luaapi

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"go.yaml.in/yaml/v3"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/desired"
	"github.com/kadmin-lua/kadmin-lua/internal/boundedfile"
)

// A desired-state spec (docs/reconcile.md) is read here: a Lua file
// returning a table, or the same structure in YAML or JSON. Its rows are
// read by the very types the admin functions declare (a topic row as
// create_topics reads a spec, an ACL row as create_acls reads a row), so
// a spec refuses what those calls refuse, with the same messages, prefixed
// with the row's place: file:line, and the path in the document.

// specKinds are a spec's top-level keys.
var specKinds = []string{"topics", "acls", "quotas", "scram_users", "group_configs", "client_metrics", "broker_configs", "owns", "policies"}

// ReadSpec reads a spec file: .yaml, .yml or .json as a document, anything
// else as Lua (a chunk that returns the spec table), data-only chunks
// without running them, others in a state of their own with no cluster,
// no files and no secrets, under o's memory and time limits
// (spec_sandbox.go). The file must be a regular file of at most
// MaxScriptBytes. Every problem is named with its file:line and path, and
// nothing is sent.
func ReadSpec(ctx context.Context, path string, o SpecOptions) (desired.Spec, error) {
	src, err := boundedfile.Read(path, MaxScriptBytes)
	if err != nil {
		return desired.Spec{}, specErr(path, 0, "", "%v", err)
	}
	L := newSpecState(o)
	defer L.Close()
	null := L.NewUserData() // a spec has no kafka.json.null: nothing is null
	var v lua.LValue
	var where *loc
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml", ".json":
		var doc yaml.Node
		if err := yaml.Unmarshal(src, &doc); err != nil {
			return desired.Spec{}, documentErr(path, err)
		}
		if len(doc.Content) == 0 {
			return desired.Spec{}, specErr(path, 0, "", "the document is empty")
		}
		if v, where, err = yamlDocument(L, doc.Content[0], path); err != nil {
			return desired.Spec{}, err
		}
	default:
		var ok bool
		if v, where, ok = literalSpec(L, src); !ok {
			if v, where, err = evalLuaSpec(ctx, L, path, src, o); err != nil {
				return desired.Spec{}, err
			}
		}
	}
	return readSpec(v, path, where, null)
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
		// "principals #1" is the field, then its item.
		name, item, isItem := strings.Cut(seg, " #")
		steps := []string{seg}
		if isItem && name != "" {
			steps = []string{name, "#" + item}
		}
		for _, step := range steps {
			if l = l.kid(step); l == nil {
				return line
			}
			if l.line > 0 {
				line = l.line
			}
		}
	}
	return line
}

func readSpec(v lua.LValue, file string, where *loc, null lua.LValue) (desired.Spec, error) {
	var spec desired.Spec
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
		// "topics #2: partitions: ..." walks #2 then partitions under
		// topics; "owns: acls: principals #1: ..." acls under owns.
		rest := strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(msg, kind), ":"), " ")
		return specErr(file, specLine(where.kid(kind), rest), "", "%s", msg)
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
		return seen(desired.SpecKey(desired.KindTopic, t.Name), at, line)
	}); err != nil {
		return spec, err
	}
	if err := rows("acls", aclRow, func(x any, at string, line int) error {
		a := x.(engine.ACL)
		spec.ACLs = append(spec.ACLs, a)
		return seen(desired.SpecKey(desired.KindACL, a.String()), at, line)
	}); err != nil {
		return spec, err
	}
	if err := rows("quotas", quotaRow, func(x any, at string, line int) error {
		q := x.(desired.QuotaSpec)
		spec.Quotas = append(spec.Quotas, q)
		return seen(desired.SpecKey(desired.KindQuota, q.Entity.String()), at, line)
	}); err != nil {
		return spec, err
	}
	if err := rows("scram_users", scramUserRow, func(x any, at string, line int) error {
		u := x.(desired.SCRAMUserSpec)
		spec.SCRAMUsers = append(spec.SCRAMUsers, u)
		return seen(desired.SpecKey(desired.KindSCRAMUser, u.Key()), at, line)
	}); err != nil {
		return spec, err
	}
	for _, ck := range specConfigKinds {
		if err := rows(ck.key, configRow(ck.kind, ck.field), func(x any, at string, line int) error {
			c := x.(desired.ConfigSpec)
			spec.Configs = append(spec.Configs, c)
			return seen(desired.SpecKey(c.Kind, c.Name), at, line)
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
		spec.Policies = desired.Policies{TopicName: get[*regexp.Regexp](rec, "topic_name"),
			MinReplicationFactor: get[int16](rec, "min_replication_factor"), MinInsyncReplicas: int(get[int32](rec, "min_insync_replicas")),
			MaxPartitions: get[int32](rec, "max_partitions"), RequiredConfigs: get[[]string](rec, "required_configs")}
	}
	return spec, nil
}

// ownedNames is an owns list, non-nil when given (an empty list owns
// nothing beyond the listed rows, as a missing one does, but says so).
func ownedNames(rec Rec, key string) desired.NameSet {
	if !rec.Has(key) {
		return nil
	}
	return append(desired.NameSet{}, get[[]desired.NameMatcher](rec, key)...)
}

func fieldsOf(names []string) []Field {
	out := make([]Field, len(names))
	for i, n := range names {
		out[i] = Field{Name: n, Type: Str()}
	}
	return out
}
