//go:build unix

package engine

import (
	"errors"
	"io/fs"
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
