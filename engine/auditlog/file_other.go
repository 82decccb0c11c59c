//go:build !unix

package auditlog

import (
	"io/fs"
	"os"
)

// Without O_NOFOLLOW, Open's lstat (and the check of the open file)
// refuse symbolic links.
const oNoFollow = 0

func isSymlinkErr(error) bool { return false }

// removed: without a link count, a path that names nothing is taken as
// removed (fail), one that names another file as moved (open it again).
func removed(_ fs.FileInfo, pathErr error) bool { return pathErr != nil }

// lockFile: no flock here; processes sharing a log may interleave lines,
// which the reader then reports as a break in the hash chain.
func lockFile(*os.File) (func(), error) { return func() {}, nil }

// otherOwner: no uids here.
func otherOwner(fs.FileInfo) (int, bool) { return 0, false }
