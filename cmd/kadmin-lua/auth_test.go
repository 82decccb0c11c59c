package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// oauthCluster is a kfake cluster that logs clients in with OAUTHBEARER
// (through control functions) when they bring token, and records the
// tokens that reached the exchange.
func oauthCluster(t *testing.T, token string) (*cluster, func() []string) {
	t.Helper()
	c := newCluster(t, kfake.SeedTopics(1, "oauth-topic"))
	var mu sync.Mutex
	var seen []string
	c.ControlKey(int16(kmsg.SASLHandshake), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req := kreq.(*kmsg.SASLHandshakeRequest)
		resp := req.ResponseKind().(*kmsg.SASLHandshakeResponse)
		resp.SupportedMechanisms = []string{"OAUTHBEARER"}
		if req.Mechanism != "OAUTHBEARER" {
			resp.ErrorCode = kerr.UnsupportedSaslMechanism.Code
		}
		return resp, nil, true
	})
	c.ControlKey(int16(kmsg.SASLAuthenticate), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req := kreq.(*kmsg.SASLAuthenticateRequest)
		resp := req.ResponseKind().(*kmsg.SASLAuthenticateResponse)
		got := ""
		for _, kv := range strings.Split(string(req.SASLAuthBytes), "\x01") {
			if v, ok := strings.CutPrefix(kv, "auth=Bearer "); ok {
				got = v
			}
		}
		mu.Lock()
		seen = append(seen, got)
		mu.Unlock()
		if got != token {
			resp.ErrorCode = kerr.SaslAuthenticationFailed.Code
			msg := `{"status":"invalid_token"}`
			resp.ErrorMessage = &msg
		}
		return resp, nil, true
	})
	return c, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), seen...) }
}

func TestOAuthBearerFromTheFlagAndTheEnvironment(t *testing.T) {
	cl, seen := oauthCluster(t, "the-good-token")
	c := newCLI(t)
	c.env["KADMIN_SASL_OAUTH_TOKEN"] = "the-good-token"
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "--sasl-mechanism", "OAUTHBEARER", "-e", `return #list_topics()`), c.stderr.String())
	assert.Equal(t, "1\n", c.stdout.String())
	assert.Contains(t, seen(), "the-good-token")

	c = newCLI(t)
	c.env["KADMIN_SASL_OAUTH_TOKEN"] = "a-stale-token"
	code := c.run("-b", cl.addrs, "--sasl-mechanism", "OAUTHBEARER", "--timeout", "3s", "-e", `return list_topics()`)
	assert.Equal(t, ExitKafka, code, c.stderr.String())
	assert.Contains(t, c.stderr.String(), "invalid_token")
	assert.Contains(t, c.stderr.String(), "SASL_AUTHENTICATION_FAILED (OAUTHBEARER): ")
	assert.NotContains(t, c.stderr.String()+c.stdout.String(), "a-stale-token")

	c = newCLI(t)
	require.Equal(t, ExitUsage, c.run("-b", cl.addrs, "--sasl-mechanism", "OAUTHBEARER", "-e", `return 1`))
	assert.Contains(t, c.stderr.String(), "SASL OAUTHBEARER has no token: set KADMIN_SASL_OAUTH_TOKEN")
}

