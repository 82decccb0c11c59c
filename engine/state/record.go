package state

import (
	"fmt"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// Recording a call's samples: each group of a page unpacked, its
// partitions' windows updated and shown to the caller, and packed again.

// Group is what one lag_status call saw of one group: its partitions as
// the caller read them (P: engine's PartitionLag), which Record reads
// through its read function rather than copying 300,000 of them.
type Group[P any] struct {
	Name  string
	Gone  bool // the group does not exist (its samples are dropped)
	Parts []P
}

// Reading is what the store takes of one partition of a Group.
type Reading struct {
	TP        vocab.TopicPartition
	Committed int64 // -1: the group has no commit
	End       int64
	Lag       int64 // -1: unknown
	// Known is false when the partition could not be read (an error, or
	// no end offset): no sample is added, its window is still shown.
	Known bool
}

// PartitionWindow is one partition's window after a record. Its samples
// are the store's own: valid only during the visit that receives them.
type PartitionWindow struct {
	Samples   []Sample
	ChangedMs int64  // when the newest committed offset was first seen
	PauseMs   int64  // how long the offset before it stood still (0: not seen to move yet)
	Reset     string // why the window was started afresh, if it was
}

// Record adds one sample per partition at nowMs and shows each
// partition's window (oldest first) to visit, under the store's lock:
// seen[gi].Parts[pi]'s. Partitions that are no longer the group's are
// dropped; a partition whose end offset went back (the topic was deleted
// and made again) or whose samples are newer than now (the clock went
// backwards) starts afresh. visit may be nil. name is what the run calls
// the cluster (Name).
func Record[P any](s *Store, clusterID, name string, nowMs int64, seen []Group[P], read func(*P) Reading, visit func(gi, pi int, w PartitionWindow)) error {
	if err := RecordPage(s, clusterID, name, nowMs, seen, read, visit); err != nil {
		return err
	}
	s.WriteBehind()
	return nil
}

// RecordPage is Record for one page of the groups a call reads in pages:
// it does not start writing the file, which the call starts once, after
// its last page (WriteBehind): writing the whole store after every page
// made a 65,000-group call encode it 30 times.
func RecordPage[P any](s *Store, clusterID, name string, nowMs int64, seen []Group[P], read func(*P) Reading, visit func(gi, pi int, w PartitionWindow)) error {
	if err := s.lockChange(); err != nil {
		return err
	}
	defer s.mu.Unlock()
	cs, err := s.cluster(clusterID, name)
	if err != nil {
		return err
	}
	if visit == nil {
		visit = func(int, int, PartitionWindow) {}
	}
	backwards := 0
	// One group unpacked at a time, and packed again once its
	// partitions are recorded: the store holds every other group as its
	// file's bytes (pack.go).
	u := &s.work
	for gi := range seen {
		g := &seen[gi]
		if g.Gone {
			delete(cs.groups, g.Name)
			continue
		}
		gs := cs.groups[g.Name]
		if gs == nil {
			gs = &storedGroup{}
			cs.groups[g.Name] = gs
			u.reset()
		} else if err := u.unpack(gs.packed, stateVersion); err != nil {
			return vocab.Errorf(vocab.CodeInternal, "", "the state store's group %s: %v", g.Name, err)
		}
		gs.seenMs = nowMs
		for pi := range g.Parts {
			r := read(&g.Parts[pi])
			up := u.find(r.TP)
			if !r.Known {
				if up != nil {
					up.seen = true
					visit(gi, pi, PartitionWindow{Samples: up.samples, ChangedMs: up.changedMs, PauseMs: up.pauseMs})
				}
				continue
			}
			if up == nil {
				up = u.add(r.TP)
			}
			up.seen = true
			ps := &up.storedPartition
			reset := s.add(ps, Sample{TimeMs: nowMs, Committed: r.Committed, End: r.End, Lag: r.Lag})
			if reset == resetClock {
				backwards++
			}
			visit(gi, pi, PartitionWindow{Samples: ps.samples, ChangedMs: ps.changedMs, PauseMs: ps.pauseMs, Reset: reset})
		}
		// Partitions that are no longer the group's (not seen) are
		// dropped here.
		s.packLocked(gs, u)
	}
	if backwards > 0 {
		s.warn("state: the clock went backwards: %d partitions' windows started afresh", backwards)
	}
	s.expireLocked(nowMs)
	s.version++
	return nil
}

// WriteBehind starts writing the store's file behind the run (save.go),
// after a change: Save then only renames it, unless the store changed
// since.
func (s *Store) WriteBehind() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.saveBehindLocked()
}

