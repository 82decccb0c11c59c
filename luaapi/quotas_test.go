package luaapi

import (
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// clusterQuotas lists every quota through the independent client as
// "entity: key=value" strings.
func (e *env) clusterQuotas() []string {
	e.t.Helper()
	qs, err := e.adm.DescribeClientQuotas(e.ctx(), false, nil)
	require.NoError(e.t, err)
	var out []string
	for _, q := range qs {
		for _, v := range q.Values {
			out = append(out, q.Entity.String()+": "+v.String())
		}
	}
	sort.Strings(out)
	return out
}

func TestAlterAndDescribeClientQuotas(t *testing.T) {
	e := newEnv(t)
	out := e.json(`return alter_client_quotas{
		{entity = {user = "alice", client_id = "app"}, set = {consumer_byte_rate = 2048, producer_byte_rate = 1024}},
		{entity = {user = "<default>"}, set = {producer_byte_rate = 100}},
		{entity = {ip = "10.0.0.1"}, set = {connection_creation_rate = 5}},
	}`)
	assert.Contains(t, out, `{"entity":{"client_id":"app","user":"alice"}}`)
	assert.Equal(t, []string{
		"{client-id=app, user=alice}: consumer_byte_rate=2048.000000",
		"{client-id=app, user=alice}: producer_byte_rate=1024.000000",
		"{ip=10.0.0.1}: connection_creation_rate=5.000000",
		"{user=<default>}: producer_byte_rate=100.000000",
	}, e.clusterQuotas())

	e.run(`
		local all = describe_client_quotas()
		assert(#all == 3, tostring(#all))
		assert(all[1].entity.user == "alice" and all[1].entity.client_id == "app")
		assert(all[1].quotas.producer_byte_rate == 1024)
		local alice = describe_client_quotas{user = "alice"}
		assert(#alice == 1 and alice[1].quotas.consumer_byte_rate == 2048)
		assert(#describe_client_quotas({user = "alice"}, {strict = true}) == 0)
		local dflt = describe_client_quotas{user = kafka.json.null}
		assert(#dflt == 1 and dflt[1].entity.user == "<default>", tostring(#dflt))
		local named = describe_client_quotas{user = true}
		assert(#named == 1 and named[1].entity.user == "alice")
		local two = describe_client_quotas{{user = ""}, {ip = "10.0.0.1"}}
		assert(#two == 2, tostring(#two))
	`)

	e.run(`alter_client_quotas{entity = {user = "alice", client_id = "app"}, remove = {"consumer_byte_rate"}}`)
	e.run(`alter_client_quotas{entity = {user = ""}, remove = "producer_byte_rate"}`)
	assert.Equal(t, []string{
		"{client-id=app, user=alice}: producer_byte_rate=1024.000000",
		"{ip=10.0.0.1}: connection_creation_rate=5.000000",
	}, e.clusterQuotas())
}

func TestAlterClientQuotasValidateOnlyAndDryRun(t *testing.T) {
	e := newEnv(t)
	e.run(`local r = alter_client_quotas({entity = {user = "v"}, set = {producer_byte_rate = 1}}, {validate_only = true})
		assert(r[1].error == nil)`)
	e.run(`kafka.dry_run(true)
		local r = alter_client_quotas{entity = {user = "d"}, set = {producer_byte_rate = 1}}
		assert(r[1].dry_run == true)`)
	assert.Empty(t, e.clusterQuotas())
	assert.Contains(t, e.stderr.String(), "dry-run: alter_client_quotas: user=d: set producer_byte_rate = 1")
}

func TestAlterClientQuotasRetriesAndPerEntityErrors(t *testing.T) {
	e := newEnv(t)
	retry := e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.AlterClientQuotas}, Resource: "a", Err: kerr.RequestTimedOut, Count: 1})
	defer retry.Remove()
	bad := e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.AlterClientQuotas}, Resource: "b", Err: kerr.InvalidRequest, Count: -1})
	defer bad.Remove()
	e.run(`
		local ok, err = pcall(alter_client_quotas, {
			{entity = {user = "a"}, set = {producer_byte_rate = 10}},
			{entity = {user = "b"}, set = {producer_byte_rate = 20}},
		})
		assert(not ok and err.code == "INVALID_REQUEST", tostring(err))
		assert(err.resource == "user=b", tostring(err.resource))
		assert(err.results[1].error == nil)
	`)
	assert.Equal(t, 1, retry.Hits())
	assert.Equal(t, []string{"{user=a}: producer_byte_rate=10.000000"}, e.clusterQuotas())
}