func TestKafkaConnectOAuthAndCommandConfig(t *testing.T) {
	cl, seen := oauthCluster(t, "lua-token")
	tokenFile := writeFile(t, "token", "lua-token\n")
	props := writeFile(t, "client.properties", fmt.Sprintf(`bootstrap.servers=%s
security.protocol=SASL_PLAINTEXT
sasl.mechanism=OAUTHBEARER
sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;
sasl.oauthbearer.token.endpoint.url=file://%s
`, cl.addrs, tokenFile))
	c := newCLI(t)
	code := c.run("--embedded", "-e", fmt.Sprintf(`
		local a = kafka.connect{command_config = %q}
		local b = kafka.connect{brokers = %q, sasl_mechanism = "OAUTHBEARER", sasl_oauth_token_file = %q}
		return #a:list_topics() + #b:list_topics()`, props, cl.addrs, tokenFile))
	require.Equal(t, ExitOK, code, c.stderr.String())
	assert.Equal(t, "2\n", c.stdout.String())
	assert.Equal(t, 2, strings.Count(strings.Join(seen(), " "), "lua-token"), "both clients logged in with the file's token")

	// A token command cannot be given from a script: the sandbox runs no
	// commands.
	c = newCLI(t)
	code = c.run("--embedded", "-e", `kafka.connect{brokers = "x:1", sasl_mechanism = "OAUTHBEARER", sasl_oauth_token_command = "id"}`)
	assert.Equal(t, ExitScript, code)
	assert.Contains(t, c.stderr.String(), "sasl_oauth_token_command")
}

func TestAWSMSKIAMFromCommandConfigAndTheFlag(t *testing.T) {
	for _, k := range []string{"AWS_PROFILE", "AWS_SESSION_TOKEN"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDTEST")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "aws-secret-value")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	c := newCluster(t, kfake.SeedTopics(1, "msk-topic"))
	var got []byte
	c.ControlKey(int16(kmsg.SASLHandshake), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req := kreq.(*kmsg.SASLHandshakeRequest)
		return &kmsg.SASLHandshakeResponse{Version: req.Version, SupportedMechanisms: []string{req.Mechanism}}, nil, true
	})
	c.ControlKey(int16(kmsg.SASLAuthenticate), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req := kreq.(*kmsg.SASLAuthenticateRequest)
		got = append([]byte(nil), req.SASLAuthBytes...)
		if strings.Contains(string(got), "AKIDREFUSED/") {
			msg := "[AWS_MSK_IAM] signature mismatch"
			return &kmsg.SASLAuthenticateResponse{Version: req.Version, ErrorCode: kerr.SaslAuthenticationFailed.Code, ErrorMessage: &msg}, nil, true
		}
		return &kmsg.SASLAuthenticateResponse{Version: req.Version, SASLAuthBytes: []byte(`{"version":"2020_10_22"}`)}, nil, true
	})
	props := writeFile(t, "msk.properties", fmt.Sprintf(`bootstrap.servers=%s
security.protocol=SASL_PLAINTEXT
sasl.mechanism=AWS_MSK_IAM
sasl.jaas.config=software.amazon.msk.auth.iam.IAMLoginModule required;
sasl.client.callback.handler.class=software.amazon.msk.auth.iam.IAMClientCallbackHandler
`, c.addrs))
	cli := newCLI(t)
	require.Equal(t, ExitOK, cli.run("--command-config", props, "-e", `return #list_topics()`), cli.stderr.String())
	assert.Contains(t, string(got), `"x-amz-credential":"AKIDTEST/`)
	assert.NotContains(t, string(got), "aws-secret-value", "only the signature goes out")

	// The same login from the flag (case-insensitive), with no file.
	got = nil
	cli = newCLI(t)
	require.Equal(t, ExitOK, cli.run("-b", c.addrs, "--sasl-mechanism", "aws_msk_iam", "-e", `return #list_topics()`), cli.stderr.String())
	assert.Equal(t, "1\n", cli.stdout.String())
	assert.Contains(t, string(got), `"x-amz-credential":"AKIDTEST/`)

	// Refused: exit 3, the mechanism named, the secret nowhere.
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDREFUSED")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "refused-aws-secret")
	cli = newCLI(t)
	assert.Equal(t, ExitKafka, cli.run("--command-config", props, "--timeout", "3s", "-e", `return #list_topics()`))
	assert.Contains(t, cli.stderr.String(), "SASL_AUTHENTICATION_FAILED (AWS_MSK_IAM): ")
	assert.NotContains(t, cli.stderr.String()+cli.stdout.String(), "refused-aws-secret")
}

