package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/engine/moves"
	"github.com/kadmin-lua/kadmin-lua/engine/undo"
	"github.com/kadmin-lua/kadmin-lua/internal/boundedfile"
	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

const undoLong = `Revert, newest first, what an audit log (--audit-log) says was changed:
configs back to their previous values, ACLs created deleted and ACLs deleted
recreated, client quotas, committed offsets (the group must be empty), topics
created deleted (after confirmation, or --yes), partition reassignments back
to the recorded replicas.

A resource changed again since is never touched: its current state must be
what the change left, else undo refuses and says why. What cannot be undone
(deleted topics, deleted records, partition increases, SCRAM credential
changes, ...) is said plainly. --dry-run says what would be reverted.

Selecting (each flag repeatable; the flags given must all match):
  --since ID|TIME     the changes from that intent id (or that time, RFC
                      3339 or a date) on
  --id ID             that change (an intent id from the log)
  --resource R        only the items touching R: "orders" (any type) or
                      TYPE:NAME (topic:orders, group:billing, broker:1); one
                      topic of a create_topics of five is reverted alone
  --key KEY           only alter_configs changes of that config key, and of
                      those only that key (retention.ms)

A reassign run moves back under its own caps and throttle; --throttle BYTES
(per second, 50MiB) sets the move back's instead. A run throttled by a
function (which the log cannot hold) moves back unthrottled unless given
one, and says so.

Undo's own changes are written to the audit log (--audit-log, else
AUDIT.jsonl itself) marked undo_of.

Connect to the cluster the log was written on (-b, --profile, ...): changes
recorded on another cluster, or on none, are refused. A change written
through a profile (a fleet's log holds several) is undone only through that
profile (--profile NAME), or with -b naming one of the brokers it was written
to; the others are skipped, naming theirs. The log's
hash chain is verified (keyed with KADMIN_AUDIT_KEY when set): lines that
cannot be read, and every change after a line edited, removed or inserted,
are refused steps (RESOURCE "line N"); the rest is undone. Exit 0 when
everything that can be reverted was; 1 when something was refused; 3 when a
reverting call failed.`

// undoCmd is `kadmin-lua undo AUDIT.jsonl [--since ID|TIME]`.
func (a *app) undoCmd() *cobra.Command {
	var since string
	var sel undo.Selection
	var throttle byteSize
	cmd := &cobra.Command{
		Use:   "undo AUDIT.jsonl",
		Short: "Revert what an audit log says was changed, newest first",
		Long:  undoLong,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runUndo(cmd, args[0], since, &sel, int64(throttle))
		},
	}
	cmd.Flags().StringVar(&since, "since", "", "only the changes from this intent id, or this time (RFC 3339 or a date), on")
	cmd.Flags().StringArrayVar(&sel.IDs, "id", nil, "only this change (an intent id; repeatable)")
	cmd.Flags().StringArrayVar(&sel.Resources, "resource", nil, `only the items touching this resource: "orders" or TYPE:NAME, e.g. topic:orders (repeatable)`)
	cmd.Flags().StringArrayVar(&sel.Keys, "key", nil, "only this config key of alter_configs changes (repeatable)")
	cmd.Flags().Var(&throttle, "throttle", "the replication throttle of a reassign run's move back, bytes per second (50MiB); default: the run's own")
	return cmd
}

func (a *app) runUndo(cmd *cobra.Command, path, since string, sel *undo.Selection, throttle int64) error {
	for _, r := range sel.Resources {
		if err := undo.ParseResource(r); err != nil {
			return usageErr(err)
		}
	}
	f, err := boundedfile.Open(path) // a FIFO or a device is refused; lines are bounded
	if err != nil {
		return exitf(ExitUsage, "undo: %v", err)
	}
	changes, problems, err := auditlog.ReadWith(f, path, a.auditOptions())
	_ = f.Close()
	if err != nil {
		return err
	}
	if _, err := undo.SelectSince(changes, since); err != nil {
		return usageErr(err)
	}
	if err := sel.Check(changes); err != nil {
		return usageErr(err)
	}
	// Undo's own changes are written ahead too: to --audit-log, else to
	// the log being undone (its client's configuration, safety.go).
	if a.flags.auditLog == "" {
		a.audit.path = path
	}
	a.noStateFile()
	cfg, err := a.clusterConfig(cmd)
	if err != nil {
		return err
	}
	cl, err := engine.New(cfg)
	if err != nil {
		return err
	}
	defer cl.Close()

	// The first SIGINT cancels the command's context (signals.go); run
	// reports the signal and its exit code.
	steps, err := undo.Run(cmd.Context(), cl, changes, undo.Options{Since: since, Select: sel, DryRun: a.flags.dryRun, Confirm: a.undoConfirm(),
		Moves: a.undoMoves(throttle)})
	if sig, _ := a.sigs.result(); sig != nil {
		return withCode(signalCode(sig), errors.New("interrupted"))
	}
	a.sigs.output()
	if err != nil {
		return err
	}
	// Lines that could not be read, or where the hash chain breaks, are
	// refused steps: the rest of the log is still undone.
	steps = append(undo.ProblemSteps(problems), steps...)
	if err := a.printSteps(steps); err != nil {
		return exitf(ExitScript, "writing the result: %v", err)
	}
	return undoExit(steps)
}

