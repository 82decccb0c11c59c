package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/state"
)

// The state store (--state FILE, KADMIN_STATE) is, like the audit log, part
// of every engine configuration the command makes (engineConfig), so that
// lag_status and kafka.notify remember between calls in every run mode.
// Without a file the store lives in memory for the process: the REPL and
// loop mode still see a trend across their calls and runs.

type stateFlags struct {
	path       string
	window     time.Duration
	samples    int
	maxEntries int
	expire     time.Duration
	wait       time.Duration
}

type stateHolder struct {
	opened bool
	store  *state.Store
	err    error
}

// stateStore opens the store the first time it is asked.
func (a *app) stateStore() (*state.Store, error) {
	s := &a.state
	if s.opened {
		return s.store, s.err
	}
	s.opened = true
	path := a.flags.state.path
	if path == "" {
		path = a.st.Env("KADMIN_STATE")
	}
	o := state.Options{
		Window: a.flags.state.window, MaxSamples: a.flags.state.samples, MaxEntries: a.flags.state.maxEntries, ExpireAfter: a.flags.state.expire, LockWait: a.flags.state.wait,
		Warn: func(msg string) { fmt.Fprintf(a.st.Stderr, "kadmin-lua: WARN %s\n", msg) },
	}
	// A state file decodes to a few times its size: bounded by a share of
	// --max-memory, it never takes a run past the limit.
	if m := int64(a.flags.maxMemory) / 16; m > 0 && m < state.DefaultMaxFile {
		o.MaxFileBytes = m
	}
	if path == "" {
		s.store = state.New(o)
		return s.store, nil
	}
	s.store, s.err = state.OpenFile(path, o)
	if e := (*engine.Error)(nil); errors.As(s.err, &e) && e.Code == engine.CodeInvalidArgument {
		s.err = usageErr(fmt.Errorf("--state: %w", s.err)) // not a file it can keep
	} else if s.err != nil {
		s.err = withCode(ExitScript, fmt.Errorf("--state %s: %w", path, s.err))
	}
	return s.store, s.err
}

// noStateFile is for commands that never sample lag nor send alerts
// (undo, plan, apply): their clients get a store in memory, so that an
// operator's undo never waits for, or fails on, the lock a loop holds on
// the --state file.
func (a *app) noStateFile() {
	if !a.state.opened {
		a.state.opened = true
		a.state.store = state.New(state.Options{})
	}
}

// saveState writes the store to its file, if it has one and was used. A
// failure (a full disk) is a warning: the run's result stands, and loop
// mode's next save tries again.
func (a *app) saveState() {
	if s := a.state.store; s != nil && s.Path() != "" {
		if err := s.Save(); err != nil {
			fmt.Fprintf(a.st.Stderr, "kadmin-lua: WARN state: %v\n", err)
		}
	}
}

// closeState saves the store and lets go of its lock.
func (a *app) closeState() {
	if s := a.state.store; s != nil {
		a.saveState()
		s.Close()
	}
}
