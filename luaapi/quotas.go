package luaapi

import (
	lua "github.com/yuin/gopher-lua"
	"maps"
	"slices"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

func init() {
	register(
		&Func{Name: "describe_client_quotas", Area: "quotas",
			Params: []Param{{Name: "entities", Type: quotaFilters, Optional: true,
				Doc: "the entities to describe (every one when left out)"}},
			Options: []Field{{Name: "strict", Type: Bool(), Doc: "leave out entities with types the filter does not name"}},
			Returns: "{{entity={[string]=string}, quotas={[string]=number}}...}",
			Summary: "Describe client quotas (all of them without entities).",
			Doc: `entities is one entity filter or an array of them; each is {user=, client_id=, ip=} where a name matches that entity exactly, "<default>" (or "" or kafka.json.null) matches the type's default entity, and true matches every named entity of the type. A type left out is not constrained, unless strict=true (then entities with other types are left out).
Results cover the entities matching any filter, sorted by entity; an entity's default parts read "<default>". Quota values are numbers (producer_byte_rate, consumer_byte_rate, request_percentage, controller_mutation_rate, connection_creation_rate, ...).`,
			Example: `alter_client_quotas{{entity = {user = "alice"}, set = {producer_byte_rate = 1048576}}}
for _, q in ipairs(describe_client_quotas{user = "alice"}) do print(q.entity.user, q.quotas.producer_byte_rate) end`,
			Run: describeClientQuotas},
		&Func{Name: "alter_client_quotas", Area: "quotas", Batch: true,
			Params: []Param{{Name: "entries", Type: quotaAlterations,
				Doc: "the entities and their quota changes"}},
			Returns: "{{entity={[string]=string}, error=error?}...}",
			Summary: "Set and remove client quotas.",
			Doc: `entries is one entry or an array of entries {entity={user=, client_id=, ip=}, set={key=number}, remove={"key"}}. An entity name "<default>" (or "" or kafka.json.null) means the type's default entity: {user="<default>"} is the quota every user without its own gets.
Removing a quota an entity does not have is not an error. validate_only=true (and --dry-run) asks the broker to check without changing anything.`,
			Example: `alter_client_quotas{
  {entity = {user = "alice", client_id = "reporting"}, set = {consumer_byte_rate = 2097152}},
  {entity = {user = "<default>"}, set = {producer_byte_rate = 1048576}},
}`,
			Run: alterClientQuotas},
	)
}

// quotaEntityPart reads one part of a quota entity: a name, or "<default>"
// (also "" and kafka.json.null) for the type's default entity; in a filter,
// true matches every named entity of the type.
func quotaEntityPart(filter bool) *CustomType {
	doc := `name or "<default>"`
	kinds := []lua.LValueType{lua.LTString, lua.LTUserData}
	if filter {
		doc = `name, "<default>" or true (any)`
		kinds = append(kinds, lua.LTBool)
	}
	return Custom(doc, `"alice"`, func(r *reader, v lua.LValue, at string) (any, error) {
		switch {
		case v == r.null || v == lua.LString("") || v == lua.LString(engine.DefaultEntity):
			return engine.DefaultEntity, nil
		case filter && v == lua.LTrue:
			return engine.QuotaMatchAny, nil
		}
		if _, ok := v.(lua.LString); !ok {
			return nil, argErr(at, "must be a %s, got %s", doc, describe(v))
		}
		return Str().read(r, v, at)
	}, kinds...)
}

// quotaEntity reads {user=, client_id=, ip=}; as a filter a type left out
// is not constrained, as an entity to alter one part at least is needed.
func quotaEntity(filter bool) *RecordType {
	part := quotaEntityPart(filter)
	return Record(
		Field{Name: "user", Type: part, Doc: "a user principal's name"},
		Field{Name: "client_id", Type: part, Doc: "a client id"},
		Field{Name: "ip", Type: part, Doc: "a client IP address"},
	).Sample(`{user = "alice"}`).Then(func(rec Rec, at string) (any, error) {
		out := map[string]string{}
		for k, v := range rec {
			out[k] = v.(string)
		}
		if filter {
			return engine.QuotaFilter(out), nil
		}
		if len(out) == 0 {
			return nil, argErr(at, "must name at least one of user, client_id, ip")
		}
		return out, nil
	})
}

var (
	quotaFilters = List[engine.QuotaFilter](quotaEntity(true)).Items("entity")

	quotaAlterations = List[engine.QuotaAlteration](Record(
		Field{Name: "entity", Type: quotaEntity(false), Required: true, Doc: "{user=, client_id=, ip=}"},
		Field{Name: "set", Type: MapOf[string, float64](NonEmptyStr(), Number(0)), Doc: "quotas to set: {key = number}"},
		Field{Name: "remove", Type: List[string](NonEmptyStr()), Doc: "quota keys to remove"},
	).Sample(`{entity = {user = "alice"}, set = {producer_byte_rate = 1024}}`).Then(func(rec Rec, at string) (any, error) {
		a := engine.QuotaAlteration{Entity: get[map[string]string](rec, "entity"), Set: get[map[string]float64](rec, "set"),
			Remove: get[[]string](rec, "remove")}
		if a.Set == nil {
			a.Set = map[string]float64{}
		}
		if len(a.Set) == 0 && len(a.Remove) == 0 {
			return nil, argErr(at, "must set or remove at least one quota")
		}
		for _, k := range a.Remove {
			if _, both := a.Set[k]; both {
				return nil, argErr(at, "%s is both set and removed", k)
			}
		}
		return a, nil
	})).Items("entry").NonEmpty()
)

func describeClientQuotas(c *Call) (any, error) {
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.DescribeClientQuotas(c.Ctx(), param[[]engine.QuotaFilter](c, "entities"), param[bool](c, "strict"))
}

func alterClientQuotas(c *Call) (any, error) {
	alts := param[[]engine.QuotaAlteration](c, "entries")
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	for _, a := range alts {
		for _, k := range slices.Sorted(maps.Keys(a.Set)) {
			c.Plan("%s: set %s = %v", engine.QuotaEntity(a.Entity), k, a.Set[k])
		}
		for _, k := range a.Remove {
			c.Plan("%s: remove %s", engine.QuotaEntity(a.Entity), k)
		}
	}
	return cl.AlterClientQuotas(c.Ctx(), alts, c.ValidateOnly())
}
