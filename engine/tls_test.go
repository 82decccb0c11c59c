package engine

import (
	"crypto/tls"
	"testing"
	"time"

	"github.com/kadmin-lua/kadmin-lua/internal/testpki"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
)

func TestJavaKeyStoresOnAMutualTLSListener(t *testing.T) {
	s := testpki.New(t)
	s.JavaStores(t)
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "secure"), kfake.TLS(&tls.Config{
		Certificates: []tls.Certificate{s.Server}, MinVersion: tls.VersionTLS12,
		ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: s.Pool}))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	connect := func(tc *TLSConfig) error {
		return listTopicsWith(t, Config{Brokers: c.ListenAddrs(), Timeout: 3 * time.Second, TLS: tc})
	}

	for _, tc := range []struct {
		name          string
		trust, client *KeyStore
	}{
		{"JKS", &KeyStore{File: s.Path("trust.JKS"), Type: "JKS", Password: "trust-pw"},
			&KeyStore{File: s.Path("client.JKS"), Type: "JKS", Password: "store-pw", KeyPassword: "key-pw"}},
		{"PKCS12", &KeyStore{File: s.Path("trust.PKCS12"), Type: "PKCS12", Password: "trust-pw"},
			&KeyStore{File: s.Path("client.PKCS12"), Type: "PKCS12", Password: "store-pw"}},
		{"types recognized from the files", &KeyStore{File: s.Path("trust.JKS")},
			&KeyStore{File: s.Path("client.PKCS12"), Password: "store-pw"}},
		{"JKS trust store read without its password, as Java does", &KeyStore{File: s.Path("trust.JKS")},
			&KeyStore{File: s.Path("client.JKS"), Password: "store-pw", KeyPassword: "key-pw"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, connect(&TLSConfig{TrustStore: tc.trust, KeyStore: tc.client}))
		})
	}

	t.Run("no client certificate is refused by the broker", func(t *testing.T) {
		err := connect(&TLSConfig{TrustStore: &KeyStore{File: s.Path("trust.PKCS12"), Password: "trust-pw"}})
		require.Error(t, err)
		assert.Equal(t, CodeTLS, AsError(err, "").Code, "%v", err)
	})
	for name, tc := range map[string]struct {
		tls  *TLSConfig
		want string
	}{
		"wrong JKS store password": {&TLSConfig{KeyStore: &KeyStore{File: s.Path("client.JKS"), Password: "nope-pw", KeyPassword: "key-pw"}},
			"wrong store password"},
		"wrong JKS key password": {&TLSConfig{KeyStore: &KeyStore{File: s.Path("client.JKS"), Password: "store-pw", KeyPassword: "nope-pw"}},
			"cannot be opened with the key password"},
		"wrong PKCS12 password": {&TLSConfig{KeyStore: &KeyStore{File: s.Path("client.PKCS12"), Password: "nope-pw"}},
			"wrong store password"},
		"type that is not the file's": {&TLSConfig{TrustStore: &KeyStore{File: s.Path("trust.JKS"), Type: "PKCS12"}},
			"declared PKCS12 but the file is JKS"},
		"missing file": {&TLSConfig{TrustStore: &KeyStore{File: s.Path("none.jks")}}, "reading TLS trust store"},
		"both a key store and PEM files": {&TLSConfig{KeyStore: &KeyStore{File: s.Path("client.JKS")}, CertFile: "c", KeyFile: "k"},
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
