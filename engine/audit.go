package engine

import (
	"encoding/json"
	"os"
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
