package luaapi

import (
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

func init() {
	register(
		&Func{Name: "create_delegation_token", Area: "tokens", Mutating: true,
			Args:    "([{renewers=, max_lifetime_ms=, owner=}])",
			Returns: "{token_id=, hmac=, owner=, requester=, issue_timestamp=, expiry_timestamp=, max_timestamp=}",
			Summary: "Create a delegation token; returns its id and HMAC (the secret).",
			Doc: `owner and renewers are principals like "User:alice" ("alice" alone means a User); owner defaults to the caller. max_lifetime_ms defaults to the broker's maximum.
The result holds the token id and its base64 HMAC, which clients use as SCRAM credentials (username = token_id, password = hmac). Keep them secret: they are never written to the audit log or logs. The call is not retried after an unknown outcome (it would create a second token). Needs a broker with delegation tokens enabled (kfake has none).`,
			Example: `local ok, t = pcall(create_delegation_token, {renewers = {"User:ops"}})
print(ok and t.token_id or t.code)`,
			Run: createToken},
		&Func{Name: "renew_delegation_token", Area: "tokens", Mutating: true, SecretArgs: []int{1},
			Args:    "(hmac[, {period_ms=}])",
			Returns: "{expiry_timestamp=}",
			Summary: "Extend a delegation token's expiry.",
			Doc:     "hmac is the base64 HMAC from create_delegation_token. period_ms defaults to the broker's renew period (-1). The HMAC never appears in the audit log or in errors.",
			Example: `local ok, err = pcall(renew_delegation_token, "bm90LWEtdG9rZW4=", {period_ms = 86400000})
print(ok or err.code)`,
			Run: renewToken},
		&Func{Name: "expire_delegation_token", Area: "tokens", Mutating: true, Destructive: true, SecretArgs: []int{1},
			Args:    "(hmac[, {period_ms=}])",
			Returns: "{expiry_timestamp=}",
			Summary: "Expire a delegation token (now, or after period_ms).",
			Doc:     "hmac is the base64 HMAC from create_delegation_token. period_ms defaults to -1: expire now. The HMAC never appears in the audit log or in errors.",
			Example: `local ok, err = pcall(expire_delegation_token, "bm90LWEtdG9rZW4=")
print(ok or err.code)`,
			Run: expireToken},
		&Func{Name: "describe_delegation_tokens", Area: "tokens", Args: "([owners])",
			Returns: "{{token_id=, owner=, requester=, renewers=, issue_timestamp=, expiry_timestamp=, max_timestamp=}...}",
			Summary: "List delegation tokens (without their HMACs).",
			Doc:     `owners is a principal ("User:alice") or an array; without it every token the caller may see is listed. HMACs are left out on purpose: only create_delegation_token returns one.`,
			Example: `local ok, ts = pcall(describe_delegation_tokens)
if ok then for _, t in ipairs(ts) do print(t.token_id, t.owner, t.expiry_timestamp) end end`,
			Run: describeTokens},
	)
}

func createToken(c *Call) (any, error) {
	f, err := c.Options(1, "renewers", "max_lifetime_ms", "owner")
	if err != nil {
		return nil, err
	}
	o := engine.CreateTokenOptions{Owner: f.str("owner", false), Renewers: f.strings("renewers"),
		MaxLifetime: time.Duration(f.integer("max_lifetime_ms", 1, 0)) * time.Millisecond}
	if f.err != nil {
		return nil, f.err
	}
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	if c.DryRun() {
		c.Plan("create a delegation token (owner %q, %d renewers)", o.Owner, len(o.Renewers))
		return map[string]any{}, nil
	}
	return cl.CreateDelegationToken(c.Ctx(), o)
}

// hmacArgs reads (hmac, {period_ms=}); the HMAC's value never reaches an
// error message.
func hmacArgs(c *Call) ([]byte, time.Duration, error) {
	s, ok := c.Arg(1).(lua.LString)
	if !ok {
		return nil, 0, argErr("hmac", "must be the base64 HMAC string, got %s", c.Arg(1).Type().String())
	}
	hmac, err := engine.DecodeHMAC(string(s))
	if err != nil {
		return nil, 0, argErr("hmac", "must be the base64 HMAC from create_delegation_token")
	}
	f, err := c.Options(2, "period_ms")
	if err != nil {
		return nil, 0, err
	}
	period := time.Duration(f.integer("period_ms", -1, -1)) * time.Millisecond
	return hmac, period, f.err
}

func renewToken(c *Call) (any, error) {
	return tokenExpiry(c, "renew")
}

func expireToken(c *Call) (any, error) {
	return tokenExpiry(c, "expire")
}

func tokenExpiry(c *Call, what string) (any, error) {
	hmac, period, err := hmacArgs(c)
	if err != nil {
		return nil, err
	}
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	if c.DryRun() {
		c.Plan("%s a delegation token (period %v)", what, period)
		return map[string]any{}, nil
	}
	if what == "renew" {
		return cl.RenewDelegationToken(c.Ctx(), hmac, period)
	}
	return cl.ExpireDelegationToken(c.Ctx(), hmac, period)
}

func describeTokens(c *Call) (any, error) {
	return namesCall(c, "owners", true, func(cl *engine.Client, owners []string) (any, error) {
		return cl.DescribeDelegationTokens(c.Ctx(), owners)
	})
}
