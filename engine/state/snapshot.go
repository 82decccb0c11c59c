package state

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/kadmin-lua/kadmin-lua/engine/alerts"
	"github.com/kadmin-lua/kadmin-lua/internal/boundedfile"
)

// Writing the state: a snapshot of the store is taken under its lock
// (every group packed, in order: no encoding), and written after the lock
// is let go, a piece at a time through a buffer, each group's bytes as
// they are, the checksum computed as it goes. While a snapshot is being
// written, a record packs changed groups in new allocations (frozen).

// snapshot is the store's content as the file holds it.
type snapshot struct {
	clusters []snapCluster
	notices  []byte // encodeNotices's
}

type snapCluster struct {
	id, name string
	groups   []snapGroup
}

type snapGroup struct {
	name   string
	seenMs int64
	packed []byte
}

func snapshotOf(clusters map[string]*storedCluster, notices map[string]alerts.Notice) *snapshot {
	sn := &snapshot{clusters: make([]snapCluster, 0, len(clusters)), notices: encodeNotices(nil, notices)}
	for _, id := range slices.Sorted(maps.Keys(clusters)) {
		cs := clusters[id]
		sc := snapCluster{id: id, name: cs.name, groups: make([]snapGroup, 0, len(cs.groups))}
		for g, gs := range cs.groups {
			sc.groups = append(sc.groups, snapGroup{g, gs.seenMs, gs.packed})
		}
		slices.SortFunc(sc.groups, func(a, b snapGroup) int { return strings.Compare(a.name, b.name) })
		sn.clusters = append(sn.clusters, sc)
	}
	return sn
}

func uvarintLen(v uint64) int64 {
	n := int64(1)
	for ; v >= 0x80; v >>= 7 {
		n++
	}
	return n
}

func varintLen(v int64) int64 { return uvarintLen(uint64(v<<1) ^ uint64(v>>63)) }
func strLen(s string) int64   { return uvarintLen(uint64(len(s))) + int64(len(s)) }

// groupSize is what a group takes in the file.
func groupSize(name string, seenMs int64, packed []byte) int64 {
	return strLen(name) + varintLen(seenMs) + int64(len(packed))
}

// size is the file's size, exactly.
func (sn *snapshot) size() int64 {
	n := int64(len(stateMagic)) + uvarintLen(stateVersion) + uvarintLen(uint64(len(sn.clusters)))
	for _, sc := range sn.clusters {
		n += strLen(sc.id) + strLen(sc.name) + uvarintLen(uint64(len(sc.groups)))
		for _, g := range sc.groups {
			n += groupSize(g.name, g.seenMs, g.packed)
		}
	}
	return n + int64(len(sn.notices)) + 4
}

// writeTo writes the file, through a buffer.
func (sn *snapshot) writeTo(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	if _, err := bw.WriteString(stateMagic); err != nil {
		return err
	}
	if _, err := bw.Write(binary.AppendUvarint(nil, stateVersion)); err != nil {
		return err
	}
	sum := crc32.NewIEEE()
	var head []byte
	put := func(b []byte) error {
		sum.Write(b)
		_, err := bw.Write(b)
		return err
	}
	str := func(s string) {
		head = binary.AppendUvarint(head, uint64(len(s)))
		head = append(head, s...)
	}
	head = binary.AppendUvarint(head, uint64(len(sn.clusters)))
	for _, sc := range sn.clusters {
		str(sc.id)
		str(sc.name)
		head = binary.AppendUvarint(head, uint64(len(sc.groups)))
		for _, g := range sc.groups {
			str(g.name)
			head = binary.AppendVarint(head, g.seenMs)
			if err := put(head); err != nil {
				return err
			}
			head = head[:0]
			if err := put(g.packed); err != nil {
				return err
			}
		}
	}
	if err := put(append(head, sn.notices...)); err != nil {
		return err
	}
	if _, err := bw.Write(binary.BigEndian.AppendUint32(nil, sum.Sum32())); err != nil {
		return err
	}
	return bw.Flush()
}

// bytes is the file in one buffer (a Remote's Write takes it whole).
func (sn *snapshot) bytes() []byte {
	var b bytes.Buffer
	b.Grow(int(sn.size()))
	_ = sn.writeTo(&b) // a bytes.Buffer's writes do not fail
	return b.Bytes()
}

// encodeState is the file of clusters and notices.
func encodeState(clusters map[string]*storedCluster, notices map[string]alerts.Notice) []byte {
	return snapshotOf(clusters, notices).bytes()
}

// snapshotLocked is the store's snapshot (s.mu held), within
// MaxFileBytes: a store whose file would be larger drops the groups
// sampled longest ago until it fits, and says so, so that no run writes a
// file the next cannot read. The caller lets the snapshot go with thaw
// once written.
func (s *Store) snapshotLocked() *snapshot {
	sn := snapshotOf(s.clusters, s.notices)
	if size := sn.size(); size > s.opts.MaxFileBytes {
		s.dropToFitLocked(size)
		sn = snapshotOf(s.clusters, s.notices)
	}
	s.frozen++
	return sn
}

// thaw says a snapshot is written: its bytes may change in place again.
func (s *Store) thaw() {
	s.mu.Lock()
	s.frozen--
	s.mu.Unlock()
}

// dropToFitLocked drops the groups sampled longest ago until the file
// (size bytes now) fits MaxFileBytes. What a group takes is known
// exactly: the counts before them only shrink.
func (s *Store) dropToFitLocked(size int64) {
	dropped := 0
	for _, a := range s.oldestFirstLocked() {
		if size <= s.opts.MaxFileBytes {
			break
		}
		delete(s.clusters[a.cluster].groups, a.group)
		size -= groupSize(a.group, a.gs.seenMs, a.gs.packed)
		dropped++
	}
	s.version++
	s.warn("state: the state file would be larger than %s: dropped the %d groups sampled longest ago", boundedfile.Size(s.opts.MaxFileBytes), dropped)
}
