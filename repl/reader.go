package repl

import (
	"io"
	"os"
	"path/filepath"

	"github.com/chzyer/readline"

	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

// ErrInterrupt is what Readline returns when Ctrl-C is pressed at the
// prompt: the line typed so far is dropped and the session goes on.
var ErrInterrupt = readline.ErrInterrupt

// LineReader is the line editor the REPL reads through: readline on a
// terminal, a fake in tests. Readline returns io.EOF on Ctrl-D and
// ErrInterrupt on Ctrl-C.
type LineReader interface {
	Readline() (string, error)
	SetPrompt(prompt string)
	// SaveHistory records one line in the history (and its file, if any).
	// The REPL calls it only for lines that hold no secrets.
	SaveHistory(line string) error
	Close() error
}

// ReaderOptions configure NewReader.
type ReaderOptions struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	HistoryPath    string // "" keeps history in memory only
	// Complete, when set, completes the word at the cursor (see Complete).
	Complete func(line string, pos int) (candidates []string, prefixLen int)
}

// NewReader builds a readline-backed LineReader. History is never saved
// automatically: the REPL filters lines with secrets and saves the rest.
func NewReader(o ReaderOptions) (LineReader, error) {
	if o.Stdin == nil {
		o.Stdin = os.Stdin
	}
	if o.Stdout == nil {
		o.Stdout = os.Stdout
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	if o.HistoryPath != "" {
		prepareHistoryFile(o.HistoryPath)
	}
	cfg := &readline.Config{
		Prompt:                 prompt,
		HistoryFile:            o.HistoryPath,
		HistoryLimit:           1000,
		DisableAutoSaveHistory: true,
		HistorySearchFold:      true,
		Stdin:                  readline.NewCancelableStdin(o.Stdin),
		Stdout:                 o.Stdout,
		Stderr:                 o.Stderr,
	}
	if o.Complete != nil {
		cfg.AutoComplete = completer(o.Complete)
	}
	rl, err := readline.NewEx(cfg)
	if err != nil {
		return nil, err
	}
	return rl, nil
}

// prepareHistoryFile creates the history directory (private: history may
// name topics and hosts) and the file, so readline does not create it
// world-readable. Failures only mean no history.
func prepareHistoryFile(path string) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err == nil {
		_ = f.Close()
	}
}

// completer adapts a completion function to readline's AutoCompleter,
// which wants the candidates' remaining suffixes.
type completer func(line string, pos int) ([]string, int)

func (c completer) Do(line []rune, pos int) ([][]rune, int) {
	cands, n := c(string(line[:pos]), len(string(line[:pos])))
	if len(cands) == 0 {
		return nil, 0
	}
	out := make([][]rune, len(cands))
	for i, s := range cands {
		out[i] = []rune(s[n:])
	}
	prefix := []rune(cands[0][:n])
	return out, len(prefix)
}

// readerFor returns o.Reader, or a readline reader on the terminal with
// completion over rt's Lua state. own reports whether Run must close it.
func readerFor(rt *luaapi.Runtime, o Options, names Names) (r LineReader, own bool, err error) {
	if o.Reader != nil {
		return o.Reader, false, nil
	}
	r, err = NewReader(ReaderOptions{
		Stdin: o.Stdin, Stdout: o.Stdout, Stderr: o.Stderr, HistoryPath: o.HistoryPath,
		Complete: func(line string, pos int) ([]string, int) { return CompleteWith(rt.L, names, line, pos) },
	})
	return r, err == nil, err
}
