// Package boundedfile reads the files kadmin-lua is pointed at (config and
// client.properties files, token files, key stores, krb5.conf, keytabs,
// audit logs, offsets files, specs and plan files) as regular files of a bounded size: a FIFO
// would block the process before it could say anything, a device
// (/dev/zero) never ends, a directory is not a file. Each kind of file has
// its cap (docs/cli.md, "File size limits"); the errors name the file.
package boundedfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// The caps, far above any real file of each kind.
const (
	// Token: an OAuth token file, a web identity token, a webhook token.
	Token int64 = 1 << 20
	// Credentials: client.properties, PEM files, key and trust stores,
	// krb5.conf, keytabs, credential caches, AWS config and credentials.
	Credentials int64 = 4 << 20
	// Offsets: an offsets CSV file for reset_offsets (300,000 partitions
	// take about 10 MB).
	Offsets int64 = 64 << 20
	// Plan: a plan file for apply (a reassignment of 100,000 partitions
	// takes about 10 MB).
	Plan int64 = 64 << 20
)

// Open opens path for reading if it is a regular file (symlinks followed).
// It looks before opening, so that a FIFO is refused rather than waited on.
func Open(path string) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		if pe, ok := err.(*fs.PathError); ok {
			pe.Op = "open" // what os.Open would have said: "open x: no such file or directory"
		}
		return nil, err
	}
	if err := regular(path, st.Mode()); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if st, err = f.Stat(); err == nil { // replaced between the two looks
		err = regular(path, st.Mode())
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Read reads the regular file at path, refusing one larger than limit
// bytes.
func Read(path string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// A file already over the limit is refused without reading it (64 MiB
	// read for nothing took seconds under the race detector); one that
	// grows while being read is still cut at the limit.
	if st, err := f.Stat(); err == nil && st.Size() > limit {
		return nil, tooLarge(path, limit)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, tooLarge(path, limit)
	}
	return b, nil
}

func tooLarge(path string, limit int64) error {
	return fmt.Errorf("%s: larger than %s, the most kadmin-lua reads of such a file", path, Size(limit))
}

// ErrNotRegular is wrapped by every error for a path that is not a
// regular file.
var ErrNotRegular = errors.New("not a regular file")

// regular: nil for a regular file, else an error naming what path is.
func regular(path string, m fs.FileMode) error {
	if m.IsRegular() {
		return nil
	}
	return &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("is %s, %w", kindOf(m), ErrNotRegular)}
}

func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0, m&fs.ModeDevice != 0:
		return "a device"
	}
	return "something else"
}

// Replaceable checks a path kadmin-lua writes whole by renaming a new file
// over it (a state file, a metrics file): nil when nothing is there yet or
// a regular file is (symlinks followed), else an error naming what is
// there. A rename over /dev/null would put a file in the device's place.
func Replaceable(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return nil // nothing there (or unreadable: the write will say)
	}
	if st.Mode().IsRegular() {
		return nil
	}
	return fmt.Errorf("%s is %s, %w: kadmin-lua writes this file whole, by renaming a new file over it", path, kindOf(st.Mode()), ErrNotRegular)
}

// Size is a cap in words: "4 MiB".
func Size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
