package vocab

import (
	"fmt"
	"strings"
)

// Client-side error codes. Kafka's own errors keep their protocol names
// (TOPIC_ALREADY_EXISTS, NOT_CONTROLLER, ...).
const (
	CodeInvalidArgument = "INVALID_ARGUMENT"
	CodeTimeout         = "TIMEOUT"
	CodeNetwork         = "NETWORK"
	CodeAuth            = "AUTH"
	CodeTLS             = "TLS"
	CodeCanceled        = "CANCELED"
	CodeDryRun          = "DRY_RUN"
	CodeNotFound        = "NOT_FOUND"
	CodeUnknown         = "UNKNOWN"
	// CodeInternal: kadmin-lua itself is wrong (a mutation with no row in
	// the operations table); nothing was sent.
	CodeInternal = "INTERNAL"
	// CodeStateLocked: another run holds the --state file's lock.
	CodeStateLocked = "STATE_LOCKED"
	// CodeStateFile: the --state file (or its lock file beside it) cannot
	// be opened or written: a read-only or full file system, permissions.
	CodeStateFile = "STATE_FILE"
)

// The Kafka error names of a refused login: kerr's SaslAuthenticationFailed,
// IllegalSaslState and UnsupportedSaslMechanism as engine.ErrorName names
// them (engine's TestAuthFailureCodesAreKafkaNames holds them equal),
// spelled out so that the vocabulary imports no Kafka package.
const (
	codeSASLAuthenticationFailed = "SASL_AUTHENTICATION_FAILED"
	codeIllegalSASLState         = "ILLEGAL_SASL_STATE"
	codeUnsupportedSASLMechanism = "UNSUPPORTED_SASL_MECHANISM"
)

// Error is the engine's error for one item or one whole call. Code is a Kafka
// error name or one of the Code* constants; Resource names the item (a topic,
// "topic[partition]", a group, a broker) when there is one.
type Error struct {
	Code      string
	Message   string
	Retriable bool
	Resource  string
	// Mechanism is the SASL mechanism of a refused login (WithMechanism):
	// "SASL_AUTHENTICATION_FAILED (PLAIN): ...".
	Mechanism string
	Err       error // the underlying error, if any
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Resource != "" {
		b.WriteString(e.Resource)
		b.WriteString(": ")
	}
	b.WriteString(e.Code)
	if e.Mechanism != "" {
		b.WriteString(" (" + e.Mechanism + ")")
	}
	if e.Message != "" && e.Message != e.Code {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// IsAuthFailure reports whether e is a login that failed: refused by the
// broker, or not attempted.
func (e *Error) IsAuthFailure() bool {
	if e == nil {
		return false
	}
	switch e.Code {
	case CodeAuth, codeSASLAuthenticationFailed, codeIllegalSASLState, codeUnsupportedSASLMechanism:
		return true
	}
	return false
}

// Item is implemented by every per-item result so callers (the Lua layer's
// batch handling, the audit log) can treat batches uniformly.
type Item interface {
	// Key names the item: a topic, "topic[3]", a group, a broker id.
	Key() string
	// Failure is the item's error, nil when it succeeded.
	Failure() *Error
}

// Errorf builds a client-side error.
func Errorf(code, resource, format string, args ...any) *Error {
	return &Error{Code: code, Resource: resource, Message: fmt.Sprintf(format, args...)}
}

// FirstFailure returns the first failed item of a batch, and how many failed.
func FirstFailure[T Item](items []T) (first *Error, failed int) {
	for _, it := range items {
		if f := it.Failure(); f != nil {
			if first == nil {
				first = f
			}
			failed++
		}
	}
	return first, failed
}
