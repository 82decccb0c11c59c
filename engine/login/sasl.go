package login

import (
	"context"
	"strings"

	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// SASLConfig logs in with one of SASLMechanisms. PLAIN and SCRAM use
// Username and Password; OAUTHBEARER, GSSAPI and AWS_MSK_IAM read their own
// settings (oauth.go, kerberos.go, aws.go).
type SASLConfig struct {
	Mechanism string // one of SASLMechanisms
	Username  string
	Password  vocab.Secret
	// PasswordFunc, when Password is empty, is asked once, lazily, on the
	// first login (e.g. an interactive prompt).
	PasswordFunc func() (string, error)

	OAuth    *OAuthConfig    // OAUTHBEARER
	Kerberos *KerberosConfig // GSSAPI
	AWS      *AWSConfig      // AWS_MSK_IAM
}

// SASLMechanisms are the mechanisms kadmin-lua can log in with.
var SASLMechanisms = []string{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER", "GSSAPI", "AWS_MSK_IAM"}

// authErr is a login that could not be attempted or was refused; it names
// the mechanism and never holds a secret.
func authErr(mech, format string, args ...any) *vocab.Error {
	e := vocab.Errorf(vocab.CodeAuth, "", format, args...)
	e.Message = mech + ": " + e.Message
	return e
}

// Build is the franz-go SASL mechanism that logs in as s says; a setting
// that cannot work (no username, an unknown mechanism, a Kerberos file that
// cannot be read) is refused here, before anything is dialed.
func (s *SASLConfig) Build() (sasl.Mechanism, error) {
	mech := strings.ToUpper(s.Mechanism)
	switch mech {
	case "OAUTHBEARER":
		if s.OAuth == nil {
			return nil, vocab.Errorf(vocab.CodeInvalidArgument, "", "SASL OAUTHBEARER needs a token source")
		}
		return s.OAuth.mechanism()
	case "GSSAPI":
		if s.Kerberos == nil {
			return nil, vocab.Errorf(vocab.CodeInvalidArgument, "", "SASL GSSAPI needs Kerberos settings")
		}
		return s.Kerberos.mechanism()
	case "AWS_MSK_IAM":
		a := s.AWS
		if a == nil {
			a = &AWSConfig{}
		}
		return a.mechanism(), nil
	case "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512":
	default:
		return nil, vocab.Errorf(vocab.CodeInvalidArgument, "", "unknown SASL mechanism %q (want %s)", s.Mechanism, strings.Join(SASLMechanisms, ", "))
	}
	if s.Username == "" {
		return nil, vocab.Errorf(vocab.CodeInvalidArgument, "", "SASL %s needs a username", s.Mechanism)
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
				return "", &vocab.Error{Code: vocab.CodeAuth, Message: "reading SASL password: " + err.Error()}
			}
			cached = p
		}
		if cached == "" {
			return "", &vocab.Error{Code: vocab.CodeAuth, Message: "no SASL password: set KADMIN_SASL_PASSWORD"}
		}
		return cached, nil
	}
	switch mech {
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
	default:
		return scram.Sha512(func(context.Context) (scram.Auth, error) {
			p, err := password()
			return scram.Auth{User: s.Username, Pass: p}, err
		}), nil
	}
}
