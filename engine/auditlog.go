package engine

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// The audit log is write-ahead: every mutation writes an intent line, and
// syncs it to disk, before its request is sent, then an outcome line with
// the same id once it knows how each item ended. A process killed in
// between leaves the intent: what was about to change, and what was there
// before. docs/cli.md describes the format; Undo reads it back.

// MaxAuditLine is the longest audit line, newline included, that the
// writer writes and the reader reads: 16 MiB. The largest real intents (a
// reassignment of every partition of a 100,000-partition cluster with its
// before-state, the offsets of a group on thousands of partitions) stay
// well below it, and a reader holds at most one line of it in memory. A
// call whose line would be longer is refused before anything is sent.
const MaxAuditLine = 16 << 20

// Audit line types.
const (
	AuditIntent  = "intent"
	AuditOutcome = "outcome"
)

// Item outcomes besides an error code.
const (
	OutcomeOK      = "ok"
	OutcomeUnknown = "unknown" // sent, then cancelled or timed out
)

// What the tool found when it looked after an unknown outcome.
const (
	FoundApplied      = "applied"
	FoundNotApplied   = "not_applied"
	FoundUndetermined = "undetermined"
)

// AuditRecord is one line of the audit log, intent or outcome. Args,
// Before and the items' Detail are the operation's own JSON shapes (see
// docs/cli.md), secrets redacted.
type AuditRecord struct {
	Type string `json:"type"` // AuditIntent or AuditOutcome
	ID   string `json:"id"`
	Time string `json:"time"` // UTC, RFC 3339 with nanoseconds
	Op   string `json:"op"`   // the Lua function's name: "create_topics"

	// Intent lines.
	ClusterID   string          `json:"cluster_id,omitempty"`
	Brokers     []string        `json:"brokers,omitempty"` // seed brokers
	Profile     string          `json:"profile,omitempty"`
	User        string          `json:"user,omitempty"`    // SASL user
	UndoOf      string          `json:"undo_of,omitempty"` // the intent this change undoes
	Args        json.RawMessage `json:"args,omitempty"`
	Before      json.RawMessage `json:"before,omitempty"`
	BeforeError string          `json:"before_error,omitempty"` // the before-state could not be read

	// Outcome lines.
	Items []AuditItemOutcome `json:"items,omitempty"`
	Error string             `json:"error,omitempty"` // the call failed as a whole: "CODE: message"
}

// AuditItemOutcome is how one item of a mutation ended.
type AuditItemOutcome struct {
	Key     string `json:"key"`
	Outcome string `json:"outcome"` // OutcomeOK, an error code, or OutcomeUnknown
	Error   string `json:"error,omitempty"`
	// Found is what looking at the cluster showed after an unknown
	// outcome: FoundApplied, FoundNotApplied or FoundUndetermined.
	Found  string          `json:"found,omitempty"`
	Detail json.RawMessage `json:"detail,omitempty"` // what undo needs: a created topic's id, the ACLs deleted...
}

// Applied reports whether the item's change took effect: ok, or unknown
// and found applied.
func (o AuditItemOutcome) Applied() bool {
	return o.Outcome == OutcomeOK || (o.Outcome == OutcomeUnknown && o.Found == FoundApplied)
}

// newAuditID is a time-ordered, unique id: 20261130T100001.123456Z-9f3a1c2b.
func newAuditID(now time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102T150405.000000Z") + "-" + hex.EncodeToString(b[:])
}

// append writes one record and syncs the file: when it returns nil the
// line is on disk.
func (a *AuditLog) append(rec AuditRecord) error {
	rec.Time = a.now().UTC().Format(time.RFC3339Nano)
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if len(b)+1 > MaxAuditLine {
		return fmt.Errorf("the %s line would be %d bytes, over the audit log's line limit of %d bytes (MaxAuditLine)", rec.Type, len(b)+1, MaxAuditLine)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if rec.Type == AuditIntent {
		// An outcome goes to its intent's file, rotated or not.
		if err := a.followPath(); err != nil {
			return err
		}
	}
	if _, err := a.f.Write(append(b, '\n')); err != nil {
		return err
	}
	return a.f.Sync()
}

// auditJSON encodes v for an audit line with secret-named fields redacted.
// It fails, rather than dropping the line, on anything JSON cannot say
// (NaN, infinities, channels...).
func auditJSON(v any) (json.RawMessage, error) {
	if v == nil {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber() // offsets stay exact
	var generic any
	if err := d.Decode(&generic); err != nil {
		return nil, err
	}
	return json.Marshal(Redact(generic))
}

// AuditedChange pairs an intent with its outcome (nil when none was written:
// the process ended in between, or the log was cut).
type AuditedChange struct {
	Intent  AuditRecord
	Outcome *AuditRecord
}

// ReadAuditLog reads an audit log: the entries in the order their intents
// were written. Lines that are not intent or outcome records (the
// one-line-per-call format of earlier versions) are skipped; a line that is
// not JSON at all fails with its line number, except a last line cut short
// by a crash.
func ReadAuditLog(r io.Reader, name string) ([]AuditedChange, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 64*1024*1024)
	var entries []AuditedChange
	byID := map[string]int{}
	var pendingErr error
	for line := 1; sc.Scan(); line++ {
		if pendingErr != nil {
			return nil, pendingErr
		}
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var rec AuditRecord
		if err := json.Unmarshal(text, &rec); err != nil {
			pendingErr = Errorf(CodeInvalidArgument, name, "line %d is not an audit record: %v", line, err)
			continue
		}
		switch rec.Type {
		case AuditIntent:
			byID[rec.ID] = len(entries)
			entries = append(entries, AuditedChange{Intent: rec})
		case AuditOutcome:
			if i, ok := byID[rec.ID]; ok {
				r := rec
				entries[i].Outcome = &r
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, Errorf(CodeInvalidArgument, name, "reading the audit log: %v", err)
	}
	return entries, nil
}

// decodeRaw decodes an audit line's JSON field into v; an empty field
// leaves v as it is.
func decodeRaw(raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("unexpected shape: %v", err)
	}
	return nil
}
