package auditlog

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// The audit log's hash chain (docs/cli.md, "Tamper evidence"). Every line
// the writer writes ends with its own hash and names the hash of the line
// before it:
//
//	{...,"chain":"hmac-sha256","prev":"<hex>","hash":"<hex>"}
//
// hash is SHA-256, or HMAC-SHA256 under the key when one is configured, of
// the line's bytes without its `,"hash":"..."` (the record as marshalled,
// ending in `}`); prev is the hash of the line before: its hash field when
// it has one, else the digest of its bytes (a line of an earlier version,
// or one cut short), and is absent on a file's first line. Blank lines are
// not part of the chain. A line edited, removed or inserted breaks it: its
// own hash does not verify, or the next line's prev does not match.

// Chain algorithms, the "chain" field of a line.
const (
	ChainSHA256 = "sha256"      // no key: shows edits by someone who did not recompute the chain
	ChainHMAC   = "hmac-sha256" // keyed: a line cannot be made without the key
)

// Options configure how an audit log is written and read.
type Options struct {
	// Key keys the hash chain with HMAC-SHA256 (at least 16 bytes). The
	// reader with a key trusts only what an HMAC covers; every writer of a
	// log must use the same key.
	Key vocab.Secret
}

// MinKey is the shortest key accepted.
const MinKey = 16

func (o Options) check() error {
	if o.Key != "" && len(o.Key) < MinKey {
		return fmt.Errorf("the audit log key is %d bytes; it must have at least %d (e.g. openssl rand -hex 32)", len(o.Key), MinKey)
	}
	return nil
}

func (o Options) alg() string {
	if o.Key != "" {
		return ChainHMAC
	}
	return ChainSHA256
}

// hasher returns the hash of a chain line: HMAC under the key, else SHA-256.
func (o Options) hasher(alg string) hash.Hash {
	if alg == ChainHMAC {
		return hmac.New(sha256.New, []byte(o.Key.Reveal()))
	}
	return sha256.New()
}

func (o Options) sum(alg string, b []byte) string {
	h := o.hasher(alg)
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}

const (
	hashPrefix = `,"hash":"`
	hashLen    = 64
	// sealLen is what sealing adds to a record: `,"hash":"<64 hex>"`.
	sealLen = len(hashPrefix) + hashLen + 1
)

// Seal ends the marshalled record b (which ends in `}`) with its hash
// under alg (ChainSHA256, or ChainHMAC with o's key), as the writer does
// before appending it; it returns the line and the hash. Tests forge lines
// with it.
func (o Options) Seal(alg string, b []byte) ([]byte, string) {
	sum := o.sum(alg, b)
	out := make([]byte, 0, len(b)+sealLen)
	out = append(out, b[:len(b)-1]...)
	out = append(out, hashPrefix...)
	out = append(out, sum...)
	out = append(out, `"}`...)
	return out, sum
}

