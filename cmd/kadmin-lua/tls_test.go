package main

import (
	"crypto/tls"
	"testing"

	"github.com/kadmin-lua/kadmin-lua/internal/testpki"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// testPKI is a throwaway CA with a server certificate for 127.0.0.1 and a
// client certificate, written as PEM files.
type testPKI = testpki.PKI

func newTestPKI(t *testing.T) *testPKI { return testpki.New(t) }

func tlsCluster(t *testing.T, p *testPKI, mutual bool) *cluster {
	cfg := &tls.Config{Certificates: []tls.Certificate{p.Server}, MinVersion: tls.VersionTLS12}
	if mutual {
		cfg.ClientAuth, cfg.ClientCAs = tls.RequireAndVerifyClientCert, p.Pool
	}
	return newCluster(t, kfake.TLS(cfg), kfake.SeedTopics(2, "secure"))
}

func TestTLSVerifiedWithCAFile(t *testing.T) {
	p := newTestPKI(t)
	cl := tlsCluster(t, p, false)
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "--tls-ca", p.CAFile, "-e", `return list_topics()[1].name`), c.stderr.String())
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
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "--tls-ca", p.CAFile, "--tls-cert", p.CertFile, "--tls-key", p.KeyFile,
		"-e", `create_topics{"over-mtls"}; return #list_topics()`), c.stderr.String())
	assert.Equal(t, "2\n", c.stdout.String())
	assert.Contains(t, topicNames(t, cl.admin(t, tlsDialer(t, p))), "over-mtls")
}

// tlsDialer gives the checking kadm client the same client certificate.
func tlsDialer(t *testing.T, p *testPKI) kgo.Opt {
	cert, err := tls.LoadX509KeyPair(p.CertFile, p.KeyFile)
	require.NoError(t, err)
	return kgo.DialTLSConfig(&tls.Config{RootCAs: p.Pool, Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
}
