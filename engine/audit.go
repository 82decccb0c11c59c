package engine

import (
	"os"
	"sync"
	"time"
)

// AuditLog is the write-ahead audit log (auditlog.go): an intent line
// synced before each mutating request, an outcome line after.
type AuditLog struct {
	mu   sync.Mutex
	f    *os.File
	now  func() time.Time
	user string
}

// OpenAuditLog opens (creating, appending) the audit log at path.
func OpenAuditLog(path string) (*AuditLog, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, Errorf(CodeInvalidArgument, path, "opening audit log: %v", err)
	}
	return &AuditLog{f: f, now: time.Now}, nil
}

// Close closes the file.
func (a *AuditLog) Close() error {
	if a == nil {
		return nil
	}
	return a.f.Close()
}
