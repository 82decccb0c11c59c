package state

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/kadmin-lua/kadmin-lua/engine/alerts"
	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
	"github.com/kadmin-lua/kadmin-lua/internal/boundedfile"
)

// The store's file: read on first use, written whole by Save (a temporary
// file beside it, synced, then renamed over it, so a kill at any moment
// leaves the old file or the new one; save.go). Changing the store
// takes a lock (FILE.lock) that is then held to Close, so that two runs
// that record never interleave: the second waits up to LockWait, then
// refuses. lag_status takes it before it samples, so that a run that
// overlaps another samples after it. A run that never records (list_topics
// under a KADMIN_STATE set for every job, beside a loop that holds the
// lock for hours) never takes it: it reads the file as it is when first
// used (renames make that a whole version), and a run that never uses the
// store does not read it at all. A file that cannot be read as a state
// file, or that is larger than MaxFileBytes, is set aside (renamed
// FILE.corrupt-TIME, under the lock) with a warning and the run starts with
// an empty store: it never fails a run.
//
// A --state path that is a symbolic link stays one: the file written (and
// set aside) is the one it leads to, and the lock file is made beside that
// one. The lock file itself is never followed: a link there is refused.

type stateFile struct {
	// path is the file read and written: --state's path, or where its
	// symbolic links lead.
	path string
	// mu guards unlock and keep, and read and readErr once loaded; lock
	// takes it before the store's own.
	mu sync.Mutex
	// unlock lets go of the lock; nil until the first change takes it.
	// A change that could not take it (another run held it past
	// LockWait) fails; the next change tries again, so a loop that
	// started beside a cron job's run records once that run has ended.
	unlock func()
	// read is the file as loaded (nil: there was none), and readErr what
	// reading or decoding it found wrong. Written by the load before the
	// store's loading is closed.
	read    fs.FileInfo
	readErr error
	// keep: the file could not be read and could not be set aside: Save
	// refuses rather than overwrite what may be someone's data.
	keep error
	// write writes the temporary file (tests make it fail as a full disk
	// would).
	write func(w io.Writer, b []byte) (int, error)
}

// DefaultMaxFile bounds the state file read and written. A store at
// cron cadence keeps two or three samples a partition: 300,000 partitions
// take about 10 MB; 2.6 million with 10 samples each about 235 MB. The
// store holds about the file's size in memory (its groups packed,
// pack.go), so the bound, a quarter of --max-memory's default, keeps a
// run well within it.
const DefaultMaxFile = 512 << 20

// OpenFile opens (or starts) the store kept in path. Nothing is read
// here: the file is read and decoded on the store's first use (lag_status
// starts that as it takes the lock, so that it overlaps the requests for
// the lag), and a run that never uses the store never reads it.
func OpenFile(path string, o Options) (*Store, error) {
	// Not a file to set aside nor to rename over: a state path of
	// /dev/null once moved the device aside and put a file in its place.
	if err := boundedfile.Replaceable(path); err != nil {
		return nil, &vocab.Error{Code: vocab.CodeInvalidArgument, Message: err.Error()}
	}
	target, err := followLinks(path)
	if err != nil {
		return nil, &vocab.Error{Code: vocab.CodeInvalidArgument, Message: err.Error()}
	}
	// A typo in the directory is said at start, not at the first change
	// (which locks a file beside it).
	if st, err := os.Stat(filepath.Dir(target)); err != nil || !st.IsDir() {
		return nil, vocab.Errorf(vocab.CodeInvalidArgument, "", "no directory %s", filepath.Dir(target))
	}
	s := New(o)
	s.file = &stateFile{path: target, write: func(w io.Writer, b []byte) (int, error) { return w.Write(b) }}
	s.loading = make(chan struct{})
	return s, nil
}

// followLinks is where path's symbolic links lead (path itself when it is
// not one), the last one possibly to a file not made yet. Only the last
// component is followed: a rename in the directory reached is what keeps
// the link.
func followLinks(path string) (string, error) {
	at := path
	for range 40 {
		fi, err := os.Lstat(at)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return at, nil
		}
		to, err := os.Readlink(at)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(at), to)
		}
		at = to
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", path)
}

// startLoad reads and decodes the file in the background, the first time
// it is called (true then). A load started under the lock sets aside what
// it cannot read.
func (s *Store) startLoad(underLock bool) bool {
	started := false
	s.loadOnce.Do(func() {
		started = true
		go func() {
			defer close(s.loading)
			s.load(underLock)
		}()
	})
	return started
}

// load makes the file's content the store's (before loading is closed,
// which every use of the store waits for).
func (s *Store) load(underLock bool) {
	f := s.file
	fi, st, err := readStateFile(f.path, s.opts.MaxFileBytes)
	f.read = fi
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	s.useFile(st, err)
	if underLock && f.readErr != nil {
		s.setAside(f.readErr)
	}
}

// readContent is a state as read: its clusters and notices.
type readContent struct {
	clusters map[string]*storedCluster
	notices  map[string]alerts.Notice
}

// useFile makes the file's content (read with err) the store's, or keeps
// what is wrong with it for lockFile to set it aside.
func (s *Store) useFile(st readContent, err error) {
	if err == nil {
		s.clusters, s.notices = st.clusters, st.notices
		s.file.readErr = nil
		return
	}
	s.clusters, s.notices = map[string]*storedCluster{}, nil
	s.file.readErr = err
}

