// Package testpki makes a throwaway certificate authority for tests: a CA,
// a server certificate for 127.0.0.1 and a client certificate, in memory
// and as PEM files.
package testpki

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

	"github.com/stretchr/testify/require"
	"software.sslmate.com/src/go-pkcs12"
)

// PKI is a CA valid for an hour around now, with the certificates it
// issued. The files are in Dir (a test's temporary directory).
type PKI struct {
	Dir    string
	CA     *x509.Certificate
	Pool   *x509.CertPool  // holds CA
	Server tls.Certificate // for 127.0.0.1, server auth

	Client    *x509.Certificate // CN admin, client auth
	ClientKey *ecdsa.PrivateKey

	CAFile, CertFile, KeyFile string // PEM: the CA; the client's certificate and key
}

// New makes a PKI and writes its PEM files.
func New(t testing.TB) *PKI {
	t.Helper()
	p := &PKI{Dir: t.TempDir(), Pool: x509.NewCertPool()}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kadmin-lua test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	require.NoError(t, err)
	p.CA, err = x509.ParseCertificate(caDER)
	require.NoError(t, err)
	p.Pool.AddCert(p.CA)

	issue := func(serial int64, cn string, usage x509.ExtKeyUsage, ips []net.IP) (*x509.Certificate, *ecdsa.PrivateKey) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		require.NoError(t, err)
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: cn},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IPAddresses: ips,
			ExtKeyUsage: []x509.ExtKeyUsage{usage}, KeyUsage: x509.KeyUsageDigitalSignature}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, p.CA, &key.PublicKey, caKey)
		require.NoError(t, err)
		c, err := x509.ParseCertificate(der)
		require.NoError(t, err)
		return c, key
	}
	srv, srvKey := issue(2, "broker", x509.ExtKeyUsageServerAuth, []net.IP{net.ParseIP("127.0.0.1")})
	p.Server = tls.Certificate{Certificate: [][]byte{srv.Raw}, PrivateKey: srvKey, Leaf: srv}
	p.Client, p.ClientKey = issue(3, "admin", x509.ExtKeyUsageClientAuth, nil)

	keyDER, err := x509.MarshalECPrivateKey(p.ClientKey)
	require.NoError(t, err)
	p.CAFile = p.write(t, "ca.pem", pemBlock("CERTIFICATE", caDER))
	p.CertFile = p.write(t, "client.pem", pemBlock("CERTIFICATE", p.Client.Raw))
	p.KeyFile = p.write(t, "client-key.pem", pemBlock("EC PRIVATE KEY", keyDER))
	return p
}

// Path is a file's path in the PKI's directory.
func (p *PKI) Path(name string) string { return filepath.Join(p.Dir, name) }

func (p *PKI) write(t testing.TB, name string, b []byte) string {
	t.Helper()
	require.NoError(t, os.WriteFile(p.Path(name), b, 0o600))
	return p.Path(name)
}

// Write writes b to a file of the PKI's directory and returns its path.
func (p *PKI) Write(t testing.TB, name string, b []byte) string { return p.write(t, name, b) }

func pemBlock(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

// Java key store passwords JavaStores uses.
const (
	TrustStorePassword = "trust-pw"
	KeyStorePassword   = "store-pw"
	KeyPassword        = "key-pw" // the JKS client key's own password
)

// JavaStores writes the CA and the client's key as the JDK's keytool makes
// Java key stores, in p.Dir: trust.JKS and trust.PKCS12 (the CA),
// client.JKS and client.PKCS12 (the client's key and certificate, alias
// "admin" in the JKS store, whose key has its own password). keytool comes
// with the JRE that runs the real-Kafka tests, so a machine without it
// fails here rather than skipping the key store tests.
func (p *PKI) JavaStores(t testing.TB) {
	t.Helper()
	_, err := exec.LookPath("keytool")
	require.NoError(t, err, "keytool (from a JDK or JRE: apt-get install openjdk-17-jre-headless) is needed for Java key stores")
	p12, err := pkcs12.Modern.Encode(p.ClientKey, p.Client, []*x509.Certificate{p.CA}, "go-pw")
	require.NoError(t, err)
	src := p.write(t, "go.p12", p12)
	keytool := func(args ...string) {
		out, err := exec.Command("keytool", args...).CombinedOutput()
		require.NoError(t, err, "keytool %v: %s", args, out)
	}
	for _, typ := range []string{"JKS", "PKCS12"} {
		keytool("-importcert", "-noprompt", "-alias", "ca", "-file", p.CAFile, "-keystore", p.Path("trust."+typ),
			"-storetype", typ, "-storepass", TrustStorePassword)
		args := []string{"-importkeystore", "-noprompt", "-srckeystore", src, "-srcstoretype", "PKCS12", "-srcstorepass", "go-pw",
			"-destkeystore", p.Path("client." + typ), "-deststoretype", typ, "-deststorepass", KeyStorePassword}
		if typ == "JKS" {
			args = append(args, "-srcalias", "1", "-destalias", "admin", "-destkeypass", KeyPassword)
		}
		keytool(args...)
	}
}

// BrokerKeyStorePassword protects the store BrokerKeyStore makes (and its key).
const BrokerKeyStorePassword = "broker-pw"

// BrokerKeyStore writes the server certificate (127.0.0.1) and its key,
// with the CA, as a PKCS12 key store made by keytool, for a real broker's
// SSL listener (ssl.keystore.type=PKCS12), and returns its path.
func (p *PKI) BrokerKeyStore(t testing.TB) string {
	t.Helper()
	_, err := exec.LookPath("keytool")
	require.NoError(t, err, "keytool (from a JDK or JRE) is needed for Java key stores")
	p12, err := pkcs12.Modern.Encode(p.Server.PrivateKey, p.Server.Leaf, []*x509.Certificate{p.CA}, "go-pw")
	require.NoError(t, err)
	src := p.write(t, "broker-go.p12", p12)
	dst := p.Path("broker.PKCS12")
	out, err := exec.Command("keytool", "-importkeystore", "-noprompt", "-srckeystore", src, "-srcstoretype", "PKCS12",
		"-srcstorepass", "go-pw", "-srcalias", "1", "-destalias", "broker", "-destkeystore", dst,
		"-deststoretype", "PKCS12", "-deststorepass", BrokerKeyStorePassword).CombinedOutput()
	require.NoError(t, err, "keytool: %s", out)
	return dst
}
