package engine

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"io/fs"
	"net"
	"strings"
	"syscall"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The error type, its codes and Errorf are the vocabulary's (engine/vocab,
// re-exported in vocab.go); this file turns what franz-go, the network and
// TLS return into that error.

// AsError converts any error into an *Error with a code, keeping the original
// as Err. It returns nil for nil. A resource already set on an *Error wins
// over the one given.
func AsError(err error, resource string) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		if e.Resource == "" && resource != "" {
			c := *e
			c.Resource = resource
			return &c
		}
		return e
	}
	out := &Error{Resource: resource, Err: err, Message: err.Error()}
	var ke *kerr.Error
	switch {
	case errors.As(err, &ke):
		out.Code, out.Message, out.Retriable = ErrorName(ke), ke.Description, ke.Retriable
		if ke == kerr.UnknownTopicOrPartition || ke == kerr.UnknownTopicID {
			// Retriable for a producer waiting on auto-creation; for an
			// admin it means the topic does not exist.
			out.Retriable = false
		}
		if isAuthCode(ke) {
			out.Message = "authentication failed: " + ke.Description
			// The broker's own words (an OAuth validator's reason, say).
			if said, ok := strings.CutPrefix(err.Error(), ke.Error()+": "); ok && said != "" {
				out.Message += " (broker: " + said + ")"
			}
		}
	case errors.Is(err, context.Canceled), errors.Is(err, kgo.ErrClientClosed):
		out.Code, out.Message = CodeCanceled, "canceled"
	case errors.Is(err, context.DeadlineExceeded):
		out.Code, out.Retriable = CodeTimeout, true
		out.Message = "deadline exceeded (raise --timeout?)"
	case strings.Contains(err.Error(), "broker is too old"):
		// kgo's unexported errBrokerTooOld: the broker does not advertise
		// the request at all. Functions that need a release, KRaft or a
		// feature declare it and are refused before this, naming the need
		// (needs.go); this says only what is known.
		out.Code = kerr.UnsupportedVersion.Message
		out.Message = "the broker does not advertise this request in its ApiVersions answer"
	case isTLSErr(err):
		// A certificate the client rejects (or a handshake the broker
		// refuses) fails the same way every time: say so at once.
		out.Code = CodeTLS
		out.Message = "TLS handshake failed: " + err.Error()
	case isSASLMissing(err):
		// kgo's guess, when a connection without SASL was closed at its
		// first request: the broker wants a login. Retrying cannot help.
		out.Code = CodeAuth
		out.Message = "authentication required: the broker closed the connection at the first request; it expects SASL and this connection sends no credentials"
	case isAuthErr(err):
		out.Code = CodeAuth
		out.Message = "authentication failed: " + err.Error()
	case isNetErr(err):
		out.Code, out.Retriable = CodeNetwork, true
	default:
		out.Code = CodeUnknown
	}
	return out
}

// WithMechanism names the SASL mechanism in a failed login's error, which
// the broker's refusal does not (a wrong PLAIN password and a wrong SCRAM
// password read alike). Other errors, and mech "", are returned as they are.
func WithMechanism(err error, mech string) error {
	if err == nil || mech == "" {
		return err
	}
	e := AsError(err, "")
	if !e.IsAuthFailure() || e.Mechanism != "" {
		return err
	}
	c := *e
	c.Mechanism = strings.ToUpper(mech)
	// authErr's messages start with the mechanism already.
	c.Message = strings.TrimPrefix(c.Message, c.Mechanism+": ")
	return &c
}

func isAuthCode(ke *kerr.Error) bool {
	return ke == kerr.SaslAuthenticationFailed || ke == kerr.IllegalSaslState ||
		ke == kerr.UnsupportedSaslMechanism
}

func isSASLMissing(err error) bool {
	var ee *kgo.ErrFirstReadEOF
	return errors.As(err, &ee) && strings.Contains(ee.Error(), "SASL")
}

func isAuthErr(err error) bool {
	s := err.Error()
	return strings.Contains(s, "SASL") && (strings.Contains(s, "authentication") || strings.Contains(s, "auth"))
}

func isTLSErr(err error) bool {
	var cv *tls.CertificateVerificationError
	var ua x509.UnknownAuthorityError
	var he x509.HostnameError
	var ci x509.CertificateInvalidError
	var ae tls.AlertError
	var rh tls.RecordHeaderError
	if errors.As(err, &cv) || errors.As(err, &ua) || errors.As(err, &he) || errors.As(err, &ci) ||
		errors.As(err, &ae) || errors.As(err, &rh) {
		return true
	}
	s := err.Error()
	return strings.Contains(s, "tls: ") || strings.Contains(s, "x509: ")
}

func isNetErr(err error) bool {
	// A file's error is not the network's, although its errno satisfies
	// net.Error (a missing lock file's directory was reported as NETWORK).
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return false
	}
	var ne net.Error
	var oe *net.OpError
	var ee *kgo.ErrFirstReadEOF
	return errors.As(err, &ne) || errors.As(err, &oe) || errors.As(err, &ee) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		strings.Contains(err.Error(), "unable to dial") ||
		strings.Contains(err.Error(), "unknown broker") ||
		// kgo's unexported errChosenBrokerDead: a request to a broker that
		// was dialed and died (or was killed), which another broker may answer.
		strings.Contains(err.Error(), "the broker connection has died")
}

// kafkaErr converts a protocol error code into an *Error for resource, or nil.
func kafkaErr(code int16, msg *string, resource string) *Error {
	err := kerr.ErrorForCode(code)
	if err == nil {
		return nil
	}
	e := AsError(err, resource)
	if msg != nil && *msg != "" {
		e.Message = *msg
	}
	return e
}
