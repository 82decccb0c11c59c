package luaapi

import (
	"cmp"
	"slices"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

func init() {
	register(
		&Func{Name: "describe_user_scram_credentials", Area: "scram", Batch: true,
			Params: []Param{{Name: "users", Type: List[string](NonEmptyStr()), Optional: true,
				Doc: "a user name or an array of them (every user when left out)"}},
			Returns: "{{user=string, mechanism=string?, iterations=int?, error=error?}...}",
			Summary: "Describe users' SCRAM credentials: a row per user and mechanism (every user's without users).",
			Doc: `users is a user name or an array of names. Rows are sorted by user then mechanism ("SCRAM-SHA-256", "SCRAM-SHA-512"); Kafka never returns passwords or salts.
A named user without any SCRAM credential fails with RESOURCE_NOT_FOUND (the other users are still described: see err.results, or pass {partial=true}).`,
			Example: `alter_user_scram_credentials{upsert = {{user = "alice", password = kafka.env("ALICE_PASSWORD", "example-only")}}}
for _, c in ipairs(describe_user_scram_credentials("alice")) do print(c.user, c.mechanism, c.iterations) end`,
			Run: describeUserSCRAMCredentials},
		&Func{Name: "alter_user_scram_credentials", Area: "scram", Batch: true,
			Params: []Param{{Name: "changes", Type: scramChanges,
				Doc: "credentials to upsert, {user=, password=, [mechanism=], [iterations=]}, and to delete, {user=, [mechanism=]}"}},
			Returns: "{{user=string, error=error?}...}",
			Summary: "Create, change or delete users' SCRAM credentials.",
			Doc: `mechanism is "SCRAM-SHA-256" (the default) or "SCRAM-SHA-512"; iterations defaults to 4096 and must be 4096..16384. The password is salted on this side and never printed, logged, put in errors, in --dry-run plans or in the audit log (keys containing "password" are redacted).
Kafka answers per user: a user with several changes gets one result. Deleting a credential the user does not have fails with RESOURCE_NOT_FOUND. Kafka has no validate-only mode here: under --dry-run the arguments are checked and nothing changes.`,
			Example: `alter_user_scram_credentials{
  upsert = {{user = "svc-billing", mechanism = "SCRAM-SHA-512", iterations = 8192, password = kafka.env("BILLING_PASSWORD", "example-only")}},
}
alter_user_scram_credentials{delete = {{user = "svc-billing", mechanism = "SCRAM-SHA-512"}}}`,
			Run: alterUserSCRAMCredentials},
	)
}

// scramMechanism is "SCRAM-SHA-256" or "SCRAM-SHA-512", spelled any way
// engine.ParseSCRAMMechanism reads ("scram-sha-512", "SHA-512", ...).
var scramMechanism = spelledEnum(func(s, name string) bool {
	m, err := engine.ParseSCRAMMechanism(s)
	return err == nil && m.String() == name
}, "SCRAM-SHA-256", "SCRAM-SHA-512")

func mechanismOf(rec Rec) kadm.ScramMechanism {
	m, _ := engine.ParseSCRAMMechanism(cmp.Or(get[string](rec, "mechanism"), "SCRAM-SHA-256"))
	return m
}

// scramChanges is alter_user_scram_credentials' argument. The password is
// read by secretStr, whose errors never show it.
var scramChanges = Record(
	Field{Name: "upsert", Doc: "credentials to create or change", Type: List[engine.SCRAMUpsert](Record(
		Field{Name: "user", Type: NonEmptyStr(), Required: true},
		Field{Name: "password", Type: secretStr, Required: true, Doc: "salted here; never shown, logged or audited"},
		Field{Name: "mechanism", Type: scramMechanism, Doc: `"SCRAM-SHA-256" when left out`},
		Field{Name: "iterations", Type: Int32(4096).Between(4096, 16384).Named("SCRAM iteration count"), Doc: "4096 when left out"},
	).Then(func(rec Rec, _ string) (any, error) {
		return engine.SCRAMUpsert{User: get[string](rec, "user"), Mechanism: mechanismOf(rec),
			Iterations: get[int32](rec, "iterations"), Password: engine.Secret(get[string](rec, "password"))}, nil
	})).Items("upsert")},
	Field{Name: "delete", Doc: "credentials to delete", Type: List[engine.SCRAMDeletion](Record(
		Field{Name: "user", Type: NonEmptyStr(), Required: true},
		Field{Name: "mechanism", Type: scramMechanism, Doc: `"SCRAM-SHA-256" when left out`},
	).Then(func(rec Rec, _ string) (any, error) {
		return engine.SCRAMDeletion{User: get[string](rec, "user"), Mechanism: mechanismOf(rec)}, nil
	})).Items("delete")},
).Sample(`{delete = {{user = "u"}}}`).Then(func(rec Rec, at string) (any, error) {
	ch := scramChangeSet{ups: get[[]engine.SCRAMUpsert](rec, "upsert"), dels: get[[]engine.SCRAMDeletion](rec, "delete")}
	if len(ch.ups)+len(ch.dels) == 0 {
		return nil, argErr(at, "must upsert or delete at least one credential")
	}
	return ch, nil
})

type scramChangeSet struct {
	ups  []engine.SCRAMUpsert
	dels []engine.SCRAMDeletion
}

func describeUserSCRAMCredentials(c *Call) (any, error) {
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.DescribeUserSCRAMCredentials(c.Ctx(), param[[]string](c, "users"))
}

func alterUserSCRAMCredentials(c *Call) (any, error) {
	ch := param[scramChangeSet](c, "changes")
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	if c.DryRun() {
		var users []string
		for _, u := range ch.ups {
			c.Plan("set %s credential for %s (iterations %d)", u.Mechanism, u.User, max(u.Iterations, 4096))
			users = append(users, u.User)
		}
		for _, d := range ch.dels {
			c.Plan("delete %s credential of %s", d.Mechanism, d.User)
			users = append(users, d.User)
		}
		var out []engine.AlteredSCRAM
		for _, u := range slices.Compact(slices.Sorted(slices.Values(users))) {
			out = append(out, engine.AlteredSCRAM{User: u})
		}
		return out, nil
	}
	return cl.AlterUserSCRAMCredentials(c.Ctx(), ch.ups, ch.dels)
}
