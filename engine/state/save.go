package state

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/kadmin-lua/kadmin-lua/internal/boundedfile"
)

// Writing the store's file: Save, the write started behind a run, and
// Close (file.go reads it and holds its lock).

// Path is the store's file (a Remote's String for a store kept in one:
// "kafka:TOPIC/KEY"), "" for a store in memory only.
func (s *Store) Path() string {
	if s.remote != nil {
		return s.remote.r.String()
	}
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
func (s *Store) Save() error {
	if s != nil && s.remote != nil {
		return s.saveRemote()
	}
	if s == nil || s.file == nil {
		return nil
	}
	f := s.file
	f.mu.Lock()
	locked := f.unlock != nil
	f.mu.Unlock()
	if !locked {
		return nil // never changed: the file is as it was
	}
	s.loaded()
	f.mu.Lock()
	keep := f.keep
	f.mu.Unlock()
	if keep != nil {
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
	sn := s.snapshotLocked()
	s.mu.Unlock()
	tmp, err := s.writeTemp(sn)
	s.thaw()
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
func (s *Store) saveBehindLocked() {
	if s.file == nil || s.file.keep != nil || s.behind != nil {
		return
	}
	b := &behindSave{done: make(chan struct{})}
	s.behind = b
	go func() {
		defer close(b.done)
		s.mu.Lock()
		sn := s.snapshotLocked()
		b.version = s.version
		s.mu.Unlock()
		b.tmp, b.err = s.writeTemp(sn)
		s.thaw()
	}()
}

// writeTemp writes a snapshot to a new temporary file beside the
// store's, synced, and returns its name.
func (s *Store) writeTemp(sn *snapshot) (string, error) {
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
	if err := sn.writeTo(writerFunc(func(b []byte) (int, error) { return s.file.write(tmp, b) })); err != nil {
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
func (s *Store) commit(tmp string) error {
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
func (s *Store) Close() {
	if s != nil && s.remote != nil {
		s.remote.r.Close()
		return
	}
	if s == nil || s.file == nil {
		return
	}
	f := s.file
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.unlock != nil {
		<-s.loading // started under the lock: done before letting go of it
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

// writerFunc is a Writer of its function.
type writerFunc func([]byte) (int, error)

func (w writerFunc) Write(b []byte) (int, error) { return w(b) }
