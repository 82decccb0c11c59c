package luaapi

import (
	"fmt"
	"regexp"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/desired"
)

// The rows of a spec beyond topics and ACLs (which are create_topics'
// and create_acls' own types), and its owns and policies.

// quotaRow is a spec's quota row: alter_client_quotas' entity and set
// (the entity's quotas, whole).
var quotaRow = Record(
	Field{Name: "entity", Type: quotaEntity(false), Required: true, Doc: "{user=, client_id=, ip=}"},
	Field{Name: "set", Type: MapOf[string, float64](NonEmptyStr(), Number(0)), Required: true, Doc: "the entity's quotas, whole: {key = number}"},
).Then(func(rec Rec, _ string) (any, error) {
	return desired.QuotaSpec{Entity: get[map[string]string](rec, "entity"), Set: get[map[string]float64](rec, "set")}, nil
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
	return desired.SCRAMUserSpec{User: get[string](rec, "user"), Mechanism: mechanismOf(rec).String(), Iterations: get[int32](rec, "iterations"),
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
		if kind == desired.KindBrokerConfig && s == "" {
			s = "default"
		}
		return desired.ConfigSpec{Kind: kind, Name: s, Set: get[map[string]string](rec, "set")}, nil
	})
}

// configKinds are the spec's config kinds: the key, the engine kind and
// the row's resource field (as alter_configs names it).
var specConfigKinds = []struct {
	key, kind string
	field     Field
}{
	{"group_configs", desired.KindGroupConfig, Field{Name: engine.ConfigGroup, Type: groupID, Required: true, Doc: "a group"}},
	{"client_metrics", desired.KindClientMetrics, Field{Name: engine.ConfigClientMetrics, Type: NonEmptyStr(), Required: true, Doc: "a client-metrics subscription"}},
	{"broker_configs", desired.KindBrokerConfig, Field{Name: engine.ConfigBroker, Type: brokerOrDefault, Required: true, Doc: `a broker id, or "default"`}},
}

// nameSetType reads an owns list: a string is a prefix, {match="RE2"} a
// pattern, "*" every name. An empty prefix or pattern is refused: it is
// what an unset variable gives (`kafka.env("PREFIX") or ""`), and it
// would own, and with --prune delete, everything of its kind.
var nameSetType = List[desired.NameMatcher](OneOf(
	Custom("name prefix", `"team-a."`, func(r *reader, v lua.LValue, at string) (any, error) {
		s, err := Str().read(r, v, at)
		if err != nil {
			return nil, err
		}
		switch s {
		case "":
			return nil, argErr(at, "%s", emptyOwnsMsg("prefix"))
		case desired.OwnEverything:
			return desired.NameMatcher{All: true}, nil
		}
		return desired.NameMatcher{Prefix: s.(string)}, nil
	}, lua.LTString),
	Record(Field{Name: "match", Type: regexpType, Required: true}).Then(func(rec Rec, at string) (any, error) {
		re := get[*regexp.Regexp](rec, "match")
		if re.String() == "" {
			return nil, argErr(subPath(at, "match"), "%s", emptyOwnsMsg("pattern"))
		}
		return desired.NameMatcher{Match: re}, nil
	}),
).Described(`a name prefix, {match = "RE2"} or "*"`)).ArrayOnly() // items are "owns: topics #2", with their lines

func emptyOwnsMsg(what string) string {
	return fmt.Sprintf("an empty %s would own every name of its kind (and --prune would delete them): write %q to own them all", what, desired.OwnEverything)
}

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
