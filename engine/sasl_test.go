package engine

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// saslBroker makes a kfake cluster speak one more SASL mechanism: its
// SaslHandshake accepts mech, and each SaslAuthenticate is judged by check,
// which returns the server's answer bytes or an error message. A positive
// lifetime is sent as the session lifetime, so clients log in again on
// their connections before it ends (KIP-368). kfake without EnableSASL
// serves every request, so the tests look at what reached the exchange.
type saslBroker struct {
	c      *kfake.Cluster
	mu     sync.Mutex
	logins []string // what each successful authenticate carried, as check summarized it
	fails  atomic.Int32
}

func newSASLBroker(t *testing.T, mech string, lifetime time.Duration, check func(auth []byte) (summary string, answer []byte, err error)) *saslBroker {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	b := &saslBroker{c: c}
	c.ControlKey(int16(kmsg.SASLHandshake), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req := kreq.(*kmsg.SASLHandshakeRequest)
		resp := req.ResponseKind().(*kmsg.SASLHandshakeResponse)
		resp.SupportedMechanisms = []string{mech}
		if req.Mechanism != mech {
			resp.ErrorCode = kerr.UnsupportedSaslMechanism.Code
		}
		return resp, nil, true
	})
	c.ControlKey(int16(kmsg.SASLAuthenticate), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req := kreq.(*kmsg.SASLAuthenticateRequest)
		resp := req.ResponseKind().(*kmsg.SASLAuthenticateResponse)
		summary, answer, err := check(req.SASLAuthBytes)
		if err != nil {
			b.fails.Add(1)
			resp.ErrorCode = kerr.SaslAuthenticationFailed.Code
			msg := err.Error()
			resp.ErrorMessage = &msg
			return resp, nil, true
		}
		b.mu.Lock()
		b.logins = append(b.logins, summary)
		b.mu.Unlock()
		resp.SASLAuthBytes = answer
		resp.SessionLifetimeMillis = lifetime.Milliseconds()
		return resp, nil, true
	})
	return b
}

func (b *saslBroker) seen() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.logins...)
}

// oauthToken returns the token of an OAUTHBEARER client first message:
// n,,\x01auth=Bearer TOKEN\x01...\x01\x01.
func oauthToken(auth []byte) (token string, ext map[string]string, err error) {
	parts := strings.Split(string(auth), "\x01")
	if len(parts) < 3 || !strings.HasPrefix(parts[0], "n,") {
		return "", nil, fmt.Errorf("not an OAUTHBEARER message")
	}
	ext = map[string]string{}
	for _, p := range parts[1:] {
		k, v, _ := strings.Cut(p, "=")
		if k == "auth" {
			token = strings.TrimPrefix(v, "Bearer ")
		} else if k != "" {
			ext[k] = v
		}
	}
	return token, ext, nil
}

func testJWT(claims map[string]any) string {
	b, _ := json.Marshal(claims)
	enc := base64.RawURLEncoding
	return enc.EncodeToString([]byte(`{"alg":"none"}`)) + "." + enc.EncodeToString(b) + "."
}

func listTopicsWith(t *testing.T, cfg Config) error {
	t.Helper()
	cl, err := New(cfg)
	if err != nil {
		return err
	}
	defer cl.Close()
	_, err = cl.ListTopics(context.Background(), ListTopicsOptions{})
	return err
}

