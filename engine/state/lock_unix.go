//go:build unix

package state

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// OnLockContended, when set, is called once when the lock is found held by
// another run, before waiting for it: a test hook (engine's
// TestStateFileOverlappingRunsKeepEverySample learns from it that a run
// waits). nil otherwise.
var OnLockContended func()

// lockStateFile takes an exclusive flock on path, waiting up to wait; the
// kernel drops it when the process dies (kill -9 included). The holder's
// pid is written into the file for the error a waiting run prints. The
// file is kadmin-lua's own: a symbolic link there is never followed (it
// would truncate whatever it points to, as root any file), nor is a file
// that is not a plain regular file with one name.
func lockStateFile(path string, wait time.Duration) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if errors.Is(err, syscall.ELOOP) {
		return nil, vocab.Errorf(vocab.CodeStateFile, "", "locking the state file: %s is a symbolic link: kadmin-lua makes its own lock file and never follows one there; remove it", path)
	}
	if err != nil {
		return nil, &vocab.Error{Code: vocab.CodeStateFile, Message: "locking the state file: " + err.Error(), Err: err}
	}
	if why := notOwnLockFile(f); why != "" {
		_ = f.Close()
		return nil, vocab.Errorf(vocab.CodeStateFile, "", "locking the state file: %s is %s: kadmin-lua makes its own lock file and writes only to that; remove it", path, why)
	}
	deadline := time.Now().Add(wait)
	for first := true; ; first = false {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			_ = f.Close()
			return nil, &vocab.Error{Code: vocab.CodeStateFile, Message: "locking the state file: " + err.Error(), Err: err}
		}
		if first && OnLockContended != nil {
			OnLockContended()
		}
		if time.Now().After(deadline) {
			pid := make([]byte, 32)
			n, _ := f.ReadAt(pid, 0)
			_ = f.Close()
			return nil, errStateLocked(path, string(pid[:n]), wait)
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return func() {
		_ = f.Truncate(0)
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		_ = f.Close()
	}, nil
}

// notOwnLockFile says why the opened lock file is not one kadmin-lua
// could have made ("" when it is): not a regular file, or a hard link to
// another name.
func notOwnLockFile(f *os.File) string {
	st, err := f.Stat()
	if err != nil {
		return "unreadable (" + err.Error() + ")"
	}
	if !st.Mode().IsRegular() {
		return "not a regular file"
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && uint64(sys.Nlink) > 1 {
		return fmt.Sprintf("a file with %d names (a hard link)", sys.Nlink)
	}
	return ""
}
