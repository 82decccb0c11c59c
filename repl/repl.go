// Package repl is kadmin-lua's interactive prompt. (Stub: the line editor,
// completion and Ctrl-C handling land in their own change.)
package repl

import (
	"context"
	"errors"
	"io"
	"os"

	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

// Options configure a REPL session.
type Options struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Interrupts delivers SIGINT while a chunk runs (the CLI's signal seam);
	// each one cancels the running call and the session goes on.
	Interrupts  <-chan os.Signal
	HistoryPath string // "" disables history
	Yes         bool   // do not ask before destructive calls
	Output      string // "table" or "json"
}

// Run reads, evaluates and prints until Ctrl-D (nil error) or a fatal error.
func Run(ctx context.Context, rt *luaapi.Runtime, o Options) error {
	return errors.New("repl: not implemented yet")
}
