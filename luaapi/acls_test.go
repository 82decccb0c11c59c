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
	for src, want := range map[string]string{
		`create_acls{{principal = "alice", operation = "read", resource_type = "topic", resource_name = "t"}}`:                          `create_acls: row #1: principal must be TYPE:NAME`,
		`create_acls{{principal = "User:a", operation = "reed", resource_type = "topic", resource_name = "t"}}`:                         `create_acls: row #1: unknown operation "reed"`,
		`create_acls{{principal = "User:a", operation = "read", resource_type = "topic"}}`:                                              `create_acls: row #1: resource_name is required`,
		`create_acls{{principal = "User:a", operation = "read", resource_type = "topic", resource_name = "t", pattern_type = "match"}}`: `pattern_type must be "literal" or "prefixed"`,
		`create_acls{{principal = "User:a", operation = "read", resource_type = "topic", resource_name = "t", bogus = 1}}`:              `create_acls: row #1: unknown key "bogus"`,
		`create_acls(42)`:                  `create_acls: rows: must be a table or an array of tables, got 42`,
		`delete_acls{{}}`:                  `delete_acls: filter #1: must set at least one field`,
		`describe_acls{permission = "ok"}`: `describe_acls: filter: unknown permission "ok"`,
	} {
		re := e.runErr(src)
		assert.Equal(t, "INVALID_ARGUMENT", re.Code, src)
		assert.Contains(t, re.Message, want, src)
	}
	assert.Empty(t, e.clusterACLs())
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
		return newEnvOn(t, c, Options{Config: engine.Config{SASL: &engine.SASLConfig{Mechanism: "SCRAM-SHA-256", Username: user, Password: engine.Secret(pass)}}})
	}
	admin := as("admin", "admin-pass")
	admin.run(`create_acls{{principal = "User:eve", operation = "describe", resource_type = "topic", resource_name = "orders"}}
		assert(#describe_acls{principal = "User:eve"} == 1)`)
	re := as("eve", "eve-pass").runErr(`create_acls{{principal = "User:eve", operation = "all", resource_type = "cluster"}}`)
	assert.Equal(t, "CLUSTER_AUTHORIZATION_FAILED", re.Code)
	admin.run(`assert(#describe_acls{principal = "User:eve"} == 1)`)
}
