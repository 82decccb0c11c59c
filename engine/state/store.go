// Package state is kadmin-lua's memory between runs (--state FILE): per
// cluster id, group, topic and partition the samples of the committed
// offset, the end offset and the lag that cover the last Window of time,
// from which lag_status judges a trend with Burrow's rules
// (engine/verdicts), and the ledger of what kafka.notify sent
// (engine/alerts' Notices). It is bounded (samples per partition,
// partitions in all, groups unseen for a while expire), shared by every
// client of a process (fleets keep their clusters apart by id), and
// written atomically under a lock (file.go, codec.go), or kept in a
// Remote (remote.go: --state kafka:TOPIC, whose Kafka half is the core's).
// It reads no cluster: the admin core (engine's lag_status) hands it what
// it read.
package state

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kadmin-lua/kadmin-lua/engine/alerts"
	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// Sample is one sample of a partition, taken by one lag_status call.
// Committed is -1 when the group had no commit; Lag -1 when unknown.
type Sample struct {
	TimeMs    int64 `json:"time"`
	Committed int64 `json:"committed"`
	End       int64 `json:"end_offset"`
	Lag       int64 `json:"lag"`
}

// Options bound a store. Zero values take the defaults.
type Options struct {
	// Window is the span of time lag_status judges: a partition keeps
	// the samples taken within it, and the newest one older (so that a
	// window, once there is history, covers its whole span).
	Window time.Duration
	// MaxSamples bounds the samples kept per partition: past
	// Window/(MaxSamples-2), samples are kept that far apart, so that a
	// fast loop thins its window rather than shorten it.
	MaxSamples int
	// MaxEntries bounds the partitions kept in all; past it, the groups
	// seen longest ago are dropped first.
	MaxEntries int
	// ExpireAfter drops a group not sampled for this long (Burrow's
	// expire-group, 7 days).
	ExpireAfter time.Duration
	// MinDistance: a sample taken sooner than this after the newest is
	// merged into it, which keeps its time (Burrow's min-distance), so
	// that a loop at 1 ms does not fill the window with one second.
	MinDistance time.Duration
	// LockWait is how long Open waits for another run's lock.
	LockWait time.Duration
	// MaxFileBytes bounds the state file read and written
	// (DefaultMaxFile): a larger file is set aside unread, and a
	// store that would write one drops its oldest groups.
	MaxFileBytes int64
	// Warn receives warnings: a file set aside, entries dropped, the clock
	// going backwards. nil discards them.
	Warn func(string)
}

// Store defaults.
const (
	// DefaultWindow is Burrow's window as it works: its 10 commits
	// at Java's default auto-commit interval (5 s) span 45 s.
	DefaultWindow      = 45 * time.Second
	DefaultSamples     = 48 // a 45 s window a second apart, with room
	DefaultMaxEntries  = 1_000_000
	DefaultExpireAfter = 7 * 24 * time.Hour
	DefaultMinDistance = time.Second
	DefaultLockWait    = 5 * time.Second
)

func (o Options) withDefaults() Options {
	if o.Window <= 0 {
		o.Window = DefaultWindow
	}
	if o.MaxSamples <= 0 {
		o.MaxSamples = DefaultSamples
	}
	if o.MaxEntries <= 0 {
		o.MaxEntries = DefaultMaxEntries
	}
	if o.ExpireAfter <= 0 {
		o.ExpireAfter = DefaultExpireAfter
	}
	if o.MinDistance < 0 {
		o.MinDistance = 0
	} else if o.MinDistance == 0 {
		o.MinDistance = DefaultMinDistance
	}
	if o.LockWait <= 0 {
		o.LockWait = DefaultLockWait
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = DefaultMaxFile
	}
	return o
}

