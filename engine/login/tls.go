package login

import (
	"bytes"
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"
	"strings"

	keystore "github.com/pavlo-v-chernykh/keystore-go/v4"
	"software.sslmate.com/src/go-pkcs12"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
	"github.com/kadmin-lua/kadmin-lua/internal/boundedfile"
)

// TLSConfig enables TLS. Verification is on unless InsecureSkipVerify is set.
// Brokers are verified against CAFile and TrustStore (both when both are
// set; the system roots when neither is); the client certificate is
// CertFile/KeyFile (PEM) or KeyStore (JKS or PKCS12), not both.
type TLSConfig struct {
	CAFile             string
	CertFile, KeyFile  string
	ServerName         string
	InsecureSkipVerify bool
	TrustStore         *KeyStore // Java trust store of CA certificates
	KeyStore           *KeyStore // Java key store holding the client key and its chain
}

// KeyStore is a Java key store file, as client.properties names them with
// ssl.truststore.* and ssl.keystore.*.
type KeyStore struct {
	File string
	// Type is JKS, PKCS12 or PEM; "" means: recognized from the file's
	// first bytes (what Java does for JKS and PKCS12 since Java 9).
	Type     string
	Password vocab.Secret // the store's password (ssl.*store.password)
	// KeyPassword opens the private key entry of a JKS key store when it
	// differs from Password (ssl.key.password).
	KeyPassword vocab.Secret
}

// StoreTypes are the key store types TLSConfig reads.
var StoreTypes = []string{"JKS", "PKCS12", "PEM"}

