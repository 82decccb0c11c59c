package engine

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/kadmin-lua/kadmin-lua/internal/boundedfile"
)

// The audit log is write-ahead: every mutation writes an intent line, and
// syncs it to disk, before its request is sent, then an outcome line with
// the same id once it knows how each item ended. A process killed in
// between leaves the intent: what was about to change, and what was there
// before. docs/cli.md describes the format; Undo reads it back.

// MaxAuditLine is the longest audit line, newline included, that the
// writer writes and the reader reads: 16 MiB. The largest intents are
// reassignments: measured, 141 bytes per partition (target and replicas
// before, 20-character topic names), so one call may move about 110,000
// partitions; a group's offsets on thousands of partitions are far below.
// A reader holds at most one line of it in memory. A call whose line would
// be longer is refused before anything is sent: split it.
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

	// The hash chain (auditchain.go), last and in this order; the writer
	// fills them in.
	Chain string `json:"chain,omitempty"` // ChainSHA256 or ChainHMAC
	Prev  string `json:"prev,omitempty"`  // the previous line's hash; none on a file's first line
	Hash  string `json:"hash,omitempty"`  // this line's
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
// line is on disk. It holds the file's lock (other processes may append
// too) while it reads what the line chains to and writes it.
func (a *AuditLog) append(rec AuditRecord) error {
	rec.Time = a.now().UTC().Format(time.RFC3339Nano)
	a.mu.Lock()
	defer a.mu.Unlock()
	if rec.Type == AuditIntent {
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
	line, sum := a.opts.seal(rec.Chain, b)
	if len(line)+1 > MaxAuditLine {
		return fmt.Errorf("the %s line would be %d bytes, over the audit log's line limit of %d bytes (MaxAuditLine)", rec.Type, len(line)+1, MaxAuditLine)
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
	// IntentLine and OutcomeLine are the lines' numbers in the file
	// (OutcomeLine 0: no outcome).
	IntentLine, OutcomeLine int
	// Unchained: the intent was written without the hash chain (by an
	// earlier version).
	Unchained bool
	// Untrusted, when not "", says why undo must not act on this change:
	// the hash chain breaks at or before one of its lines, the key does not
	// vouch for it, another line has its id... (see ReadAuditLog).
	Untrusted string
}

// AuditProblem is a line of the audit log that could not be read, or where
// its hash chain breaks.
type AuditProblem struct {
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

func (p AuditProblem) String() string { return fmt.Sprintf("line %d: %s", p.Line, p.Reason) }

// ReadAuditLog is ReadAuditLogWith without a key.
func ReadAuditLog(r io.Reader, name string) ([]AuditedChange, []AuditProblem, error) {
	return ReadAuditLogWith(r, name, AuditLogOptions{})
}

// ReadAuditFile is ReadAuditLogWith on the file at path; a file that does
// not exist holds no changes (nothing was audited there yet).
func ReadAuditFile(path string, o AuditLogOptions) ([]AuditedChange, []AuditProblem, error) {
	f, err := boundedfile.Open(path) // a FIFO or a device is refused; lines are bounded (MaxAuditLine)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, Errorf(CodeInvalidArgument, path, "reading the audit log: %v", err)
	}
	defer f.Close()
	return ReadAuditLogWith(f, path, o)
}

// ReadAuditLogWith reads an audit log: the entries in the order their
// intents were written, and the problems it found. One bad line never makes
// the rest unusable: a line longer than MaxAuditLine, or not JSON, is a
// problem (except one cut short by a crash: the last line without its
// newline, or one the next line's chain names: nothing was sent for it);
// lines of the one-line-per-call format of earlier versions are skipped.
//
// It verifies the hash chain (auditchain.go): where it breaks (a line
// edited, removed or inserted) is a problem, and every change with a line
// at or after the break is Untrusted. Lines without the chain (earlier
// versions) are accepted before the first chained line, and marked
// Unchained. With a key, only changes whose lines all carry an HMAC that
// verifies are trusted; without one, keyed changes are not (their HMACs
// cannot be checked). The error is only for a read that failed.
func ReadAuditLogWith(r io.Reader, name string, o AuditLogOptions) ([]AuditedChange, []AuditProblem, error) {
	if err := o.check(); err != nil {
		return nil, nil, Errorf(CodeInvalidArgument, name, "%v", err)
	}
	cr := &chainReader{o: o, byID: map[string]int{}}
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	for n := 1; ; n++ {
		line, long, newline, err := readAuditLine(br, o, buf)
		if err != nil {
			return nil, nil, Errorf(CodeInvalidArgument, name, "reading the audit log: %v", err)
		}
		if !newline && len(line) == 0 && long == nil {
			break
		}
		buf = line
		cr.line(n, line, long, newline)
	}
	cr.end()
	return cr.entries, cr.problems, nil
}

// readAuditLine reads one line (without its newline) into buf; a line
// longer than MaxAuditLine is not kept but digested (long). newline is
// false at the end of the input.
func readAuditLine(br *bufio.Reader, o AuditLogOptions, buf []byte) (line []byte, long *lineHasher, newline bool, err error) {
	buf = buf[:0]
	for {
		chunk, err := br.ReadSlice('\n')
		nl := err == nil
		if nl {
			chunk = chunk[:len(chunk)-1]
		}
		if long == nil && len(buf)+len(chunk)+1 > MaxAuditLine {
			long = o.newLineHasher()
			long.Write(buf)
			buf = buf[:0]
		}
		if long != nil {
			long.Write(chunk)
		} else {
			buf = append(buf, chunk...)
		}
		switch {
		case nl:
			return buf, long, true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return buf, long, false, nil
		}
		return nil, nil, false, err
	}
}

// chainReader is ReadAuditLogWith's state, line by line.
type chainReader struct {
	o        AuditLogOptions
	entries  []AuditedChange
	problems []AuditProblem
	byID     map[string]int
	lines    map[int]lineKind // the kind of each entry's lines

	prev     lineLinks // the last non-blank line
	chained  bool      // a sealed line was seen
	keyed    bool      // a keyed line was seen
	brokenAt int       // the first line the chain does not vouch for; 0: none
	broken   string
	// pending: an unreadable line, forgiven if the next line chains to it
	// or it is the last one, cut short.
	pending *AuditProblem
}

type lineKind struct{ sealed, keyed bool }

func (c *chainReader) problem(n int, format string, args ...any) {
	c.problems = append(c.problems, AuditProblem{Line: n, Reason: fmt.Sprintf(format, args...)})
}

// breakAt records the chain's first break: changes with a line from
// `from` on are not trusted.
func (c *chainReader) breakAt(from, n int, format string, args ...any) {
	reason := fmt.Sprintf(format, args...)
	c.problem(n, "the hash chain breaks: %s", reason)
	if c.brokenAt == 0 || from < c.brokenAt {
		c.brokenAt, c.broken = from, fmt.Sprintf("line %d: %s", n, reason)
	}
}

func (c *chainReader) line(n int, line []byte, long *lineHasher, newline bool) {
	if long == nil && isBlank(line) {
		return
	}
	prev := c.prev
	if c.pending != nil {
		p := *c.pending
		c.pending = nil
		if _, _, ok := sealed(line); !ok || !prev.matches(chainOf(line), prevOf(line)) {
			c.problems = append(c.problems, p)
		}
	}
	if long != nil {
		c.pending = &AuditProblem{Line: n, Reason: fmt.Sprintf("longer than the line limit (%d bytes): skipped", MaxAuditLine)}
		c.prev = long.links(n)
		return
	}
	sum, body, isSealed := sealed(line)
	var rec AuditRecord
	jerr := json.Unmarshal(line, &rec)
	if !isSealed {
		h := c.o.newLineHasher()
		h.Write(line)
		c.prev = h.links(n)
		switch {
		case jerr != nil:
			c.pending = &AuditProblem{Line: n, Reason: fmt.Sprintf("not an audit record (%v): skipped", jerr)}
			if !newline {
				c.pending.Reason = "cut short: " + c.pending.Reason
			}
			return
		case c.chained:
			c.breakAt(n, n, "line %d has no hash after chained lines: it was inserted or edited", n)
		}
		c.record(n, rec, lineKind{})
		return
	}
	c.prev = lineLinks{line: n, sealed: true, sum: sum}
	c.chained = true
	if jerr != nil {
		c.breakAt(n, n, "line %d is not JSON (%v): it was edited", n, jerr)
		return
	}
	kind := lineKind{sealed: true, keyed: rec.Chain == ChainHMAC}
	switch rec.Chain {
	case ChainHMAC:
		c.keyed = true
		if c.o.Key != "" {
			if !hmac.Equal([]byte(sum), []byte(c.o.sum(ChainHMAC, body))) {
				c.breakAt(n, n, "line %d's HMAC does not verify with the key: edited, forged, or written with another key", n)
			} else {
				c.prev.verified = true
			}
		}
	case ChainSHA256:
		if c.keyed {
			c.breakAt(n, n, "line %d is not keyed, after keyed lines: written without the key, or forged", n)
		} else if sum != c.o.sum(ChainSHA256, body) {
			c.breakAt(n, n, "line %d's hash does not match it: it was edited", n)
		}
	default:
		c.breakAt(n, n, "line %d has an unknown chain %q", n, rec.Chain)
	}
	switch {
	case rec.Prev == "" && prev.line != 0:
		c.breakAt(n, n, "line %d starts a new chain after line %d: it was inserted, or comes from another file", n, prev.line)
	case rec.Prev != "" && prev.line == 0:
		c.breakAt(1, n, "line %d follows a line that is not there: lines were removed from the start", n)
	case rec.Prev != "" && !prev.matches(rec.Chain, rec.Prev):
		// Without a key the line before may be the edited one (its hash
		// recomputed); one whose HMAC verified was not.
		from := prev.line
		if prev.verified {
			from = n
		}
		c.breakAt(from, n, "line %d does not follow line %d: lines between were removed or inserted, or line %d was edited", n, prev.line, prev.line)
	}
	c.record(n, rec, kind)
}

// chainOf and prevOf pick a line's chain fields without a full decode.
func chainOf(line []byte) string {
	var r struct{ Chain string }
	_ = json.Unmarshal(line, &r)
	return r.Chain
}

func prevOf(line []byte) string {
	var r struct{ Prev string }
	_ = json.Unmarshal(line, &r)
	return r.Prev
}

func (c *chainReader) record(n int, rec AuditRecord, kind lineKind) {
	if c.lines == nil {
		c.lines = map[int]lineKind{}
	}
	switch rec.Type {
	case AuditIntent:
		if i, dup := c.byID[rec.ID]; dup {
			c.problem(n, "a second intent with id %s (the first is on line %d)", rec.ID, c.entries[i].IntentLine)
			c.entries[i].Untrusted = fmt.Sprintf("another intent (line %d) has its id", n)
			c.entries = append(c.entries, AuditedChange{Intent: rec, IntentLine: n, Unchained: !kind.sealed,
				Untrusted: fmt.Sprintf("another intent (line %d) has its id", c.entries[i].IntentLine)})
			c.lines[n] = kind
			return
		}
		c.byID[rec.ID] = len(c.entries)
		c.entries = append(c.entries, AuditedChange{Intent: rec, IntentLine: n, Unchained: !kind.sealed})
		c.lines[n] = kind
	case AuditOutcome:
		i, ok := c.byID[rec.ID]
		if !ok {
			return
		}
		e := &c.entries[i]
		if e.Outcome != nil {
			c.problem(n, "a second outcome for %s (the first is on line %d)", rec.ID, e.OutcomeLine)
			e.Untrusted = fmt.Sprintf("two outcome lines (%d and %d)", e.OutcomeLine, n)
			return
		}
		r := rec
		e.Outcome, e.OutcomeLine = &r, n
		c.lines[n] = kind
	}
}

// end settles the last line and what each change may be trusted for.
func (c *chainReader) end() {
	if c.pending != nil && !strings.HasPrefix(c.pending.Reason, "cut short: ") {
		c.problems = append(c.problems, *c.pending)
	}
	for i := range c.entries {
		e := &c.entries[i]
		if e.Untrusted != "" {
			continue
		}
		lines := []int{e.IntentLine}
		if e.OutcomeLine > 0 {
			lines = append(lines, e.OutcomeLine)
		}
		last := slices.Max(lines)
		switch {
		case c.brokenAt > 0 && last >= c.brokenAt:
			e.Untrusted = fmt.Sprintf("the audit log's hash chain breaks at %s; this change's lines come after", c.broken)
		case c.o.Key != "" && slices.ContainsFunc(lines, func(n int) bool { return !c.lines[n].sealed }):
			e.Untrusted = "written without the hash chain (an earlier version): the key cannot vouch for it"
		case c.o.Key != "" && slices.ContainsFunc(lines, func(n int) bool { return !c.lines[n].keyed }):
			e.Untrusted = "written without the key (sha256): the key cannot vouch for it"
		case c.o.Key == "" && slices.ContainsFunc(lines, func(n int) bool { return c.lines[n].keyed }):
			e.Untrusted = "its lines are keyed (hmac-sha256): give the log's key to verify them"
		}
	}
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
