package luaapi

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

var aclKeys = []string{"principal", "host", "operation", "permission", "resource_type", "resource_name", "pattern_type"}

func init() {
	register(
		&Func{Name: "describe_acls", Area: "acls", Args: "([filter])",
			Returns: "{{principal=, host=, operation=, permission=, resource_type=, resource_name=, pattern_type=}...}",
			Summary: "List ACLs matching a filter (all ACLs without one).",
			Doc: `filter = {principal=, host=, operation=, permission=, resource_type=, resource_name=, pattern_type=}; a missing field matches anything.
Names are case-insensitive and come back lower-case: operation "read", "write", "create", "delete", "alter", "describe", "cluster_action", "describe_configs", "alter_configs", "idempotent_write", "create_tokens", "describe_tokens", "all"; permission "allow" or "deny"; resource_type "topic", "group", "cluster", "transactional_id", "delegation_token", "user"; pattern_type "literal", "prefixed", "any" (the default) or "match" (every literal, prefixed and wildcard ACL that applies to resource_name).
Rows are sorted by resource type, resource name, pattern type, then principal; a row is itself a valid filter for delete_acls.`,
			Example: `create_acls{{principal = "User:alice", operation = "read", resource_type = "topic", resource_name = "orders"}}
for _, a in ipairs(describe_acls{principal = "User:alice"}) do print(a.operation, a.resource_type, a.resource_name) end`,
			Run: describeACLs},
		&Func{Name: "create_acls", Area: "acls", Mutating: true, Args: "(rows[, {partial=}])",
			Returns: "{{principal=, host=, operation=, permission=, resource_type=, resource_name=, pattern_type=, error=}...}",
			Summary: "Create ACLs, one per row.",
			Doc: `rows is one row or an array of rows {principal=, operation=, resource_type=, resource_name=, [permission=], [host=], [pattern_type=]}; principal is TYPE:NAME ("User:alice").
Defaults, as kafka-acls: permission "allow", host "*", pattern_type "literal" (or "prefixed"), and resource_name "kafka-cluster" for resource_type "cluster". Names are case-insensitive (see describe_acls).
Creating an ACL that already exists changes nothing and is not an error. Kafka has no validate-only mode for ACLs: under --dry-run the rows are checked here and nothing is created.`,
			Example: `create_acls{
  {principal = "User:billing", operation = "read", resource_type = "topic", resource_name = "payments"},
  {principal = "User:billing", operation = "read", resource_type = "group", resource_name = "billing-", pattern_type = "prefixed"},
}`,
			Run: createACLs},
		&Func{Name: "delete_acls", Area: "acls", Mutating: true, Destructive: true, Args: "(filters[, {partial=}])",
			Returns: "{{filter={...}, deleted={{principal=, host=, operation=, permission=, resource_type=, resource_name=, pattern_type=}...}, error=}...}",
			Summary: "Delete every ACL matching each filter, and say which were deleted.",
			Doc: `filters is one filter or an array of them, shaped as describe_acls' filter: a missing field matches anything, so {principal="User:bob"} deletes all of bob's ACLs. A filter must set at least one field; to delete every ACL say so: {resource_type="any"}.
Each result lists the ACLs its filter deleted (none is not an error). Under --dry-run nothing is deleted and deleted lists what would be.`,
			Example: `create_acls{{principal = "User:temp", operation = "write", resource_type = "topic", resource_name = "orders"}}
local r = delete_acls{principal = "User:temp"}
print(#r[1].deleted)`,
			Run: deleteACLs},
	)
}

// aclFields reads the seven ACL keys from a row or filter table.
func aclFields(v lua.LValue, where string) (*fields, map[string]*string) {
	f := newFields(v, where, aclKeys...)
	vals := map[string]*string{}
	for _, k := range aclKeys {
		if f.has(k) {
			s := f.str(k, false)
			vals[k] = &s
		}
	}
	return f, vals
}