// Store holds the samples. Its methods are safe for concurrent use.
// A store made by New lives in memory only (the REPL, loop mode
// without --state); OpenFile's is also written to its file by Save.
type Store struct {
	mu       sync.Mutex
	opts     Options
	clusters map[string]*storedCluster // by cluster id
	notices  map[string]alerts.Notice  // kafka.notify's, by cluster name and key (notices.go)
	file     *stateFile                // nil: memory only
	remote   *remoteState              // nil: not kept in a Remote (remote.go)
	// loading is closed once the file is read and decoded, which the
	// first use starts (loadOnce); warnOnce says once that a file that
	// could not be read is not used (file.go).
	loading  chan struct{}
	loadOnce sync.Once
	warnOnce sync.Once
	// version counts the changes (under mu); behind is the write started
	// after the last record (file.go, saveBehind).
	version uint64
	behind  *behindSave
}

type storedCluster struct {
	name   string // the profile or bootstrap servers it was first seen as
	groups map[string]*storedGroup
}

type storedGroup struct {
	seenMs int64
	parts  map[vocab.TopicPartition]*storedPartition
}

type storedPartition struct {
	changedMs int64 // when the committed offset was first seen at its value
	// pauseMs is how long the offset before it stood still: from when it
	// was first seen to changedMs (0: not seen to move yet). Kept beyond
	// the window, so that from cron a consumer's usual pause between
	// commits is known (verdicts.EvaluateOptions.PauseMs).
	pauseMs int64
	samples []Sample
}

// New is a store in memory only.
func New(o Options) *Store {
	return &Store{opts: o.withDefaults(), clusters: map[string]*storedCluster{}}
}

func (s *Store) warn(format string, args ...any) {
	if s.opts.Warn != nil {
		s.opts.Warn(fmt.Sprintf(format, args...))
	}
}

// cluster is the state of one cluster, made on first use. name is what the
// run calls it (a profile, or the bootstrap servers): a file that holds
// another cluster id under that name is refused for it, since its samples
// would be judged against a different cluster's offsets.
func (s *Store) cluster(id, name string) (*storedCluster, error) {
	if id == "" {
		return nil, vocab.Errorf(vocab.CodeInternal, "", "the state store needs the cluster id")
	}
	if name != "" {
		for other, cs := range s.clusters {
			if other != id && cs.name == name {
				return nil, vocab.Errorf(vocab.CodeInvalidArgument, "", "the state file holds cluster %s as %q, but %q is now cluster %s: its samples are not this cluster's; use another --state file, or remove that one", other, name, name, id)
			}
		}
	}
	cs := s.clusters[id]
	if cs == nil {
		cs = &storedCluster{name: name, groups: map[string]*storedGroup{}}
		s.clusters[id] = cs
	} else if cs.name == "" {
		cs.name = name
	}
	return cs, nil
}

