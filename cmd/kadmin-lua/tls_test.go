package main

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
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// testPKI is a throwaway CA with a server certificate for 127.0.0.1 and a
// client certificate, written as PEM files.
type testPKI struct {
	caFile, certFile, keyFile string // CA; client cert and key
	server                    tls.Certificate
	pool                      *x509.CertPool
}

func newTestPKI(t *testing.T) *testPKI {
	t.Helper()
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

	issue := func(serial int64, cn string, usage x509.ExtKeyUsage, ips []net.IP) (certPEM, keyPEM []byte) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		require.NoError(t, err)
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: cn},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IPAddresses: ips,
			ExtKeyUsage: []x509.ExtKeyUsage{usage}, KeyUsage: x509.KeyUsageDigitalSignature}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		require.NoError(t, err)
		kder, err := x509.MarshalECPrivateKey(key)
		require.NoError(t, err)
		return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
	}
	p := &testPKI{pool: x509.NewCertPool()}
	p.pool.AddCert(ca)
	srvCert, srvKey := issue(2, "broker", x509.ExtKeyUsageServerAuth, []net.IP{net.ParseIP("127.0.0.1")})
	p.server, err = tls.X509KeyPair(srvCert, srvKey)
	require.NoError(t, err)
	cliCert, cliKey := issue(3, "admin", x509.ExtKeyUsageClientAuth, nil)
	write := func(name string, b []byte) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, b, 0o600))
		return path
	}
	p.caFile = write("ca.pem", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}))
	p.certFile = write("client.pem", cliCert)
	p.keyFile = write("client-key.pem", cliKey)
	return p
}

func tlsCluster(t *testing.T, p *testPKI, mutual bool) *cluster {
	cfg := &tls.Config{Certificates: []tls.Certificate{p.server}, MinVersion: tls.VersionTLS12}
	if mutual {
		cfg.ClientAuth, cfg.ClientCAs = tls.RequireAndVerifyClientCert, p.pool
	}
	return newCluster(t, kfake.TLS(cfg), kfake.SeedTopics(2, "secure"))
}

func TestTLSVerifiedWithCAFile(t *testing.T) {
	p := newTestPKI(t)
	cl := tlsCluster(t, p, false)
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "--tls-ca", p.caFile, "-e", `return list_topics()[1].name`), c.stderr.String())
	assert.Equal(t, "secure\n", c.stdout.String())
}

func TestTLSUnknownAuthorityFailsFastWithExit3(t *testing.T) {
	p := newTestPKI(t)
	cl := tlsCluster(t, p, false)
	c := newCLI(t)
	// No CA given: the system roots do not know the test CA. The call must
	// fail with a certificate error (exit 3), not hang until the timeout.
	require.Equal(t, ExitKafka, c.run("-b", cl.addrs, "--tls", "--timeout", "60s", "-e", `list_topics()`))
	assert.Contains(t, c.stderr.String(), "certificate")
	assert.NotContains(t, c.stderr.String(), "TIMEOUT")
}

func TestTLSInsecureSkipVerify(t *testing.T) {
	p := newTestPKI(t)
	cl := tlsCluster(t, p, false)
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "--tls-insecure-skip-verify", "-e", `return #list_topics()`), c.stderr.String())
	assert.Equal(t, "1\n", c.stdout.String())
}

func TestMutualTLSWithClientCertificate(t *testing.T) {
	p := newTestPKI(t)
	cl := tlsCluster(t, p, true)
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "--tls-ca", p.caFile, "--tls-cert", p.certFile, "--tls-key", p.keyFile,
		"-e", `create_topics{"over-mtls"}; return #list_topics()`), c.stderr.String())
	assert.Equal(t, "2\n", c.stdout.String())
	assert.Contains(t, topicNames(t, cl.admin(t, tlsDialer(t, p))), "over-mtls")
}

// tlsDialer gives the checking kadm client the same client certificate.
func tlsDialer(t *testing.T, p *testPKI) kgo.Opt {
	cert, err := tls.LoadX509KeyPair(p.certFile, p.keyFile)
	require.NoError(t, err)
	return kgo.DialTLSConfig(&tls.Config{RootCAs: p.pool, Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
}
