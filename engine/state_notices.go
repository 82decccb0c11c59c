package engine

import (
	"encoding/binary"
	"maps"
	"slices"
	"strings"
)

// The store keeps what kafka.notify last sent for each alert key, so that
// an alert goes out once when it opens, once when it resolves, and again
// only after its repeat interval, across runs. Notices are kept per
// cluster name (a profile, or the bootstrap servers: what the run calls
// the cluster, known before it is reached), so that a fleet's members
// sharing one file keep their alerts apart.

// Notices is the store's NoticeLedger for the cluster a run calls name.
func (s *StateStore) Notices(name string) NoticeLedger {
	return storeLedger{s: s, prefix: name + "\x00"}
}

type storeLedger struct {
	s      *StateStore
	prefix string
}

func (l storeLedger) LastNotice(key string) (Notice, bool) {
	l.s.lock()
	defer l.s.mu.Unlock()
	n, ok := l.s.notices[l.prefix+key]
	return n, ok
}

// Ready takes the state file's lock before anything is sent: an alert is
// not sent by a run that could not record it (the next run would send it
// again).
func (l storeLedger) Ready() error {
	return l.s.lockFile() // and reads the file under it
}

func (l storeLedger) SaveNotice(key string, n Notice) error {
	if err := l.s.lockChange(); err != nil {
		return err
	}
	defer l.s.mu.Unlock()
	if l.s.notices == nil {
		l.s.notices = map[string]Notice{}
	}
	l.s.notices[l.prefix+key] = n
	l.s.version++
	return nil
}

// expireNoticesLocked drops notices last sent before cut.
func (s *StateStore) expireNoticesLocked(cut int64) {
	maps.DeleteFunc(s.notices, func(_ string, n Notice) bool { return n.SentMs < cut })
}

// notices := uvarint(n) { string(name NUL key) string(status) varint(opened) varint(sent) }
func encodeNotices(b []byte, notices map[string]Notice) []byte {
	b = binary.AppendUvarint(b, uint64(len(notices)))
	for _, k := range slices.Sorted(maps.Keys(notices)) {
		n := notices[k]
		for _, s := range []string{k, n.Status} {
			b = binary.AppendUvarint(b, uint64(len(s)))
			b = append(b, s...)
		}
		b = binary.AppendVarint(b, n.OpenedMs)
		b = binary.AppendVarint(b, n.SentMs)
	}
	return b
}

func decodeNotices(r *stateReader) map[string]Notice {
	n := r.count("notice count", 4)
	if n == 0 {
		return nil
	}
	out := make(map[string]Notice, n)
	for range n {
		k := r.str("notice key")
		if r.err == nil && !strings.Contains(k, "\x00") {
			r.fail("notice key")
		}
		out[k] = Notice{Status: r.str("notice status"), OpenedMs: r.varint("notice time"), SentMs: r.varint("notice sent time")}
	}
	return out
}
