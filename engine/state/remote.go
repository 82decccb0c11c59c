package state

import (
	"errors"
	"fmt"
	"sync"

	"github.com/kadmin-lua/kadmin-lua/engine/alerts"
)

// A store kept somewhere other than a file (--state kafka:TOPIC: a
// compacted topic of the cluster it samples, which the admin core reads and
// writes, since only the core holds a Kafka client). The content is the
// file's encoding (codec.go), bounds and all; what changes is how a run
// becomes the only writer and how a version is read and replaced:
//
//   - a use that only reads (lag's stuck_ms) reads the latest version once,
//     taking nothing, as it reads a file;
//   - the first change (lag_status about to sample, kafka.notify about to
//     send) first takes the state (Remote.Take: the core's transactional
//     producer fences any older run, which can then write nothing), then
//     reads the latest version again, so that it starts from what the run
//     before it wrote;
//   - Save replaces the version whole (Remote.Write: one transaction), only
//     when the store changed since it was read.
//
// A version that cannot be read as a whole state (a corrupt or foreign
// record, a part compacted away) is not used: the run starts with no
// samples and says so, as with a damaged file; one of a newer format is
// also never overwritten. A remote that cannot be reached or read at all
// (unauthorized, down) fails the change: a run that wrote over a state it
// could not read would lose it.

// Remote is where a store is kept when it is not a file. Its calls are
// bounded by the remote's own timeout.
type Remote interface {
	// Take makes this run the state's only writer, before it is read for
	// a change: an older run that had taken it can no longer write.
	Take() error
	// Read returns the latest version written whole, at most limit bytes
	// (nil: none yet). A version that is there but cannot be used is an
	// error wrapping ErrUnreadable; any other error is the remote's
	// (unreachable, unauthorized).
	Read(limit int64) ([]byte, error)
	// Write replaces the version with data, atomically.
	Write(data []byte) error
	// Close lets go of the remote; what was not written is dropped.
	Close()
	// String is where the state is kept, for messages: "kafka:TOPIC/KEY".
	String() string
}

// ErrUnreadable marks a version a Remote found but cannot use whole.
var ErrUnreadable = errors.New("cannot be read as a whole state")

// errStateNewer marks a state of a newer format (codec.go): it is never
// overwritten.
var errStateNewer = errors.New("a newer format")

// remoteState is a store's Remote and what the store knows of it.
type remoteState struct {
	r Remote
	// mu guards the rest, and is taken before the store's own mutex.
	mu sync.Mutex
	// taken: Take succeeded; fresh: the content was read since (a change
	// may go on); read: a read was tried (a use that only reads tries
	// once).
	taken, fresh, read bool
	// written is the store's version as last read or written: Save
	// writes nothing while it is unchanged.
	written uint64
	// keep: the version is of a newer format; Save refuses to replace it.
	keep error
}

// OpenRemote is a store kept in r. Nothing is read here: the first use
// reads, the first change takes r.
func OpenRemote(r Remote, o Options) *Store {
	s := New(o)
	s.remote = &remoteState{r: r}
	return s
}

// readRemoteOnce reads the remote for a use that only reads, once; what it
// cannot read is said and the store stays empty.
func (s *Store) readRemoteOnce() {
	rs := s.remote
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.read {
		return
	}
	if err := s.readRemoteLocked(); err != nil {
		s.warn("state: %s cannot be read (%v): this run uses no samples from it", rs.r, err)
	}
}

// takeRemote is lockFile for a remote: take it (once), then read the
// latest version under it. An error leaves the store as it was, and the
// next change tries again.
func (s *Store) takeRemote() error {
	rs := s.remote
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if !rs.taken {
		if err := rs.r.Take(); err != nil {
			return err
		}
		rs.taken, rs.fresh = true, false
	}
	if rs.fresh {
		return nil
	}
	return s.readRemoteLocked()
}

// readRemoteLocked reads the latest version into the store (rs.mu held).
// A version it cannot use is said, and the store starts empty; the
// remote's own error is returned with the store left as it was.
func (s *Store) readRemoteLocked() error {
	rs := s.remote
	rs.read = true
	data, err := rs.r.Read(s.opts.MaxFileBytes)
	if err != nil && !errors.Is(err, ErrUnreadable) {
		return err
	}
	var clusters map[string]*storedCluster
	var notices map[string]alerts.Notice
	if err == nil && data != nil {
		clusters, notices, err = decodeState(data)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		clusters, notices = nil, nil
		if errors.Is(err, errStateNewer) {
			rs.keep = fmt.Errorf("the state in %s is %v: it is left as it is and not written", rs.r, err)
			s.warn("%s", rs.keep.Error())
		} else {
			s.warn("state: %s cannot be read as a state (%v): starting with no samples; the next write replaces it", rs.r, err)
		}
	}
	if clusters == nil {
		clusters = map[string]*storedCluster{}
	}
	s.clusters, s.notices = clusters, notices
	s.version++
	rs.written = s.version
	rs.fresh = rs.taken
	return nil
}

// saveRemote is Save for a remote: the store, written whole when it
// changed since it was read or last written.
func (s *Store) saveRemote() error {
	rs := s.remote
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if !rs.fresh {
		return nil // never changed
	}
	if rs.keep != nil {
		return rs.keep
	}
	s.mu.Lock()
	if s.version == rs.written {
		s.mu.Unlock()
		return nil
	}
	sn := s.snapshotLocked()
	version := s.version
	s.mu.Unlock()
	data := sn.bytes()
	s.thaw()
	if err := rs.r.Write(data); err != nil {
		// Fenced by a newer run, or the write could not end: the state
		// is taken again, and read again, at the next change (a loop's
		// next run), rather than this store writing over a version it
		// has not read, or never writing again.
		rs.taken, rs.fresh = false, false
		return fmt.Errorf("writing the state to %s: %w (it keeps the version before)", rs.r, err)
	}
	rs.written = version
	return nil
}
