package engine

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

	"github.com/kadmin-lua/kadmin-lua/internal/boundedfile"
)

// The store's file: read by OpenStateFile, written whole by Save (a
// temporary file beside it, synced, then renamed over it, so a kill at any
// moment leaves the old file or the new one). Changing the store takes a
// lock (FILE.lock) that is then held to Close, so that two runs that
// record never interleave: the second waits up to LockWait, then refuses.
// A run that never records (list_topics under a KADMIN_STATE set for every
// job, beside a loop that holds the lock for hours) never takes it: it
// reads the file as it was at open (renames make that a whole version).
// A file that cannot be read as a state file is set aside (renamed
// FILE.corrupt-TIME, under the lock) with a warning and the run starts
// with an empty store: it never fails a run.

type stateFile struct {
	path string
	// mu guards the fields below; lock takes it before the store's own.
	mu sync.Mutex
	// unlock lets go of the lock; nil until the first change takes it.
	// A change that could not take it (another run held it past
	// LockWait) fails; the next change tries again, so a loop that
	// started beside a cron job's run records once that run has ended.
	unlock func()
	// read is the file as OpenStateFile read it (nil: there was none),
	// and readErr what reading or decoding it found wrong.
	read    fs.FileInfo
	readErr error
	// keep: the file could not be read and could not be set aside: Save
	// refuses rather than overwrite what may be someone's data.
	keep error
	// write writes the temporary file (tests make it fail as a full disk
	// would).
	write func(w io.Writer, b []byte) (int, error)
}

// maxStateFile bounds what is read: a state file of 10 samples for a
// million partitions is about 70 MB.
const maxStateFile = 1 << 30

// OpenStateFile opens (or starts) the store kept in path. The file is read
// here and decoded in the background (300,000 partitions take a sixth of a
// second), while the run connects and sends its first requests: the
// store's methods wait for it. The lock is taken by the first change.
func OpenStateFile(path string, o StateOptions) (*StateStore, error) {
	// Not a file to set aside nor to rename over: a state path of
	// /dev/null once moved the device aside and put a file in its place.
	if err := boundedfile.Replaceable(path); err != nil {
		return nil, &Error{Code: CodeInvalidArgument, Message: err.Error()}
	}
	// A typo in the directory is said at start, not at the first change
	// (which locks a file beside it).
	if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
		return nil, Errorf(CodeInvalidArgument, "", "no directory %s", filepath.Dir(path))
	}
	s := NewStateStore(o)
	s.file = &stateFile{path: path, write: func(w io.Writer, b []byte) (int, error) { return w.Write(b) }}
	fi, data, err := readStateFile(path)
	s.file.read = fi
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	loading := make(chan struct{})
	s.loading = loading
	go func() {
		defer close(loading)
		s.decodeFile(data, err)
	}()
	return s, nil
}

// decodeFile makes the file's data (read with err) the store's content,
// or keeps what is wrong with it for lockFile to set it aside.
func (s *StateStore) decodeFile(data []byte, err error) {
	if err == nil {
		var clusters map[string]*storedCluster
		var notices map[string]Notice
		if clusters, notices, err = decodeState(data); err == nil {
			s.clusters, s.notices = clusters, notices
			return
		}
	}
	s.clusters, s.notices = map[string]*storedCluster{}, nil
	s.file.readErr = err
}

// loaded waits until the file is decoded. A file that could not be read
// is said once, when it is used without being changed (lockFile sets it
// aside, and says so, when the store changes).
func (s *StateStore) loaded() {
	if s.loading == nil {
		return
	}
	<-s.loading
}

// lock takes the store's mutex once the file is decoded, for a use that
// only reads: it answers from the file as read at open.
func (s *StateStore) lock() {
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
func (s *StateStore) lockChange() error {
	s.loaded()
	if err := s.lockFile(); err != nil {
		return err
	}
	s.mu.Lock()
	return nil
}

// lockFile takes the file's lock, the first time. What another run wrote
// since the file was read at open is read again under it; a file that
// cannot be read is set aside; temporary files a killed Save left are
// removed (no other Save is writing one).
func (s *StateStore) lockFile() error {
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
	if now, err := os.Stat(f.path); !sameFile(f.read, now, err) {
		fi, data, err := readStateFile(f.path)
		f.read, f.readErr = fi, nil
		s.mu.Lock()
		if errors.Is(err, fs.ErrNotExist) {
			s.clusters, s.notices = map[string]*storedCluster{}, nil
		} else {
			s.decodeFile(data, err)
		}
		s.mu.Unlock()
	}
	if f.readErr != nil {
		s.setAside(f.readErr)
	}
	return nil
}

// sameFile reports whether the file now (stat'ed with err) is the one
// read at open: none then and none now, or the same inode, size and time.
func sameFile(read, now fs.FileInfo, err error) bool {
	if err != nil || read == nil {
		return err != nil && read == nil
	}
	return os.SameFile(read, now) && read.Size() == now.Size() && read.ModTime().Equal(now.ModTime())
}

// setAside renames the file that could not be read (under the lock).
func (s *StateStore) setAside(cause error) {
	f := s.file
	aside := fmt.Sprintf("%s.corrupt-%s", f.path, time.Now().UTC().Format("20060102T150405Z"))
	if rerr := os.Rename(f.path, aside); rerr != nil {
		f.keep = fmt.Errorf("the state file %s cannot be read (%v) nor set aside (%v): it is left as it is and not written", f.path, cause, rerr)
		s.warn("%s", f.keep.Error())
		return
	}
	s.warn("state: %s cannot be read as a state file (%v): set aside as %s; starting with no samples", f.path, cause, aside)
}

// readStateFile reads the file at path, and says which file it read.
func readStateFile(path string) (fs.FileInfo, []byte, error) {
	f, err := boundedfile.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, maxStateFile+1))
	if err == nil && len(data) > maxStateFile {
		err = fmt.Errorf("larger than %d bytes", maxStateFile)
	}
	return fi, data, err
}

