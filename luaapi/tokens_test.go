package luaapi

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/engine/redact"
)

// kfake has no delegation tokens: these tests answer the token requests
// with crafted responses (ControlKey) and check the request/response
// mapping and that the HMAC stays secret. The real-Kafka suite tests tokens
// end to end.

// tokenEnv is an env whose kfake advertises the delegation token keys
// (38-41) and records an audit log.
func tokenEnv(t *testing.T) (*env, string) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	raw, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	require.NoError(t, err)
	real, err := kmsg.NewPtrApiVersionsRequest().RequestWith(t.Context(), raw)
	raw.Close()
	require.NoError(t, err)
	for key := int16(38); key <= 41; key++ {
		k := kmsg.NewApiVersionsResponseApiKey()
		k.ApiKey, k.MaxVersion = key, 3
		real.ApiKeys = append(real.ApiKeys, k)
	}
	c.ControlKey(int16(kmsg.ApiVersions), func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		resp := *real
		resp.Version = r.GetVersion()
		return &resp, nil, true
	})
	path := filepath.Join(t.TempDir(), "audit.log")
	audit, err := auditlog.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { audit.Close() })
	return newEnvOn(t, c, Options{Config: engine.Config{Audit: audit}}), path
}

// answer makes the cluster answer key with what fn builds, recording the
// request.
func answer[Req kmsg.Request](e *env, key kmsg.Key, fn func(Req, kmsg.Response)) func() Req {
	var mu sync.Mutex
	var last Req
	e.cluster.ControlKey(int16(key), func(r kmsg.Request) (kmsg.Response, error, bool) {
		e.cluster.KeepControl()
		mu.Lock()
		defer mu.Unlock()
		last = r.(Req)
		resp := r.ResponseKind()
		fn(last, resp)
		return resp, nil, true
	})
	return func() Req {
		mu.Lock()
		defer mu.Unlock()
		return last
	}
}

var secretHMAC = []byte("super-secret-hmac-bytes")

func TestCreateDelegationTokenMapsAndKeepsHMACSecret(t *testing.T) {
	e, auditPath := tokenEnv(t)
	sent := answer(e, kmsg.CreateDelegationToken, func(req *kmsg.CreateDelegationTokenRequest, r kmsg.Response) {
		resp := r.(*kmsg.CreateDelegationTokenResponse)
		resp.PrincipalType, resp.PrincipalName = "User", "alice"
		resp.TokenRequesterPrincipalType, resp.TokenRequesterPrincipalName = "User", "admin"
		resp.IssueTimestamp, resp.ExpiryTimestamp, resp.MaxTimestamp = 1000, 2000, 3000
		resp.TokenID, resp.HMAC = "tok-1", secretHMAC
	})
	e.run(`
		local t = create_delegation_token{owner = "alice", renewers = {"User:ops", "Group:admins"}, max_lifetime_ms = 3600000}
		assert(t.token_id == "tok-1")
		assert(t.hmac == "` + base64.StdEncoding.EncodeToString(secretHMAC) + `")
		assert(t.owner == "User:alice" and t.requester == "User:admin")
		assert(t.issue_timestamp == 1000 and t.expiry_timestamp == 2000 and t.max_timestamp == 3000)
	`)
	req := sent()
	require.NotNil(t, req)
	assert.Equal(t, "alice", *req.OwnerPrincipalName)
	assert.Equal(t, "User", *req.OwnerPrincipalType)
	require.Len(t, req.Renewers, 2)
	assert.Equal(t, "Group", req.Renewers[1].PrincipalType)
	assert.Equal(t, int64(3600000), req.MaxLifetimeMillis)

	log, err := os.ReadFile(auditPath)
	require.NoError(t, err)
	assert.Contains(t, string(log), `"op":"create_delegation_token"`)
	assert.NotContains(t, string(log), base64.StdEncoding.EncodeToString(secretHMAC))
	assert.NotContains(t, string(log), string(secretHMAC))
}

func TestRenewAndExpireDelegationTokenNeverLogTheHMAC(t *testing.T) {
	e, auditPath := tokenEnv(t)
	b64 := base64.StdEncoding.EncodeToString(secretHMAC)
	renewed := answer(e, kmsg.RenewDelegationToken, func(req *kmsg.RenewDelegationTokenRequest, r kmsg.Response) {
		r.(*kmsg.RenewDelegationTokenResponse).ExpiryTimestamp = 5000
	})
	expired := answer(e, kmsg.ExpireDelegationToken, func(req *kmsg.ExpireDelegationTokenRequest, r kmsg.Response) {
		r.(*kmsg.ExpireDelegationTokenResponse).ErrorCode = kerr.DelegationTokenExpired.Code
	})
	e.run(`assert(renew_delegation_token("` + b64 + `", {period_ms = 60000}).expiry_timestamp == 5000)`)
	assert.Equal(t, secretHMAC, renewed().HMAC)
	assert.Equal(t, int64(60000), renewed().RenewTimeMillis)

	re := e.runErr(`expire_delegation_token("` + b64 + `")`)
	assert.Equal(t, "DELEGATION_TOKEN_EXPIRED", re.Code)
	assert.NotContains(t, re.Message, b64)
	assert.Equal(t, int64(-1), expired().ExpiryPeriodMillis)

	re = e.runErr(`renew_delegation_token("not base64!!` + b64 + `")`)
	assert.Equal(t, "INVALID_ARGUMENT", re.Code)
	assert.Contains(t, re.Message, "renew_delegation_token: hmac: must be the base64 HMAC from create_delegation_token")
	assert.NotContains(t, re.Message, b64)
	re = e.runErr(`renew_delegation_token(42)`)
	assert.Contains(t, re.Message, "renew_delegation_token: hmac: must be the base64 HMAC string, got number")
	re = e.runErr(`renew_delegation_token("` + b64 + `", {period = 1})`)
	assert.Contains(t, re.Message, `renew_delegation_token: options: unknown key "period"`)

	log, err := os.ReadFile(auditPath)
	require.NoError(t, err)
	assert.Contains(t, string(log), `"op":"renew_delegation_token"`)
	assert.Contains(t, string(log), `"args":{"hmac":"***","period_ms":60000}`, "the HMAC is redacted")
	assert.Contains(t, string(log), `"op":"expire_delegation_token"`)
	assert.NotContains(t, string(log), b64)
	assert.NotContains(t, e.stderr.String(), b64)
}

