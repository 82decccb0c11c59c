package auditlog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// Log is the write-ahead audit log (record.go): an intent line
// synced before each mutating request, an outcome line after.
//
// The file is the one its path names: before each intent line the log
// checks that path still names the open file. Moved away (logrotate, `mv
// a.jsonl a.jsonl.1`): the path is opened again (created 0600) and the
// line goes there. Removed (`rm`: the open file has no name left): the
// call fails with AUDIT_LOG and nothing is sent; a log nobody can read
// back records nothing.
type Log struct {
	mu   sync.Mutex
	path string
	f    *os.File
	now  func() time.Time
	opts Options
	// The end of the file as this log left it: when the file still has
	// size bytes, tail is what the next line chains to (else it is read).
	size int64
	tail chainTail
}

// Open opens (creating 0600, appending) the audit log at path,
// with an unkeyed hash chain. It refuses a symbolic link, anything but a
// regular file, a file that group or others may write and one another user
// owns (they could forge lines undo would act on).
func Open(path string) (*Log, error) {
	return OpenWith(path, Options{})
}

// OpenWith is Open with options: a key for the hash chain.
// It refuses to append to a keyed log without its key (with none, or with
// another), here and again before each line: another process may append
// in between.
func OpenWith(path string, o Options) (*Log, error) {
	if err := o.check(); err != nil {
		return nil, vocab.Errorf(vocab.CodeInvalidArgument, path, "opening audit log: %v", err)
	}
	f, err := openAuditFile(path)
	if err != nil {
		return nil, vocab.Errorf(vocab.CodeInvalidArgument, path, "opening audit log: %v", err)
	}
	a := &Log{path: path, f: f, now: time.Now, opts: o, size: -1}
	if _, err := a.chainTail(); err != nil {
		_ = f.Close()
		return nil, vocab.Errorf(vocab.CodeInvalidArgument, path, "opening audit log: %v", err)
	}
	return a, nil
}

// chainTail is what the next line chains to: read from the end of the
// file unless this log wrote that end. A keyed chain is continued only
// with its key: not without one, not with another.
func (a *Log) chainTail() (chainTail, error) {
	fi, err := a.f.Stat()
	if err != nil {
		return chainTail{}, err
	}
	if fi.Size() != a.size {
		if a.tail, err = a.opts.readTail(a.f, fi.Size()); err != nil {
			return chainTail{}, fmt.Errorf("reading the end of %s for its hash chain: %w", a.path, err)
		}
		a.size = fi.Size()
	}
	switch {
	case a.tail.alg == ChainHMAC && a.opts.Key == "":
		return chainTail{}, fmt.Errorf("%s is keyed (its hash chain is hmac-sha256): appending to it needs its key", a.path)
	case a.tail.otherKey:
		// Lines under another key would make changes that undo with the
		// log's key refuses, and the key's owner would see a forgery.
		return chainTail{}, fmt.Errorf("%s is keyed with another key: its last line's HMAC does not verify with the key given (or that line was edited); appending to it needs its own key: give that key, or write to another file", a.path)
	}
	return a.tail, nil
}

// openAuditFile opens path for appending under Open's rules, and
// checks them again on the open file (the path may change in between).
func openAuditFile(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	switch {
	case err == nil:
		if err := auditFileOK(path, fi); err != nil {
			return nil, err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_RDWR|oNoFollow, 0o600)
	if err != nil {
		if isSymlinkErr(err) {
			return nil, fmt.Errorf("%s is a symbolic link: give the audit log's own path", path)
		}
		return nil, err
	}
	if fi, err = f.Stat(); err == nil {
		err = auditFileOK(path, fi)
	}
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return f, nil
}

// auditFileOK: a regular file (not a symbolic link) that only its owner,
// this user, may write.
func auditFileOK(path string, fi fs.FileInfo) error {
	switch m := fi.Mode(); {
	case m&fs.ModeSymlink != 0:
		return fmt.Errorf("%s is a symbolic link: give the audit log's own path", path)
	case !m.IsRegular():
		return fmt.Errorf("%s is not a regular file (%s)", path, m.Type())
	case m.Perm()&0o022 != 0:
		return fmt.Errorf("%s may be written by group or others (mode %04o): anyone who can write it can forge what undo does; chmod go-w %s", path, m.Perm(), path)
	}
	if uid, other := otherOwner(fi); other {
		return fmt.Errorf("%s belongs to uid %d, not to this user (uid %d): its owner can rewrite it", path, uid, os.Geteuid())
	}
	return nil
}

// followPath makes sure the next intent line goes to the file a.path
// names: moved away, it opens the path again; removed, it fails. Called
// with a.mu held. One lstat and one fstat.
func (a *Log) followPath() error {
	open, err := a.f.Stat()
	if err != nil {
		return err
	}
	now, err := os.Lstat(a.path)
	if err == nil && os.SameFile(now, open) {
		return nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("checking the audit log %s: %w", a.path, err)
	}
	if removed(open, err) {
		return fmt.Errorf("the audit log %s was removed (the open file has no name left); refusing to record into a deleted file", a.path)
	}
	f, err := openAuditFile(a.path)
	if err != nil {
		return fmt.Errorf("the audit log was moved away; opening %s again: %w", a.path, err)
	}
	_ = a.f.Close()
	a.f, a.size = f, -1 // a new file starts a new chain: read its end
	return nil
}

// Close closes the file.
func (a *Log) Close() error {
	if a == nil {
		return nil
	}
	return a.f.Close()
}
