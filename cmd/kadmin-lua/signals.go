package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
)

// signalWatcher is the process's one signal watcher: it reads State.Signals
// from the start of run to its end, and what a signal does depends on the
// phase the run is in:
//
//   - SIGTERM ends the process at once (exit 143), in every phase but
//     scheduled runs (runs), where it cancels them as SIGINT does.
//   - SIGINT cancels the work of the current phase when there is work to
//     cancel: the script (or the start-up: connecting, loading plugins), or
//     in the REPL the chunk that is running. A canceled script ends with
//     exit 130 once its clients and audit log are closed; a canceled REPL
//     chunk prints "interrupted" and the session goes on.
//   - A second SIGINT while the canceled work has not ended, or a SIGINT
//     when there is nothing to cancel (a script's results are being
//     formatted or written, clean-up), ends the process at once (exit 130).
//   - At the REPL prompt SIGINT does nothing (Ctrl-C there is a key the
//     line editor handles; a SIGINT from kill has nothing to cancel).
//
// "At once" means through State.Exit from the watcher's goroutine, after
// restoring the terminal; Lua, formatting or a Kafka call in flight are not
// waited for. Audit intent lines are written before a request is sent, so
// they are already on disk.
type signalWatcher struct {
	exit     func(int)
	stderr   io.Writer
	onPhase  func(string)            // tests: told each phase change
	onSignal func(os.Signal, string) // tests: told what each signal did
	root     func()                  // cancels the whole run

	stopc   chan struct{}
	stopped chan struct{}

	mu     sync.Mutex
	phase  phase
	caught os.Signal // the signal that ended the run: decides the exit code
	exited bool      // Exit was called (only a test's Exit returns)
	atExit []func()
}

// phase says what SIGINT does.
type phase struct {
	name    string
	cancel  func() // the work SIGINT cancels; nil: SIGINT ends the process
	ignore  bool   // SIGINT does nothing
	ends    bool   // canceling ends the run (its exit code is 130)
	pending bool   // canceled and not yet ended: another SIGINT ends the process
	term    bool   // SIGTERM cancels as SIGINT does, rather than ending the process at once
}

// Phase names (tests wait for them through State.onPhase).
const (
	phaseStart  = "start"  // commands before they run Lua, and scripts
	phaseOutput = "output" // a script's results are formatted and written
	phasePrompt = "prompt" // the REPL waits for a line
	phaseChunk  = "chunk"  // the REPL runs a chunk and prints its values
	phaseRuns   = "runs"   // run --every / --profiles / --metrics-file: scheduled runs
)

// watchSignals starts watching st.Signals; root cancels the whole run.
func watchSignals(st *State, root func()) *signalWatcher {
	w := &signalWatcher{
		exit: st.Exit, stderr: st.Stderr, onPhase: st.onPhase, onSignal: st.onSignal, root: root,
		stopc: make(chan struct{}), stopped: make(chan struct{}),
		phase: phase{name: phaseStart, cancel: root, ends: true},
	}
	if st.Signals == nil {
		close(w.stopped)
		return w
	}
	go func() {
		defer close(w.stopped)
		for {
			select {
			case <-w.stopc:
				return
			case sig := <-st.Signals:
				if w.handle(sig) {
					return
				}
			}
		}
	}()
	return w
}

// stop stops watching; signals that arrive later stay in the channel.
func (w *signalWatcher) stop() {
	select {
	case <-w.stopc:
	default:
		close(w.stopc)
	}
	<-w.stopped
}

// enter switches to phase p and returns the phase it replaced.
func (w *signalWatcher) enter(p phase) phase {
	w.mu.Lock()
	prev := w.phase
	w.phase = p
	hook := w.onPhase
	w.mu.Unlock()
	if hook != nil {
		hook(p.name)
	}
	return prev
}

// output: nothing is left to cancel; SIGINT ends the process.
func (w *signalWatcher) output() { w.enter(phase{name: phaseOutput}) }

// prompt: the REPL waits for input; SIGINT does nothing.
func (w *signalWatcher) prompt() { w.enter(phase{name: phasePrompt, ignore: true}) }

// chunk makes a REPL chunk interruptible: SIGINT calls cancel and the
// session goes on; done goes back to the prompt. It is repl.Options'
// Interruptible.
func (w *signalWatcher) chunk(cancel func()) (done func()) {
	prev := w.enter(phase{name: phaseChunk, cancel: cancel})
	return func() { w.enter(prev) }
}

// runs: loop and fleet mode (loop.go). SIGTERM, like SIGINT, cancels the
// runs in flight (the Kafka calls with them) and ends the command, 143 or
// 130, once they have stopped, so a loop under systemd or Kubernetes stops
// cleanly between or during runs. A second signal ends the process at once.
func (w *signalWatcher) runs() {
	w.enter(phase{name: phaseRuns, cancel: w.root, ends: true, term: true})
}

// onExit registers f to run before an exit at once (restore the terminal).
func (w *signalWatcher) onExit(f func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.atExit = append(w.atExit, f)
}

// result is the signal that ended the run, if one did, and whether the
// watcher has already exited (and said so on stderr).
func (w *signalWatcher) result() (os.Signal, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.caught, w.exited
}

// handle acts on one signal; it reports whether the process was ended.
func (w *signalWatcher) handle(sig os.Signal) (ended bool) {
	action := w.act(sig)
	if w.onSignal != nil {
		w.onSignal(sig, action)
	}
	return action == "exited"
}

func (w *signalWatcher) act(sig os.Signal) string {
	w.mu.Lock()
	p := &w.phase
	if sig != syscall.SIGTERM || p.term {
		switch {
		case p.ignore:
			w.mu.Unlock()
			return "ignored"
		case p.cancel != nil && !p.pending:
			p.pending = true
			if p.ends && w.caught == nil {
				w.caught = sig
			}
			cancel := p.cancel
			w.mu.Unlock()
			cancel()
			return "canceled"
		}
	}
	w.caught, w.exited = sig, true
	hooks := w.atExit
	w.mu.Unlock()
	for _, f := range hooks {
		f()
	}
	fmt.Fprintf(w.stderr, "kadmin-lua: %s\n", signalMessage(sig))
	if w.exit != nil {
		w.exit(signalCode(sig))
	}
	w.root() // only a test's Exit returns: let the run wind down
	return "exited"
}

func signalCode(sig os.Signal) int {
	if sig == syscall.SIGTERM {
		return ExitTerminated
	}
	return ExitInterrupted
}

func signalMessage(sig os.Signal) string {
	if sig == syscall.SIGTERM {
		return "terminated"
	}
	return "interrupted"
}
