package auditlog

import (
	"bufio"
	"crypto/hmac"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
	"github.com/kadmin-lua/kadmin-lua/internal/boundedfile"
)

// Change pairs an intent with its outcome (nil when none was written:
// the process ended in between, or the log was cut).
type Change struct {
	Intent  Record
	Outcome *Record
	// IntentLine and OutcomeLine are the lines' numbers in the file
	// (OutcomeLine 0: no outcome).
	IntentLine, OutcomeLine int
	// Unchained: the intent was written without the hash chain (by an
	// earlier version).
	Unchained bool
	// Untrusted, when not "", says why undo must not act on this change:
	// the hash chain breaks at or before one of its lines, the key does not
	// vouch for it, another line has its id... (see Read).
	Untrusted string
}

// Problem is a line of the audit log that could not be read, or where
// its hash chain breaks.
type Problem struct {
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

func (p Problem) String() string { return fmt.Sprintf("line %d: %s", p.Line, p.Reason) }

// Read is ReadWith without a key.
func Read(r io.Reader, name string) ([]Change, []Problem, error) {
	return ReadWith(r, name, Options{})
}

// ReadFile is ReadWith on the file at path; a file that does
// not exist holds no changes (nothing was audited there yet).
func ReadFile(path string, o Options) ([]Change, []Problem, error) {
	f, err := boundedfile.Open(path) // a FIFO or a device is refused; lines are bounded (MaxLine)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, vocab.Errorf(vocab.CodeInvalidArgument, path, "reading the audit log: %v", err)
	}
	defer f.Close()
	return ReadWith(f, path, o)
}

// ReadBack reads the log's own file with its own key, as ReadFile does: a
// run resuming reads what it wrote before.
func (a *Log) ReadBack() ([]Change, []Problem, error) { return ReadFile(a.path, a.opts) }

// ReadWith reads an audit log: the entries in the order their
// intents were written, and the problems it found. One bad line never makes
// the rest unusable: a line longer than MaxLine, or not JSON, is a
// problem (except one cut short by a crash: the last line without its
// newline, or one the next line's chain names: nothing was sent for it);
// lines of the one-line-per-call format of earlier versions are skipped.
//
// It verifies the hash chain (chain.go): where it breaks (a line
// edited, removed or inserted) is a problem, and every change with a line
// at or after the break is Untrusted. Lines without the chain (earlier
// versions) are accepted before the first chained line, and marked
// Unchained. With a key, only changes whose lines all carry an HMAC that
// verifies are trusted; without one, keyed changes are not (their HMACs
// cannot be checked). The error is only for a read that failed.
func ReadWith(r io.Reader, name string, o Options) ([]Change, []Problem, error) {
	if err := o.check(); err != nil {
		return nil, nil, vocab.Errorf(vocab.CodeInvalidArgument, name, "%v", err)
	}
	cr := &chainReader{o: o, byID: map[string]int{}}
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	for n := 1; ; n++ {
		line, long, newline, err := readAuditLine(br, o, buf)
		if err != nil {
			return nil, nil, vocab.Errorf(vocab.CodeInvalidArgument, name, "reading the audit log: %v", err)
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
// longer than MaxLine is not kept but digested (long). newline is
// false at the end of the input.
func readAuditLine(br *bufio.Reader, o Options, buf []byte) (line []byte, long *lineHasher, newline bool, err error) {
	buf = buf[:0]
	for {
		chunk, err := br.ReadSlice('\n')
		nl := err == nil
		if nl {
			chunk = chunk[:len(chunk)-1]
		}
		if long == nil && len(buf)+len(chunk)+1 > MaxLine {
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

// chainReader is ReadWith's state, line by line.
type chainReader struct {
	o        Options
	entries  []Change
	problems []Problem
	byID     map[string]int
	lines    map[int]lineKind // the kind of each entry's lines

	prev     lineLinks // the last non-blank line
	chained  bool      // a sealed line was seen
	keyed    bool      // a keyed line was seen
	brokenAt int       // the first line the chain does not vouch for; 0: none
	broken   string
	// pending: an unreadable line, forgiven if the next line chains to it
	// or it is the last one, cut short.
	pending *Problem
}

type lineKind struct{ sealed, keyed bool }

func (c *chainReader) problem(n int, format string, args ...any) {
	c.problems = append(c.problems, Problem{Line: n, Reason: fmt.Sprintf(format, args...)})
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
		c.pending = &Problem{Line: n, Reason: fmt.Sprintf("longer than the line limit (%d bytes): skipped", MaxLine)}
		c.prev = long.links(n)
		return
	}
	sum, body, isSealed := sealed(line)
	var rec Record
	jerr := json.Unmarshal(line, &rec)
	if !isSealed {
		h := c.o.newLineHasher()
		h.Write(line)
		c.prev = h.links(n)
		switch {
		case jerr != nil:
			c.pending = &Problem{Line: n, Reason: fmt.Sprintf("not an audit record (%v): skipped", jerr)}
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

func (c *chainReader) record(n int, rec Record, kind lineKind) {
	if c.lines == nil {
		c.lines = map[int]lineKind{}
	}
	switch rec.Type {
	case TypeIntent:
		if i, dup := c.byID[rec.ID]; dup {
			c.problem(n, "a second intent with id %s (the first is on line %d)", rec.ID, c.entries[i].IntentLine)
			c.entries[i].Untrusted = fmt.Sprintf("another intent (line %d) has its id", n)
			c.entries = append(c.entries, Change{Intent: rec, IntentLine: n, Unchained: !kind.sealed,
				Untrusted: fmt.Sprintf("another intent (line %d) has its id", c.entries[i].IntentLine)})
			c.lines[n] = kind
			return
		}
		c.byID[rec.ID] = len(c.entries)
		c.entries = append(c.entries, Change{Intent: rec, IntentLine: n, Unchained: !kind.sealed})
		c.lines[n] = kind
	case TypeOutcome:
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
