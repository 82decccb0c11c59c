//go:build unix

package auditlog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// oNoFollow makes opening a symbolic link fail (ELOOP).
const oNoFollow = syscall.O_NOFOLLOW

func isSymlinkErr(err error) bool { return errors.Is(err, syscall.ELOOP) }

// removed: the open file has no link left (rm, not mv). pathErr is what
// lstat of the log's path said.
func removed(open fs.FileInfo, pathErr error) bool {
	if st, ok := open.Sys().(*syscall.Stat_t); ok {
		return st.Nlink == 0
	}
	return pathErr != nil
}

// lockFile holds an exclusive flock on f until the returned func: writers
// in other processes append to the same log one at a time, each reading
// the end of the file for the chain's prev.
func lockFile(f *os.File) (func(), error) {
	fd := int(f.Fd())
	for {
		err := syscall.Flock(fd, syscall.LOCK_EX)
		if err == nil {
			return func() { _ = syscall.Flock(fd, syscall.LOCK_UN) }, nil
		}
		if !errors.Is(err, syscall.EINTR) {
			return nil, fmt.Errorf("locking the audit log: %w", err)
		}
	}
}

// otherOwner reports the uid of a file that belongs to someone else than
// the effective user: its owner could edit it, whatever its mode.
func otherOwner(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) == os.Geteuid() {
		return 0, false
	}
	return int(st.Uid), true
}
