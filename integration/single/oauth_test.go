package single

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/login"
	"github.com/kadmin-lua/kadmin-lua/internal/clientconfig"
	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

// The broker's OAUTHBEARER sessions last 3 s (connections.max.reauth.ms) and
// the tokens 4 s: calls spanning 10 s need fresh tokens and logins again on
// the same connections, which a real Kafka checks (an expired token is
// refused).
func TestOAuthBearerTokensRefreshAcrossReauthentication(t *testing.T) {
	need(t)
	cl, err := engine.New(engine.Config{Brokers: cluster.Brokers(), Timeout: 20 * time.Second,
		SASL: &login.SASLConfig{Mechanism: "OAUTHBEARER", OAuth: &login.OAuthConfig{
			UnsecuredClaims: map[string]string{"sub": kafkatest.AdminUser}, UnsecuredLifetime: 4 * time.Second}}})
	require.NoError(t, err)
	defer cl.Close()
	start := time.Now()
	calls := 0
	for time.Since(start) < 10*time.Second {
		_, err := cl.ListTopics(ctxT(t, 20*time.Second), engine.ListTopicsOptions{})
		require.NoError(t, err, "call %d after %s", calls, time.Since(start))
		calls++
		time.Sleep(500 * time.Millisecond)
	}
	t.Logf("%d calls over %s", calls, time.Since(start))
}

// The same through the binary and a client.properties as Kafka's tools
// read it: admin may create a topic, alice (no ACLs) may not, so the
// principal is the token's subject.
func TestOAuthBearerFromClientProperties(t *testing.T) {
	need(t)
	props := func(sub string) string {
		p := filepath.Join(t.TempDir(), "client.properties")
		require.NoError(t, os.WriteFile(p, []byte(fmt.Sprintf(`bootstrap.servers=%s
security.protocol=SASL_PLAINTEXT
sasl.mechanism=OAUTHBEARER
sasl.login.callback.handler.class=org.apache.kafka.common.security.oauthbearer.internals.unsecured.OAuthBearerUnsecuredLoginCallbackHandler
sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required \
  unsecuredLoginStringClaim_sub="%s" unsecuredLoginLifetimeSeconds="4";
`, cluster.Bootstrap(), sub)), 0o600))
		return p
	}
	topic := unique("oauth")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r := kafkatest.RunBinary(ctx, t, bin, nil, "", "--command-config", props(kafkatest.AdminUser), "--timeout", "20s", "-e",
		fmt.Sprintf(`create_topics{%q}
for i = 1, 7 do kafka.sleep(1000); assert(#list_topics() > 0) end
return #list_topics{match = %q}`, topic, "^"+topic+"$"))
	require.Equal(t, 0, r.Code, r.Stderr)
	assert.Equal(t, "1\n", r.Stdout)
	assert.Contains(t, topics(t), topic)

	r = kafkatest.RunBinary(ctx, t, bin, nil, "", "--command-config", props(kafkatest.AliceUser), "--timeout", "20s", "-e",
		fmt.Sprintf(`create_topics{%q}`, unique("oauth-alice")))
	assert.Equal(t, 3, r.Code, r.Stderr)
	assert.Contains(t, r.Stderr, "AUTHORIZATION_FAILED")
}

// A token the broker refuses (an unsecured token that expired an hour ago)
// makes the binary exit 3 with an authentication error naming OAUTHBEARER,
// and the token appears nowhere.
func TestOAuthBearerRefusedToken(t *testing.T) {
	need(t)
	enc := func(v string) string { return base64.RawURLEncoding.EncodeToString([]byte(v)) }
	now := time.Now().Unix()
	token := enc(`{"alg":"none"}`) + "." +
		enc(fmt.Sprintf(`{"sub":%q,"iat":%d,"exp":%d,"nonce":"s3cr3t-xyzzy"}`, kafkatest.AdminUser, now-7200, now-3600)) + "."
	r := kafkatest.RunBinary(ctxT(t, 2*time.Minute), t, bin, []string{clientconfig.OAuthTokenEnv + "=" + token}, "",
		"-b", cluster.Bootstrap(), "--sasl-mechanism", "OAUTHBEARER", "--timeout", "20s", "-e", `return #list_topics()`)
	assert.Equal(t, 3, r.Code, r.Stderr)
	assert.Contains(t, r.Stderr, "SASL_AUTHENTICATION_FAILED (OAUTHBEARER): ")
	assert.NotContains(t, r.Stderr, "TIMEOUT")
	for _, secret := range []string{token, strings.Split(token, ".")[1], "s3cr3t-xyzzy"} {
		assert.NotContains(t, r.Stdout, secret)
		assert.NotContains(t, r.Stderr, secret)
	}
}
