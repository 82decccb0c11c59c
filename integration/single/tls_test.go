package single

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
	"github.com/kadmin-lua/kadmin-lua/internal/testpki"
)

// TestSecuredListeners starts one more node, with the listeners the
// default SASL node has not: SSL with client certificates required, and
// OAUTHBEARER with signed JWTs checked against a JWKS endpoint. Its
// subtests run side by side.
func TestSecuredListeners(t *testing.T) {
	need(t)
	p := testpki.New(t)
	p.JavaStores(t)
	o := newJWTIssuer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	t.Cleanup(cancel) // after the parallel subtests
	start := time.Now()
	c, err := kafkatest.StartSingleWith(ctx, kafkatest.Extra{
		TLS: &kafkatest.TLSListener{
			KeyStore: p.BrokerKeyStore(t), KeyStoreType: "PKCS12", KeyStorePassword: testpki.BrokerKeyStorePassword,
			TrustStore: p.Path("trust.PKCS12"), TrustStoreType: "PKCS12", TrustStorePassword: testpki.TrustStorePassword,
		},
		JWKS:      o.jwksURL(),
		Audience:  jwtAudience,
		Issuer:    jwtIssuerName,
		AllowURLs: []string{o.srv.URL + "/token"}, // for Kafka's TopicCommand
	})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	t.Logf("node with SSL and JWKS listeners started in %s", time.Since(start).Round(100*time.Millisecond))
	t.Run("Java key stores on TLS", func(t *testing.T) {
		t.Parallel()
		javaKeyStoresOnTLS(ctx, t, c, p)
	})
	t.Run("OAUTHBEARER signed JWTs", func(t *testing.T) {
		t.Parallel()
		signedJWTs(ctx, t, c, o)
	})
}

// javaKeyStoresOnTLS: the SSL listener requires a client certificate (the
// broker's key store made by keytool from the test CA). kadmin-lua logs in with client.properties naming JKS
// and PKCS12 stores, and Kafka's own TopicCommand reads the same files:
// each sees the topics the other created (JKS and PKCS12 side by side). Without a client certificate the
// broker refuses the handshake.
func javaKeyStoresOnTLS(ctx context.Context, t *testing.T, c *kafkatest.Cluster, p *testpki.PKI) {
	props := func(stores string) string {
		f := filepath.Join(t.TempDir(), "client.properties")
		require.NoError(t, os.WriteFile(f, []byte(fmt.Sprintf("bootstrap.servers=%s\nsecurity.protocol=SSL\n%s", c.TLSBootstrap(), stores)), 0o600))
		return f
	}
	truststore := func(typ string) string {
		return fmt.Sprintf("ssl.truststore.location=%s\nssl.truststore.type=%s\nssl.truststore.password=%s\n",
			p.Path("trust."+typ), typ, testpki.TrustStorePassword)
	}
	stores := map[string]string{
		"JKS": truststore("JKS") + fmt.Sprintf("ssl.keystore.location=%s\nssl.keystore.type=JKS\nssl.keystore.password=%s\nssl.key.password=%s\n",
			p.Path("client.JKS"), testpki.KeyStorePassword, testpki.KeyPassword),
		"PKCS12": truststore("PKCS12") + fmt.Sprintf("ssl.keystore.location=%s\nssl.keystore.type=PKCS12\nssl.keystore.password=%s\n",
			p.Path("client.PKCS12"), testpki.KeyStorePassword),
	}
	topicCommand := func(props string, args ...string) string {
		t.Helper()
		out, err := c.RunJava(ctx, "org.apache.kafka.tools.TopicCommand",
			append([]string{"--bootstrap-server", c.TLSBootstrap(), "--command-config", props}, args...)...)
		require.NoError(t, err, "TopicCommand %v: %s", args, out)
		return out
	}
	for _, typ := range []string{"JKS", "PKCS12"} {
		t.Run(typ, func(t *testing.T) {
			t.Parallel() // each half waits mostly on JVMs starting
			cfg := props(stores[typ])
			ours, theirs := unique("tls-"+strings.ToLower(typ)), unique("tls-java-"+strings.ToLower(typ))
			r := kafkatest.RunBinary(ctx, t, bin, nil, "", "--command-config", cfg, "--timeout", "20s", "-e",
				fmt.Sprintf(`create_topics{{name = %q, partitions = 2}}
-- The broker learns of a topic from the metadata log a moment after the controller.
for i = 1, 100 do
	if #list_topics{match = %q} == 1 then return 1 end
	kafka.sleep(100)
end
return 0`, ours, "^"+ours+"$"))
			require.Equal(t, 0, r.Code, r.Stderr)
			assert.Equal(t, "1\n", r.Stdout)

			// Kafka's own tool, with the same client.properties.
			assert.Contains(t, topicCommand(cfg, "--describe", "--topic", ours), "PartitionCount: 2")
			topicCommand(cfg, "--create", "--topic", theirs, "--partitions", "3", "--replication-factor", "1")
			r = kafkatest.RunBinary(ctx, t, bin, nil, "", "--command-config", cfg, "--timeout", "20s", "-e",
				fmt.Sprintf(`for i = 1, 100 do
	local ok, d = pcall(describe_topics, %q)
	if ok then return #d[1].partitions end
	kafka.sleep(100)
end`, theirs))
			require.Equal(t, 0, r.Code, r.Stderr)
			assert.Equal(t, "3\n", r.Stdout)
		})
	}
	t.Run("no client certificate", func(t *testing.T) {
		r := kafkatest.RunBinary(ctx, t, bin, nil, "", "--command-config", props(truststore("PKCS12")), "--timeout", "10s",
			"-e", `return #list_topics()`)
		assert.Equal(t, 3, r.Code, r.Stderr)
		assert.Contains(t, r.Stderr, "TLS")
		assert.NotContains(t, r.Stderr, testpki.TrustStorePassword)
	})
}
