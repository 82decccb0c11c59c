package main

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// One test per route of docs/cli.md "Which credentials go where". Each
// cluster records every SASL PLAIN login it is offered (user and
// password), so a test sees exactly which credentials reached which
// cluster, including the ones that were refused.

// loginCluster is a SASL cluster that lets admin in with its own password
// and records every login attempt.
type loginCluster struct {
	*cluster
	mu       sync.Mutex
	attempts []string // "user:password"
}

func newLoginCluster(t *testing.T, adminPassword string) *loginCluster {
	t.Helper()
	lc := &loginCluster{cluster: newCluster(t, kfake.EnableSASL(), kfake.Superuser("PLAIN", "admin", adminPassword))}
	lc.ControlKey(int16(kmsg.SASLAuthenticate), func(req kmsg.Request) (kmsg.Response, error, bool) {
		lc.KeepControl()
		r := req.(*kmsg.SASLAuthenticateRequest)
		parts := bytes.Split(r.SASLAuthBytes, []byte{0})
		if len(parts) != 3 {
			return nil, nil, false
		}
		user, pass := string(parts[1]), string(parts[2])
		lc.mu.Lock()
		lc.attempts = append(lc.attempts, user+":"+pass)
		lc.mu.Unlock()
		if user == "admin" && pass == adminPassword {
			return nil, nil, false // kfake logs the user in
		}
		resp := r.ResponseKind().(*kmsg.SASLAuthenticateResponse)
		resp.ErrorCode = kerr.SaslAuthenticationFailed.Code
		return resp, nil, true
	})
	return lc
}

