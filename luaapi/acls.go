package luaapi

import (
	"slices"
	"strings"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

func init() {
	register(
		&Func{Name: "describe_acls", Area: "acls",
			Params: []Param{{Name: "filter", Type: aclFilter(false), Optional: true,
				Doc: "the ACLs to list; a field left out matches anything (every ACL when left out)"}},
			Returns: "{{principal=string, host=string, operation=string, permission=string, resource_type=string, resource_name=string, pattern_type=string}...}",
			Summary: "List ACLs matching a filter (all ACLs without one).",
			Doc: `filter = {principal=, host=, operation=, permission=, resource_type=, resource_name=, pattern_type=}; a missing field matches anything.
Names are case-insensitive and come back lower-case: operation "read", "write", "create", "delete", "alter", "describe", "cluster_action", "describe_configs", "alter_configs", "idempotent_write", "create_tokens", "describe_tokens", "all"; permission "allow" or "deny"; resource_type "topic", "group", "cluster", "transactional_id", "delegation_token", "user"; pattern_type "literal", "prefixed", "any" (the default) or "match" (every literal, prefixed and wildcard ACL that applies to resource_name).
Rows are sorted by resource type, resource name, pattern type, then principal; a row is itself a valid filter for delete_acls.`,
			Example: `create_acls{{principal = "User:alice", operation = "read", resource_type = "topic", resource_name = "orders"}}
for _, a in ipairs(describe_acls{principal = "User:alice"}) do print(a.operation, a.resource_type, a.resource_name) end`,
			Run: describeACLs},
		&Func{Name: "create_acls", Area: "acls", Batch: true,
			Params: []Param{{Name: "rows", Type: List[engine.ACL](aclRow).Items("row").NonEmpty(),
				Doc: "the ACLs to create"}},
			Returns: "{{principal=string, host=string, operation=string, permission=string, resource_type=string, resource_name=string, pattern_type=string, error=error?}...}",
			Summary: "Create ACLs, one per row.",
			Doc: `rows is one row or an array of rows {principal=, operation=, resource_type=, resource_name=, [permission=], [host=], [pattern_type=]}; principal is TYPE:NAME ("User:alice").
Defaults, as kafka-acls: permission "allow", host "*", pattern_type "literal" (or "prefixed"), and resource_name "kafka-cluster" for resource_type "cluster". Names are case-insensitive (see describe_acls).
Creating an ACL that already exists changes nothing and is not an error. Kafka has no validate-only mode for ACLs: under --dry-run the rows are checked here and nothing is created.`,
			Example: `create_acls{
  {principal = "User:billing", operation = "read", resource_type = "topic", resource_name = "payments"},
  {principal = "User:billing", operation = "read", resource_type = "group", resource_name = "billing-", pattern_type = "prefixed"},
}`,
			Run: createACLs},
		&Func{Name: "delete_acls", Area: "acls", Batch: true,
			Params: []Param{{Name: "filters", Type: List[engine.ACLFilter](aclFilter(true)).Items("filter").NonEmpty(),
				Doc: "filters shaped as describe_acls', each with a field set: every ACL a filter matches is deleted"}},
			Returns: "{{filter={principal=string?, host=string?, operation=string?, permission=string?, resource_type=string?, resource_name=string?, pattern_type=string?}, deleted={{principal=string, host=string, operation=string, permission=string, resource_type=string, resource_name=string, pattern_type=string}...}, error=error?}...}",
			Summary: "Delete every ACL matching each filter, and say which were deleted.",
			Doc: `filters is one filter or an array of them, shaped as describe_acls' filter: a missing field matches anything, so {principal="User:bob"} deletes all of bob's ACLs. A filter must set at least one field; to delete every ACL say so: {resource_type="any"}.
Each result lists the ACLs its filter deleted (none is not an error). Under --dry-run nothing is deleted and deleted lists what would be.`,
			Example: `create_acls{{principal = "User:temp", operation = "write", resource_type = "topic", resource_name = "orders"}}
local r = delete_acls{principal = "User:temp"}
print(#r[1].deleted)`,
			Run: deleteACLs},
		&Func{Name: "acl_bundle", Area: "acls", TableCall: true,
			Options: []Field{
				{Name: "producer", Type: List[string](principal), Doc: "the producer's principal (or an array): WRITE, DESCRIBE, CREATE on topics"},
				{Name: "consumer", Type: List[string](principal), Doc: "the consumer's principal (or an array): READ, DESCRIBE on topics, READ on group"},
				{Name: "topics", Type: List[string](aclResourceName(NameTopic)).NonEmpty(), Doc: `a topic or an array ("*" is every topic; a prefix with pattern_type="prefixed")`},
				{Name: "group", Type: List[string](aclResourceName(NameGroup)).NonEmpty(), Doc: `the consumer's group (or an array; "*" is every group)`},
				{Name: "transactional_id", Type: List[string](NonEmptyStr()).NonEmpty(), Doc: "the producer's transactional id (or an array): WRITE, DESCRIBE on it"},
				{Name: "idempotent", Type: Bool(), Doc: "the producer writes idempotently: IDEMPOTENT_WRITE on the cluster"},
				{Name: "hosts", Type: List[string](NonEmptyStr()).NonEmpty(), Doc: `the hosts allowed (default "*": every host)`},
				{Name: "pattern_type", Type: aclNameType(aclPatternTypes...), Doc: `"literal" (default) or "prefixed", for topics, groups and transactional ids`},
			},
			CheckArgs: checkACLBundle,
			Returns:   "{{principal=string, host=string, operation=string, permission=string, resource_type=string, resource_name=string, pattern_type=string}...}",
			Summary:   "The ACLs kafka-acls --producer or --consumer would create, as rows for create_acls and delete_acls.",
			Doc: `Needs no cluster: it returns rows, which create_acls creates and delete_acls deletes (a row is also a filter that matches exactly that ACL). The rows are those of Apache Kafka's AclCommand:
producer = P, topics = T: WRITE, DESCRIBE and CREATE on each topic; with transactional_id = X also WRITE and DESCRIBE on each transactional id; with idempotent = true also IDEMPOTENT_WRITE on the cluster (always literal "kafka-cluster"). kafka-acls does not add IDEMPOTENT_WRITE for a transactional id: Kafka allows idempotence to a producer authorized on a transactional id.
consumer = P, topics = T, group = G: READ and DESCRIBE on each topic, READ on each group. producer and consumer can be given together (the rows are merged, as kafka-acls --producer --consumer merges them).
Every row allows, from each of hosts ("*" by default); pattern_type ("literal" by default, or "prefixed", kafka-acls' --resource-pattern-type) applies to topics, groups and transactional ids. Refused as kafka-acls refuses them: no topics, a consumer without group, idempotent or transactional_id without a producer, group without a consumer. Rows are sorted as describe_acls sorts them.`,
			Example: `local rows = acl_bundle{producer = "User:orders-svc", topics = "orders", idempotent = true}
create_acls(rows)
create_acls(acl_bundle{consumer = "User:billing", topics = "orders", group = "billing"})
print(#describe_acls{principal = "User:orders-svc"}, #describe_acls{principal = "User:billing"})
delete_acls(acl_bundle{consumer = "User:billing", topics = "orders", group = "billing"})
return #rows == 4`,
			Run: aclBundle},
	)
}

// aclResourceName is a topic or group as an ACL names it: "*" or a prefix
// allowed, completed with the cluster's names of that kind.
func aclResourceName(kind NameKind) *StrType { return NonEmptyStr().Naming(kind) }

// aclBundleOf reads acl_bundle's table.
func aclBundleOf(c *Call) engine.ACLBundle {
	return engine.ACLBundle{Producers: param[[]string](c, "producer"), Consumers: param[[]string](c, "consumer"),
		Topics: param[[]string](c, "topics"), Groups: param[[]string](c, "group"),
		TransactionalIDs: param[[]string](c, "transactional_id"), Idempotent: param[bool](c, "idempotent"),
		Hosts: param[[]string](c, "hosts"), PatternType: param[string](c, "pattern_type")}
}

// checkACLBundle refuses what kafka-acls refuses, before anything runs.
func checkACLBundle(c *Call) error {
	if _, err := aclBundleOf(c).Rows(); err != nil {
		return argErr("", "%v", err)
	}
	return nil
}

func aclBundle(c *Call) (any, error) { return aclBundleOf(c).Rows() }

// The names of ACL fields, as this tool writes them. "any" (and "match"
// for pattern_type) only filter: a created ACL names a real value.
var (
	aclOperations = []string{"read", "write", "create", "delete", "alter", "describe", "cluster_action",
		"describe_configs", "alter_configs", "idempotent_write", "create_tokens", "describe_tokens", "all"}
	aclPermissions   = []string{"allow", "deny"}
	aclResourceTypes = []string{"topic", "group", "cluster", "transactional_id", "delegation_token", "user"}
	aclPatternTypes  = []string{"literal", "prefixed"}
)

// aclNameType accepts names as Kafka's tools spell them: any case, with or
// without '_', '-' or '.' ("DescribeConfigs", "TRANSACTIONAL_ID").
func aclNameType(names ...string) *CustomType {
	return spelledEnum(func(s, name string) bool { return aclNorm(s) == aclNorm(name) }, names...)
}

// aclNorm is kmsg's normalization of enum names.
func aclNorm(s string) string {
	return aclNormReplacer.Replace(strings.ToLower(strings.TrimSpace(s)))
}

var aclNormReplacer = strings.NewReplacer(".", "", "_", "", "-", "")

// aclRow is an ACL to create; NormalizeACL fills the defaults kafka-acls
// uses and checks what the fields alone do not (a resource name).
var aclRow = Record(
	Field{Name: "principal", Type: principal, Required: true, Doc: `TYPE:NAME, such as "User:alice"`},
	Field{Name: "operation", Type: aclNameType(aclOperations...), Required: true},
	Field{Name: "resource_type", Type: aclNameType(aclResourceTypes...), Required: true},
	Field{Name: "resource_name", Type: NonEmptyStr(), Doc: `"kafka-cluster" for the cluster when left out`},
	Field{Name: "permission", Type: aclNameType(aclPermissions...), Doc: `"allow" when left out`},
	Field{Name: "host", Type: NonEmptyStr(), Doc: `"*" (every host) when left out`},
	Field{Name: "pattern_type", Type: aclNameType(aclPatternTypes...), Doc: `"literal" when left out`},
).Sample(`{principal = "User:alice", operation = "read", resource_type = "topic", resource_name = "t"}`).
	Then(func(rec Rec, at string) (any, error) {
		a, err := engine.NormalizeACL(engine.ACL{Principal: get[string](rec, "principal"), Host: get[string](rec, "host"),
			Operation: get[string](rec, "operation"), Permission: get[string](rec, "permission"),
			ResourceType: get[string](rec, "resource_type"), ResourceName: get[string](rec, "resource_name"),
			PatternType: get[string](rec, "pattern_type")})
		if err != nil {
			return nil, argErr(at, "%v", err)
		}
		return a, nil
	})

// aclFilter is describe_acls' and delete_acls' filter: the fields of a
// row, each checked as strictly as create_acls checks it, "any" (and
// pattern_type "match") allowed. needField refuses an empty filter, which
// would select every ACL.
func aclFilter(needField bool) *RecordType {
	t := Record(
		Field{Name: "principal", Type: principal, Doc: `TYPE:NAME, such as "User:alice"`},
		Field{Name: "host", Type: NonEmptyStr()},
		Field{Name: "operation", Type: aclNameType(slices.Concat(aclOperations, []string{"any"})...)},
		Field{Name: "permission", Type: aclNameType(slices.Concat(aclPermissions, []string{"any"})...)},
		Field{Name: "resource_type", Type: aclNameType(slices.Concat(aclResourceTypes, []string{"any"})...)},
		Field{Name: "resource_name", Type: NonEmptyStr()},
		Field{Name: "pattern_type", Type: aclNameType(slices.Concat(aclPatternTypes, []string{"any", "match"})...)},
	).Then(func(rec Rec, at string) (any, error) {
		if needField && len(rec) == 0 {
			return nil, argErr(at, "must set at least one field (to delete every ACL, pass {resource_type=\"any\"})")
		}
		str := func(k string) *string {
			if !rec.Has(k) {
				return nil
			}
			s := get[string](rec, k)
			return &s
		}
		f, err := engine.NormalizeACLFilter(engine.ACLFilter{Principal: str("principal"), Host: str("host"),
			ResourceName: str("resource_name"), Operation: get[string](rec, "operation"), Permission: get[string](rec, "permission"),
			ResourceType: get[string](rec, "resource_type"), PatternType: get[string](rec, "pattern_type")})
		if err != nil {
			return nil, argErr(at, "%v", err)
		}
		return f, nil
	})
	if needField {
		t = t.Sample(`{principal = "User:alice"}`)
	}
	return t
}

func describeACLs(c *Call) (any, error) {
	filter := param[engine.ACLFilter](c, "filter") // every ACL when left out
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.DescribeACLs(c.Ctx(), filter)
}

func createACLs(c *Call) (any, error) {
	rows := param[[]engine.ACL](c, "rows")
	cl, err := c.Client()
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
	filters := param[[]engine.ACLFilter](c, "filters")
	cl, err := c.Client()
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
			for _, a := range matches {
				c.Plan("delete ACL %s", a)
			}
			out = append(out, engine.DeletedACLs{Filter: f, Deleted: matches})
		}
		return out, nil
	}
	return cl.DeleteACLs(c.Ctx(), filters)
}
