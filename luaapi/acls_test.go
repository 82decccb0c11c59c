package luaapi

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/login"
)

// clusterACLs lists every ACL through the independent client, as
// "principal op perm type:name:pattern" strings.
func (e *env) clusterACLs() []string {
	e.t.Helper()
	b := kadm.NewACLs().AnyResource().ResourcePatternType(kadm.ACLPatternAny).Operations(kadm.OpAny).
		Allow().Deny().AllowHosts().DenyHosts()
	res, err := e.adm.DescribeACLs(e.ctx(), b)
	require.NoError(e.t, err)
	var out []string
	for _, r := range res {
		require.NoError(e.t, r.Err)
		for _, d := range r.Described {
			out = append(out, d.Principal+" "+d.Operation.String()+" "+d.Permission.String()+" "+
				d.Type.String()+":"+d.Name+":"+d.Pattern.String())
		}
	}
	return out
}

func TestCreateDescribeDeleteACLs(t *testing.T) {
	e := newEnv(t)
	out := e.json(`return create_acls{
		{principal = "User:alice", operation = "read", resource_type = "topic", resource_name = "orders"},
		{principal = "User:alice", operation = "WRITE", permission = "deny", resource_type = "Topic", resource_name = "pay", pattern_type = "prefixed"},
		{principal = "User:bob", operation = "describe", resource_type = "cluster"},
	}`)
	assert.Contains(t, out, `"host":"*"`)
	assert.Contains(t, out, `"resource_name":"kafka-cluster"`)
	assert.Contains(t, out, `"operation":"write","pattern_type":"prefixed","permission":"deny"`)
	assert.ElementsMatch(t, []string{
		"User:alice READ ALLOW TOPIC:orders:LITERAL",
		"User:alice WRITE DENY TOPIC:pay:PREFIXED",
		"User:bob DESCRIBE ALLOW CLUSTER:kafka-cluster:LITERAL",
	}, e.clusterACLs())

	e.run(`
		local all = describe_acls()
		assert(#all == 3, tostring(#all))
		assert(all[1].resource_type == "cluster" and all[1].principal == "User:bob", all[1].resource_type)
		local alice = describe_acls{principal = "User:alice"}
		assert(#alice == 2)
		assert(alice[1].resource_name == "orders" and alice[1].operation == "read" and alice[1].permission == "allow")
		-- kfake's "match" compares names exactly (Kafka also applies prefixed
		-- and wildcard ACLs: the real-Kafka suite covers that).
		local m = describe_acls{resource_type = "topic", resource_name = "pay", pattern_type = "match"}
		assert(#m == 1 and m[1].pattern_type == "prefixed", tostring(#m))
		assert(#describe_acls{operation = "alter"} == 0)
	`)

	// A described row is a valid delete filter; delete says what went.
	e.run(`
		local r = delete_acls{describe_acls{principal = "User:bob"}[1], {principal = "User:nobody"}}
		assert(#r == 2)
		assert(#r[1].deleted == 1 and r[1].deleted[1].principal == "User:bob")
		assert(r[1].filter.principal == "User:bob")
		assert(#r[2].deleted == 0 and r[2].error == nil)
	`)
	assert.Len(t, e.clusterACLs(), 2)
	e.run(`local r = delete_acls{principal = "User:alice"}; assert(#r[1].deleted == 2)`)
	assert.Empty(t, e.clusterACLs())
}

