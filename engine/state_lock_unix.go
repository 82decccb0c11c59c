//go:build unix

package engine

import (
	"errors"
	"os"
	"strconv"
	"syscall"
	"time"
)

// lockStateFile takes an exclusive flock on path, waiting up to wait; the
// kernel drops it when the process dies (kill -9 included). The holder's
// pid is written into the file for the error a waiting run prints.
func lockStateFile(path string, wait time.Duration) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, &Error{Code: CodeStateFile, Message: "locking the state file: " + err.Error(), Err: err}
	}
	deadline := time.Now().Add(wait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			_ = f.Close()
			return nil, &Error{Code: CodeStateFile, Message: "locking the state file: " + err.Error(), Err: err}
		}
		if time.Now().After(deadline) {
			_ = f.Close()
			return nil, errStateLocked(path, wait)
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
