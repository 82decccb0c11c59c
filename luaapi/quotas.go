package luaapi

import (
	"fmt"
	"math"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

func init() {
	register(
		&Func{Name: "describe_client_quotas", Area: "quotas", Args: "([entities][, {strict=}])",
			Returns: "{{entity={user=, client_id=, ip=}, quotas={key=number}}...}",
			Summary: "Describe client quotas (all of them without entities).",
			Doc: `entities is one entity filter or an array of them; each is {user=, client_id=, ip=} where a name matches that entity exactly, "<default>" (or "" or kafka.json.null) matches the type's default entity, and true matches every named entity of the type. A type left out is not constrained, unless strict=true (then entities with other types are left out).
Results cover the entities matching any filter, sorted by entity; an entity's default parts read "<default>". Quota values are numbers (producer_byte_rate, consumer_byte_rate, request_percentage, controller_mutation_rate, connection_creation_rate, ...).`,
			Example: `alter_client_quotas{{entity = {user = "alice"}, set = {producer_byte_rate = 1048576}}}
for _, q in ipairs(describe_client_quotas{user = "alice"}) do print(q.entity.user, q.quotas.producer_byte_rate) end`,
			Run: describeClientQuotas},
		&Func{Name: "alter_client_quotas", Area: "quotas", Mutating: true,
			Args:    "(entries[, {validate_only=, partial=}])",
			Returns: "{{entity={...}, error=}...}",
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

var quotaEntityKeys = []string{"user", "client_id", "ip"}

// quotaEntity reads {user=, client_id=, ip=}; asFilter accepts true (any
// named entity).
func (c *Call) quotaEntity(v lua.LValue, where string, asFilter bool) (map[string]string, error) {
	f := newFields(v, where, quotaEntityKeys...)
	if f.err != nil {
		return nil, f.err
	}
	out := map[string]string{}
	for _, k := range quotaEntityKeys {
		val := f.get(k)
		switch {
		case val == lua.LNil:
			continue
		case val == c.rt.null() || val == lua.LString("") || val == lua.LString(engine.DefaultEntity):
			out[k] = engine.DefaultEntity
		case asFilter && val == lua.LTrue:
			out[k] = engine.QuotaMatchAny
		default:
			s, ok := val.(lua.LString)
			if !ok {
				want := "a name or \"<default>\""
				if asFilter {
					want = "a name, \"<default>\" or true (any)"
				}
				return nil, argErr(where+": "+k, "must be %s, got %s", want, describe(val))
			}
			out[k] = string(s)
		}
	}
	if len(out) == 0 && !asFilter {
		return nil, argErr(where, "must name at least one of user, client_id, ip")
	}
	return out, nil
}

// recordList reads one record (a table with string keys) or an array of
// them (possibly empty).
func recordList(v lua.LValue, what string) ([]lua.LValue, error) {
	t, ok := v.(*lua.LTable)
	if !ok {
		return nil, argErr(what, "must be a table or an array of tables, got %s", describe(v))
	}
	var named bool
	t.ForEach(func(k, _ lua.LValue) {
		if _, s := k.(lua.LString); s {
			named = true
		}
	})
	if named {
		return []lua.LValue{t}, nil
	}
	if err := onlyArray(t, what); err != nil {
		return nil, err
	}
	out := make([]lua.LValue, 0, t.Len())
	for i := 1; i <= t.Len(); i++ {
		out = append(out, t.RawGetInt(i))
	}
	return out, nil
}

func describeClientQuotas(c *Call) (any, error) {
	var filters []engine.QuotaFilter
	if v := c.Arg(1); v != lua.LNil {
		list, err := recordList(v, "entities")
		if err != nil {
			return nil, err
		}
		for i, item := range list {
			where := "entities"
			if len(list) > 1 || isArray(v.(*lua.LTable)) {
				where = fmt.Sprintf("entity #%d", i+1)
			}
			m, err := c.quotaEntity(item, where, true)
			if err != nil {
				return nil, err
			}
			filters = append(filters, m)
		}
	}
	o, err := c.Options(2, "strict")
	if err != nil {
		return nil, err
	}
	strict := o.boolean("strict")
	if o.err != nil {
		return nil, o.err
	}
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.DescribeClientQuotas(c.Ctx(), filters, strict)
}

func alterClientQuotas(c *Call) (any, error) {
	list, err := recordList(c.Arg(1), "entries")
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, argErr("entries", "must name at least one entity")
	}
	var alts []engine.QuotaAlteration
	for i, item := range list {
		where := fmt.Sprintf("entry #%d", i+1)
		f := newFields(item, where, "entity", "set", "remove")
		if f.err != nil {
			return nil, f.err
		}
		if !f.has("entity") {
			return nil, argErr(where, "entity is required")
		}
		ent, err := c.quotaEntity(f.get("entity"), where+": entity", false)
		if err != nil {
			return nil, err
		}
		a := engine.QuotaAlteration{Entity: ent, Set: map[string]float64{}, Remove: f.strings("remove")}
		if v := f.get("set"); v != lua.LNil {
			t, ok := v.(*lua.LTable)
			if !ok {
				return nil, argErr(where+": set", "must be a table of key = number, got %s", describe(v))
			}
			var serr error
			t.ForEach(func(k, val lua.LValue) {
				ks, ok := k.(lua.LString)
				n, isNum := val.(lua.LNumber)
				switch {
				case serr != nil:
				case !ok:
					serr = argErr(where+": set", "keys must be quota names, got %s", describe(k))
				case !isNum || math.IsNaN(float64(n)) || float64(n) < 0:
					serr = argErr(where+": set: "+string(ks), "must be a non-negative number, got %s", describe(val))
				default:
					a.Set[string(ks)] = float64(n)
				}
			})
			if serr != nil {
				return nil, serr
			}
		}
		if f.err != nil {
			return nil, f.err
		}
		if len(a.Set) == 0 && len(a.Remove) == 0 {
			return nil, argErr(where, "must set or remove at least one quota")
		}
		for _, k := range a.Remove {
			if _, both := a.Set[k]; both {
				return nil, argErr(where, "%s is both set and removed", k)
			}
		}
		alts = append(alts, a)
	}
	validate, cl, err := c.validateOnlyAndClient()
	if err != nil {
		return nil, err
	}
	for _, a := range alts {
		for _, k := range sortedNames(a.Set) {
			c.Plan("%s: set %s = %v", engine.QuotaEntity(a.Entity), k, a.Set[k])
		}
		for _, k := range a.Remove {
			c.Plan("%s: remove %s", engine.QuotaEntity(a.Entity), k)
		}
	}
	return cl.AlterClientQuotas(c.Ctx(), alts, validate)
}
