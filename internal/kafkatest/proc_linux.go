package kafkatest

import (
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

// The JVMs run in their own process group (so a kill reaches anything they
// fork) and get SIGKILL from the kernel when the thread that started them
// dies (PR_SET_PDEATHSIG). That covers what t.Cleanup cannot: a test binary
// killed by a timeout panic, os.Exit, Ctrl-C or SIGKILL.
//
// PDEATHSIG fires when the *thread* that forked exits, and Go may end a thread
// whose goroutine locked it, so every start goes through one goroutine that
// is locked to its thread for the life of the process.

var (
	spawnOnce sync.Once
	spawnCh   chan func()
)

func startProcess(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	spawnOnce.Do(func() {
		spawnCh = make(chan func())
		go func() {
			runtime.LockOSThread() // never unlocked: this thread lives as long as the process
			for f := range spawnCh {
				f()
			}
		}()
	})
	errc := make(chan error, 1)
	spawnCh <- func() { errc <- cmd.Start() }
	return <-errc
}

// signalGroup sends sig to the process group led by pid (falling back to the
// process itself).
func signalGroup(pid int, sig syscall.Signal) error {
	if err := syscall.Kill(-pid, sig); err != nil {
		return syscall.Kill(pid, sig)
	}
	return nil
}

// lockFile takes an exclusive flock on path, creating it.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// processAlive reports whether a process with this pid exists.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
