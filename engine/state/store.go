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
	DefaultMaxEntries  = 4_000_000
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
	// work is the group a record is updating, and peek the group read
	// last (pack.go); packs counts packs; frozen counts the snapshots
	// being written, from bytes that must then not change (snapshot.go).
	work unpacked
	peek struct {
		gs *storedGroup
		at uint64
		u  unpacked
	}
	packs  uint64
	frozen int
}

type storedCluster struct {
	name   string // the profile or bootstrap servers it was first seen as
	groups map[string]*storedGroup
}

// storedGroup is one group's partitions, packed (pack.go): the file's
// own bytes for them, which a record unpacks while it updates them.
type storedGroup struct {
	seenMs int64
	count  int    // its partitions
	packed []byte // the file's `topics` for it (codec.go)
	// packedAt is the store's count of packs when it was last packed
	// (0: as read): the group read last stays unpacked until it changes.
	packedAt uint64
}

// storedPartition is one partition's window, unpacked.
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

// expireLocked drops groups unseen for ExpireAfter, then, past MaxEntries
// partitions, the groups seen longest ago.
func (s *Store) expireLocked(nowMs int64) {
	cut := nowMs - s.opts.ExpireAfter.Milliseconds()
	total := 0
	s.expireNoticesLocked(cut)
	for _, cs := range s.clusters {
		for g, gs := range cs.groups {
			if gs.seenMs < cut {
				delete(cs.groups, g)
				continue
			}
			total += gs.count
		}
	}
	if total <= s.opts.MaxEntries {
		return
	}
	// Listed only when some must go: listing 65,000 groups after each
	// page of a call was most of what recording allocated.
	dropped := 0
	for _, a := range s.oldestFirstLocked() {
		if total <= s.opts.MaxEntries {
			break
		}
		delete(s.clusters[a.cluster].groups, a.group)
		total -= a.gs.count
		dropped++
	}
	s.warn("state: more than %d partitions: dropped the %d groups sampled longest ago", s.opts.MaxEntries, dropped)
}

// agedGroup is a group, for the bounds that drop the oldest first.
type agedGroup struct {
	cluster, group string
	gs             *storedGroup
}

// oldestFirstLocked lists the groups sampled longest ago first (then by
// cluster and name, so that the same go every time).
func (s *Store) oldestFirstLocked() []agedGroup {
	var all []agedGroup
	for id, cs := range s.clusters {
		for g, gs := range cs.groups {
			all = append(all, agedGroup{id, g, gs})
		}
	}
	slices.SortFunc(all, func(a, b agedGroup) int {
		if a.gs.seenMs != b.gs.seenMs {
			return int(a.gs.seenMs - b.gs.seenMs)
		}
		return strings.Compare(a.cluster+"\x00"+a.group, b.cluster+"\x00"+b.group)
	})
	return all
}

// Window returns a copy of one partition's samples, oldest first (nil when
// none): what lag_status would judge.
func (s *Store) Window(clusterID, group, topic string, partition int32) []Sample {
	s.lock()
	defer s.mu.Unlock()
	p := s.partitionLocked(clusterID, group, vocab.TopicPartition{Topic: topic, Partition: partition})
	if p == nil {
		return nil
	}
	return slices.Clone(p.samples)
}

// StillWindow is a partition's window when its newest sample has the
// committed offset given and that offset has stood still since before
// nowMs (what lag()'s stuck_ms judges), else false.
func (s *Store) StillWindow(clusterID, group string, tp vocab.TopicPartition, committed, nowMs int64) (PartitionWindow, bool) {
	s.lock()
	defer s.mu.Unlock()
	ps := s.partitionLocked(clusterID, group, tp)
	if ps == nil || len(ps.samples) == 0 || ps.samples[len(ps.samples)-1].Committed != committed || ps.changedMs >= nowMs {
		return PartitionWindow{}, false
	}
	return PartitionWindow{Samples: slices.Clone(ps.samples), ChangedMs: ps.changedMs, PauseMs: ps.pauseMs}, true
}

// partitionLocked is one partition's window (s.mu held), nil when none;
// valid until the lock is let go.
func (s *Store) partitionLocked(clusterID, group string, tp vocab.TopicPartition) *storedPartition {
	cs := s.clusters[clusterID]
	if cs == nil || cs.groups[group] == nil {
		return nil
	}
	u := s.peekLocked(cs.groups[group])
	if u == nil {
		return nil
	}
	if p := u.find(tp); p != nil {
		return &p.storedPartition
	}
	return nil
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
			n += gs.count
		}
	}
	return n
}