func TestACLsBadArguments(t *testing.T) {
	e := newEnv(t)
	row := `principal = "User:a", operation = "read", resource_type = "topic", resource_name = "t"`
	for src, want := range map[string]string{
		`create_acls{{principal = "alice", operation = "read", resource_type = "topic", resource_name = "t"}}`:  `create_acls: row #1: principal: must be TYPE:NAME such as "User:alice", got "alice"`,
		`create_acls{{principal = "User:a", operation = "reed", resource_type = "topic", resource_name = "t"}}`: `create_acls: row #1: operation: must be "read", "write", "create", "delete", "alter", "describe", "cluster_action", "describe_configs", "alter_configs", "idempotent_write", "create_tokens", "describe_tokens" or "all", got "reed" (did you mean "read"?)`,
		`create_acls{{principal = "User:a", operation = "any", resource_type = "topic", resource_name = "t"}}`:  `create_acls: row #1: operation: must be "read"`,
		`create_acls{{principal = "User:a", operation = "read", resource_type = "topic"}}`:                      `create_acls: row #1: resource_name is required`,
		`create_acls{{` + row + `, pattern_type = "match"}}`:                                                    `create_acls: row #1: pattern_type: must be "literal" or "prefixed", got "match"`,
		`create_acls{{` + row + `, permission = "any"}}`:                                                        `create_acls: row #1: permission: must be "allow" or "deny", got "any"`,
		`create_acls{{` + row + `, host = ""}}`:                                                                 `create_acls: row #1: host: must not be empty`,
		`create_acls{{` + row + `, bogus = 1}}`:                                                                 `create_acls: row #1: unknown key "bogus"`,
		`create_acls{{` + row + `, resource_nam = "x"}}`:                                                        `create_acls: row #1: unknown key "resource_nam" (did you mean "resource_name"?)`,
		`create_acls({{` + row + `}}, {partial = 1})`:                                                           `create_acls: options: partial: must be true or false, got 1`,
		`create_acls({{` + row + `}}, {validate_only = true})`:                                                  `create_acls: options: unknown key "validate_only" (allowed: partial)`,
		`create_acls(42)`:                                  `create_acls: rows: must be {principal=, operation=, resource_type=, [resource_name=], [permission=], [host=], [pattern_type=]}, or an array of them, got 42`,
		`create_acls{}`:                                    `create_acls: rows: must name at least one`,
		`delete_acls{{}}`:                                  `delete_acls: filter #1: must set at least one field`,
		`delete_acls{principal = "bob"}`:                   `delete_acls: filter #1: principal: must be TYPE:NAME`,
		`delete_acls{pattern_type = "prefix"}`:             `delete_acls: filter #1: pattern_type: must be "literal", "prefixed", "any" or "match", got "prefix" (did you mean "prefixed"?)`,
		`describe_acls{permission = "ok"}`:                 `describe_acls: filter: permission: must be "allow", "deny" or "any", got "ok"`,
		`describe_acls{principal = "alice"}`:               `describe_acls: filter: principal: must be TYPE:NAME such as "User:alice", got "alice"`,
		`describe_acls{principal = "User:"}`:               `describe_acls: filter: principal: must be TYPE:NAME`,
		`describe_acls{operation = "wrte"}`:                `describe_acls: filter: operation: must be "read", "write"`,
		`describe_acls{resource_type = "topics"}`:          `describe_acls: filter: resource_type: must be "topic", "group", "cluster", "transactional_id", "delegation_token", "user" or "any", got "topics" (did you mean "topic"?)`,
		`describe_acls{resource_type = "topic", host = 1}`: `describe_acls: filter: host: must be a non-empty string, got 1`,
		`describe_acls{resource_nme = "t"}`:                `describe_acls: filter: unknown key "resource_nme" (did you mean "resource_name"?)`,
		`describe_acls({}, {partial = true})`:              `describe_acls: takes at most 1 argument`,
		`describe_acls("User:alice")`:                      `describe_acls: filter: must be a table {[principal=], [host=], [operation=], [permission=], [resource_type=], [resource_name=], [pattern_type=]}, got "User:alice"`,
	} {
		re := e.runErr(src)
		assert.Equal(t, "INVALID_ARGUMENT", re.Code, src)
		assert.Contains(t, re.Message, want, src)
	}
	assert.Empty(t, e.clusterACLs())
}

// Filters are as strict as creators: an access review that misspells a
// principal or an operation gets an error, not an empty list; a delete
// with a bad filter deletes nothing and sends nothing.
func TestACLFiltersAreAsStrictAsCreators(t *testing.T) {
	e := newEnv(t)
	e.run(`create_acls{{principal = "User:alice", operation = "read", resource_type = "topic", resource_name = "orders"}}`)
	requests := countRequests(e.cluster)
	for _, src := range []string{
		`describe_acls{principal = "alice"}`,
		`describe_acls{operation = "reed"}`,
		`delete_acls{principal = "alice"}`,
		`delete_acls{{principal = "User:alice"}, {principal = "User:alice", operation = "raed"}}`,
		`delete_acls({principal = "User:alice"}, {partial = "yes"})`,
		`delete_acls({principal = "User:alice"}, {partail = true})`,
	} {
		re := e.runErr(src)
		assert.Equal(t, "INVALID_ARGUMENT", re.Code, src)
	}
	assert.Zero(t, requests.Load(), "refused calls send nothing")
	assert.Equal(t, []string{"User:alice READ ALLOW TOPIC:orders:LITERAL"}, e.clusterACLs(), "nothing deleted")
}

// Names are read as kafka-acls spells them too: any case, with or without
// '_' and '-'; they come back as this tool writes them.
func TestACLNamesInKafkaSpellings(t *testing.T) {
	e := newEnv(t)
	out := e.json(`return create_acls{
		{principal = "User:tx", operation = "DescribeConfigs", resource_type = "transactional-id", resource_name = "tx1", permission = "ALLOW", pattern_type = "Prefixed"},
		{principal = "User:tx", operation = "IDEMPOTENT_WRITE", resource_type = "Cluster"},
	}`)
	assert.Contains(t, out, `"operation":"describe_configs","pattern_type":"prefixed","permission":"allow","principal":"User:tx","resource_name":"tx1","resource_type":"transactional_id"`)
	assert.ElementsMatch(t, []string{
		"User:tx DESCRIBE_CONFIGS ALLOW TRANSACTIONAL_ID:tx1:PREFIXED",
		"User:tx IDEMPOTENT_WRITE ALLOW CLUSTER:kafka-cluster:LITERAL",
	}, e.clusterACLs())
	e.run(`assert(#describe_acls{operation = "describe-configs", resource_type = "TransactionalId"} == 1)`)
	e.run(`assert(#delete_acls{operation = "idempotentwrite"}[1].deleted == 1)`)
	assert.Len(t, e.clusterACLs(), 1)
}

