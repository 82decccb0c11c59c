package state

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/kadmin-lua/kadmin-lua/engine/alerts"
)

// The state file's format: a magic line, a format version, the payload,
// and a CRC-32 of the payload. Numbers are varints and samples are stored
// as differences from the previous one, so that 300,000 partitions with 10
// samples each take about 20 MB and load in a fraction of a second (JSON
// would take over 100 MB).
//
// payload := clusters notices (notices.go)
// clusters := uvarint(n) { string(id) string(name) groups }
// groups   := uvarint(n) { string(name) varint(seen_ms) topics }
// topics   := uvarint(n) { string(name) uvarint(n) { varint(partition) varint(changed_ms) varint(pause_ms) samples } }
// samples  := uvarint(n) { varint(Δtime) varint(Δcommitted) varint(Δend) varint(lag) }
// string   := uvarint(len) bytes
//
// Version 1 had no pause_ms (read as 0: no pause seen yet).
//
// A group's `topics` is also how the store keeps it in memory (pack.go):
// loading keeps each group's bytes as the file holds them, and writing
// puts them back as they are (snapshot.go).

const (
	stateMagic   = "KADMIN-LUA STATE\n"
	stateVersion = 2
	// maxStateString bounds a name read from a file, so a corrupt length
	// cannot ask for gigabytes.
	maxStateString = 1 << 16
	// readChunk is how much of a file is read in at a time.
	readChunk = 256 << 10
)

var errStateCorrupt = errors.New("corrupt")

// stateReader reads the payload, from memory (b) or streamed from a file
// (src, of which left bytes are not read in yet); the first error sticks.
type stateReader struct {
	b    []byte    // the bytes read in and not yet taken
	buf  []byte    // what b is the end of
	src  io.Reader // the rest of the payload (nil: b is all of it)
	left int64
	// markAt is what remained when mark was called (-1: no mark): the
	// bytes taken since are kept in buf, so that they can be kept.
	markAt int64
	// lastTopic is the topic name before, to check the order (pack.go).
	lastTopic []byte
	err       error
}

func newStateReader(b []byte) *stateReader {
	return &stateReader{b: b, buf: b, markAt: -1}
}

func (r *stateReader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: bad %s", errStateCorrupt, what)
	}
}

// remaining is how many bytes of the payload are not taken yet.
func (r *stateReader) remaining() int64 { return int64(len(r.b)) + r.left }

// more reads in at least n bytes (or what is left) to read from b. The
// bytes taken since the mark are kept; the others make room.
func (r *stateReader) more(n int) {
	if r.left == 0 || len(r.b) >= n || r.err != nil {
		return
	}
	off := len(r.buf) - len(r.b)
	from := off
	if r.markAt >= 0 {
		from -= int(r.markAt - r.remaining())
	}
	kept := len(r.buf) - from
	want := kept + max(n-len(r.b), readChunk)
	if cap(r.buf) < want {
		grown := make([]byte, kept, max(want, 2*cap(r.buf)))
		copy(grown, r.buf[from:])
		r.buf = grown
	} else {
		r.buf = r.buf[:copy(r.buf[:cap(r.buf)], r.buf[from:])]
	}
	in := int(min(int64(cap(r.buf)-kept), r.left))
	if _, err := io.ReadFull(r.src, r.buf[kept:kept+in]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			err = fmt.Errorf("%w: truncated", errStateCorrupt) // shorter than it said
		}
		r.err = err
		r.b = nil
		return
	}
	r.left -= int64(in)
	r.buf = r.buf[:kept+in]
	r.b = r.buf[off-from:]
}

// mark starts keeping the bytes taken; marked stops, and returns them
// (valid until the next read).
func (r *stateReader) mark() { r.markAt = r.remaining() }

func (r *stateReader) marked() []byte {
	n := int(r.markAt - r.remaining())
	r.markAt = -1
	if r.err != nil {
		return nil
	}
	end := len(r.buf) - len(r.b)
	return r.buf[end-n : end]
}

func (r *stateReader) uvarint(what string) uint64 {
	if len(r.b) < binary.MaxVarintLen64 {
		r.more(binary.MaxVarintLen64)
	}
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail(what)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *stateReader) varint(what string) int64 {
	// binary.Varint's loop, written out: twelve million of them in a
	// 3,000-group file, where the calls were a tenth of the decoding.
	if len(r.b) < binary.MaxVarintLen64 {
		r.more(binary.MaxVarintLen64)
	}
	if r.err != nil {
		return 0
	}
	b := r.b
	var u uint64
	for i := 0; i < len(b) && i < binary.MaxVarintLen64; i++ {
		c := b[i]
		if c < 0x80 {
			if i == binary.MaxVarintLen64-1 && c > 1 {
				break // overflows 64 bits
			}
			u |= uint64(c) << (7 * i)
			r.b = b[i+1:]
			return int64(u>>1) ^ -int64(u&1)
		}
		u |= uint64(c&0x7f) << (7 * i)
	}
	r.fail(what)
	return 0
}

// count reads a number of items, each taking at least min bytes: a count
// the rest of the payload cannot hold is corrupt (and allocates nothing).
func (r *stateReader) count(what string, min int) int {
	n := r.uvarint(what)
	if r.err == nil && n > uint64(r.remaining()/int64(min)) {
		r.fail(what)
		return 0
	}
	return int(n)
}