func TestClientQuotasBadArguments(t *testing.T) {
	e := newEnv(t)
	e.run(`alter_client_quotas{entity = {user = "keep"}, set = {producer_byte_rate = 10}}`)
	requests := countRequests(e.cluster)
	for src, want := range map[string]string{
		`alter_client_quotas{{entity = {user = "a"}, set = {producer_byte_rate = "x"}}}`: `alter_client_quotas: entry #1: set: producer_byte_rate: must be a finite number >= 0, got "x"`,
		`alter_client_quotas{{entity = {user = "a"}, set = {producer_byte_rate = -1}}}`:  `alter_client_quotas: entry #1: set: producer_byte_rate: must be a finite number >= 0, got -1`,
		`alter_client_quotas{{entity = {user = "a"}, set = {producer_byte_rate = 0/0}}}`: `alter_client_quotas: entry #1: set: producer_byte_rate: must be a finite number >= 0, got NaN`,
		`alter_client_quotas{{entity = {user = "a"}, set = {producer_byte_rate = 1/0}}}`: `alter_client_quotas: entry #1: set: producer_byte_rate: must be a finite number >= 0, got +Inf`,
		`alter_client_quotas{{entity = {user = "a"}, set = {[""] = 1}}}`:                 `alter_client_quotas: entry #1: set: key : must not be empty`,
		`alter_client_quotas{{entity = {group = "a"}, set = {x = 1}}}`:                   `alter_client_quotas: entry #1: entity: unknown key "group"`,
		`alter_client_quotas{{entity = {usr = "a"}, set = {x = 1}}}`:                     `alter_client_quotas: entry #1: entity: unknown key "usr" (did you mean "user"?)`,
		`alter_client_quotas{{entity = {}, set = {x = 1}}}`:                              `alter_client_quotas: entry #1: entity: must name at least one of user, client_id, ip`,
		`alter_client_quotas{{entity = {user = "a"}}}`:                                   `alter_client_quotas: entry #1: must set or remove at least one quota`,
		`alter_client_quotas{{entity = {user = "a"}, set = {x = 1}, remove = "x"}}`:      `alter_client_quotas: entry #1: x is both set and removed`,
		`alter_client_quotas{{set = {x = 1}}}`:                                           `alter_client_quotas: entry #1: entity: is required`,
		`alter_client_quotas{{entity = {user = true}, set = {x = 1}}}`:                   `alter_client_quotas: entry #1: entity: user: must be a name or "<default>", got true`,
		`alter_client_quotas{}`: `alter_client_quotas: entries: must name at least one`,
		`alter_client_quotas({entity = {user = "a"}, set = {x = 1}}, {validate_only = 0})`:       `alter_client_quotas: options: validate_only: must be true or false, got 0`,
		`alter_client_quotas({entity = {user = "a"}, set = {x = 1}}, {validate_only = "false"})`: `alter_client_quotas: options: validate_only: must be true or false, got "false"`,
		`alter_client_quotas({entity = {user = "a"}, set = {x = 1}}, {validateonly = true})`:     `alter_client_quotas: options: unknown key "validateonly" (did you mean "validate_only"?)`,
		`describe_client_quotas{user = 5}`:                                                       `describe_client_quotas: entity #1: user: must be a name, "<default>" or true (any), got 5`,
		`describe_client_quotas{{ip = false}}`:                                                   `describe_client_quotas: entity #1: ip: must be a name, "<default>" or true (any), got false`,
		`describe_client_quotas({}, {strikt = true})`:                                            `describe_client_quotas: options: unknown key "strikt" (did you mean "strict"?)`,
		`describe_client_quotas({}, {strict = "yes"})`:                                           `describe_client_quotas: options: strict: must be true or false, got "yes"`,
	} {
		re := e.runErr(src)
		assert.Equal(t, "INVALID_ARGUMENT", re.Code, src)
		assert.Contains(t, re.Message, want, src)
	}
	assert.Zero(t, requests.Load(), "refused calls send nothing")
	assert.Equal(t, []string{"{user=keep}: producer_byte_rate=10.000000"}, e.clusterQuotas(), "refused calls change nothing")
}
