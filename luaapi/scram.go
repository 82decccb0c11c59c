package luaapi

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

func init() {
	register(
		&Func{Name: "describe_user_scram_credentials", Area: "scram", Args: "([users])",
			Returns: "{{user=, mechanism=, iterations=}...}",
			Summary: "Describe users' SCRAM credentials: a row per user and mechanism (every user's without users).",
			Doc: `users is a user name or an array of names. Rows are sorted by user then mechanism ("SCRAM-SHA-256", "SCRAM-SHA-512"); Kafka never returns passwords or salts.
A named user without any SCRAM credential fails with RESOURCE_NOT_FOUND (the other users are still described: see err.results, or pass {partial=true}).`,
			Example: `alter_user_scram_credentials{upsert = {{user = "alice", password = kafka.env("ALICE_PASSWORD", "example-only")}}}
for _, c in ipairs(describe_user_scram_credentials("alice")) do print(c.user, c.mechanism, c.iterations) end`,
			Run: describeUserSCRAMCredentials},
		&Func{Name: "alter_user_scram_credentials", Area: "scram", Mutating: true,
			Args:    "{upsert={{user=, password=, [mechanism=], [iterations=]}...}, delete={{user=, [mechanism=]}...}}[, {partial=}]",
			Returns: "{{user=, error=}...}",
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

func describeUserSCRAMCredentials(c *Call) (any, error) {
	users, err := c.Strings(1, "users", true)
	if err != nil {
		return nil, err
	}
	_, cl, err := c.optionsAndClient(2)
	if err != nil {
		return nil, err
	}
	return cl.DescribeUserSCRAMCredentials(c.Ctx(), users)
}

func alterUserSCRAMCredentials(c *Call) (any, error) {
	f := newFields(c.Arg(1), "changes", "upsert", "delete")
	if f.err != nil {
		return nil, f.err
	}
	var ups []engine.SCRAMUpsert
	var dels []engine.SCRAMDeletion
	read := func(key string, each func(where string, item lua.LValue) error) error {
		v := f.get(key)
		if v == lua.LNil {
			return nil
		}
		list, err := recordList(v, key)
		if err != nil {
			return err
		}
		for i, item := range list {
			if err := each(fmt.Sprintf("%s #%d", key, i+1), item); err != nil {
				return err
			}
		}
		return nil
	}
	mechanism := func(g *fields) engine.SCRAMDeletion {
		d := engine.SCRAMDeletion{User: g.str("user", true)}
		m, err := engine.ParseSCRAMMechanism(g.str("mechanism", false))
		if !g.has("mechanism") {
			m, err = engine.ParseSCRAMMechanism("SCRAM-SHA-256")
		}
		if err != nil {
			g.fail("mechanism", "%v", err)
		}
		if g.err == nil && d.User == "" {
			g.fail("user", "must not be empty")
		}
		d.Mechanism = m
		return d
	}
	if err := read("upsert", func(where string, item lua.LValue) error {
		g := newFields(item, where, "user", "mechanism", "iterations", "password")
		d := mechanism(g)
		u := engine.SCRAMUpsert{User: d.User, Mechanism: d.Mechanism, Iterations: int32(g.integer("iterations", 0, 0))}
		pw, ok := g.get("password").(lua.LString)
		if g.err == nil && (!ok || pw == "") {
			// Never echo the value: it may be a password of the wrong type.
			g.fail("password", "must be a non-empty string")
		}
		u.Password = engine.Secret(pw)
		if g.err == nil {
			if err := engine.CheckSCRAMIterations(u.Iterations); err != nil {
				g.fail("iterations", "%v", err)
			}
		}
		ups = append(ups, u)
		return g.err
	}); err != nil {
		return nil, err
	}
	if err := read("delete", func(where string, item lua.LValue) error {
		g := newFields(item, where, "user", "mechanism")
		dels = append(dels, mechanism(g))
		return g.err
	}); err != nil {
		return nil, err
	}
	if len(ups)+len(dels) == 0 {
		return nil, argErr("changes", "must upsert or delete at least one credential")
	}
	_, cl, err := c.optionsAndClient(2)
	if err != nil {
		return nil, err
	}
	if c.DryRun() {
		var users []string
		for _, u := range ups {
			c.Plan("set %s credential for %s (iterations %d)", u.Mechanism, u.User, max(u.Iterations, 4096))
			users = append(users, u.User)
		}
		for _, d := range dels {
			c.Plan("delete %s credential of %s", d.Mechanism, d.User)
			users = append(users, d.User)
		}
		var out []engine.AlteredSCRAM
		for _, u := range dedup(users) {
			out = append(out, engine.AlteredSCRAM{User: u})
		}
		return out, nil
	}
	return cl.AlterUserSCRAMCredentials(c.Ctx(), ups, dels)
}