// strBytes reads a string, valid until the next read.
func (r *stateReader) strBytes(what string) []byte {
	n := r.uvarint(what)
	if r.err == nil && n <= maxStateString {
		r.more(int(n))
	}
	if r.err != nil {
		return nil
	}
	if n > maxStateString || n > uint64(len(r.b)) {
		r.fail(what)
		return nil
	}
	s := r.b[:n]
	r.b = r.b[n:]
	return s
}

func (r *stateReader) str(what string) string { return string(r.strBytes(what)) }

// decodeState reads a state held in memory (a Remote's).
func decodeState(data []byte) (map[string]*storedCluster, map[string]alerts.Notice, error) {
	return readState(bytes.NewReader(data), int64(len(data)))
}

// readState reads a state written by writeState, size bytes from src, a
// piece at a time: each group is checked whole (as unpacking it would)
// and kept packed (pack.go), in an allocation of its own. An error says
// why it is not one: not a state file, a newer version, or corrupt (a
// checksum that does not match is said before what it broke).
func readState(src io.Reader, size int64) (map[string]*storedCluster, map[string]alerts.Notice, error) {
	truncated := func(err error) error {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return fmt.Errorf("%w: truncated", errStateCorrupt) // shorter than it said
		}
		return err
	}
	head := make([]byte, min(size, int64(len(stateMagic)+binary.MaxVarintLen64)))
	if _, err := io.ReadFull(src, head); err != nil {
		return nil, nil, truncated(err)
	}
	if !bytes.HasPrefix(head, []byte(stateMagic)) {
		return nil, nil, errors.New("not a kadmin-lua state file")
	}
	version, n := binary.Uvarint(head[len(stateMagic):])
	if n <= 0 {
		return nil, nil, fmt.Errorf("%w: no version", errStateCorrupt)
	}
	if version > stateVersion {
		return nil, nil, fmt.Errorf("%w: format version %d, this kadmin-lua reads versions 1 to %d", errStateNewer, version, stateVersion)
	}
	if version != stateVersion && version != 1 {
		return nil, nil, fmt.Errorf("%w: format version %d", errStateCorrupt, version)
	}
	headLen := len(stateMagic) + n
	payloadLen := size - int64(headLen) - 4
	if payloadLen < 0 {
		return nil, nil, fmt.Errorf("%w: truncated", errStateCorrupt)
	}
	rest := io.MultiReader(bytes.NewReader(head[headLen:]), src)
	sum := crc32.NewIEEE()
	r := &stateReader{src: io.TeeReader(io.LimitReader(rest, payloadLen), sum), left: payloadLen, markAt: -1}
	clusters, notices := readPayload(r, version)
	checked := func() error {
		var want [4]byte
		if _, err := io.ReadFull(rest, want[:]); err != nil {
			return truncated(err)
		}
		if binary.BigEndian.Uint32(want[:]) != sum.Sum32() {
			return fmt.Errorf("%w: checksum mismatch (truncated or damaged)", errStateCorrupt)
		}
		return nil
	}
	if r.err != nil {
		// The checksum first, as when it was checked before reading:
		// a damaged file says so, not which count its damage broke.
		if errors.Is(r.err, errStateCorrupt) {
			if _, err := io.Copy(io.Discard, r.src); err == nil {
				if err := checked(); err != nil {
					return nil, nil, err
				}
			}
		}
		return nil, nil, r.err
	}
	if err := checked(); err != nil {
		return nil, nil, err
	}
	return clusters, notices, nil
}

// readPayload reads the clusters and notices (r.err says what was wrong).
func readPayload(r *stateReader, version uint64) (map[string]*storedCluster, map[string]alerts.Notice) {
	clusters := map[string]*storedCluster{}
	var repack unpacked // for a group kept otherwise than the store keeps it
	for range r.count("cluster count", 3) {
		id := r.str("cluster id")
		cs := &storedCluster{name: r.str("cluster name"), groups: map[string]*storedGroup{}}
		for range r.count("group count", 3) {
			g := r.str("group name")
			gs := &storedGroup{seenMs: r.varint("group time")}
			r.mark()
			count, canonical := scanTopics(r, version)
			section := r.marked()
			if r.err != nil {
				return nil, nil
			}
			if canonical {
				gs.packed, gs.count = append([]byte(nil), section...), count
			} else if !repackGroup(gs, &repack, section, version) {
				r.fail("group")
				return nil, nil
			}
			cs.groups[g] = gs
		}
		if r.err != nil {
			return nil, nil
		}
		clusters[id] = cs
	}
	notices := decodeNotices(r)
	if r.err == nil && r.remaining() != 0 {
		r.fail("end (bytes left over)")
	}
	return clusters, notices
}

// repackGroup keeps a group the file holds otherwise than the store
// keeps it (version 1, or partitions out of order or twice, the last
// kept) as the store does: in version 2, in order.
func repackGroup(gs *storedGroup, u *unpacked, section []byte, version uint64) bool {
	if u.unpack(section, version) != nil {
		return false
	}
	for i := range u.parts {
		u.parts[i].seen = true
	}
	u.sorted = false // sorted, and each partition once, by pack
	out, count := u.pack()
	gs.packed, gs.count = append([]byte(nil), out...), count
	return true
}
