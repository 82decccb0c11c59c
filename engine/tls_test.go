package engine

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"software.sslmate.com/src/go-pkcs12"
)

// javaStores is a CA, a broker certificate for 127.0.0.1 and a client
// certificate, with the client's key and the CA in Java key stores made by
// the JDK's keytool.
type javaStores struct {
	dir    string
	server tls.Certificate
	pool   *x509.CertPool
}

func newJavaStores(t *testing.T) *javaStores {
	t.Helper()
	if _, err := exec.LookPath("keytool"); err != nil {
		t.Skip("keytool (from a JDK) is not installed: the Java key store tests need it")
	}
	dir := t.TempDir()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kadmin-lua test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	require.NoError(t, err)
	ca, err := x509.ParseCertificate(caDER)
	require.NoError(t, err)
	issue := func(serial int64, cn string, usage x509.ExtKeyUsage, ips []net.IP) (*x509.Certificate, *ecdsa.PrivateKey) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		require.NoError(t, err)
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: cn},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IPAddresses: ips,
			ExtKeyUsage: []x509.ExtKeyUsage{usage}, KeyUsage: x509.KeyUsageDigitalSignature}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		require.NoError(t, err)
		c, err := x509.ParseCertificate(der)
		require.NoError(t, err)
		return c, key
	}
	s := &javaStores{dir: dir, pool: x509.NewCertPool()}
	s.pool.AddCert(ca)
	srv, srvKey := issue(2, "broker", x509.ExtKeyUsageServerAuth, []net.IP{net.ParseIP("127.0.0.1")})
	s.server = tls.Certificate{Certificate: [][]byte{srv.Raw}, PrivateKey: srvKey}
	cli, cliKey := issue(3, "admin", x509.ExtKeyUsageClientAuth, nil)

	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, 0o600))
		return p
	}
	caPEM := write("ca.pem", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}))
	p12, err := pkcs12.Modern.Encode(cliKey, cli, []*x509.Certificate{ca}, "go-pw")
	require.NoError(t, err)
	goP12 := write("go.p12", p12)
	keytool := func(args ...string) {
		out, err := exec.Command("keytool", args...).CombinedOutput()
		require.NoError(t, err, "keytool %v: %s", args, out)
	}
	for _, typ := range []string{"JKS", "PKCS12"} {
		keytool("-importcert", "-noprompt", "-alias", "ca", "-file", caPEM, "-keystore", filepath.Join(dir, "trust."+typ),
			"-storetype", typ, "-storepass", "trust-pw")
		args := []string{"-importkeystore", "-noprompt", "-srckeystore", goP12, "-srcstoretype", "PKCS12", "-srcstorepass", "go-pw",
			"-destkeystore", filepath.Join(dir, "client."+typ), "-deststoretype", typ, "-deststorepass", "store-pw"}
		if typ == "JKS" {
			args = append(args, "-srcalias", "1", "-destalias", "admin", "-destkeypass", "key-pw") // JKS keys have their own password
		}
		keytool(args...)
	}
	return s
}

func (s *javaStores) path(name string) string { return filepath.Join(s.dir, name) }

func TestJavaKeyStoresOnAMutualTLSListener(t *testing.T) {
	s := newJavaStores(t)
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "secure"), kfake.TLS(&tls.Config{
		Certificates: []tls.Certificate{s.server}, MinVersion: tls.VersionTLS12,
		ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: s.pool}))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	connect := func(tc *TLSConfig) error {
		return listTopicsWith(t, Config{Brokers: c.ListenAddrs(), Timeout: 3 * time.Second, TLS: tc})
	}

	for _, tc := range []struct {
		name          string
		trust, client *KeyStore
	}{
		{"JKS", &KeyStore{File: s.path("trust.JKS"), Type: "JKS", Password: "trust-pw"},
			&KeyStore{File: s.path("client.JKS"), Type: "JKS", Password: "store-pw", KeyPassword: "key-pw"}},
		{"PKCS12", &KeyStore{File: s.path("trust.PKCS12"), Type: "PKCS12", Password: "trust-pw"},
			&KeyStore{File: s.path("client.PKCS12"), Type: "PKCS12", Password: "store-pw"}},
		{"types recognized from the files", &KeyStore{File: s.path("trust.JKS")},
			&KeyStore{File: s.path("client.PKCS12"), Password: "store-pw"}},
		{"JKS trust store read without its password, as Java does", &KeyStore{File: s.path("trust.JKS")},
			&KeyStore{File: s.path("client.JKS"), Password: "store-pw", KeyPassword: "key-pw"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, connect(&TLSConfig{TrustStore: tc.trust, KeyStore: tc.client}))
		})
	}

	t.Run("no client certificate is refused by the broker", func(t *testing.T) {
		err := connect(&TLSConfig{TrustStore: &KeyStore{File: s.path("trust.PKCS12"), Password: "trust-pw"}})
		require.Error(t, err)
		assert.Equal(t, CodeTLS, AsError(err, "").Code, "%v", err)
	})
	for name, tc := range map[string]struct {
		tls  *TLSConfig
		want string
	}{
		"wrong JKS store password": {&TLSConfig{KeyStore: &KeyStore{File: s.path("client.JKS"), Password: "nope-pw", KeyPassword: "key-pw"}},
			"wrong store password"},
		"wrong JKS key password": {&TLSConfig{KeyStore: &KeyStore{File: s.path("client.JKS"), Password: "store-pw", KeyPassword: "nope-pw"}},
			"cannot be opened with the key password"},
		"wrong PKCS12 password": {&TLSConfig{KeyStore: &KeyStore{File: s.path("client.PKCS12"), Password: "nope-pw"}},
			"wrong store password"},
		"type that is not the file's": {&TLSConfig{TrustStore: &KeyStore{File: s.path("trust.JKS"), Type: "PKCS12"}},
			"declared PKCS12 but the file is JKS"},
		"missing file": {&TLSConfig{TrustStore: &KeyStore{File: s.path("none.jks")}}, "reading TLS trust store"},
		"both a key store and PEM files": {&TLSConfig{KeyStore: &KeyStore{File: s.path("client.JKS")}, CertFile: "c", KeyFile: "k"},
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