// removeStaleTemps removes temporary files a killed Save left: under the
// lock, no other Save is writing one.
func removeStaleTemps(path string) {
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*"))
	for _, m := range matches {
		_ = os.Remove(m)
	}
}

// Path is the store's file, "" for a store in memory only.
func (s *StateStore) Path() string {
	if s.file == nil {
		return ""
	}
	return s.file.path
}

// Save writes the store to its file (nothing for a store in memory). On
// an error (a full disk) the file keeps its previous content and the
// store its samples: the next Save (loop mode's next run) tries again.
// When the write started behind the run (saveBehindLocked) holds the
// store as it is now, Save only puts it in place.
func (s *StateStore) Save() error {
	if s == nil || s.file == nil {
		return nil
	}
	s.loaded()
	f := s.file
	f.mu.Lock()
	locked, keep := f.unlock != nil, f.keep
	f.mu.Unlock()
	switch {
	case !locked:
		return nil // never changed: the file is as it was
	case keep != nil:
		return keep
	}
	s.mu.Lock()
	b := s.behind
	s.behind = nil
	s.mu.Unlock()
	if b != nil {
		<-b.done
		s.mu.Lock()
		current := b.err == nil && b.version == s.version
		s.mu.Unlock()
		if current {
			return s.commit(b.tmp)
		}
		if b.tmp != "" {
			_ = os.Remove(b.tmp) // the store changed since, or it failed: anew
		}
	}
	s.mu.Lock()
	data := encodeState(s.clusters, s.notices)
	s.mu.Unlock()
	tmp, err := s.writeTemp(data)
	if err != nil {
		return err
	}
	return s.commit(tmp)
}

// behindSave is a write of the store's content to a temporary file,
// started when a run changed the store: the encoding and the fsync (a
// tenth of a second for 300,000 partitions) then overlap the rest of the
// run, and Save only renames.
type behindSave struct {
	version uint64 // the store's version it holds
	done    chan struct{}
	tmp     string // the synced temporary file ("" on err)
	err     error
}

// saveBehindLocked starts writing the store (s.mu held by the caller).
// One write at a time: a store changed during a write gets its own write
// from Save.
func (s *StateStore) saveBehindLocked() {
	if s.file == nil || s.file.keep != nil || s.behind != nil {
		return
	}
	b := &behindSave{done: make(chan struct{})}
	s.behind = b
	go func() {
		defer close(b.done)
		s.mu.Lock()
		b.version = s.version
		data := encodeState(s.clusters, s.notices)
		s.mu.Unlock()
		b.tmp, b.err = s.writeTemp(data)
	}()
}

// writeTemp writes data to a new temporary file beside the store's,
// synced, and returns its name.
func (s *StateStore) writeTemp(data []byte) (string, error) {
	path := s.file.path
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return "", fmt.Errorf("writing the state file: %w", err)
	}
	fail := func(err error) (string, error) {
		_ = tmp.Close()
		_ = os.Remove(tmp.Name())
		return "", fmt.Errorf("writing the state file %s: %w (it keeps its previous samples)", path, err)
	}
	if err := tmp.Chmod(0o600); err != nil {
		return fail(err)
	}
	if _, err := s.file.write(tmp, data); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		return fail(err)
	}
	return tmp.Name(), nil
}

// commit puts a written temporary file in the store file's place.
func (s *StateStore) commit(tmp string) error {
	path := s.file.path
	if err := boundedfile.Replaceable(path); err != nil { // replaced since open
		_ = os.Remove(tmp)
		return fmt.Errorf("writing the state file: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("writing the state file %s: %w", path, err)
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

// Close releases the file's lock. It does not save.
func (s *StateStore) Close() {
	if s == nil || s.file == nil {
		return
	}
	s.loaded()
	f := s.file
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.unlock != nil {
		s.mu.Lock()
		b := s.behind
		s.behind = nil
		s.mu.Unlock()
		if b != nil { // not saved: the write behind is dropped
			<-b.done
			if b.tmp != "" {
				_ = os.Remove(b.tmp)
			}
		}
		f.unlock()
		f.unlock = nil
	}
}

// errStateLocked names the other run holding the lock.
func errStateLocked(lockPath string, wait time.Duration) error {
	who := ""
	if b, err := os.ReadFile(lockPath); err == nil {
		if pid := strings.TrimSpace(string(b)); pid != "" {
			who = " (process " + pid + ")"
		}
	}
	return Errorf(CodeStateLocked, "", "the state file is in use by another run%s: waited %s for %s; runs that share a --state file take turns", who, wait, lockPath)
}
