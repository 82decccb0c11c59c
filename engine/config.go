package engine

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// DefaultTimeout bounds every call unless Config.Timeout says otherwise.
const DefaultTimeout = 30 * time.Second

// Config says how to reach and log in to a cluster.
type Config struct {
	Brokers  []string      // seed brokers, host:port
	ClientID string        // defaults to "kadmin-lua"
	Timeout  time.Duration // per call; DefaultTimeout when zero
	TLS      *TLSConfig    // nil: plaintext
	SASL     *SASLConfig   // nil: no authentication
	// Verbose, when set, receives one line per connection attempt and per
	// request sent or answered (names, sizes, times; never contents).
	Verbose io.Writer
}

// TLSConfig enables TLS. Verification is on unless InsecureSkipVerify is set.
type TLSConfig struct {
	CAFile             string
	CertFile, KeyFile  string
	ServerName         string
	InsecureSkipVerify bool
}

// SASLConfig logs in with PLAIN or SCRAM-SHA-256/512.
type SASLConfig struct {
	Mechanism string // PLAIN, SCRAM-SHA-256, SCRAM-SHA-512
	Username  string
	Password  Secret
	// PasswordFunc, when Password is empty, is asked once, lazily, on the
	// first login (e.g. an interactive prompt).
	PasswordFunc func() (string, error)
}

// Secret is a string that never prints: fmt, %v, JSON and errors all show
// "***", so passwords cannot leak into output, logs or the audit log.
type Secret string

func (Secret) String() string                 { return "***" }
func (Secret) GoString() string               { return `"***"` }
func (Secret) MarshalJSON() ([]byte, error)   { return []byte(`"***"`), nil }
func (s Secret) Reveal() string               { return string(s) }
func (Secret) Format(f fmt.State, verb rune)  { _, _ = f.Write([]byte("***")) }
func (s Secret) MarshalText() ([]byte, error) { return []byte("***"), nil }

// HasCredentials reports whether the config logs in (SASL or a TLS client
// certificate).
func (c Config) HasCredentials() bool {
	return c.SASL != nil || (c.TLS != nil && (c.TLS.CertFile != "" || c.TLS.KeyFile != ""))
}

// WithoutCredentials returns the config with no SASL and no TLS client
// certificate; TLS verification settings, client id, timeout and the
// verbose writer stay.
func (c Config) WithoutCredentials() Config {
	c.SASL = nil
	if c.TLS != nil {
		t := *c.TLS
		t.CertFile, t.KeyFile = "", ""
		c.TLS = &t
	}
	return c
}

func (c Config) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

// kgoOpts turns the config into franz-go client options.
func (c Config) kgoOpts() ([]kgo.Opt, error) {
	if len(c.Brokers) == 0 {
		return nil, Errorf(CodeInvalidArgument, "", "no brokers: pass -b host:port, set KADMIN_BROKERS, or use a profile")
	}
	id := c.ClientID
	if id == "" {
		id = "kadmin-lua"
	}
	opts := []kgo.Opt{
		kgo.SeedBrokers(c.Brokers...),
		kgo.ClientID(id),
		// Admin reads must see the writes made just before them: keep kgo's
		// metadata cache (used to route sharded requests) nearly fresh.
		kgo.MetadataMinAge(100 * time.Millisecond),
		kgo.MetadataMaxAge(10 * time.Second),
		kgo.DialTimeout(5 * time.Second),
		// The call's context deadline is the real bound; kgo's own retries
		// stop when it ends.
		kgo.RequestRetries(1 << 20),
		kgo.RetryTimeout(c.timeout()),
	}
	if c.TLS != nil {
		tc, err := c.TLS.build()
		if err != nil {
			return nil, err
		}
		opts = append(opts, kgo.DialTLSConfig(tc))
	}
	if c.SASL != nil {
		m, err := c.SASL.mechanism()
		if err != nil {
			return nil, err
		}
		opts = append(opts, kgo.SASL(m))
	}
	return opts, nil
}

func (t *TLSConfig) build() (*tls.Config, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: t.ServerName, InsecureSkipVerify: t.InsecureSkipVerify} //nolint:gosec // opt-in flag
	if t.CAFile != "" {
		pem, err := os.ReadFile(t.CAFile)
		if err != nil {
			return nil, Errorf(CodeInvalidArgument, t.CAFile, "reading TLS CA file: %v", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, Errorf(CodeInvalidArgument, t.CAFile, "no PEM certificates in TLS CA file")
		}
		tc.RootCAs = pool
	}
	if t.CertFile != "" || t.KeyFile != "" {
		if t.CertFile == "" || t.KeyFile == "" {
			return nil, Errorf(CodeInvalidArgument, "", "TLS client certificate needs both a cert file and a key file")
		}
		cert, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
		if err != nil {
			return nil, Errorf(CodeInvalidArgument, t.CertFile, "loading TLS client certificate: %v", err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
}

func (s *SASLConfig) mechanism() (sasl.Mechanism, error) {
	if s.Username == "" {
		return nil, Errorf(CodeInvalidArgument, "", "SASL %s needs a username", s.Mechanism)
	}
	// The password is resolved once, on first login, so that a prompt only
	// appears when a connection is really made.
	var cached string
	password := func() (string, error) {
		if cached != "" {
			return cached, nil
		}
		cached = s.Password.Reveal()
		if cached == "" && s.PasswordFunc != nil {
			p, err := s.PasswordFunc()
			if err != nil {
				return "", &Error{Code: CodeAuth, Message: "reading SASL password: " + err.Error()}
			}
			cached = p
		}
		if cached == "" {
			return "", &Error{Code: CodeAuth, Message: "no SASL password: set KADMIN_SASL_PASSWORD"}
		}
		return cached, nil
	}
	switch strings.ToUpper(s.Mechanism) {
	case "PLAIN":
		return plain.Plain(func(context.Context) (plain.Auth, error) {
			p, err := password()
			return plain.Auth{User: s.Username, Pass: p}, err
		}), nil
	case "SCRAM-SHA-256":
		return scram.Sha256(func(context.Context) (scram.Auth, error) {
			p, err := password()
			return scram.Auth{User: s.Username, Pass: p}, err
		}), nil
	case "SCRAM-SHA-512":
		return scram.Sha512(func(context.Context) (scram.Auth, error) {
			p, err := password()
			return scram.Auth{User: s.Username, Pass: p}, err
		}), nil
	}
	return nil, Errorf(CodeInvalidArgument, "", "unknown SASL mechanism %q (want PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512)", s.Mechanism)
}
