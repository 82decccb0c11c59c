package engine

import "sync"

// Notice is what was last sent for an alert key.
type Notice struct {
	Status   string `json:"status"`    // the status last sent ("firing"/"resolved" or the caller's status word)
	OpenedMs int64  `json:"opened_ms"` // when the current status opened
	SentMs   int64  `json:"sent_ms"`   // when it was last sent
}

// NoticeLedger remembers notices between runs; the state store implements it.
type NoticeLedger interface {
	LastNotice(key string) (Notice, bool)
	SaveNotice(key string, n Notice) error
}

// readyLedger is a NoticeLedger that is made ready before anything is
// sent (the state store takes its file's lock): a notice it could not
// record is not sent, or the next run would send it again.
type readyLedger interface {
	NoticeLedger
	Ready() error
}

// MemoryLedger is a NoticeLedger that lives as long as the value: the
// ledger of a client whose Config.Notices is nil, so a loop process (or
// one run) de-duplicates its notifications, and a new process starts
// afresh. It is safe for concurrent use.
type MemoryLedger struct {
	mu sync.Mutex
	m  map[string]Notice
}

// NewMemoryLedger returns an empty in-memory ledger.
func NewMemoryLedger() *MemoryLedger { return &MemoryLedger{m: map[string]Notice{}} }

// LastNotice returns what was last sent for key.
func (l *MemoryLedger) LastNotice(key string) (Notice, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, ok := l.m[key]
	return n, ok
}

// SaveNotice records what was sent for key.
func (l *MemoryLedger) SaveNotice(key string, n Notice) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.m[key] = n
	return nil
}