// sealed splits a line that ends with a hash into that hash and the bytes
// it is the hash of (the record before sealing).
func sealed(line []byte) (sum string, body []byte, ok bool) {
	n := len(line)
	if n < sealLen+2 || string(line[n-2:]) != `"}` || string(line[n-sealLen-1:n-hashLen-2]) != hashPrefix {
		return "", nil, false
	}
	sum = string(line[n-hashLen-2 : n-2])
	if !isLowerHex(sum) {
		return "", nil, false
	}
	body = make([]byte, 0, n-sealLen)
	body = append(body, line[:n-sealLen-1]...)
	return sum, append(body, '}'), true
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func isBlank(line []byte) bool { return len(bytes.TrimSpace(line)) == 0 }

// chainTail is what the writer needs of the end of the file: the prev of
// the next line, whether the file lacks its last newline (a line cut
// short), the chain algorithm of its last sealed line ("" when none), and
// whether that line is keyed with another key than the writer's.
type chainTail struct {
	prev      string
	noNewline bool
	alg       string
	otherKey  bool
}

// readTail reads the end of f (size bytes) for the chain: the last line,
// and the one before when the last was cut short by a crash (a line
// without its hash says nothing of the chain's key).
func (o Options) readTail(f *os.File, size int64) (chainTail, error) {
	var t chainTail
	if size == 0 {
		return t, nil
	}
	end := make([]byte, 1)
	if _, err := f.ReadAt(end, size-1); err != nil {
		return t, err
	}
	t.noNewline = end[0] != '\n'
	line, start, err := lastLine(f, size)
	if err != nil || line == nil {
		return t, err // nil: only blank lines
	}
	if sum, body, ok := sealed(line); ok {
		t.prev = sum
		t.alg, t.otherKey = o.lineChain(line, sum, body)
		return t, nil
	}
	t.prev = o.sum(o.alg(), line)
	if start > 0 {
		before, _, err := lastLine(f, start)
		if err != nil {
			return t, err
		}
		if sum, body, ok := sealed(before); ok {
			t.alg, t.otherKey = o.lineChain(before, sum, body)
		}
	}
	return t, nil
}

// lastLine returns the last non-blank line of f's first end bytes, whole
// and without its newline, and the offset it starts at; nil when there is
// none. It reads in growing chunks from the end.
func lastLine(f *os.File, end int64) ([]byte, int64, error) {
	for n := min(end, 64<<10); ; n = min(end, n*4) {
		buf := make([]byte, n)
		if _, err := f.ReadAt(buf, end-n); err != nil && !errors.Is(err, io.EOF) {
			return nil, 0, err
		}
		stop := len(buf)
		for stop > 0 {
			text := bytes.TrimRight(buf[:stop], "\n")
			i := bytes.LastIndexByte(text, '\n')
			if i < 0 && n < end {
				break // starts before buf: read more
			}
			if line := text[i+1:]; !isBlank(line) {
				return line, end - n + int64(i+1), nil
			}
			if i < 0 {
				return nil, 0, nil
			}
			stop = i + 1
		}
	}
}

// lineChain is a sealed line's chain algorithm, and whether it is keyed
// with another key than o's: its HMAC does not verify with o.Key (or the
// line was edited). Without a key that cannot be told.
func (o Options) lineChain(line []byte, sum string, body []byte) (alg string, otherKey bool) {
	if !bytes.Contains(line[max(0, len(line)-300):], []byte(`"chain":"`+ChainHMAC+`"`)) {
		return ChainSHA256, false
	}
	return ChainHMAC, o.Key != "" && !hmac.Equal([]byte(sum), []byte(o.sum(ChainHMAC, body)))
}

// lineLinks is what the next line's prev may be: the hash field of a
// sealed line, else the digest of its bytes under either algorithm.
type lineLinks struct {
	line       int // 0: no line before
	sealed     bool
	verified   bool   // its HMAC verified with the key
	sum        string // the hash field of a sealed line
	sha, hmacd string // digests of an unsealed line's bytes
}

func (l lineLinks) matches(alg, prev string) bool {
	switch {
	case l.sealed:
		return prev == l.sum
	case alg == ChainHMAC:
		return l.hmacd != "" && hmac.Equal([]byte(prev), []byte(l.hmacd))
	}
	return prev == l.sha
}

// lineHasher digests a line as it is read, for a line too long to keep.
type lineHasher struct{ sha, mac hash.Hash }

func (o Options) newLineHasher() *lineHasher {
	h := &lineHasher{sha: sha256.New()}
	if o.Key != "" {
		h.mac = o.hasher(ChainHMAC)
	}
	return h
}

func (h *lineHasher) Write(b []byte) {
	h.sha.Write(b)
	if h.mac != nil {
		h.mac.Write(b)
	}
}

func (h *lineHasher) links(line int) lineLinks {
	l := lineLinks{line: line, sha: hex.EncodeToString(h.sha.Sum(nil))}
	if h.mac != nil {
		l.hmacd = hex.EncodeToString(h.mac.Sum(nil))
	}
	return l
}
