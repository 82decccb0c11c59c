// Command runone runs one command and writes how long it took, the CPU it
// used and its peak resident set to a file:
//
//	runone RESULT-FILE COMMAND [ARGS...]
//
// The whole-process benchmarks start every measured process through it.
// Go starts processes with vfork, and Linux then reports as the child's
// peak RSS (ru_maxrss) at least its parent's: measured from the benchmark
// driver, which holds the kfake clusters, every program would seem to use
// hundreds of megabytes. From this small parent the floor is a few MB.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: runone RESULT-FILE COMMAND [ARGS...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "runone:", err)
		os.Exit(2)
	}
	var peak int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		peak = int64(ru.Maxrss)
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	res := fmt.Sprintf("%d %d %d %d\n", wall, cpu, peak, cmd.ProcessState.ExitCode())
	if werr := os.WriteFile(os.Args[1], []byte(res), 0o644); werr != nil {
		fmt.Fprintln(os.Stderr, "runone:", werr)
		os.Exit(2)
	}
	os.Exit(cmd.ProcessState.ExitCode())
}