// auditKeyEnv holds the key of the audit log's hash chain (HMAC-SHA256):
// the same for every run that writes or undoes a log.
const auditKeyEnv = "KADMIN_AUDIT_KEY"

// auditOptions are the audit log's options from the environment. The key
// is a secret: it is never printed.
func (a *app) auditOptions() auditlog.Options {
	return auditlog.Options{Key: engine.Secret(a.st.Env(auditKeyEnv))}
}

// scriptEnv is the environment scripts and plugins read (kafka.env):
// the process's, without the audit log's key.
func (a *app) scriptEnv(name string) string {
	if name == auditKeyEnv {
		return ""
	}
	return a.st.Env(name)
}

// undoConfirm asks before deleting a topic: yes with --yes, a prompt on a
// terminal, else no.
func (a *app) undoConfirm() func(string) bool {
	if a.flags.yes {
		return func(string) bool { return true }
	}
	return a.askYesNo()
}

// interruptAsk asks what a call needs answered while it runs (reassign
// after Ctrl-C: cancel the moves in flight?): a prompt on a terminal; nil
// with --yes or without a terminal, which takes the answer that changes
// nothing more (the moves go on).
func (a *app) interruptAsk() func(string) bool {
	if a.flags.yes {
		return nil
	}
	return a.askYesNo()
}

// askYesNo asks a yes/no question on a terminal (nil without one).
func (a *app) askYesNo() func(string) bool {
	if !a.st.IsTerminal(a.st.Stdin) {
		return nil
	}
	in := bufio.NewReader(a.st.Stdin)
	return func(prompt string) bool {
		fmt.Fprintf(a.st.Stderr, "%s [y/N] ", prompt)
		line, _ := in.ReadString('\n')
		ans := strings.ToLower(strings.TrimSpace(line))
		return ans == "y" || ans == "yes"
	}
}

// undoMoves is how undo moves a reassign run back: its lines on stderr,
// the question after Ctrl-C, and --throttle (0: the run's own).
func (a *app) undoMoves(throttle int64) moves.Options {
	return moves.Options{Ask: a.interruptAsk(), Throttle: moves.Rates{All: throttle}, Log: func(level, msg string) {
		fmt.Fprintf(a.st.Stderr, "%s %s %s\n", time.Now().UTC().Format(time.RFC3339), strings.ToUpper(level), luaapi.CellText(msg))
	}}
}

func (a *app) printSteps(steps []engine.UndoStep) error {
	if steps == nil {
		steps = []engine.UndoStep{}
	}
	if ok, err := a.printData("undo", steps); ok {
		return err
	}
	if len(steps) == 0 {
		_, err := io.WriteString(a.st.Stdout, "nothing to undo\n")
		return err
	}
	tw := tabwriter.NewWriter(a.st.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tOP\tRESOURCE\tACTION\tMESSAGE")
	for _, s := range steps {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", luaapi.CellText(orDash(s.ID)), luaapi.CellText(orDash(s.Op)), luaapi.CellText(orDash(s.Resource)), s.Action, luaapi.CellText(s.Message))
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// undoExit: 3 when a reverting call failed, 1 when something was refused.
func undoExit(steps []engine.UndoStep) error {
	var failed, refused int
	for _, s := range steps {
		switch s.Action {
		case engine.UndoFailed:
			failed++
		case engine.UndoRefused:
			refused++
		}
	}
	switch {
	case failed > 0:
		return exitf(ExitKafka, "undo: %d step(s) failed, %d refused", failed, refused)
	case refused > 0:
		return exitf(ExitScript, "undo: %d step(s) refused", refused)
	}
	return nil
}
