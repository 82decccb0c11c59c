package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/term"
)

// State is everything the CLI takes from the process: arguments,
// environment, standard streams, the terminal, signals and exit. main builds
// it from the real process; tests build one from buffers and channels and
// run the whole CLI in-process (the seam k6 calls cmd/state).
type State struct {
	Args []string            // command-line arguments, without the program name
	Env  func(string) string // environment lookup; finds sealed variables too
	// Seal takes the named variables out of the process's environment
	// (seal.go): Env still reads them, /proc and child processes do not.
	// nil (tests) seals nothing.
	Seal   func(names ...string) error
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer

	// IsTerminal reports whether a stream is an interactive terminal; it
	// decides between the REPL and reading a script from stdin, and whether
	// a password may be prompted for.
	IsTerminal func(f any) bool
	// ReadPassword prompts on stderr and reads a line without echo.
	ReadPassword func(prompt string) (string, error)

	// Signals delivers SIGINT and SIGTERM to run's one watcher
	// (signals.go): SIGINT cancels the running work, SIGTERM or a second
	// SIGINT exits at once through Exit.
	Signals <-chan os.Signal
	// Exit ends the process. run never calls it (main does, with run's
	// code, after every cleanup); only the signal watcher, to end the
	// process at once, uses it directly.
	Exit func(code int)

	// onPhase, when set (tests), is told each time the signal watcher's
	// phase changes: "start", "output", "prompt", "chunk".
	onPhase func(phase string)
	// onSignal, when set (tests), is told what the watcher did with each
	// signal: "ignored", "canceled" or "exited".
	onSignal func(sig os.Signal, action string)
	// onRun, when set (tests), is told when run N of a loop (every
	// cluster's, in a fleet) has ended and been reported.
	onRun func(n int)
}

// NewOSState wires the real process. It seals the secrets the process
// may have been started with (seal.go) before anything reads them.
func NewOSState() *State {
	env := newSealedEnv()
	if err := env.seal(startSecrets...); err != nil {
		fmt.Fprintf(os.Stderr, "kadmin-lua: warning: %v\n", err)
	}
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	return &State{
		Args:   os.Args[1:],
		Env:    env.getenv,
		Seal:   env.seal,
		Stdin:  os.Stdin,
		Stdout: os.Stdout,
		Stderr: os.Stderr,
		IsTerminal: func(f any) bool {
			fd, ok := f.(interface{ Fd() uintptr })
			return ok && term.IsTerminal(int(fd.Fd()))
		},
		ReadPassword: func(prompt string) (string, error) {
			fmt.Fprint(os.Stderr, prompt)
			b, err := term.ReadPassword(int(os.Stdin.Fd()))
			fmt.Fprintln(os.Stderr)
			return string(b), err
		},
		Signals: sigs,
		Exit:    os.Exit,
	}
}
