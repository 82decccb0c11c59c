package state

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// A group is kept packed: its partitions as the file holds them (the
// `topics` of codec.go's grammar), in an allocation of its own. Decoded,
// a partition took 400 to 600 bytes (a map entry, its window's array,
// the collector's work on both); packed, its figures as varints and its
// samples as differences take 60 to 100. A group is unpacked only while
// it is used: recorded (record.go), or read (Window, StillWindow: the
// group read last stays unpacked, since lag asks for its partitions one
// after the other), and packed again before the store's lock is let go.
//
// Packed bytes are changed in place only while no snapshot of the store
// is being written (Store.frozen, snapshot.go): a file is written from
// them after the lock is let go.

// unpacked is one group's partitions decoded, in the order its bytes hold
// them, and those a record adds. Its arrays are reused from one group to
// the next: a window it gives is valid until the next group is unpacked.
type unpacked struct {
	parts  []unpackedPartition
	added  []unpackedPartition
	sorted bool // parts are in (topic, partition) order, each once: a file written by kadmin-lua
	next   int  // where find looks first: readings come in the order the bytes are
	slab   []Sample
	names  map[string]string // topic names seen, so that unpacking a group allocates none
	order  []*unpackedPartition
	out    []byte
}

type unpackedPartition struct {
	tp   vocab.TopicPartition
	seen bool // read by the record: kept when packed
	storedPartition
}

// maxTopicNames bounds the topic names an unpacked remembers.
const maxTopicNames = 1 << 16

func compareTP(a, b vocab.TopicPartition) int {
	if c := strings.Compare(a.Topic, b.Topic); c != 0 {
		return c
	}
	return cmp.Compare(a.Partition, b.Partition)
}

// scanTopics reads a group's `topics` as a file holds it, checking every
// count, varint and bound as decoding would, and counts its partitions,
// allocating nothing. canonical says they are as this version writes
// them: version 2, in (topic, partition) order, each once.
func scanTopics(r *stateReader, version uint64) (count int, canonical bool) {
	canonical = version == stateVersion
	nt := r.count("topic count", 2)
	for ti := range nt {
		name := r.strBytes("topic name")
		if r.err != nil {
			return 0, false
		}
		if ti > 0 && bytes.Compare(r.lastTopic, name) >= 0 {
			canonical = false
		}
		r.lastTopic = append(r.lastTopic[:0], name...)
		np := r.count("partition count", 3)
		if np == 0 {
			canonical = false // a topic with no partitions is not written
		}
		last := int64(math.MinInt64)
		for range np {
			p := r.varint("partition")
			if p <= last || p != int64(int32(p)) {
				canonical = false
			}
			last = p
			r.varint("changed time")
			if version > 1 {
				r.varint("pause")
			}
			for range r.count("sample count", 4) {
				r.varint("sample time")
				r.varint("sample offset")
				r.varint("sample end offset")
				r.varint("sample lag")
			}
			if r.err != nil {
				return 0, false
			}
			count++
		}
	}
	return count, canonical
}

func (u *unpacked) intern(b []byte) string {
	if t, ok := u.names[string(b)]; ok {
		return t
	}
	if u.names == nil || len(u.names) >= maxTopicNames {
		u.names = map[string]string{}
	}
	t := string(b)
	u.names[t] = t
	return t
}

func (u *unpacked) reset() {
	u.parts, u.added, u.slab = u.parts[:0], u.added[:0], u.slab[:0]
	u.sorted, u.next = true, 0
}

// unpack decodes a group's bytes of the version given (the store's are
// the current one's). They were checked when read (scanTopics) or written
// by pack, so they are decoded without stateReader's bookkeeping (with
// it, unpacking was a tenth of lag_status); anything amiss is still an
// error, never a read out of bounds.
func (u *unpacked) unpack(b []byte, version uint64) error {
	u.reset()
	d := packedReader{b: b}
	for range d.count() {
		n := int(d.count())
		topic := u.intern(d.b[d.i : d.i+n])
		d.i += n
		for range d.count() {
			p, changed := d.varint(), d.varint()
			var pause int64
			if version > 1 {
				pause = d.varint()
			}
			ns := int(d.count())
			w := u.window(ns)
			var prev Sample
			for range ns {
				prev = Sample{TimeMs: prev.TimeMs + d.varint(), Committed: prev.Committed + d.varint(), End: prev.End + d.varint(), Lag: d.varint()}
				w = append(w, prev)
			}
			u.parts = append(u.parts, unpackedPartition{tp: vocab.TopicPartition{Topic: topic, Partition: int32(p)},
				storedPartition: storedPartition{changedMs: changed, pauseMs: pause, samples: w}})
		}
	}
	if d.bad || d.i != len(d.b) {
		return fmt.Errorf("%w: bad packed group", errStateCorrupt)
	}
	return nil
}

// window is room in the slab for a window of n samples and the one a
// record adds: recording allocates nothing (with no room to spare, every
// window that grew moved to an array of its own, at every record).
// Capped: an append beyond it moves the window out of the slab instead
// of onto its neighbour's.
func (u *unpacked) window(n int) []Sample {
	if len(u.slab)+n+1 > cap(u.slab) {
		u.slab = make([]Sample, 0, max(4096, n+1, 2*cap(u.slab)))
	}
	w := u.slab[len(u.slab) : len(u.slab) : len(u.slab)+n+1]
	u.slab = u.slab[:len(u.slab)+n+1]
	return w
}

