package state

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"maps"
	"slices"
	"strings"

	"github.com/kadmin-lua/kadmin-lua/engine/alerts"
	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// The state file's format: a magic line, a format version, the payload,
// and a CRC-32 of the payload. Numbers are varints and samples are stored
// as differences from the previous one, so that 300,000 partitions with 10
// samples each take about 20 MB and load in a fraction of a second (JSON
// would take over 100 MB). `kadmin-lua state show` prints it as JSON.
//
// payload := clusters notices (notices.go)
// clusters := uvarint(n) { string(id) string(name) groups }
// groups   := uvarint(n) { string(name) varint(seen_ms) topics }
// topics   := uvarint(n) { string(name) uvarint(n) { varint(partition) varint(changed_ms) varint(pause_ms) samples } }
// samples  := uvarint(n) { varint(Δtime) varint(Δcommitted) varint(Δend) varint(lag) }
// string   := uvarint(len) bytes
//
// Version 1 had no pause_ms (read as 0: no pause seen yet).

const (
	stateMagic   = "KADMIN-LUA STATE\n"
	stateVersion = 2
	// maxStateString bounds a name read from a file, so a corrupt length
	// cannot ask for gigabytes.
	maxStateString = 1 << 16
)

var errStateCorrupt = errors.New("corrupt")

func encodeState(clusters map[string]*storedCluster, notices map[string]alerts.Notice) []byte {
	// Sized once (up to 10 bytes a sample, 20 a partition): growing a 30 MB
	// buffer by doubling was a tenth of lag_status's time for 300,000
	// partitions.
	size := 64
	for _, cs := range clusters {
		for g, gs := range cs.groups {
			size += len(g) + 16
			for tp, st := range gs.parts {
				size += len(tp.Topic)/8 + 20 + 10*len(st.samples)
			}
		}
	}
	b := make([]byte, 0, size)
	b = append(b, stateMagic...)
	b = binary.AppendUvarint(b, stateVersion)
	start := len(b)
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.AppendUvarint(b, uint64(len(clusters)))
	// A group's partitions in (topic, partition) order, from one sorted
	// slice: a map of topics and a lookup per partition were a third of
	// the encoding.
	type entry struct {
		tp vocab.TopicPartition
		st *storedPartition
	}
	var entries []entry
	for _, id := range slices.Sorted(maps.Keys(clusters)) {
		cs := clusters[id]
		str(id)
		str(cs.name)
		b = binary.AppendUvarint(b, uint64(len(cs.groups)))
		for _, g := range slices.Sorted(maps.Keys(cs.groups)) {
			gs := cs.groups[g]
			str(g)
			b = binary.AppendVarint(b, gs.seenMs)
			entries = entries[:0]
			topics := 0
			for tp, st := range gs.parts {
				entries = append(entries, entry{tp, st})
			}
			slices.SortFunc(entries, func(x, y entry) int {
				if c := strings.Compare(x.tp.Topic, y.tp.Topic); c != 0 {
					return c
				}
				return cmp.Compare(x.tp.Partition, y.tp.Partition)
			})
			for i, e := range entries {
				if i == 0 || e.tp.Topic != entries[i-1].tp.Topic {
					topics++
				}
			}
			b = binary.AppendUvarint(b, uint64(topics))
			for i := 0; i < len(entries); {
				t := entries[i].tp.Topic
				n := 1
				for i+n < len(entries) && entries[i+n].tp.Topic == t {
					n++
				}
				str(t)
				b = binary.AppendUvarint(b, uint64(n))
				for _, e := range entries[i : i+n] {
					p, st := e.tp.Partition, e.st
					b = binary.AppendVarint(b, int64(p))
					b = binary.AppendVarint(b, st.changedMs)
					b = binary.AppendVarint(b, st.pauseMs)
					b = binary.AppendUvarint(b, uint64(len(st.samples)))
					var prev Sample
					for _, s := range st.samples {
						b = appendSample(b, s.TimeMs-prev.TimeMs, s.Committed-prev.Committed, s.End-prev.End, s.Lag)
						prev = s
					}
				}
				i += n
			}
		}
	}
	b = encodeNotices(b, notices)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[start:]))
}

// appendSample appends four varints (binary.AppendVarint's encoding) with
// one look at the buffer's room: twelve million appends in a 3,000-group
// file, each checking its own, were half of the encoding.
func appendSample(b []byte, v ...int64) []byte {
	n := len(b)
	if cap(b)-n < 4*binary.MaxVarintLen64 {
		b = slices.Grow(b, 4*binary.MaxVarintLen64)
	}
	b = b[:n+4*binary.MaxVarintLen64]
	for _, x := range v {
		u := uint64(x<<1) ^ uint64(x>>63)
		for u >= 0x80 {
			b[n] = byte(u) | 0x80
			u >>= 7
			n++
		}
		b[n] = byte(u)
		n++
	}
	return b[:n]
}