func TestOAuthClientCredentialsRefreshAndReauthenticate(t *testing.T) {
	var issued atomic.Int32
	idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, ok := r.BasicAuth()
		if r.Method != http.MethodPost || r.FormValue("grant_type") != "client_credentials" || r.FormValue("scope") != "kafka" {
			http.Error(w, `{"error":"invalid_request"}`, http.StatusBadRequest)
			return
		}
		if !ok || user != "kadmin%2Bcli" || pass != "s%26cret" { // URL-encoded, as Kafka sends them
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":"invalid_client","error_description":"bad client"}`))
			return
		}
		n := issued.Add(1)
		// Each token lives one second: a run of three seconds needs fresh ones.
		tok := testJWT(map[string]any{"sub": "kadmin", "n": n, "exp": time.Now().Add(time.Second).Unix()})
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": 1})
	}))
	defer idp.Close()

	b := newSASLBroker(t, "OAUTHBEARER", 700*time.Millisecond, func(auth []byte) (string, []byte, error) {
		tok, ext, err := oauthToken(auth)
		if err != nil {
			return "", nil, err
		}
		if _, ok := jwtExpiry(tok); !ok || ext["logicalCluster"] != "lkc-1" {
			return "", nil, fmt.Errorf("invalid_token")
		}
		return tok, nil, nil
	})
	oauth := &OAuthConfig{TokenEndpoint: idp.URL + "/token", ClientID: "kadmin+cli", ClientSecret: "s&cret", Scope: "kafka",
		Extensions: map[string]string{"logicalCluster": "lkc-1"}}
	cl, err := New(Config{Brokers: b.c.ListenAddrs(), Timeout: 5 * time.Second, SASL: &SASLConfig{Mechanism: "OAUTHBEARER", OAuth: oauth}})
	require.NoError(t, err)
	defer cl.Close()
	deadline := time.Now().Add(3 * time.Second)
	calls := 0
	for time.Now().Before(deadline) {
		_, err := cl.ListTopics(context.Background(), ListTopicsOptions{})
		require.NoError(t, err, "call %d", calls)
		calls++
		time.Sleep(100 * time.Millisecond)
	}
	logins := b.seen()
	distinct := map[string]bool{}
	for _, l := range logins {
		distinct[l] = true
	}
	assert.GreaterOrEqual(t, int(issued.Load()), 3, "tokens were fetched again as they expired")
	assert.GreaterOrEqual(t, len(distinct), 3, "connections logged in again with fresh tokens (%d logins)", len(logins))
	assert.Zero(t, b.fails.Load())

	// A wrong client secret: an AUTH error naming the mechanism and the
	// endpoint, never the secret.
	oauth = &OAuthConfig{TokenEndpoint: idp.URL + "/token", ClientID: "kadmin+cli", ClientSecret: "wrong-secret", Scope: "kafka"}
	err = listTopicsWith(t, Config{Brokers: b.c.ListenAddrs(), Timeout: 3 * time.Second, SASL: &SASLConfig{Mechanism: "OAUTHBEARER", OAuth: oauth}})
	require.Error(t, err)
	e := AsError(err, "")
	assert.Equal(t, CodeAuth, e.Code, "%v", err)
	assert.Contains(t, e.Error(), "OAUTHBEARER")
	assert.Contains(t, e.Error(), "invalid_client")
	assert.NotContains(t, e.Error(), "wrong-secret")
}

func TestOAuthWrongTokenIsAnAuthError(t *testing.T) {
	b := newSASLBroker(t, "OAUTHBEARER", 0, func(auth []byte) (string, []byte, error) {
		tok, _, err := oauthToken(auth)
		if err != nil || tok != "good-token" {
			return "", nil, fmt.Errorf("invalid_token")
		}
		return tok, nil, nil
	})
	sc := func(tok string) *SASLConfig {
		return &SASLConfig{Mechanism: "OAUTHBEARER", OAuth: &OAuthConfig{Token: Secret(tok)}}
	}
	require.NoError(t, listTopicsWith(t, Config{Brokers: b.c.ListenAddrs(), Timeout: 3 * time.Second, SASL: sc("good-token")}))
	err := listTopicsWith(t, Config{Brokers: b.c.ListenAddrs(), Timeout: 3 * time.Second, SASL: sc("bad-token-value")})
	require.Error(t, err)
	e := AsError(err, "")
	assert.Equal(t, kerr.SaslAuthenticationFailed.Message, e.Code, "%v", err)
	assert.Contains(t, e.Message, "authentication failed: SASL Authentication failed. (broker: invalid_token)")
	assert.NotContains(t, e.Error(), "bad-token-value")
	assert.Equal(t, []string{"good-token"}, b.seen())
}