func TestDescribeDelegationTokensOmitsHMAC(t *testing.T) {
	e, _ := tokenEnv(t)
	sent := answer(e, kmsg.DescribeDelegationToken, func(req *kmsg.DescribeDelegationTokenRequest, r kmsg.Response) {
		resp := r.(*kmsg.DescribeDelegationTokenResponse)
		for _, id := range []string{"tok-b", "tok-a"} {
			d := kmsg.NewDescribeDelegationTokenResponseTokenDetail()
			d.PrincipalType, d.PrincipalName, d.TokenID, d.HMAC = "User", "alice", id, secretHMAC
			d.ExpiryTimestamp = 7000
			rn := kmsg.NewDescribeDelegationTokenResponseTokenDetailRenewer()
			rn.PrincipalType, rn.PrincipalName = "User", "ops"
			d.Renewers = append(d.Renewers, rn)
			resp.TokenDetails = append(resp.TokenDetails, d)
		}
	})
	out := e.json(`return describe_delegation_tokens("User:alice")`)
	assert.Contains(t, out, `"token_id":"tok-a"`)
	assert.Regexp(t, `tok-a.*tok-b`, out)
	assert.Contains(t, out, `"renewers":["User:ops"]`)
	assert.NotContains(t, out, "hmac")
	assert.NotContains(t, out, base64.StdEncoding.EncodeToString(secretHMAC))
	req := sent()
	require.Len(t, req.Owners, 1)
	assert.Equal(t, "alice", req.Owners[0].PrincipalName)
	re := e.runErr(`describe_delegation_tokens(1)`)
	assert.Contains(t, re.Message, `describe_delegation_tokens: owners: must be a principal ("User:alice", or "alice" for a User), or an array of them, got 1`)
}

func TestRedactCoversTokenKeys(t *testing.T) {
	red := redact.Value(map[string]any{"hmac": "x", "token_id": "y", "period_ms": 1.0}).(map[string]any)
	assert.Equal(t, "***", red["hmac"])
	assert.Equal(t, "***", red["token_id"])
	assert.Equal(t, 1.0, red["period_ms"])
}

// Issue 7: the HMAC is a secret in every error; numbers are checked before
// anything is sent.
func TestTokenArgumentsRefusedBeforeSendingKeepTheHMACSecret(t *testing.T) {
	e, auditPath := tokenEnv(t)
	b64 := base64.StdEncoding.EncodeToString(secretHMAC)
	renewed := answer(e, kmsg.RenewDelegationToken, func(*kmsg.RenewDelegationTokenRequest, kmsg.Response) {})
	created := answer(e, kmsg.CreateDelegationToken, func(*kmsg.CreateDelegationTokenRequest, kmsg.Response) {})
	long := strings.Repeat(b64, 200)
	refusedBeforeSending(t, e, auditPath, map[string]string{
		`renew_delegation_token("` + b64 + `", {period_ms = 2^63})`:     `renew_delegation_token: options: period_ms: must be a period in ms between -1 and 9223372036854, got 9.223372036854776e+18`,
		`renew_delegation_token("` + b64 + `", {period_ms = -2})`:       `renew_delegation_token: options: period_ms: must be a period in ms`,
		`renew_delegation_token("` + b64 + `", {periodms = 1})`:         `renew_delegation_token: options: unknown key "periodms" (did you mean "period_ms"?)`,
		`expire_delegation_token("` + long + `")`:                       `expire_delegation_token: hmac: is 6400 bytes long; a base64 HMAC from create_delegation_token is at most 1024`,
		`expire_delegation_token("` + b64 + `", {period_ms = 0/0})`:     `expire_delegation_token: options: period_ms: must be a period in ms`,
		`create_delegation_token{owner = "User:"}`:                      `create_delegation_token: options: owner: must be TYPE:NAME`,
		`create_delegation_token{renewers = {"User:ops", 42}}`:          `create_delegation_token: options: renewers #2: must be a principal`,
		`create_delegation_token{max_lifetime_ms = 0}`:                  `create_delegation_token: options: max_lifetime_ms: must be a lifetime in ms between 1 and`,
		`create_delegation_token{max_lifetime_ms = 1, maxlifetime = 1}`: `create_delegation_token: options: unknown key "maxlifetime"`,
		`describe_delegation_tokens("User:alice", 1)`:                   `describe_delegation_tokens: takes at most 1 argument`,
	})
	assert.Nil(t, renewed(), "no renew request was sent")
	assert.Nil(t, created(), "no create request was sent")
	assert.NotContains(t, e.stderr.String(), b64)
	for _, src := range []string{
		`renew_delegation_token("` + b64 + `", {period_ms = "soon"})`,
		`renew_delegation_token("` + long + `")`,
		`expire_delegation_token("` + b64 + `x")`,
	} {
		re := e.runErr(src)
		assert.NotContains(t, re.Message, b64, "the HMAC is never shown")
	}
}
