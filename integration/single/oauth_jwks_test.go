package single

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/internal/clientconfig"
	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

// signJWT makes an RS256 JWT with kid for claims.
func signJWT(t *testing.T, key *rsa.PrivateKey, kid string, claims map[string]any) string {
	t.Helper()
	enc := func(v any) string {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	head := enc(map[string]string{"alg": "RS256", "typ": "JWT", "kid": kid}) + "." + enc(claims)
	sum := sha256.Sum256([]byte(head))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, sum[:])
	require.NoError(t, err)
	return head + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// signedJWTs: the node's OAUTHBEARER listener checks signed JWTs with
// Kafka's OAuthBearerValidatorCallbackHandler against o's JWKS endpoint; kadmin-lua gets its tokens from a
// token endpoint of o's too (the client-credentials grant, from a
// client.properties, which Kafka's TopicCommand reads too). Tokens last 4 s and the
// broker's sessions 3 s: a script running 10 s logs in again with fresh
// tokens. A token signed by another key is refused, and a wrong client
// secret is refused by the token endpoint: exit 3 naming OAUTHBEARER, no
// secret or token shown.
func signedJWTs(ctx context.Context, t *testing.T, c *kafkatest.Cluster, o *jwtIssuer) {
	const clientID, clientSecret = jwtClientID, jwtClientSecret
	srv, issued, jwksFetched, token, other := o.srv, &o.issued, &o.jwksFetched, o.token, o.other // short names below
	props := func(secret string) string {
		f := filepath.Join(t.TempDir(), "client.properties")
		require.NoError(t, os.WriteFile(f, []byte(fmt.Sprintf(`bootstrap.servers=%s
security.protocol=SASL_PLAINTEXT
sasl.mechanism=OAUTHBEARER
sasl.login.callback.handler.class=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler
sasl.oauthbearer.token.endpoint.url=%s/token
sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required \
  clientId="%s" clientSecret="%s";
`, c.OAuthBootstrap(), srv.URL, clientID, secret)), 0o600))
		return f
	}

	t.Run("client credentials across expiries", func(t *testing.T) {
		topic := unique("jwks")
		began := time.Now()
		r := kafkatest.RunBinary(ctx, t, bin, nil, "", "--command-config", props(clientSecret), "--timeout", "20s", "-e",
			fmt.Sprintf(`create_topics{%q}
for i = 1, 10 do kafka.sleep(1000); assert(#list_topics() > 0) end
for i = 1, 100 do
	if #list_topics{match = %q} == 1 then return 1 end
	kafka.sleep(100)
end
return 0`, topic, "^"+topic+"$"))
		require.Equal(t, 0, r.Code, r.Stderr)
		assert.Equal(t, "1\n", r.Stdout)
		took := time.Since(began)
		// A token per 4 s lifetime at least (refreshed before expiry).
		assert.GreaterOrEqual(t, int(issued.Load()), 3, "tokens issued over %s", took)
		assert.NotZero(t, jwksFetched.Load(), "the broker fetched the JWKS")
		t.Logf("%d tokens issued over %s", issued.Load(), took.Round(100*time.Millisecond))
		assert.NotContains(t, r.Stdout+r.Stderr, clientSecret)

		// Kafka's own TopicCommand, with the same client.properties.
		before := issued.Load()
		out, err := c.RunJava(ctx, "org.apache.kafka.tools.TopicCommand",
			"--bootstrap-server", c.OAuthBootstrap(), "--command-config", props(clientSecret), "--describe", "--topic", topic)
		require.NoError(t, err, "TopicCommand: %s", out)
		assert.Contains(t, out, "PartitionCount: 1")
		assert.Greater(t, issued.Load(), before, "TopicCommand took its token from the endpoint")
	})

	t.Run("a token signed by another key", func(t *testing.T) {
		forged := token(t, other, time.Hour)
		r := kafkatest.RunBinary(ctx, t, bin, []string{clientconfig.OAuthTokenEnv + "=" + forged}, "",
			"-b", c.OAuthBootstrap(), "--sasl-mechanism", "OAUTHBEARER", "--timeout", "20s", "-e", `return #list_topics()`)
		assert.Equal(t, 3, r.Code, r.Stderr)
		assert.Contains(t, r.Stderr, "SASL_AUTHENTICATION_FAILED (OAUTHBEARER): ")
		assert.NotContains(t, r.Stderr, "TIMEOUT")
		assert.NotContains(t, r.Stdout+r.Stderr, forged)
	})

	t.Run("a wrong client secret", func(t *testing.T) {
		const wrong = "wr0ng-cl13nt-s3cret"
		r := kafkatest.RunBinary(ctx, t, bin, nil, "", "--command-config", props(wrong), "--timeout", "20s", "-e", `return #list_topics()`)
		assert.Equal(t, 3, r.Code, r.Stderr)
		assert.Contains(t, r.Stderr, "(OAUTHBEARER): ")
		assert.Contains(t, r.Stderr, "401")
		assert.NotContains(t, r.Stdout+r.Stderr, wrong)
	})
}

const jwtKid, jwtClientID, jwtClientSecret = "test-key-1", "kadmin", "cl13nt-s3cret-xyzzy"

// jwtIssuer is an OAuth server for the test: a JWKS endpoint with the key
// its tokens are signed with, and a token endpoint for the client-credentials
// grant whose tokens last 4 s.
type jwtIssuer struct {
	key, other          *rsa.PrivateKey // other signs tokens the JWKS does not vouch for
	srv                 *httptest.Server
	issued, jwksFetched atomic.Int32
}

func newJWTIssuer(t *testing.T) *jwtIssuer {
	o := &jwtIssuer{}
	var err error
	o.key, err = rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	o.other, err = rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		o.jwksFetched.Add(1)
		b64 := func(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": []map[string]string{{
			"kty": "RSA", "kid": jwtKid, "use": "sig", "alg": "RS256",
			"n": b64(o.key.N.Bytes()), "e": b64(big.NewInt(int64(o.key.E)).Bytes())}}})
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		id, secret, ok := r.BasicAuth()
		if !ok || id != jwtClientID || secret != jwtClientSecret || r.FormValue("grant_type") != "client_credentials" {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":"invalid_client"}`))
			return
		}
		o.issued.Add(1)
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": o.token(t, o.key, 4*time.Second), "token_type": "Bearer", "expires_in": 4})
	})
	o.srv = httptest.NewServer(mux)
	t.Cleanup(o.srv.Close)
	return o
}

// jwtIssuerName and jwtAudience are the iss and aud claims of the issuer's
// tokens, which the broker's JWKS listener checks (Kafka 4.4 refuses to
// start a validator that would check neither).
const (
	jwtIssuerName = "kadmin-lua-test"
	jwtAudience   = "kadmin-lua-test-cluster"
)

func (o *jwtIssuer) jwksURL() string { return o.srv.URL + "/jwks" }

// token is a JWT for admin signed by k, valid for life.
func (o *jwtIssuer) token(t *testing.T, k *rsa.PrivateKey, life time.Duration) string {
	now := time.Now()
	return signJWT(t, k, jwtKid, map[string]any{"sub": kafkatest.AdminUser, "iat": now.Unix(),
		"exp": now.Add(life).Unix(), "scope": "kafka", "iss": jwtIssuerName, "aud": jwtAudience})
}
