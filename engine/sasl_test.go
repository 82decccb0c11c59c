package engine

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine/login"
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
		if _, ok := login.JWTExpiry(tok); !ok || ext["logicalCluster"] != "lkc-1" {
			return "", nil, fmt.Errorf("invalid_token")
		}
		return tok, nil, nil
	})
	oauth := &login.OAuthConfig{TokenEndpoint: idp.URL + "/token", ClientID: "kadmin+cli", ClientSecret: "s&cret", Scope: "kafka",
		Extensions: map[string]string{"logicalCluster": "lkc-1"}}
	cl, err := New(Config{Brokers: b.c.ListenAddrs(), Timeout: 5 * time.Second, SASL: &login.SASLConfig{Mechanism: "OAUTHBEARER", OAuth: oauth}})
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
	oauth = &login.OAuthConfig{TokenEndpoint: idp.URL + "/token", ClientID: "kadmin+cli", ClientSecret: "wrong-secret", Scope: "kafka"}
	err = listTopicsWith(t, Config{Brokers: b.c.ListenAddrs(), Timeout: 3 * time.Second, SASL: &login.SASLConfig{Mechanism: "OAUTHBEARER", OAuth: oauth}})
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
	sc := func(tok string) *login.SASLConfig {
		return &login.SASLConfig{Mechanism: "OAUTHBEARER", OAuth: &login.OAuthConfig{Token: Secret(tok)}}
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
