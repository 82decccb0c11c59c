package auditlog

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/kadmin-lua/kadmin-lua/engine/redact"
)

// The audit log is write-ahead: every mutation writes an intent line, and
// syncs it to disk, before its request is sent, then an outcome line with
// the same id once it knows how each item ended. A process killed in
// between leaves the intent: what was about to change, and what was there
// before. docs/cli.md describes the format; engine/undo reads it back.

// MaxLine is the longest audit line, newline included, that the
// writer writes and the reader reads: 16 MiB. The largest intents are
// reassignments: measured, 141 bytes per partition (target and replicas
// before, 20-character topic names), so one call may move about 110,000
// partitions; a group's offsets on thousands of partitions are far below.
// A reader holds at most one line of it in memory. A call whose line would
// be longer is refused before anything is sent: split it.
const MaxLine = 16 << 20

// Audit line types.
const (
	TypeIntent  = "intent"
	TypeOutcome = "outcome"
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

// Record is one line of the audit log, intent or outcome. Args,
// Before and the items' Detail are the operation's own JSON shapes (see
// docs/cli.md), secrets redacted.
type Record struct {
	Type string `json:"type"` // TypeIntent or TypeOutcome
	ID   string `json:"id"`
	Time string `json:"time"` // UTC, RFC 3339 with nanoseconds
	Op   string `json:"op"`   // the Lua function's name: "create_topics"

	// Intent lines.
	ClusterID string   `json:"cluster_id,omitempty"`
	Brokers   []string `json:"brokers,omitempty"` // seed brokers
	Profile   string   `json:"profile,omitempty"`
	User      string   `json:"user,omitempty"`    // SASL user
	UndoOf    string   `json:"undo_of,omitempty"` // the intent this change undoes
	// Run is the intent of the run this change is a step of (a paced
	// reassignment's batches, its throttles): undo reverts the run as a
	// whole and leaves its steps alone.
	Run         string          `json:"run,omitempty"`
	Args        json.RawMessage `json:"args,omitempty"`
	Before      json.RawMessage `json:"before,omitempty"`
	BeforeError string          `json:"before_error,omitempty"` // the before-state could not be read

	// Outcome lines.
	Items []ItemOutcome `json:"items,omitempty"`
	Error string        `json:"error,omitempty"` // the call failed as a whole: "CODE: message"

	// The hash chain (chain.go), last and in this order; the writer
	// fills them in.
	Chain string `json:"chain,omitempty"` // ChainSHA256 or ChainHMAC
	Prev  string `json:"prev,omitempty"`  // the previous line's hash; none on a file's first line
	Hash  string `json:"hash,omitempty"`  // this line's
}

// ItemOutcome is how one item of a mutation ended.
type ItemOutcome struct {
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
func (o ItemOutcome) Applied() bool {
	return o.Outcome == OutcomeOK || (o.Outcome == OutcomeUnknown && o.Found == FoundApplied)
}

// newAuditID is a time-ordered, unique id: 20261130T100001.123456Z-9f3a1c2b.
func newAuditID(now time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102T150405.000000Z") + "-" + hex.EncodeToString(b[:])
}

// NewID is a new intent id at the log's clock.
func (a *Log) NewID() string { return newAuditID(a.now()) }

// Append writes one record and syncs the file: when it returns nil the
// line is on disk. It holds the file's lock (other processes may append
// too) while it reads what the line chains to and writes it. The writer
// fills in the time and the hash chain; the caller writes intents before
// their requests (engine's mutate) and outcomes after.
func (a *Log) Append(rec Record) error {
	rec.Time = a.now().UTC().Format(time.RFC3339Nano)
	a.mu.Lock()
	defer a.mu.Unlock()
	if rec.Type == TypeIntent {
		// An outcome goes to its intent's file, rotated or not.
		if err := a.followPath(); err != nil {
			return err
		}
	}
	unlock, err := lockFile(a.f)
	if err != nil {
		return err
	}
	defer unlock()
	tail, err := a.chainTail()
	if err != nil {
		return err
	}
	rec.Chain, rec.Prev, rec.Hash = a.opts.alg(), tail.prev, ""
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	line, sum := a.opts.Seal(rec.Chain, b)
	if len(line)+1 > MaxLine {
		return fmt.Errorf("the %s line would be %d bytes, over the audit log's line limit of %d bytes (MaxLine)", rec.Type, len(line)+1, MaxLine)
	}
	out := make([]byte, 0, len(line)+2)
	if tail.noNewline {
		out = append(out, '\n') // end the line a crash cut short: it stays in the chain
	}
	out = append(append(out, line...), '\n')
	if _, err := a.f.Write(out); err != nil {
		a.size = -1
		return err
	}
	a.size += int64(len(out))
	a.tail = chainTail{prev: sum, alg: rec.Chain}
	return a.f.Sync()
}

// RedactedJSON encodes v for an audit line with secret-named fields redacted.
// It fails, rather than dropping the line, on anything JSON cannot say
// (NaN, infinities, channels...).
func RedactedJSON(v any) (json.RawMessage, error) {
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
	return json.Marshal(redact.Value(generic))
}

// DecodeField decodes an audit line's JSON field into v; an empty field
// leaves v as it is.
func DecodeField(raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("unexpected shape: %v", err)
	}
	return nil
}