func aclFilterFrom(vals map[string]*string) engine.ACLFilter {
	return engine.ACLFilter{Principal: vals["principal"], Host: vals["host"], ResourceName: vals["resource_name"],
		Operation: deref(vals["operation"]), Permission: deref(vals["permission"]), ResourceType: deref(vals["resource_type"]),
		PatternType: deref(vals["pattern_type"])}
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// aclList reads one row/filter table or a non-empty array of them.
func aclList(v lua.LValue, what string) ([]lua.LValue, error) {
	out, err := recordList(v, what)
	if err == nil && len(out) == 0 {
		err = argErr(what, "must name at least one")
	}
	return out, err
}

// eachACLTable reads one table or an array of them (what names it),
// calling each with its position ("row #2") and its set fields.
func eachACLTable(v lua.LValue, what, item string, each func(where string, vals map[string]*string) error) error {
	list, err := aclList(v, what)
	if err != nil {
		return err
	}
	for i, t := range list {
		where := fmt.Sprintf("%s #%d", item, i+1)
		f, vals := aclFields(t, where)
		if f.err != nil {
			return f.err
		}
		if err := each(where, vals); err != nil {
			return err
		}
	}
	return nil
}

// validateOnlyAndClient reads {validate_only=, partial=} at argument 2
// (--dry-run implies validate_only), then connects.
func (c *Call) validateOnlyAndClient() (bool, *engine.Client, error) {
	o, cl, err := c.optionsAndClient(2, "validate_only")
	if err != nil {
		return false, nil, err
	}
	validate := o.boolean("validate_only") || c.DryRun()
	return validate, cl, o.err
}

func describeACLs(c *Call) (any, error) {
	var filter engine.ACLFilter
	if v := c.Arg(1); v != lua.LNil {
		f, vals := aclFields(v, "filter")
		if f.err != nil {
			return nil, f.err
		}
		filter = aclFilterFrom(vals)
		if _, err := engine.NormalizeACLFilter(filter); err != nil {
			return nil, argErr("filter", "%v", err)
		}
	}
	_, cl, err := c.optionsAndClient(2)
	if err != nil {
		return nil, err
	}
	return cl.DescribeACLs(c.Ctx(), filter)
}

func createACLs(c *Call) (any, error) {
	var rows []engine.ACL
	if err := eachACLTable(c.Arg(1), "rows", "row", func(where string, vals map[string]*string) error {
		f := aclFilterFrom(vals)
		a, err := engine.NormalizeACL(engine.ACL{Principal: deref(f.Principal), Host: deref(f.Host), Operation: f.Operation,
			Permission: f.Permission, ResourceType: f.ResourceType, ResourceName: deref(f.ResourceName), PatternType: f.PatternType})
		if err != nil {
			return argErr(where, "%v", err)
		}
		rows = append(rows, a)
		return nil
	}); err != nil {
		return nil, err
	}
	_, cl, err := c.optionsAndClient(2)
	if err != nil {
		return nil, err
	}
	if c.DryRun() {
		out := make([]engine.CreatedACL, 0, len(rows))
		for _, a := range rows {
			c.Plan("create ACL %s", a)
			out = append(out, engine.NewCreatedACL(a, nil))
		}
		return out, nil
	}
	return cl.CreateACLs(c.Ctx(), rows)
}

func deleteACLs(c *Call) (any, error) {
	var filters []engine.ACLFilter
	if err := eachACLTable(c.Arg(1), "filters", "filter", func(where string, vals map[string]*string) error {
		if len(vals) == 0 {
			return argErr(where, "must set at least one field (to delete every ACL, pass {resource_type=\"any\"})")
		}
		filter := aclFilterFrom(vals)
		if _, err := engine.NormalizeACLFilter(filter); err != nil {
			return argErr(where, "%v", err)
		}
		filters = append(filters, filter)
		return nil
	}); err != nil {
		return nil, err
	}
	_, cl, err := c.optionsAndClient(2)
	if err != nil {
		return nil, err
	}
	if c.DryRun() {
		out := make([]engine.DeletedACLs, 0, len(filters))
		for _, f := range filters {
			matches, err := cl.DescribeACLs(c.Ctx(), f)
			if err != nil {
				return nil, err
			}
			nf, _ := engine.NormalizeACLFilter(f)
			for _, a := range matches {
				c.Plan("delete ACL %s", a)
			}
			out = append(out, engine.DeletedACLs{Filter: nf, Deleted: matches})
		}
		return out, nil
	}
	return cl.DeleteACLs(c.Ctx(), filters)
}