func TestOAuthTokenSources(t *testing.T) {
	dir := t.TempDir()
	now := time.Unix(1_800_000_000, 0)
	clock := func() time.Time { return now }
	ctx := context.Background()

	t.Run("command rerun near expiry", func(t *testing.T) {
		counter := filepath.Join(dir, "n")
		// Prints a JWT whose exp is an hour after the test clock; counts runs.
		cmd := fmt.Sprintf(`echo x >> %s; echo %s`, counter, testJWT(map[string]any{"exp": now.Unix() + 3600}))
		ts := &tokenSource{cfg: &OAuthConfig{TokenCommand: cmd}, now: clock}
		runs := func() int { b, _ := os.ReadFile(counter); return bytes.Count(b, []byte("x")) }
		_, err := ts.get(ctx)
		require.NoError(t, err)
		now = now.Add(2879 * time.Second)
		_, err = ts.get(ctx)
		require.NoError(t, err)
		assert.Equal(t, 1, runs(), "cached before 80% of the lifetime")
		now = now.Add(2 * time.Second)
		_, err = ts.get(ctx)
		require.NoError(t, err)
		assert.Equal(t, 2, runs(), "run again after 80% of the lifetime")
	})
	t.Run("command printing a token response", func(t *testing.T) {
		ts := &tokenSource{cfg: &OAuthConfig{TokenCommand: `echo '{"access_token":"opaque","expires_in":10}'`}, now: clock}
		tok, err := ts.get(ctx)
		require.NoError(t, err)
		assert.Equal(t, "opaque", tok)
		assert.Equal(t, now.Add(5*time.Second), ts.refreshAt, "a short token keeps half its life in hand")
	})
	t.Run("refresh points", func(t *testing.T) {
		assert.Equal(t, 48*time.Minute, refreshAfter(time.Hour, 0.8))
		assert.Equal(t, 5*time.Minute, refreshAfter(10*time.Minute, 0.8), "Kafka's 300 s buffer")
		assert.Equal(t, 2*time.Second, refreshAfter(4*time.Second, 0.8))
	})
	t.Run("failing command", func(t *testing.T) {
		ts := &tokenSource{cfg: &OAuthConfig{TokenCommand: `echo "vault: permission denied" >&2; exit 3`}, now: clock}
		_, err := ts.get(ctx)
		require.Error(t, err)
		assert.Equal(t, CodeAuth, AsError(err, "").Code)
		assert.Contains(t, err.Error(), "OAUTHBEARER: token command failed (exit status 3): vault: permission denied")
	})
	t.Run("file read at every login", func(t *testing.T) {
		f := filepath.Join(dir, "token")
		require.NoError(t, os.WriteFile(f, []byte("one\n"), 0o600))
		ts := &tokenSource{cfg: &OAuthConfig{TokenFile: f}, now: clock}
		tok, err := ts.get(ctx)
		require.NoError(t, err)
		assert.Equal(t, "one", tok)
		require.NoError(t, os.WriteFile(f, []byte("two"), 0o600))
		tok, err = ts.get(ctx)
		require.NoError(t, err)
		assert.Equal(t, "two", tok, "a rotated file is picked up")
	})
	t.Run("unsecured JWT as Kafka makes it", func(t *testing.T) {
		ts := &tokenSource{cfg: &OAuthConfig{UnsecuredClaims: map[string]string{"sub": "admin", "scope": "a b"}}, now: clock}
		tok, err := ts.get(ctx)
		require.NoError(t, err)
		parts := strings.Split(tok, ".")
		require.Len(t, parts, 3)
		assert.Empty(t, parts[2], "no signature")
		payload, err := base64.RawURLEncoding.DecodeString(parts[1])
		require.NoError(t, err)
		var claims map[string]any
		require.NoError(t, json.Unmarshal(payload, &claims))
		assert.Equal(t, "admin", claims["sub"])
		assert.Equal(t, []any{"a", "b"}, claims["scope"])
		assert.InDelta(t, float64(now.Add(time.Hour).Unix()), claims["exp"], 1)
	})
	t.Run("configuration errors", func(t *testing.T) {
		for cfg, want := range map[*OAuthConfig]string{
			{}:                               "has no token",
			{Token: "a", TokenFile: "b"}:     "more than one token source",
			{TokenEndpoint: "https://idp/x"}: "needs a client id",
			{TokenEndpoint: "ftp://x", ClientID: "c"}:          "is not an http(s) URL",
			{UnsecuredClaims: map[string]string{"scope": "x"}}: "needs a subject",
		} {
			_, err := New(Config{Brokers: []string{"127.0.0.1:1"}, SASL: &SASLConfig{Mechanism: "OAUTHBEARER", OAuth: cfg}})
			require.Error(t, err)
			assert.Contains(t, err.Error(), want)
			assert.Equal(t, CodeInvalidArgument, AsError(err, "").Code)
		}
	})
}

