package luaapi

import (
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

func init() {
	register(
		&Func{Name: "create_delegation_token", Area: "tokens",
			Options: []Field{
				{Name: "renewers", Type: List[string](tokenPrincipal), Doc: "principals that may renew the token"},
				{Name: "max_lifetime_ms", Type: Int64(1).Between(1, maxDurationMillis).Named("lifetime in ms"), Doc: "the token's maximum lifetime (default: the broker's maximum)"},
				{Name: "owner", Type: tokenPrincipal, Doc: "the token's owner (default: the caller)"},
			},
			Returns: "{token_id=string, hmac=string, owner=string, requester=string, issue_timestamp=time, expiry_timestamp=time, max_timestamp=time}",
			Summary: "Create a delegation token; returns its id and HMAC (the secret).",
			Doc: `owner and renewers are principals like "User:alice" ("alice" alone means a User); owner defaults to the caller. max_lifetime_ms defaults to the broker's maximum.
The result holds the token id and its base64 HMAC, which clients use as SCRAM credentials (username = token_id, password = hmac). Keep them secret: they are never written to the audit log or logs. The call is not retried after an unknown outcome (it would create a second token). Needs a broker with delegation tokens enabled (kfake has none).`,
			Example: `local ok, t = pcall(create_delegation_token, {renewers = {"User:ops"}})
print(ok and t.token_id or t.code)`,
			Run: createToken},
		&Func{Name: "renew_delegation_token", Area: "tokens", SecretArgs: []int{1},
			Params:  []Param{{Name: "hmac", Type: hmacType, Doc: "the token's base64 HMAC (a secret: never shown)"}},
			Options: []Field{{Name: "period_ms", Type: tokenPeriod, Doc: "renew for this long (default -1: the broker's renew period)"}},
			Returns: "{expiry_timestamp=time}",
			Summary: "Extend a delegation token's expiry.",
			Doc:     "hmac is the base64 HMAC from create_delegation_token. period_ms defaults to the broker's renew period (-1). The HMAC never appears in the audit log or in errors.",
			Example: `local ok, err = pcall(renew_delegation_token, "bm90LWEtdG9rZW4=", {period_ms = 86400000})
print(ok or err.code)`,
			Run: renewToken},
		&Func{Name: "expire_delegation_token", Area: "tokens", SecretArgs: []int{1},
			Params:  []Param{{Name: "hmac", Type: hmacType, Doc: "the token's base64 HMAC (a secret: never shown)"}},
			Options: []Field{{Name: "period_ms", Type: tokenPeriod, Doc: "expire after this long (default -1: now)"}},
			Returns: "{expiry_timestamp=time}",
			Summary: "Expire a delegation token (now, or after period_ms).",
			Doc:     "hmac is the base64 HMAC from create_delegation_token. period_ms defaults to -1: expire now. The HMAC never appears in the audit log or in errors.",
			Example: `local ok, err = pcall(expire_delegation_token, "bm90LWEtdG9rZW4=")
print(ok or err.code)`,
			Run: expireToken},
		&Func{Name: "describe_delegation_tokens", Area: "tokens",
			Params:  []Param{{Name: "owners", Type: List[string](tokenPrincipal), Optional: true, Doc: "only these owners' tokens (default: every token the caller may see)"}},
			Returns: "{{token_id=string, owner=string, requester=string, renewers={string...}, issue_timestamp=time, expiry_timestamp=time, max_timestamp=time}...}",
			Summary: "List delegation tokens (without their HMACs).",
			Doc:     `owners is a principal ("User:alice") or an array; without it every token the caller may see is listed. HMACs are left out on purpose: only create_delegation_token returns one.`,
			Example: `local ok, ts = pcall(describe_delegation_tokens)
if ok then for _, t in ipairs(ts) do print(t.token_id, t.owner, t.expiry_timestamp) end end`,
			Run: describeTokens},
	)
}

// tokenPrincipal is a token owner or renewer: TYPE:NAME, or NAME for a
// User.
var tokenPrincipal = NonEmptyStr().Checked(`principal ("User:alice", or "alice" for a User)`, func(s string) error {
	if strings.Contains(s, ":") {
		return checkPrincipal(s)
	}
	return nil
}).Sample("User:alice").Naming(NamePrincipal)

// tokenPeriod is renew's and expire's period_ms.
var tokenPeriod = Int64(-1).Between(-1, maxDurationMillis).Named("period in ms")

// maxHMACLength bounds a base64 HMAC: Kafka's are 88 characters
// (HmacSHA512).
const maxHMACLength = 1024

// hmacType reads a token's base64 HMAC. The value is a secret: no error
// shows it, only its kind or length.
var hmacType = Custom("base64 HMAC string (secret)", `"bm90LWEtdG9rZW4="`, func(_ *reader, v lua.LValue, at string) (any, error) {
	s, ok := v.(lua.LString)
	switch {
	case !ok:
		return nil, argErr(at, "must be the base64 HMAC string, got %s", v.Type().String())
	case len(s) > maxHMACLength:
		return nil, argErr(at, "is %d bytes long; a base64 HMAC from create_delegation_token is at most %d", len(s), maxHMACLength)
	}
	hmac, err := engine.DecodeHMAC(string(s))
	if err != nil {
		return nil, argErr(at, "must be the base64 HMAC from create_delegation_token")
	}
	return hmac, nil
}, lua.LTString)

func createToken(c *Call) (any, error) {
	o := engine.CreateTokenOptions{Owner: param[string](c, "owner"), Renewers: param[[]string](c, "renewers"),
		MaxLifetime: time.Duration(param[int64](c, "max_lifetime_ms")) * time.Millisecond}
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

func renewToken(c *Call) (any, error) {
	return tokenExpiry(c, "renew")
}

func expireToken(c *Call) (any, error) {
	return tokenExpiry(c, "expire")
}

func tokenExpiry(c *Call, what string) (any, error) {
	hmac := param[[]byte](c, "hmac")
	period := -time.Millisecond
	if c.Given("period_ms") {
		period = time.Duration(param[int64](c, "period_ms")) * time.Millisecond
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
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.DescribeDelegationTokens(c.Ctx(), param[[]string](c, "owners"))
}
