// Package repl is kadmin-lua's interactive prompt: lua.c's read-eval-print
// loop (expressions print their values, unfinished chunks continue on the
// next line) over a line editor with history and completion, where Ctrl-C
// cancels the running call and Ctrl-D leaves.
package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

const (
	prompt     = "kadmin-lua> "
	contPrompt = "...> "
)

// promptFor is the prompt naming the default cluster: its profile or its
// cluster id (escaped: an id comes from the cluster), when known.
func promptFor(name string) string {
	if name == "" {
		return prompt
	}
	return "kadmin-lua " + luaapi.TerminalText(name) + "> "
}

// Options configure a REPL session.
type Options struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Interruptible, when set, is called with the cancel function of each
	// chunk before it runs; the REPL calls the function it returns once the
	// chunk's values are printed. The CLI's signal watcher cancels the chunk
	// on Ctrl-C (SIGINT) in between, and the session goes on; the REPL
	// installs no signal handler itself. nil: chunks are not interruptible.
	Interruptible func(cancel func()) (done func())
	HistoryPath   string // "" disables the history file
	Yes           bool   // do not ask before destructive calls
	Output        string // "table" or "json"; "" takes the runtime's

	// Reader is the line editor; nil builds a readline one on Stdin/Stdout
	// with HistoryPath and completion over the runtime's Lua state.
	Reader  LineReader
	Version string // shown in the banner

	// NamesTTL is how long names from the cluster (topics, groups,
	// principals, broker ids) are completed without asking again;
	// NamesWait the longest a completion waits for the cluster's answer.
	// Zero: DefaultNamesTTL, DefaultNamesWait.
	NamesTTL, NamesWait time.Duration
}

// Run reads, evaluates and prints until Ctrl-D (nil error) or a fatal error.
// The caller closes the runtime.
func Run(ctx context.Context, rt *luaapi.Runtime, o Options) error {
	if o.Stdout == nil {
		o.Stdout = os.Stdout
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	if o.Output == "" {
		o.Output = rt.Options().Output
	}
	namesCtx, stopNames := context.WithCancel(ctx)
	s := &session{rt: rt, o: o, cache: newNameCache(namesCtx, o.NamesTTL, o.NamesWait)}
	defer s.cache.close()
	defer stopNames() // before close: the fetches in flight end
	reader, own, err := readerFor(rt, o, s.names)
	if err != nil {
		return fmt.Errorf("repl: %w", err)
	}
	s.reader = reader
	if own {
		defer reader.Close()
		// Unblock the prompt when the caller gives up.
		stop := context.AfterFunc(ctx, func() { _ = reader.Close() })
		defer stop()
	}
	prev := rt.Options().Confirm
	if o.Yes {
		rt.SetConfirm(nil)
	} else {
		rt.SetConfirm(s.confirm)
	}
	defer rt.SetConfirm(prev)

	s.learnClusterID()
	fmt.Fprint(o.Stdout, banner(rt, o.Version, s.clusterName()))
	return s.loop(ctx)
}

func banner(rt *luaapi.Runtime, version, name string) string {
	if version == "" {
		version = "dev"
	}
	cluster := "no default cluster (kafka.connect{brokers=...})"
	if b := rt.Options().Config.Brokers; len(b) > 0 {
		cluster = "cluster " + strings.Join(b, ",")
		if name != "" {
			cluster = "cluster " + luaapi.TerminalText(name) + " (" + strings.Join(b, ",") + ")"
		}
	}
	return fmt.Sprintf("kadmin-lua %s (Lua 5.1), %s\nhelp() lists functions, help(fn) explains one; Tab completes; Ctrl-C cancels; Ctrl-D exits.\n",
		version, cluster)
}

type session struct {
	rt     *luaapi.Runtime
	o      Options
	reader LineReader
	cache  *nameCache // names from the cluster, for completion
}

func (s *session) loop(ctx context.Context) error {
	var lines []string // the chunk so far, while it is incomplete
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if len(lines) == 0 {
			s.reader.SetPrompt(promptFor(s.clusterName()))
		} else {
			s.reader.SetPrompt(contPrompt)
		}
		line, err := s.reader.Readline()
		switch {
		case errors.Is(err, ErrInterrupt):
			lines = nil // Ctrl-C at the prompt drops the line (and the unfinished chunk)
			continue
		case errors.Is(err, io.EOF):
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return nil // readline has echoed ^D and a newline
		case err != nil:
			return fmt.Errorf("repl: %w", err)
		}
		if len(lines) == 0 && strings.TrimSpace(line) == "" {
			continue
		}
		lines = append(lines, line)
		chunk := strings.Join(lines, "\n")
		if len(lines) == 1 && strings.HasPrefix(chunk, "=") {
			chunk = "return " + chunk[1:] // lua.c 5.1's "=expr"
		}
		if s.eval(ctx, chunk) {
			continue // incomplete: read more lines
		}
		s.saveHistory(lines)
		lines = nil
	}
}

// eval runs one chunk, printing its values or its error. It reports whether
// the chunk is incomplete. o.Interruptible may cancel this chunk only.
func (s *session) eval(ctx context.Context, chunk string) (incomplete bool) {
	callCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	if s.o.Interruptible != nil {
		defer s.o.Interruptible(cancel)()
	}
	// A line that may have changed the cluster makes the names completion
	// offers stale: the next Tab asks again.
	mutations := s.rt.Mutations()
	defer func() {
		if s.rt.Mutations() != mutations {
			s.cache.expire()
		}
	}()

	values, incomplete, err := s.rt.EvalLine(callCtx, chunk)
	if incomplete {
		return true
	}
	if err != nil {
		msg := err.Error()
		if callCtx.Err() != nil && ctx.Err() == nil { // canceled by Ctrl-C, not by the session's end
			msg = "\ninterrupted" // after the terminal's ^C echo
		}
		fmt.Fprintln(s.o.Stderr, luaapi.MessageText(msg)) // it may quote names from the cluster
		return false
	}
	if len(values) == 0 {
		return false
	}
	// Printed as it is rendered, so an iterator's rows show as they come
	// (Ctrl-C cancels callCtx, which ends its reads).
	if ferr := s.rt.Print(s.o.Stdout, values, s.o.Output); ferr != nil {
		msg := ferr.Error()
		if callCtx.Err() != nil && ctx.Err() == nil {
			msg = "\ninterrupted"
		}
		fmt.Fprintln(s.o.Stderr, luaapi.MessageText(msg))
	}
	return false
}

// saveHistory stores a finished chunk's lines unless any holds a secret.
func (s *session) saveHistory(lines []string) {
	if !keepInHistory(strings.Join(lines, "\n")) {
		return
	}
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			_ = s.reader.SaveHistory(l)
		}
	}
}

// confirm asks before a destructive call, through the same line reader.
// The question names the call and the cluster (its profile or id).
// A long call's summary comes in lines (luaapi/confirm.go): they are
// printed first, and the last one is the question.
func (s *session) confirm(what string) bool {
	if i := strings.LastIndexByte(what, '\n'); i >= 0 && s.o.Stdout != nil {
		_, _ = io.WriteString(s.o.Stdout, luaapi.TerminalText(what[:i+1]))
		what = what[i+1:]
	}
	s.reader.SetPrompt(luaapi.TerminalText(what) + "? [y/N] ")
	answer, err := s.reader.Readline()
	if err != nil {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		return true
	}
	return false
}
