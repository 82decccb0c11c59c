package engine

import (
	"encoding/json"
	"os"
	"strings"
	"sync"
	"time"
)

// AuditLog appends one JSON line per mutation that ran: when, what, with
// which arguments (secrets redacted) and how each item ended.
type AuditLog struct {
	mu   sync.Mutex
	f    *os.File
	now  func() time.Time
	user string
}

// AuditEntry is one line of the audit log.
type AuditEntry struct {
	Time    string      `json:"time"`
	Op      string      `json:"op"`
	Cluster []string    `json:"cluster,omitempty"`
	User    string      `json:"user,omitempty"` // SASL user, if any
	Args    any         `json:"args"`
	Items   []AuditItem `json:"items"`
	Error   string      `json:"error,omitempty"` // the call failed as a whole
}

// AuditItem is one item's outcome: "ok" or an error code and message.
type AuditItem struct {
	Key     string `json:"key"`
	Outcome string `json:"outcome"`
	Error   string `json:"error,omitempty"`
}

// OpenAuditLog opens (creating, appending) the audit log at path.
func OpenAuditLog(path string) (*AuditLog, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, Errorf(CodeInvalidArgument, path, "opening audit log: %v", err)
	}
	return &AuditLog{f: f, now: time.Now}, nil
}

// Record writes one entry; args are redacted first.
func (a *AuditLog) Record(e AuditEntry) error {
	if a == nil {
		return nil
	}
	e.Time = a.now().UTC().Format(time.RFC3339Nano)
	e.Args = Redact(e.Args)
	if e.Items == nil {
		e.Items = []AuditItem{}
	}
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	_, err = a.f.Write(append(b, '\n'))
	return err
}

// Close closes the file.
func (a *AuditLog) Close() error {
	if a == nil {
		return nil
	}
	return a.f.Close()
}

// AuditItems turns a batch's results into audit outcomes.
func AuditItems[T Item](items []T) []AuditItem {
	out := make([]AuditItem, 0, len(items))
	for _, it := range items {
		ai := AuditItem{Key: it.Key(), Outcome: "ok"}
		if f := it.Failure(); f != nil {
			ai.Outcome, ai.Error = f.Code, f.Message
		}
		out = append(out, ai)
	}
	return out
}

// secretWords mark keys whose values must never be written anywhere.
var secretWords = []string{"password", "secret", "token", "passphrase", "hmac", "credential", "sasl_pass", "key_pass", "jaas", "keystore.key"}

// IsSecretKey reports whether a field name holds a secret.
func IsSecretKey(k string) bool {
	k = strings.ToLower(k)
	for _, w := range secretWords {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

// Redact replaces the values of secret-named keys, at any depth, with "***".
func Redact(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, val := range v {
			if IsSecretKey(k) {
				out[k] = "***"
			} else {
				out[k] = Redact(val)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, val := range v {
			out[i] = Redact(val)
		}
		return out
	}
	return v
}