func TestKerberosFilesAreCheckedBeforeDialing(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "krb5.conf")
	require.NoError(t, os.WriteFile(conf, []byte("[libdefaults]\n  default_realm = EXAMPLE.COM\n[realms]\n  EXAMPLE.COM = {\n    kdc = 127.0.0.1:1\n  }\n"), 0o600))
	for name, tc := range map[string]struct {
		k    KerberosConfig
		want string
	}{
		"missing keytab":    {KerberosConfig{Principal: "admin", Keytab: filepath.Join(dir, "admin.keytab"), Krb5Conf: conf}, "SASL GSSAPI: reading keytab"},
		"keytab, no user":   {KerberosConfig{Keytab: filepath.Join(dir, "admin.keytab"), Krb5Conf: conf}, "needs a principal"},
		"missing krb5.conf": {KerberosConfig{Principal: "admin", Keytab: "/x", Krb5Conf: filepath.Join(dir, "none.conf")}, "reading krb5.conf"},
		"missing ccache":    {KerberosConfig{CCache: filepath.Join(dir, "krb5cc_0"), Krb5Conf: conf}, "reading credential cache"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := New(Config{Brokers: []string{"127.0.0.1:1"}, SASL: &SASLConfig{Mechanism: "GSSAPI", Kerberos: &tc.k}})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Equal(t, CodeInvalidArgument, AsError(err, "").Code)
		})
	}
}