// Build is the crypto/tls configuration t describes: the trusted roots
// (CAFile, TrustStore, or the system's), the client certificate (PEM files
// or a key store) and the server name; a file that cannot be read is
// refused here, before anything is dialed.
func (t *TLSConfig) Build() (*tls.Config, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: t.ServerName, InsecureSkipVerify: t.InsecureSkipVerify} //nolint:gosec // opt-in flag
	if t.CAFile != "" || t.TrustStore != nil {
		pool := x509.NewCertPool()
		if t.CAFile != "" {
			pem, err := boundedfile.Read(t.CAFile, boundedfile.Credentials)
			if err != nil {
				return nil, vocab.Errorf(vocab.CodeInvalidArgument, t.CAFile, "reading TLS CA file: %v", err)
			}
			if !pool.AppendCertsFromPEM(pem) {
				return nil, vocab.Errorf(vocab.CodeInvalidArgument, t.CAFile, "no PEM certificates in TLS CA file")
			}
		}
		if t.TrustStore != nil {
			certs, err := t.TrustStore.trusted()
			if err != nil {
				return nil, err
			}
			for _, c := range certs {
				pool.AddCert(c)
			}
		}
		tc.RootCAs = pool
	}
	switch {
	case t.KeyStore != nil && (t.CertFile != "" || t.KeyFile != ""):
		return nil, vocab.Errorf(vocab.CodeInvalidArgument, t.KeyStore.File, "a TLS client certificate comes from a key store or from cert and key files, not both")
	case t.KeyStore != nil:
		cert, err := t.KeyStore.clientCert()
		if err != nil {
			return nil, err
		}
		tc.Certificates = []tls.Certificate{cert}
	case t.CertFile != "" || t.KeyFile != "":
		if t.CertFile == "" || t.KeyFile == "" {
			return nil, vocab.Errorf(vocab.CodeInvalidArgument, "", "TLS client certificate needs both a cert file and a key file")
		}
		cert, err := loadKeyPair(t.CertFile, t.KeyFile)
		if err != nil {
			return nil, vocab.Errorf(vocab.CodeInvalidArgument, t.CertFile, "loading TLS client certificate: %v", err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
}

// loadKeyPair is tls.LoadX509KeyPair with bounded reads of regular files.
func loadKeyPair(certFile, keyFile string) (tls.Certificate, error) {
	cert, err := boundedfile.Read(certFile, boundedfile.Credentials)
	if err != nil {
		return tls.Certificate{}, err
	}
	key, err := boundedfile.Read(keyFile, boundedfile.Credentials)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.X509KeyPair(cert, key)
}

// storeErr is a key store problem; it names the file, never a password.
func (s *KeyStore) storeErr(format string, args ...any) error {
	return vocab.Errorf(vocab.CodeInvalidArgument, s.File, format, args...)
}

// read returns the file and its type, checked against what the file holds.
func (s *KeyStore) read(what string) ([]byte, string, error) {
	b, err := boundedfile.Read(s.File, boundedfile.Credentials)
	if err != nil {
		return nil, "", s.storeErr("reading %s: %v", what, err)
	}
	sniffed := sniffStore(b)
	typ := strings.ToUpper(strings.TrimSpace(s.Type))
	switch {
	case typ == "":
		if sniffed == "" {
			return nil, "", s.storeErr("%s is neither JKS, PKCS12 nor PEM", what)
		}
		typ = sniffed
	case !slices.Contains(StoreTypes, typ):
		return nil, "", s.storeErr("%s type %s is not supported (want %s)", what, typ, strings.Join(StoreTypes, ", "))
	case sniffed != "" && sniffed != typ:
		return nil, "", s.storeErr("%s is declared %s but the file is %s", what, typ, sniffed)
	}
	return b, typ, nil
}

// sniffStore recognizes a store by its first bytes: JKS's magic number, a
// DER SEQUENCE (PKCS12), a PEM header.
func sniffStore(b []byte) string {
	switch {
	case len(b) >= 4 && binary.BigEndian.Uint32(b) == 0xFEEDFEED:
		return "JKS"
	case len(b) >= 2 && b[0] == 0x30 && b[1] >= 0x80:
		return "PKCS12"
	case bytes.Contains(b[:min(len(b), 64*1024)], []byte("-----BEGIN ")):
		return "PEM"
	}
	return ""
}

// trusted returns a trust store's certificates.
func (s *KeyStore) trusted() ([]*x509.Certificate, error) {
	b, typ, err := s.read("TLS trust store")
	if err != nil {
		return nil, err
	}
	var certs []*x509.Certificate
	switch typ {
	case "PEM":
		for _, blk := range pemBlocks(b, "CERTIFICATE") {
			c, err := x509.ParseCertificate(blk.Bytes)
			if err != nil {
				return nil, s.storeErr("TLS trust store: %v", err)
			}
			certs = append(certs, c)
		}
	case "PKCS12":
		certs, err = pkcs12.DecodeTrustStore(b, s.Password.Reveal())
		if err != nil {
			return nil, s.storeErr("reading PKCS12 trust store: %v", p12Err(err))
		}
	case "JKS":
		ks, err := loadJKS(b, s.Password, true)
		if err != nil {
			return nil, s.storeErr("reading JKS trust store: %v", err)
		}
		for _, alias := range ks.Aliases() {
			if ks.IsTrustedCertificateEntry(alias) {
				e, err := ks.GetTrustedCertificateEntry(alias)
				if err != nil {
					return nil, s.storeErr("JKS trust store entry %q: %v", alias, err)
				}
				c, err := x509.ParseCertificate(e.Certificate.Content)
				if err != nil {
					return nil, s.storeErr("JKS trust store entry %q: %v", alias, err)
				}
				certs = append(certs, c)
			}
		}
	}
	if len(certs) == 0 {
		return nil, s.storeErr("TLS trust store holds no certificates")
	}
	return certs, nil
}

// clientCert returns the key store's private key with its certificate chain.
func (s *KeyStore) clientCert() (tls.Certificate, error) {
	b, typ, err := s.read("TLS key store")
	if err != nil {
		return tls.Certificate{}, err
	}
	switch typ {
	case "PEM":
		if s.KeyPassword != "" {
			return tls.Certificate{}, s.storeErr("encrypted PEM private keys (ssl.key.password) are not supported: decrypt the key (openssl pkey) or use a PKCS12 or JKS key store")
		}
		cert, err := tls.X509KeyPair(b, b)
		if err != nil {
			return tls.Certificate{}, s.storeErr("TLS key store: %v", err)
		}
		return cert, nil
	case "PKCS12":
		// PKCS12 has one password for the store and its key; Java's
		// ssl.key.password, when set, is tried too.
		var key any
		var leaf *x509.Certificate
		var chain []*x509.Certificate
		for _, pw := range passwords(s.Password, s.KeyPassword) {
			key, leaf, chain, err = pkcs12.DecodeChain(b, pw)
			if err == nil {
				break
			}
		}
		if err != nil {
			return tls.Certificate{}, s.storeErr("reading PKCS12 key store: %v", p12Err(err))
		}
		return certificate(key, append([]*x509.Certificate{leaf}, chain...))
	default: // JKS
		ks, err := loadJKS(b, s.Password, false)
		if err != nil {
			return tls.Certificate{}, s.storeErr("reading JKS key store: %v", err)
		}
		var aliases []string
		for _, a := range ks.Aliases() {
			if ks.IsPrivateKeyEntry(a) {
				aliases = append(aliases, a)
			}
		}
		if len(aliases) != 1 {
			return tls.Certificate{}, s.storeErr("a JKS key store must hold exactly one private key entry, this one holds %d", len(aliases))
		}
		var entry keystore.PrivateKeyEntry
		for _, pw := range passwords(s.KeyPassword, s.Password) {
			entry, err = ks.GetPrivateKeyEntry(aliases[0], []byte(pw))
			if err == nil {
				break
			}
		}
		if err != nil {
			return tls.Certificate{}, s.storeErr("JKS key entry %q cannot be opened with the key password (ssl.key.password) or the store password", aliases[0])
		}
		key, err := x509.ParsePKCS8PrivateKey(entry.PrivateKey)
		if err != nil {
			return tls.Certificate{}, s.storeErr("JKS key entry %q: %v", aliases[0], err)
		}
		var chain []*x509.Certificate
		for _, c := range entry.CertificateChain {
			xc, err := x509.ParseCertificate(c.Content)
			if err != nil {
				return tls.Certificate{}, s.storeErr("JKS key entry %q: %v", aliases[0], err)
			}
			chain = append(chain, xc)
		}
		return certificate(key, chain)
	}
}

// loadJKS reads a JKS store. Its password guards the store's integrity: a
// trust store read without one is read as Java reads it, unchecked.
func loadJKS(b []byte, password vocab.Secret, trust bool) (keystore.KeyStore, error) {
	ks := keystore.New()
	err := ks.Load(bytes.NewReader(b), []byte(password.Reveal()))
	if err != nil && err.Error() == "got invalid digest" {
		if trust && password == "" {
			return ks, nil
		}
		return ks, errors.New("wrong store password (ssl.*store.password) or a damaged file")
	}
	return ks, err
}

func passwords(first, second vocab.Secret) []string {
	out := []string{first.Reveal()}
	if second != "" && second != first {
		out = append(out, second.Reveal())
	}
	return out
}

func p12Err(err error) error {
	if errors.Is(err, pkcs12.ErrIncorrectPassword) {
		return errors.New("wrong store password (ssl.*store.password)")
	}
	return err
}

func certificate(key any, chain []*x509.Certificate) (tls.Certificate, error) {
	if len(chain) == 0 || chain[0] == nil {
		return tls.Certificate{}, errors.New("key store entry has no certificate")
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return tls.Certificate{}, fmt.Errorf("key store entry has an unsupported key type %T", key)
	}
	c := tls.Certificate{PrivateKey: signer, Leaf: chain[0]}
	for _, x := range chain {
		c.Certificate = append(c.Certificate, x.Raw)
	}
	return c, nil
}

func pemBlocks(b []byte, typ string) []*pem.Block {
	var out []*pem.Block
	for {
		var blk *pem.Block
		blk, b = pem.Decode(b)
		if blk == nil {
			return out
		}
		if blk.Type == typ {
			out = append(out, blk)
		}
	}
}
