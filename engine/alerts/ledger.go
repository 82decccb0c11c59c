package alerts

import (
	"maps"
	"sync"
)

// Notice is what was last sent for an alert key, and what was seen since
// without being sent yet.
type Notice struct {
	Status   string `json:"status"`    // the status last sent ("resolved", or the firing word it opened with)
	OpenedMs int64  `json:"opened_ms"` // when the current status opened
	SentMs   int64  `json:"sent_ms"`   // when it was last sent
	// Labels are the labels the open alert was sent with: its identity at
	// the webhook (Alertmanager fingerprints the label set), which its
	// resolution must carry. nil while nothing is open, and for an alert
	// opened by a kadmin-lua that did not record them: it was sent with
	// the labels the caller gives, plus its status's (openedLabels).
	Labels map[string]string `json:"labels,omitempty"`
	// Pending is a status seen by PendingRuns calls in a row, from
	// PendingMs on, and not sent yet: it is sent once it has held for
	// Request.AfterRuns calls ("resolved" or a firing word).
	Pending     string `json:"pending,omitempty"`
	PendingRuns int    `json:"pending_runs,omitempty"`
	PendingMs   int64  `json:"pending_ms,omitempty"`
}

// LastSeenMs is the notice's newest time: a notice untouched for the
// state store's ExpireAfter is dropped.
func (n Notice) LastSeenMs() int64 { return max(n.SentMs, n.PendingMs) }

// Ledger remembers notices between runs; the state store implements it.
type Ledger interface {
	LastNotice(key string) (Notice, bool)
	SaveNotice(key string, n Notice) error
}

// readyLedger is a Ledger that is made ready before anything is
// sent (the state store takes its file's lock): a notice it could not
// record is not sent, or the next run would send it again.
type readyLedger interface {
	Ledger
	Ready() error
}

// MemoryLedger is a Ledger that lives as long as the value: the
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
	n.Labels = maps.Clone(n.Labels)
	return n, ok
}

// SaveNotice records what was sent for key.
func (l *MemoryLedger) SaveNotice(key string, n Notice) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	n.Labels = maps.Clone(n.Labels)
	l.m[key] = n
	return nil
}