// javaStores writes the test PKI's CA and client key as the JDK's keytool
// makes JKS and PKCS12 stores (testpki.JavaStores), in dir.
func javaStores(t *testing.T, p *testPKI) (dir string) {
	p.JavaStores(t)
	return p.Dir
}

func TestCommandConfigJavaKeyStoresOnMutualTLS(t *testing.T) {
	p := newTestPKI(t)
	cl := tlsCluster(t, p, true)
	dir := javaStores(t, p)
	for name, stores := range map[string]string{
		"JKS": fmt.Sprintf("ssl.truststore.location=%s/trust.JKS\nssl.truststore.password=trust-pw\n"+
			"ssl.keystore.location=%s/client.JKS\nssl.keystore.password=store-pw\nssl.key.password=key-pw\n", dir, dir),
		"PKCS12": fmt.Sprintf("ssl.truststore.location=%s/trust.JKS\nssl.truststore.type=JKS\n"+
			"ssl.keystore.location=%s/client.PKCS12\nssl.keystore.type=PKCS12\nssl.keystore.password=store-pw\n", dir, dir),
	} {
		t.Run(name, func(t *testing.T) {
			props := writeFile(t, "client.properties", fmt.Sprintf("bootstrap.servers=%s\nsecurity.protocol=SSL\n%s", cl.addrs, stores))
			c := newCLI(t)
			require.Equal(t, ExitOK, c.run("--command-config", props, "-e", `return #list_topics()`), c.stderr.String())
			assert.Equal(t, "1\n", c.stdout.String())
		})
	}
	t.Run("passwords from the environment in kafka.connect", func(t *testing.T) {
		c := newCLI(t)
		c.env["KADMIN_TLS_KEYSTORE_PASSWORD"] = "store-pw"
		code := c.run("--embedded", "-e", fmt.Sprintf(`
			local s = kafka.connect{brokers = %q, tls_truststore = %q, tls_keystore = %q}
			return #s:list_topics()`, cl.addrs, dir+"/trust.JKS", dir+"/client.PKCS12"))
		require.Equal(t, ExitOK, code, c.stderr.String())
		assert.Equal(t, "1\n", c.stdout.String())
	})
	t.Run("a wrong password says which and shows none", func(t *testing.T) {
		props := writeFile(t, "client.properties", fmt.Sprintf("bootstrap.servers=%s\nsecurity.protocol=SSL\n"+
			"ssl.keystore.location=%s/client.PKCS12\nssl.keystore.password=not-it-pw\n", cl.addrs, dir))
		c := newCLI(t)
		code := c.run("--command-config", props, "-e", `return #list_topics()`)
		// The default client is made at its first call: the call raises.
		assert.Equal(t, ExitScript, code, c.stderr.String())
		assert.Contains(t, c.stderr.String(), "reading PKCS12 key store: wrong store password")
		assert.NotContains(t, c.stderr.String(), "not-it-pw")
	})
}

// A wrong password on a broker that answers it by closing the connection
// (kfake, some proxies) exits 3 with AUTH naming the mechanism within a few
// seconds, not NETWORK: EOF after retrying for the whole --timeout.
func TestWrongPasswordOnAClosingBrokerExitsAuthAtOnce(t *testing.T) {
	cl := newCluster(t, kfake.EnableSASL(), kfake.Superuser("SCRAM-SHA-512", "admin", "secret"))
	c := newCLI(t)
	c.env["KADMIN_SASL_PASSWORD"] = "not-the-secret"
	began := time.Now()
	code := c.run("-b", cl.addrs, "--sasl-mechanism", "SCRAM-SHA-512", "--sasl-username", "admin", "--timeout", "60s", "-e", "return #list_topics()")
	assert.Less(t, time.Since(began), 5*time.Second)
	require.Equal(t, ExitKafka, code, c.stderr.String())
	assert.Contains(t, c.stderr.String(), "AUTH (SCRAM-SHA-512): authentication failed: ")
	assert.NotContains(t, c.stderr.String(), "not-the-secret")
}