// packedReader decodes bytes already checked: at the first thing amiss it
// is bad, at the end, and every read after is 0.
type packedReader struct {
	b   []byte
	i   int
	bad bool
}

func (d *packedReader) uvarint() uint64 {
	if d.i < len(d.b) && d.b[d.i] < 0x80 { // most are one byte
		d.i++
		return uint64(d.b[d.i-1])
	}
	v, n := binary.Uvarint(d.b[d.i:])
	if n <= 0 {
		d.bad, d.i = true, len(d.b)
		return 0
	}
	d.i += n
	return v
}

func (d *packedReader) varint() int64 {
	u := d.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

// count is a count or a length: at most the bytes left, since each item
// takes one at least.
func (d *packedReader) count() uint64 {
	n := d.uvarint()
	if n > uint64(len(d.b)-d.i) {
		d.bad, d.i = true, len(d.b)
		return 0
	}
	return n
}

// find is the partition tp, nil when the group has none.
func (u *unpacked) find(tp vocab.TopicPartition) *unpackedPartition {
	if u.next < len(u.parts) && u.parts[u.next].tp == tp {
		u.next++
		return &u.parts[u.next-1]
	}
	if !u.sorted {
		for i := range u.parts {
			if u.parts[i].tp == tp {
				return &u.parts[i]
			}
		}
		return nil
	}
	lo, hi := 0, len(u.parts)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if compareTP(u.parts[m].tp, tp) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(u.parts) && u.parts[lo].tp == tp {
		u.next = lo + 1
		return &u.parts[lo]
	}
	return nil
}

// add is a partition the group did not have; the pointer is valid until
// the next add.
func (u *unpacked) add(tp vocab.TopicPartition) *unpackedPartition {
	u.added = append(u.added, unpackedPartition{tp: tp, storedPartition: storedPartition{samples: u.window(0)}})
	return &u.added[len(u.added)-1]
}

// pack encodes the partitions seen and added, in (topic, partition)
// order, each once (the last read kept), and counts them. The bytes are
// u's own, valid until the next pack.
func (u *unpacked) pack() ([]byte, int) {
	list := u.order[:0]
	for i := range u.parts {
		if u.parts[i].seen {
			list = append(list, &u.parts[i])
		}
	}
	if len(u.added) > 0 || !u.sorted {
		for i := range u.added {
			list = append(list, &u.added[i])
		}
		slices.SortStableFunc(list, func(a, b *unpackedPartition) int { return compareTP(a.tp, b.tp) })
		kept := list[:0]
		for i, p := range list {
			if i+1 < len(list) && list[i+1].tp == p.tp {
				continue
			}
			kept = append(kept, p)
		}
		list = kept
	}
	u.order = list
	topics := 0
	for i, p := range list {
		if i == 0 || p.tp.Topic != list[i-1].tp.Topic {
			topics++
		}
	}
	b := binary.AppendUvarint(u.out[:0], uint64(topics))
	for i := 0; i < len(list); {
		t := list[i].tp.Topic
		n := 1
		for i+n < len(list) && list[i+n].tp.Topic == t {
			n++
		}
		b = binary.AppendUvarint(b, uint64(len(t)))
		b = append(b, t...)
		b = binary.AppendUvarint(b, uint64(n))
		for _, p := range list[i : i+n] {
			b = binary.AppendVarint(b, int64(p.tp.Partition))
			b = binary.AppendVarint(b, p.changedMs)
			b = binary.AppendVarint(b, p.pauseMs)
			b = binary.AppendUvarint(b, uint64(len(p.samples)))
			var prev Sample
			for _, s := range p.samples {
				b = appendSample(b, s.TimeMs-prev.TimeMs, s.Committed-prev.Committed, s.End-prev.End, s.Lag)
				prev = s
			}
		}
		i += n
	}
	u.out = b
	return b, len(list)
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

// packLocked packs u as gs's bytes (s.mu held): in place when they fit
// and no snapshot is being written from them, else in an allocation of
// their own.
func (s *Store) packLocked(gs *storedGroup, u *unpacked) {
	out, n := u.pack()
	s.packs++
	if s.frozen == 0 && len(out) <= cap(gs.packed) && len(out) >= cap(gs.packed)/2 {
		gs.packed = append(gs.packed[:0], out...)
	} else {
		gs.packed = append([]byte(nil), out...) // rounded up to its size class: room to grow in place
	}
	gs.count, gs.packedAt = n, s.packs
}

// peekLocked is gs unpacked for a use that only reads (s.mu held): the
// group read last stays unpacked while its bytes are unchanged.
func (s *Store) peekLocked(gs *storedGroup) *unpacked {
	c := &s.peek
	if c.gs != gs || c.at != gs.packedAt {
		c.gs = nil
		if c.u.unpack(gs.packed, stateVersion) != nil {
			return nil // not reached: the bytes were checked when read or packed
		}
		c.gs, c.at = gs, gs.packedAt
	}
	return &c.u
}
