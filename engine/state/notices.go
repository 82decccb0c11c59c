package state

import (
	"encoding/binary"
	"maps"
	"slices"
	"strings"

	"github.com/kadmin-lua/kadmin-lua/engine/alerts"
)

// The store keeps what kafka.notify last sent for each alert key, so that
// an alert goes out once when it opens, once when it resolves, and again
// only after its repeat interval, across runs. Notices are kept per
// cluster name (a profile, or the bootstrap servers: what the run calls
// the cluster, known before it is reached), so that a fleet's members
// sharing one file keep their alerts apart.

// Notices is the store's alerts.Ledger for the cluster a run calls name.
func (s *Store) Notices(name string) alerts.Ledger {
	return storeLedger{s: s, prefix: name + "\x00"}
}

type storeLedger struct {
	s      *Store
	prefix string
}

func (l storeLedger) LastNotice(key string) (alerts.Notice, bool) {
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

func (l storeLedger) SaveNotice(key string, n alerts.Notice) error {
	if err := l.s.lockChange(); err != nil {
		return err
	}
	defer l.s.mu.Unlock()
	if l.s.notices == nil {
		l.s.notices = map[string]alerts.Notice{}
	}
	l.s.notices[l.prefix+key] = n
	l.s.version++
	return nil
}

// expireNoticesLocked drops notices neither sent nor seen pending since cut.
func (s *Store) expireNoticesLocked(cut int64) {
	maps.DeleteFunc(s.notices, func(_ string, n alerts.Notice) bool { return n.LastSeenMs() < cut })
}

// notices := uvarint(n) { string(name NUL key) string(status) varint(opened) varint(sent) } [extras]
// extras  := uvarint(n) { labels string(pending) uvarint(pending runs) varint(pending time) }
// labels  := uvarint(0) | uvarint(count+1) { string(name) string(value) }
//
// extras hold, in the notices' order, what kadmin-lua records since alerts
// keep the labels they opened with and hysteresis: files written before
// have none (every notice's labels unknown), and a store with no notices
// writes none, so an older kadmin-lua still reads it. labels 0 is nil: not
// known, which is not the same as none.
func encodeNotices(b []byte, notices map[string]alerts.Notice) []byte {
	b = binary.AppendUvarint(b, uint64(len(notices)))
	if len(notices) == 0 {
		return b
	}
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	keys := slices.Sorted(maps.Keys(notices))
	for _, k := range keys {
		n := notices[k]
		str(k)
		str(n.Status)
		b = binary.AppendVarint(b, n.OpenedMs)
		b = binary.AppendVarint(b, n.SentMs)
	}
	b = binary.AppendUvarint(b, uint64(len(keys)))
	for _, k := range keys {
		n := notices[k]
		if n.Labels == nil {
			b = binary.AppendUvarint(b, 0)
		} else {
			b = binary.AppendUvarint(b, uint64(len(n.Labels))+1)
			for _, name := range slices.Sorted(maps.Keys(n.Labels)) {
				str(name)
				str(n.Labels[name])
			}
		}
		str(n.Pending)
		b = binary.AppendUvarint(b, uint64(max(n.PendingRuns, 0)))
		b = binary.AppendVarint(b, n.PendingMs)
	}
	return b
}

func decodeNotices(r *stateReader) map[string]alerts.Notice {
	n := r.count("notice count", 4)
	if n == 0 {
		return nil
	}
	out := make(map[string]alerts.Notice, n)
	keys := make([]string, 0, n)
	for range n {
		k := r.str("notice key")
		if r.err == nil && !strings.Contains(k, "\x00") {
			r.fail("notice key")
		}
		out[k] = alerts.Notice{Status: r.str("notice status"), OpenedMs: r.varint("notice time"), SentMs: r.varint("notice sent time")}
		keys = append(keys, k)
	}
	if r.err != nil || len(r.b) == 0 {
		return out // written before the extras
	}
	if r.count("notice extras count", 3) != n {
		r.fail("notice extras count")
		return nil
	}
	for _, k := range keys {
		nt := out[k]
		if c := r.count("notice label count", 2); c > 0 {
			nt.Labels = make(map[string]string, c-1)
			for range c - 1 {
				name := r.str("notice label name")
				nt.Labels[name] = r.str("notice label value")
			}
		}
		nt.Pending = r.str("notice pending status")
		nt.PendingRuns = int(min(r.uvarint("notice pending runs"), 1<<31-1))
		nt.PendingMs = r.varint("notice pending time")
		out[k] = nt
	}
	return out
}