// A token command runs with a minimal environment plus the variables its
// configuration names; a failing one's stderr reaches the error as one
// short line with the credentials in it hidden.
func TestOAuthTokenCommandEnvironmentAndErrors(t *testing.T) {
	ctx := context.Background()
	t.Setenv("OTHER_CLUSTER_PASSWORD", "other-pa55")
	t.Setenv("VAULT_TOKEN", "hvs.vault-secret-123")
	t.Setenv("VAULT_ADDR", "https://vault.example:8200")

	t.Run("minimal environment and named variables", func(t *testing.T) {
		cmd := `echo "{\"access_token\":\"$(env | sort | tr '\n' ' ')\"}"`
		tok, _, err := runTokenCommand(ctx, cmd, []string{"VAULT_TOKEN", "VAULT_ADDR", "NOT_SET_ANYWHERE"}, nil)
		require.NoError(t, err)
		assert.Contains(t, tok, "VAULT_TOKEN=hvs.vault-secret-123 ")
		assert.Contains(t, tok, "VAULT_ADDR=https://vault.example:8200 ")
		assert.Contains(t, tok, "PATH=")
		assert.NotContains(t, tok, "OTHER_CLUSTER_PASSWORD")
		assert.NotContains(t, tok, "NOT_SET_ANYWHERE")
		tok, _, err = runTokenCommand(ctx, `echo "[$VAULT_TOKEN][$OTHER_CLUSTER_PASSWORD]"`, nil, nil)
		require.NoError(t, err)
		assert.Equal(t, "[][]", tok, "nothing beyond the base set unless named")
	})

	t.Run("stderr summarized and redacted", func(t *testing.T) {
		for name, tc := range map[string]struct {
			stderr string
			want   string
			hidden []string
		}{
			"named variable's value": {`echo "denied for token $VAULT_TOKEN" >&2`, "denied for token ***", []string{"hvs.vault-secret-123"}},
			"secret assignment":      {`echo "login failed: password=hunter22 user=ops" >&2`, "login failed: password=*** user=ops", []string{"hunter22"}},
			"bearer and JWT": {`echo "Authorization: Bearer abc.def-ghi rejected, got eyJhbGciOi.eyJzdWIiOiJ4In0.c2ln" >&2`,
				"Authorization: Bearer *** rejected, got ***", []string{"abc.def-ghi", "eyJzdWIiOiJ4In0"}},
			"URL credentials": {`echo "GET https://ops:s3cret@idp.example/token?client_secret=zz9 failed" >&2`,
				"GET https://***@idp.example/token?client_secret=*** failed", []string{"s3cret", "zz9"}},
			"first line only": {`echo "" >&2; echo "  first problem  " >&2; echo "second secret-line" >&2; echo third >&2`,
				"first problem (2 more stderr lines not shown)", []string{"second"}},
		} {
			t.Run(name, func(t *testing.T) {
				_, _, err := runTokenCommand(ctx, tc.stderr+"; exit 2", []string{"VAULT_TOKEN"}, nil)
				require.Error(t, err)
				assert.Equal(t, CodeAuth, AsError(err, "").Code)
				assert.Equal(t, "OAUTHBEARER: token command failed (exit status 2): "+tc.want, AsError(err, "").Message)
				for _, h := range tc.hidden {
					assert.NotContains(t, err.Error(), h)
				}
			})
		}
		_, _, err := runTokenCommand(ctx, `head -c 5000 /dev/zero | tr '\0' 'x' >&2; exit 1`, nil, nil)
		require.Error(t, err)
		assert.Less(t, len(err.Error()), 300, "length-capped")
		assert.Contains(t, err.Error(), "xxx...")
	})

	t.Run("endpoint URLs redacted", func(t *testing.T) {
		o := &OAuthConfig{TokenEndpoint: "https://kadmin:pa55@idp.example/oauth2/token?api_key=k3y#frag", ClientID: "c"}
		assert.Equal(t, "token endpoint https://***@idp.example/oauth2/token?api_key=***", o.Source())
		o.HTTPClient = &http.Client{Timeout: time.Second}
		o.TokenEndpoint = "http://kadmin:pa55@127.0.0.1:1/oauth2/token?api_key=k3y"
		_, _, err := o.clientCredentials(ctx)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "token endpoint http://***@127.0.0.1:1/oauth2/token?api_key=***: ")
		bad := &OAuthConfig{TokenEndpoint: "ftp://kadmin:pa55@idp.example/t", ClientID: "c"}
		_, err = New(Config{Brokers: []string{"127.0.0.1:1"}, SASL: &SASLConfig{Mechanism: "OAUTHBEARER", OAuth: bad}})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "ftp://***@idp.example/t is not an http(s) URL")
		for _, e := range []string{o.Source(), err.Error()} {
			assert.NotContains(t, e, "pa55")
			assert.NotContains(t, e, "k3y")
		}
	})
}

// A token file that is not a regular file is refused at the login, at
// once, naming the file (internal/boundedfile).
func TestOAuthTokenFileMustBeRegular(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "token")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	for _, path := range []string{fifo, "/dev/zero", t.TempDir()} {
		ts := &tokenSource{cfg: &OAuthConfig{TokenFile: path}, now: time.Now}
		_, err := ts.get(context.Background())
		require.Error(t, err)
		assert.Equal(t, CodeAuth, AsError(err, "").Code)
		assert.Contains(t, err.Error(), "reading token file: read "+path+": is ")
		assert.Contains(t, err.Error(), "not a regular file")
	}
}
