//go:build !linux

package kafkatest

import (
	"errors"
	"os/exec"
	"syscall"
)

// The harness starts brokers on Linux only (it relies on process groups and
// PR_SET_PDEATHSIG so that no JVM outlives the test binary).

var errUnsupported = errors.New("kafkatest: real Kafka brokers are only supported on Linux")

func startProcess(cmd *exec.Cmd) error { return errUnsupported }

func signalGroup(pid int, sig syscall.Signal) error { return errUnsupported }

func lockFile(path string) (func(), error) { return func() {}, nil }

func processAlive(pid int) bool { return true }