// stateReader reads the payload; the first error sticks.
type stateReader struct {
	b   []byte
	err error
}

func (r *stateReader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: bad %s", errStateCorrupt, what)
	}
}

func (r *stateReader) uvarint(what string) uint64 {
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
// the rest of the file cannot hold is corrupt (and allocates nothing).
func (r *stateReader) count(what string, min int) int {
	n := r.uvarint(what)
	if r.err == nil && n > uint64(len(r.b)/min) {
		r.fail(what)
		return 0
	}
	return int(n)
}

func (r *stateReader) str(what string) string {
	n := r.uvarint(what)
	if r.err != nil {
		return ""
	}
	if n > maxStateString || n > uint64(len(r.b)) {
		r.fail(what)
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

// decodeState reads a file written by encodeState. An error says why the
// file is not one: not a state file, a newer version, or corrupt.
func decodeState(data []byte) (map[string]*storedCluster, map[string]alerts.Notice, error) {
	if !bytes.HasPrefix(data, []byte(stateMagic)) {
		return nil, nil, errors.New("not a kadmin-lua state file")
	}
	data = data[len(stateMagic):]
	version, n := binary.Uvarint(data)
	if n <= 0 {
		return nil, nil, fmt.Errorf("%w: no version", errStateCorrupt)
	}
	if version > stateVersion {
		return nil, nil, fmt.Errorf("%w: format version %d, this kadmin-lua reads versions 1 to %d", errStateNewer, version, stateVersion)
	}
	if version != stateVersion && version != 1 {
		return nil, nil, fmt.Errorf("%w: format version %d", errStateCorrupt, version)
	}
	data = data[n:]
	if len(data) < 4 {
		return nil, nil, fmt.Errorf("%w: truncated", errStateCorrupt)
	}
	payload, sum := data[:len(data)-4], binary.BigEndian.Uint32(data[len(data)-4:])
	if crc32.ChecksumIEEE(payload) != sum {
		return nil, nil, fmt.Errorf("%w: checksum mismatch (truncated or damaged)", errStateCorrupt)
	}
	r := &stateReader{b: payload}
	clusters := map[string]*storedCluster{}
	var slab []Sample
	for range r.count("cluster count", 3) {
		id := r.str("cluster id")
		cs := &storedCluster{name: r.str("cluster name"), groups: map[string]*storedGroup{}}
		for range r.count("group count", 3) {
			g := r.str("group name")
			gs := &storedGroup{seenMs: r.varint("group time")}
			nt := r.count("topic count", 2)
			for range nt {
				t := r.str("topic name")
				np := r.count("partition count", 3)
				// One allocation for the topic's partitions, and their
				// samples from slabs: 300,000 partitions were 600,000
				// small objects for the collector to mark on every cycle.
				sts := make([]storedPartition, np)
				if gs.parts == nil { // sized as if every topic had as many partitions
					gs.parts = make(map[vocab.TopicPartition]*storedPartition, min(np*nt, len(r.b)))
				}
				for i := range np {
					p := r.varint("partition")
					st := &sts[i]
					st.changedMs = r.varint("changed time")
					if version > 1 {
						st.pauseMs = r.varint("pause")
					}
					ns := r.count("sample count", 4)
					if len(slab)+ns > cap(slab) {
						slab = make([]Sample, 0, max(4096, ns))
					}
					// Capped at ns: an append beyond it moves the window
					// out of the slab instead of onto its neighbour's.
					st.samples = slab[len(slab) : len(slab) : len(slab)+ns]
					slab = slab[:len(slab)+ns]
					var prev Sample
					for range ns {
						s := Sample{
							TimeMs:    prev.TimeMs + r.varint("sample time"),
							Committed: prev.Committed + r.varint("sample offset"),
							End:       prev.End + r.varint("sample end offset"),
							Lag:       r.varint("sample lag"),
						}
						st.samples = append(st.samples, s)
						prev = s
					}
					gs.parts[vocab.TopicPartition{Topic: t, Partition: int32(p)}] = st
				}
			}
			if gs.parts == nil {
				gs.parts = map[vocab.TopicPartition]*storedPartition{}
			}
			cs.groups[g] = gs
		}
		if r.err != nil {
			return nil, nil, r.err
		}
		clusters[id] = cs
	}
	notices := decodeNotices(r)
	if r.err == nil && len(r.b) != 0 {
		r.fail("end (bytes left over)")
	}
	if r.err != nil {
		return nil, nil, r.err
	}
	return clusters, notices, nil
}