// logins are the distinct login attempts the cluster saw.
func (lc *loginCluster) logins() []string {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	var out []string
	for _, a := range lc.attempts {
		if !contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

const (
	prodPassword  = "prod-pa55"
	otherPassword = "other-pa55"
)

// credsWorld is two SASL clusters, prod and other, and a CLI whose config
// file has profile "prod" (user admin, password in PROD_PW) pointing at
// prod; defaultProfile makes it the default_profile.
type credsWorld struct {
	prod, other *loginCluster
	c           *cli
}

func newCredsWorld(t *testing.T, defaultProfile bool) *credsWorld {
	t.Helper()
	w := &credsWorld{prod: newLoginCluster(t, prodPassword), other: newLoginCluster(t, otherPassword), c: newCLI(t)}
	def := ""
	if defaultProfile {
		def = `"default_profile": "prod",`
	}
	writeConfig(t, w.c, fmt.Sprintf(`{%s "profiles": {"prod": {"brokers": [%q],
		"sasl": {"mechanism": "PLAIN", "username": "admin", "password_env": "PROD_PW"}}}}`, def, w.prod.addrs))
	w.c.env["PROD_PW"] = prodPassword
	return w
}

func (w *credsWorld) assertNothingReached(t *testing.T, lc *loginCluster) {
	t.Helper()
	assert.Empty(t, lc.logins(), "no credentials offered to this cluster")
}

func (w *credsWorld) assertNoLeak(t *testing.T) {
	t.Helper()
	out := w.c.stdout.String() + w.c.stderr.String()
	assert.NotContains(t, out, prodPassword)
	assert.NotContains(t, out, otherPassword)
}

func TestCredsRouteFlags(t *testing.T) {
	w := newCredsWorld(t, true)
	w.c.env["KADMIN_SASL_PASSWORD"] = otherPassword
	require.Equal(t, ExitOK, w.c.run("-b", w.other.addrs, "--sasl-mechanism", "PLAIN", "--sasl-username", "admin",
		"-e", `return #list_topics()`), w.c.stderr.String())
	assert.Equal(t, []string{"admin:" + otherPassword}, w.other.logins())
	w.assertNothingReached(t, w.prod)
	assert.NotContains(t, w.c.stderr.String(), "note:", "the flags' own credentials replace the profile's: nothing to say")
	w.assertNoLeak(t)
}

func TestCredsRouteFlagUserNeverTakesProfilePassword(t *testing.T) {
	// --profile prod with its brokers, but another user named by flag: the
	// user's password comes from KADMIN_SASL_PASSWORD, never from PROD_PW.
	w := newCredsWorld(t, false)
	code := w.c.run("--profile", "prod", "--sasl-username", "alice", "--timeout", "5s", "-e", `return list_topics()`)
	require.Equal(t, ExitKafka, code, w.c.stderr.String())
	assert.Contains(t, w.c.stderr.String(), "set KADMIN_SASL_PASSWORD")
	w.assertNothingReached(t, w.prod)

	w.c.env["KADMIN_SASL_PASSWORD"] = "alice-pw"
	require.Equal(t, ExitKafka, w.c.run("--profile", "prod", "--sasl-username", "alice", "--timeout", "5s", "-e", `return list_topics()`))
	assert.Equal(t, []string{"alice:alice-pw"}, w.prod.logins())
	w.assertNoLeak(t)
}

func TestCredsRouteEnvBrokers(t *testing.T) {
	w := newCredsWorld(t, true)
	w.c.env["KADMIN_BROKERS"] = w.other.addrs
	code := w.c.run("--timeout", "5s", "-e", `return list_topics()`)
	require.Equal(t, ExitKafka, code, w.c.stderr.String())
	assert.Contains(t, w.c.stderr.String(), `kadmin-lua: note: the brokers come from KADMIN_BROKERS, so the credentials of default profile "prod" were not used`)
	assert.Contains(t, w.c.stderr.String(), "AUTH: authentication required", "fails at once, no TIMEOUT")
	w.assertNothingReached(t, w.other)
	w.assertNothingReached(t, w.prod)
	w.assertNoLeak(t)
}

func TestCredsRouteExplicitProfile(t *testing.T) {
	w := newCredsWorld(t, false)
	require.Equal(t, ExitOK, w.c.run("--profile", "prod", "-e", `return #list_topics()`), w.c.stderr.String())
	assert.Equal(t, []string{"admin:" + prodPassword}, w.prod.logins())

	// KADMIN_BROKERS does not move an explicit profile that has brokers.
	w.c.env["KADMIN_BROKERS"] = w.other.addrs
	require.Equal(t, ExitOK, w.c.run("--profile", "prod", "-e", `return #list_topics()`), w.c.stderr.String())

	// -b naming one of the profile's own brokers keeps its credentials.
	one := strings.Split(w.prod.addrs, ",")[1]
	require.Equal(t, ExitOK, w.c.run("--profile", "prod", "-b", one, "-e", `return #list_topics()`), w.c.stderr.String())

	// -b naming another cluster is refused before anything is sent.
	code := w.c.run("--profile", "prod", "-b", w.other.addrs, "-e", `return list_topics()`)
	require.Equal(t, ExitUsage, code, w.c.stderr.String())
	assert.Contains(t, w.c.stderr.String(), `profile "prod" has credentials for its own brokers`)
	w.assertNothingReached(t, w.other)
	w.assertNoLeak(t)
}

func TestCredsRouteDefaultProfile(t *testing.T) {
	w := newCredsWorld(t, true)
	require.Equal(t, ExitOK, w.c.run("-e", `return #list_topics()`), w.c.stderr.String())
	assert.Equal(t, []string{"admin:" + prodPassword}, w.prod.logins())
	assert.NotContains(t, w.c.stderr.String(), "note:")

	code := w.c.run("-b", w.other.addrs, "--timeout", "5s", "-e", `return list_topics()`)
	require.Equal(t, ExitKafka, code, w.c.stderr.String())
	assert.Contains(t, w.c.stderr.String(), `kadmin-lua: note: the brokers come from -b, so the credentials of default profile "prod" were not used`)
	assert.Equal(t, 1, strings.Count(w.c.stderr.String(), "note:"), "one line")
	w.assertNothingReached(t, w.other)
	w.assertNoLeak(t)
}

func TestCredsRouteProfileFromEnv(t *testing.T) {
	w := newCredsWorld(t, false)
	w.c.env["KADMIN_PROFILE"] = "prod"
	require.Equal(t, ExitOK, w.c.run("-e", `return #list_topics()`), w.c.stderr.String())
	assert.Equal(t, []string{"admin:" + prodPassword}, w.prod.logins())

	require.Equal(t, ExitKafka, w.c.run("-b", w.other.addrs, "--timeout", "5s", "-e", `return list_topics()`))
	assert.Contains(t, w.c.stderr.String(), `credentials of profile "prod" (from KADMIN_PROFILE) were not used`)
	w.assertNothingReached(t, w.other)
}

func TestCredsRouteCommandConfig(t *testing.T) {
	w := newCredsWorld(t, true)
	// The file names other's brokers and its own login: that login goes to
	// other, and the default profile's goes nowhere.
	props := writeFile(t, "client.properties", fmt.Sprintf(`bootstrap.servers=%s
security.protocol=SASL_PLAINTEXT
sasl.mechanism=PLAIN
sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="%s";
`, w.other.addrs, otherPassword))
	require.Equal(t, ExitOK, w.c.run("--command-config", props, "-e", `return #list_topics()`), w.c.stderr.String())
	assert.Equal(t, []string{"admin:" + otherPassword}, w.other.logins())
	w.assertNothingReached(t, w.prod)

	// A file with brokers and no login: the default profile's stays home.
	bare := writeFile(t, "bare.properties", "bootstrap.servers="+w.other.addrs+"\n")
	require.Equal(t, ExitKafka, w.c.run("--command-config", bare, "--timeout", "5s", "-e", `return list_topics()`))
	assert.Contains(t, w.c.stderr.String(), `the brokers come from --command-config `+bare)
	w.assertNothingReached(t, w.prod)

	// A file naming a user without a password, under the profile's brokers:
	// that user's password is KADMIN_SASL_PASSWORD, never the profile's.
	alice := writeFile(t, "alice.properties", `security.protocol=SASL_PLAINTEXT
sasl.mechanism=PLAIN
sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="alice";
`)
	w.c.env["KADMIN_SASL_PASSWORD"] = "alice-pw"
	require.Equal(t, ExitKafka, w.c.run("--command-config", alice, "--timeout", "5s", "-e", `return list_topics()`))
	assert.Equal(t, []string{"alice:alice-pw"}, w.prod.logins())
	w.assertNoLeak(t)
}

func TestCredsRouteKafkaConnect(t *testing.T) {
	w := newCredsWorld(t, false)
	w.c.env["KADMIN_SASL_PASSWORD"] = prodPassword
	require.Equal(t, ExitOK, w.c.run("-b", w.prod.addrs, "--sasl-mechanism", "PLAIN", "--sasl-username", "admin", "-e", fmt.Sprintf(`
		-- brokers= is another cluster: no credentials go with it.
		local ok, err = pcall(function() return kafka.connect{brokers = %q, timeout = 5000}:list_topics() end)
		assert(not ok and err.code == "AUTH", tostring(err))
		-- A profile's credentials go only to its own brokers.
		ok, err = pcall(kafka.connect, {profile = "prod", brokers = %q})
		assert(not ok and err.code == "INVALID_ARGUMENT", tostring(err))
		assert(tostring(err):find("its credentials go only to them"), tostring(err))
		-- kafka.connect{} is the default cluster with the default login.
		return #kafka.connect{}:list_topics(), #kafka.connect{profile = "prod"}:list_topics()`, w.other.addrs, w.other.addrs)),
		w.c.stderr.String())
	assert.Equal(t, "0\n0\n", w.c.stdout.String())
	w.assertNothingReached(t, w.other)
	assert.Equal(t, []string{"admin:" + prodPassword}, w.prod.logins())

	// Credentials the call names go with its brokers; the password is
	// KADMIN_SASL_PASSWORD's.
	w.c.env["KADMIN_SASL_PASSWORD"] = otherPassword
	require.Equal(t, ExitOK, w.c.run("-e", fmt.Sprintf(
		`return #kafka.connect{brokers = %q, sasl_mechanism = "PLAIN", sasl_username = "admin"}:list_topics()`, w.other.addrs)),
		w.c.stderr.String())
	assert.Equal(t, []string{"admin:" + otherPassword}, w.other.logins())
	w.assertNoLeak(t)
}