func TestDeleteACLsEverythingNeedsAnExplicitFilter(t *testing.T) {
	e := newEnv(t)
	e.run(`create_acls{{principal = "User:a", operation = "read", resource_type = "topic", resource_name = "x"},
		{principal = "User:b", operation = "read", resource_type = "group", resource_name = "g"}}`)
	e.run(`assert(#delete_acls{resource_type = "any"}[1].deleted == 2)`)
	assert.Empty(t, e.clusterACLs())
}

func TestACLsDryRun(t *testing.T) {
	e := newEnv(t)
	e.run(`create_acls{{principal = "User:keep", operation = "read", resource_type = "topic", resource_name = "t"}}`)
	e.run(`
		kafka.dry_run(true)
		local c = create_acls{{principal = "User:new", operation = "read", resource_type = "topic", resource_name = "t"}}
		assert(c[1].dry_run == true)
		local d = delete_acls{principal = "User:keep"}
		assert(#d[1].deleted == 1 and d[1].dry_run == true)
	`)
	assert.Equal(t, []string{"User:keep READ ALLOW TOPIC:t:LITERAL"}, e.clusterACLs())
	assert.Contains(t, e.stderr.String(), "dry-run: create_acls: create ACL User:new allow read on topic t (literal) from *")
	assert.Contains(t, e.stderr.String(), "dry-run: delete_acls: delete ACL User:keep allow read on topic t (literal) from *")
}

func TestDeleteACLsTimedOutStillReportsWhatWasDeleted(t *testing.T) {
	e := newEnv(t)
	e.run(`create_acls{{principal = "User:x", operation = "read", resource_type = "topic", resource_name = "t"}}`)
	// kfake deletes and answers REQUEST_TIMED_OUT, as a broker can: the
	// retry finds nothing, and the result must still name the deleted ACL.
	h := e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.DeleteACLs}, Err: kerr.RequestTimedOut, Count: 1})
	defer h.Remove()
	e.run(`local r = delete_acls{principal = "User:x"}
		assert(r[1].error == nil)
		assert(#r[1].deleted == 1 and r[1].deleted[1].resource_name == "t", tostring(#r[1].deleted))`)
	assert.Equal(t, 1, h.Hits())
	assert.Empty(t, e.clusterACLs())
}

func TestCreateACLsPerRowFailureAndRetry(t *testing.T) {
	e := newEnv(t)
	retry := e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.CreateACLs}, Resource: "a", Err: kerr.NotController, Count: 2})
	defer retry.Remove()
	bad := e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.CreateACLs}, Resource: "b", Err: kerr.PolicyViolation, Count: -1})
	defer bad.Remove()
	e.run(`
		local ok, err = pcall(create_acls, {
			{principal = "User:u", operation = "read", resource_type = "topic", resource_name = "a"},
			{principal = "User:u", operation = "read", resource_type = "topic", resource_name = "b"},
		})
		assert(not ok)
		assert(err.code == "POLICY_VIOLATION", err.code)
		assert(err.results[1].error == nil and err.results[2].error.code == "POLICY_VIOLATION")
	`)
	assert.Equal(t, 2, retry.Hits())
	assert.Equal(t, []string{"User:u READ ALLOW TOPIC:a:LITERAL"}, e.clusterACLs())
}

func TestACLsEnforcedClusterAsSuperuser(t *testing.T) {
	// With ACLs enforced, the superuser manages ACLs and an unauthorized
	// user is refused.
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.EnableSASL(), kfake.EnableACLs(),
		kfake.Superuser("SCRAM-SHA-256", "admin", "admin-pass"), kfake.User("SCRAM-SHA-256", "eve", "eve-pass"))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	as := func(user, pass string) *env {
		return newEnvOn(t, c, Options{Config: engine.Config{SASL: &login.SASLConfig{Mechanism: "SCRAM-SHA-256", Username: user, Password: engine.Secret(pass)}}})
	}
	admin := as("admin", "admin-pass")
	admin.run(`create_acls{{principal = "User:eve", operation = "describe", resource_type = "topic", resource_name = "orders"}}
		assert(#describe_acls{principal = "User:eve"} == 1)`)
	re := as("eve", "eve-pass").runErr(`create_acls{{principal = "User:eve", operation = "all", resource_type = "cluster"}}`)
	assert.Equal(t, "CLUSTER_AUTHORIZATION_FAILED", re.Code)
	admin.run(`assert(#describe_acls{principal = "User:eve"} == 1)`)
}
