package luaapi

import (
	"errors"
	"io/fs"
	"os"
)

// openScriptFile opens every file a script names (io.open, io.lines,
// io.input, io.output, loadfile, dofile, require): gopher-lua's
// Options.OpenFile. A file on procfs is refused, whatever path led there
// (/proc/self/environ, /proc/<pid>/mem, /proc/thread-self/..., /dev/fd/../
// environ, a procfs mounted elsewhere): it is where the process's
// environment, command line and memory can be read, and with them the
// secrets kafka.env hides (the audit log's key, a fleet's other
// passwords). The file system is asked of the open file, so a path
// swapped between a check and the open cannot get round it; the check of
// the path first only spares the open.
func openScriptFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	if proc, err := pathOnProcFS(name); err == nil && proc {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errProcFS}
	}
	f, err := os.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	proc, err := fileOnProcFS(f)
	if err != nil || proc {
		_ = f.Close()
		if err == nil {
			err = errProcFS
		}
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return f, nil
}

var errProcFS = errors.New("a file of /proc (procfs), which holds the process's environment and memory: scripts may not open it")
