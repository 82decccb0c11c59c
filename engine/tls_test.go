package engine

import (
	"crypto/tls"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kadmin-lua/kadmin-lua/engine/login"
	"github.com/kadmin-lua/kadmin-lua/internal/testpki"
)

func TestJavaKeyStoresOnAMutualTLSListener(t *testing.T) {
	s := testpki.New(t)
	s.JavaStores(t)
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "secure"), kfake.TLS(&tls.Config{
		Certificates: []tls.Certificate{s.Server}, MinVersion: tls.VersionTLS12,
		ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: s.Pool}))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	connect := func(tc *login.TLSConfig) error {
		return listTopicsWith(t, Config{Brokers: c.ListenAddrs(), Timeout: 3 * time.Second, TLS: tc})
	}

	for _, tc := range []struct {
		name          string
		trust, client *login.KeyStore
	}{
		{"JKS", &login.KeyStore{File: s.Path("trust.JKS"), Type: "JKS", Password: "trust-pw"},
			&login.KeyStore{File: s.Path("client.JKS"), Type: "JKS", Password: "store-pw", KeyPassword: "key-pw"}},
		{"PKCS12", &login.KeyStore{File: s.Path("trust.PKCS12"), Type: "PKCS12", Password: "trust-pw"},
			&login.KeyStore{File: s.Path("client.PKCS12"), Type: "PKCS12", Password: "store-pw"}},
		{"types recognized from the files", &login.KeyStore{File: s.Path("trust.JKS")},
			&login.KeyStore{File: s.Path("client.PKCS12"), Password: "store-pw"}},
		{"JKS trust store read without its password, as Java does", &login.KeyStore{File: s.Path("trust.JKS")},
			&login.KeyStore{File: s.Path("client.JKS"), Password: "store-pw", KeyPassword: "key-pw"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, connect(&login.TLSConfig{TrustStore: tc.trust, KeyStore: tc.client}))
		})
	}

	t.Run("no client certificate is refused by the broker", func(t *testing.T) {
		err := connect(&login.TLSConfig{TrustStore: &login.KeyStore{File: s.Path("trust.PKCS12"), Password: "trust-pw"}})
		require.Error(t, err)
		assert.Equal(t, CodeTLS, AsError(err, "").Code, "%v", err)
	})
	for name, tc := range map[string]struct {
		tls  *login.TLSConfig
		want string
	}{
		"wrong JKS store password": {&login.TLSConfig{KeyStore: &login.KeyStore{File: s.Path("client.JKS"), Password: "nope-pw", KeyPassword: "key-pw"}},
			"wrong store password"},
		"wrong JKS key password": {&login.TLSConfig{KeyStore: &login.KeyStore{File: s.Path("client.JKS"), Password: "store-pw", KeyPassword: "nope-pw"}},
			"cannot be opened with the key password"},
		"wrong PKCS12 password": {&login.TLSConfig{KeyStore: &login.KeyStore{File: s.Path("client.PKCS12"), Password: "nope-pw"}},
			"wrong store password"},
		"type that is not the file's": {&login.TLSConfig{TrustStore: &login.KeyStore{File: s.Path("trust.JKS"), Type: "PKCS12"}},
			"declared PKCS12 but the file is JKS"},
		"missing file": {&login.TLSConfig{TrustStore: &login.KeyStore{File: s.Path("none.jks")}}, "reading TLS trust store"},
		"both a key store and PEM files": {&login.TLSConfig{KeyStore: &login.KeyStore{File: s.Path("client.JKS")}, CertFile: "c", KeyFile: "k"},
			"not both"},
	} {
		t.Run(name, func(t *testing.T) {
			err := connect(tc.tls)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Equal(t, CodeInvalidArgument, AsError(err, "").Code)
			assert.NotContains(t, err.Error(), "nope-pw")
		})
	}
}