// loaded waits until the file is read and decoded, reading it now if
// nothing has started to.
func (s *Store) loaded() {
	if s.remote != nil {
		s.readRemoteOnce()
		return
	}
	if s.file == nil {
		return
	}
	s.startLoad(false)
	<-s.loading
}

// lock takes the store's mutex once the file is decoded, for a use that
// only reads: it answers from the file as it was read. A file that could
// not be read is said once (lockFile sets it aside, and says so, when the
// store changes).
func (s *Store) lock() {
	s.loaded()
	if f := s.file; f != nil {
		f.mu.Lock()
		if f.readErr != nil && f.unlock == nil {
			s.warnOnce.Do(func() {
				s.warn("state: %s cannot be read as a state file (%v): this run uses no samples from it (the next run that records sets it aside)", f.path, f.readErr)
			})
		}
		f.mu.Unlock()
	}
	s.mu.Lock()
}

// lockChange is lock for a change: it takes the file's lock first (once,
// held to Close), and fails, with the store's mutex not held, when
// another run holds it past LockWait.
func (s *Store) lockChange() error {
	if err := s.lockFile(); err != nil {
		return err
	}
	s.loaded()
	s.mu.Lock()
	return nil
}

// BeginChange takes the file's lock ahead of a change (lag_status, before
// it samples) and starts reading the file under it.
func (s *Store) BeginChange() error {
	return s.lockFile()
}

// lockFile takes the file's lock, the first time. A file not read yet is
// read under it (in the background); one read before (a use that only
// read) is read again if another run wrote it since; one that cannot be
// read is set aside; temporary files a killed Save left are removed (no
// other Save is writing one).
func (s *Store) lockFile() error {
	if s.remote != nil {
		return s.takeRemote()
	}
	f := s.file
	if f == nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.unlock != nil {
		return nil
	}
	unlock, err := lockStateFile(f.path+".lock", s.opts.LockWait)
	if err != nil {
		return err
	}
	f.unlock = unlock
	removeStaleTemps(f.path)
	if s.startLoad(true) {
		return nil
	}
	<-s.loading
	if now, err := os.Stat(f.path); !sameFile(f.read, now, err) {
		fi, st, err := readStateFile(f.path, s.opts.MaxFileBytes)
		f.read, f.readErr = fi, nil
		s.mu.Lock()
		if errors.Is(err, fs.ErrNotExist) {
			s.clusters, s.notices = map[string]*storedCluster{}, nil
		} else {
			s.useFile(st, err)
		}
		s.mu.Unlock()
	}
	if f.readErr != nil {
		s.setAside(f.readErr)
	}
	return nil
}

// sameFile reports whether the file now (stat'ed with err) is the one
// read: none then and none now, or the same inode, size and time.
func sameFile(read, now fs.FileInfo, err error) bool {
	if err != nil || read == nil {
		return err != nil && read == nil
	}
	return os.SameFile(read, now) && read.Size() == now.Size() && read.ModTime().Equal(now.ModTime())
}

// setAside renames the file that could not be read (under the lock).
func (s *Store) setAside(cause error) {
	f := s.file
	aside := fmt.Sprintf("%s.corrupt-%s", f.path, time.Now().UTC().Format("20060102T150405Z"))
	if rerr := os.Rename(f.path, aside); rerr != nil {
		f.keep = fmt.Errorf("the state file %s cannot be read (%v) nor set aside (%v): it is left as it is and not written", f.path, cause, rerr)
		s.warn("%s", f.keep.Error())
		return
	}
	s.warn("state: %s cannot be read as a state file (%v): set aside as %s; starting with no samples", f.path, cause, aside)
}

// readStateFile reads the file at path, and says which file it read. A
// file larger than limit is not read at all; one within it is read a
// piece at a time, each group kept as its bytes (codec.go), never the
// whole file in one buffer.
func readStateFile(path string, limit int64) (fs.FileInfo, readContent, error) {
	f, err := boundedfile.Open(path)
	if err != nil {
		return nil, readContent{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, readContent{}, err
	}
	if fi.Size() > limit {
		return fi, readContent{}, fmt.Errorf("%s, larger than the %s kadmin-lua reads (--max-memory bounds it)", boundedfile.Size(fi.Size()), boundedfile.Size(limit))
	}
	clusters, notices, err := readState(f, fi.Size())
	return fi, readContent{clusters, notices}, err
}

// removeStaleTemps removes temporary files a killed Save left: under the
// lock, no other Save is writing one.
func removeStaleTemps(path string) {
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*"))
	for _, m := range matches {
		_ = os.Remove(m)
	}
}

// errStateLocked names the other run holding the lock, from what the lock
// file holds (pid, read from the open file: never through a path).
func errStateLocked(lockPath, pid string, wait time.Duration) error {
	who := ""
	if pid = strings.TrimSpace(pid); pid != "" {
		who = " (process " + pid + ")"
	}
	return vocab.Errorf(vocab.CodeStateLocked, "", "the state file is in use by another run%s: waited %s for %s; runs that share a --state file take turns", who, wait, lockPath)
}