const resetClock = "the clock went backwards"

// add puts a sample taken now into a partition's window and says why the
// window started afresh, if it did: its samples are newer than now (the
// clock went backwards) or the end offset went back (the topic was
// deleted and made again). A sample taken sooner than the minimum
// distance after the newest is merged into it, which keeps its time
// (Burrow's min-distance: taking the new time, a loop faster than the
// distance never grew its window past one sample); samples older than the
// window are dropped but the newest of them, which opens the window.
func (s *Store) add(ps *storedPartition, sample Sample) (reset string) {
	now := sample.TimeMs
	if n := len(ps.samples); n > 0 {
		last := ps.samples[n-1]
		switch {
		case last.TimeMs > sample.TimeMs:
			reset = resetClock
		case sample.End < last.End:
			reset = fmt.Sprintf("the end offset went back from %d to %d: the topic was deleted and made again", last.End, sample.End)
		}
		if reset != "" {
			ps.samples = ps.samples[:0]
		}
	}
	switch n := len(ps.samples); {
	case n == 0:
		ps.changedMs, ps.pauseMs = sample.TimeMs, 0
	case ps.samples[n-1].Committed != sample.Committed:
		ps.pauseMs, ps.changedMs = sample.TimeMs-ps.changedMs, sample.TimeMs
	}
	if n := len(ps.samples); n > 0 && now-ps.samples[n-1].TimeMs < s.spacingMs() {
		sample.TimeMs = ps.samples[n-1].TimeMs
		ps.samples[n-1] = sample
	} else {
		if n := len(ps.samples); n > 0 && n == cap(ps.samples) && s.dropsOldest(ps.samples, now) {
			// Room made in place: the window below drops its oldest
			// sample anyway. Appending first moved every full window
			// (the file's are decoded full) to an array twice its size:
			// at 2.6 million partitions, 1.7 GB more for the collector.
			ps.samples = append(ps.samples[:0], ps.samples[1:]...)
		}
		ps.samples = append(ps.samples, sample)
	}
	// The window: the samples within it, and the newest one at or before
	// its start; at most MaxSamples (the spacing keeps it so, but for a
	// window or a bound changed since the samples were taken).
	cut := now - s.opts.Window.Milliseconds()
	first := 0
	for first+1 < len(ps.samples) && ps.samples[first+1].TimeMs <= cut {
		first++
	}
	first = max(first, len(ps.samples)-s.opts.MaxSamples)
	if first > 0 {
		ps.samples = append(ps.samples[:0], ps.samples[first:]...)
	}
	return reset
}

// dropsOldest reports whether the window below drops samples[0] once a
// sample taken at now is appended: the next one is at or before the
// window's start, or the window would hold more than MaxSamples.
func (s *Store) dropsOldest(samples []Sample, now int64) bool {
	cut := now - s.opts.Window.Milliseconds()
	return (len(samples) >= 2 && samples[1].TimeMs <= cut) || len(samples)+1 > s.opts.MaxSamples
}

// spacingMs is how far apart the samples of a window are kept: the
// minimum distance, or more when the window would otherwise hold more
// than MaxSamples.
func (s *Store) spacingMs() int64 {
	return max(s.opts.MinDistance.Milliseconds(), s.opts.Window.Milliseconds()/int64(max(s.opts.MaxSamples-2, 1)))
}