// Name is what a run calls its cluster in the store: "profile:NAME" when
// it came from a profile, else its seed brokers, sorted.
func Name(profile string, brokers []string) string {
	if profile != "" {
		return "profile:" + profile
	}
	return strings.Join(slices.Sorted(slices.Values(brokers)), ",")
}

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
	for gi := range seen {
		g := &seen[gi]
		if g.Gone {
			delete(cs.groups, g.Name)
			continue
		}
		gs := cs.groups[g.Name]
		if gs == nil {
			gs = &storedGroup{parts: make(map[vocab.TopicPartition]*storedPartition, len(g.Parts))}
			cs.groups[g.Name] = gs
		}
		gs.seenMs = nowMs
		kept := 0
		for pi := range g.Parts {
			r := read(&g.Parts[pi])
			ps := gs.parts[r.TP]
			if !r.Known {
				if ps != nil {
					kept++
					visit(gi, pi, PartitionWindow{Samples: ps.samples, ChangedMs: ps.changedMs, PauseMs: ps.pauseMs})
				}
				continue
			}
			if ps == nil {
				ps = &storedPartition{samples: make([]Sample, 0, 4)}
				gs.parts[r.TP] = ps
			}
			kept++
			reset := s.add(ps, Sample{TimeMs: nowMs, Committed: r.Committed, End: r.End, Lag: r.Lag})
			if reset == resetClock {
				backwards++
			}
			visit(gi, pi, PartitionWindow{Samples: ps.samples, ChangedMs: ps.changedMs, PauseMs: ps.pauseMs, Reset: reset})
		}
		if kept != len(gs.parts) {
			keep := make(map[vocab.TopicPartition]bool, len(g.Parts))
			for pi := range g.Parts {
				keep[read(&g.Parts[pi]).TP] = true
			}
			maps.DeleteFunc(gs.parts, func(tp vocab.TopicPartition, _ *storedPartition) bool { return !keep[tp] })
		}
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

// expireLocked drops groups unseen for ExpireAfter, then, past MaxEntries
// partitions, the groups seen longest ago.
func (s *Store) expireLocked(nowMs int64) {
	cut := nowMs - s.opts.ExpireAfter.Milliseconds()
	type aged struct {
		cluster, group string
		seenMs         int64
		parts          int
	}
	var all []aged
	total := 0
	s.expireNoticesLocked(cut)
	for id, cs := range s.clusters {
		for g, gs := range cs.groups {
			if gs.seenMs < cut {
				delete(cs.groups, g)
				continue
			}
			all = append(all, aged{id, g, gs.seenMs, len(gs.parts)})
			total += len(gs.parts)
		}
	}
	if total <= s.opts.MaxEntries {
		return
	}
	slices.SortFunc(all, func(a, b aged) int {
		if a.seenMs != b.seenMs {
			return int(a.seenMs - b.seenMs)
		}
		return strings.Compare(a.cluster+"\x00"+a.group, b.cluster+"\x00"+b.group)
	})
	dropped := 0
	for _, a := range all {
		if total <= s.opts.MaxEntries {
			break
		}
		delete(s.clusters[a.cluster].groups, a.group)
		total -= a.parts
		dropped++
	}
	s.warn("state: more than %d partitions: dropped the %d groups sampled longest ago", s.opts.MaxEntries, dropped)
}

// Window returns a copy of one partition's samples, oldest first (nil when
// none): what lag_status would judge.
func (s *Store) Window(clusterID, group, topic string, partition int32) []Sample {
	s.lock()
	defer s.mu.Unlock()
	cs := s.clusters[clusterID]
	if cs == nil || cs.groups[group] == nil {
		return nil
	}
	ps := cs.groups[group].parts[vocab.TopicPartition{Topic: topic, Partition: partition}]
	if ps == nil {
		return nil
	}
	return slices.Clone(ps.samples)
}

// StillWindow is a partition's window when its newest sample has the
// committed offset given and that offset has stood still since before
// nowMs (what lag()'s stuck_ms judges), else false.
func (s *Store) StillWindow(clusterID, group string, tp vocab.TopicPartition, committed, nowMs int64) (PartitionWindow, bool) {
	s.lock()
	defer s.mu.Unlock()
	cs := s.clusters[clusterID]
	if cs == nil || cs.groups[group] == nil {
		return PartitionWindow{}, false
	}
	ps := cs.groups[group].parts[tp]
	if ps == nil || len(ps.samples) == 0 || ps.samples[len(ps.samples)-1].Committed != committed || ps.changedMs >= nowMs {
		return PartitionWindow{}, false
	}
	return PartitionWindow{Samples: slices.Clone(ps.samples), ChangedMs: ps.changedMs, PauseMs: ps.pauseMs}, true
}

// Empty reports whether the store holds no samples at all.
func (s *Store) Empty() bool {
	s.lock()
	defer s.mu.Unlock()
	for _, cs := range s.clusters {
		if len(cs.groups) > 0 {
			return false
		}
	}
	return true
}

// Options are the store's bounds, defaults filled in.
func (s *Store) Options() Options { return s.opts }

// Partitions counts the partitions the store holds, over all clusters.
func (s *Store) Partitions() int {
	s.lock()
	defer s.mu.Unlock()
	n := 0
	for _, cs := range s.clusters {
		for _, gs := range cs.groups {
			n += len(gs.parts)
		}
	}
	return n
}
