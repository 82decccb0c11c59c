package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/fixture"
	"github.com/kadmin-lua/kadmin-lua/luaapi"
	"github.com/kadmin-lua/kadmin-lua/snapshot"
)

// rehearseCmd is `kadmin-lua rehearse FILE [ARGS...]`: the runbook runs on
// an in-process copy of the cluster, and what it changed there is printed
// as plan rows. The cluster itself is only read (a snapshot), never
// changed, and the runbook reaches no cluster but the copy.
func (a *app) rehearseCmd() *cobra.Command {
	sf := &snapshotFlags{}
	cmd := &cobra.Command{
		Use:   "rehearse FILE [ARGS...]",
		Short: "Run a runbook on an in-process copy of the cluster and print what it changed there",
		Long: `Rehearse a runbook before running it for real. kadmin-lua reads the cluster
into a snapshot (or takes the one --fixture FILE names), starts an in-process
copy of it, runs FILE ARGS on the copy as run would (FILE is a file, a plugin
command or a built-in runbook), and prints what the runbook returned, then what
it changed on the copy, in the rows of the plan table (kadmin-lua plan), and
"Rehearsal: N changes.". Nothing is changed on the cluster: it is only read,
and the runbook can reach no cluster but the copy (kafka.connect to another is
refused). The copy's own audit log is thrown away: --audit-log is not written.

The exit code is the runbook's, as run gives it. Then run it for real:
kadmin-lua [connection flags] run FILE ARGS. --match reads only part of the
cluster (topics, groups, ACLs... whose names match). See docs/authoring.md.`,
		Example: `  kadmin-lua --profile prod rehearse add-partitions orders 24
  kadmin-lua --profile prod snapshot -o prod.json
  kadmin-lua --fixture prod.json rehearse ./my-runbook.lua --topic orders`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return a.rehearse(cmd, args, sf) },
	}
	cmd.Flags().SetInterspersed(false)
	cmd.Flags().StringVar(&sf.match, "match", "", "copy only the topics, groups, ACLs, quotas and SCRAM users whose name matches (RE2)")
	return cmd
}

func (a *app) rehearse(cmd *cobra.Command, args []string, sf *snapshotFlags) error {
	ctx := cmd.Context()
	src, what, err := a.rehearsalSource(cmd, sf)
	if err != nil {
		return err
	}
	copied, err := fixture.Start(ctx, src)
	if err != nil {
		return exitf(ExitScript, "rehearse: starting the copy of %s: %v", what, err)
	}
	defer copied.Close()
	before, err := snapshotOf(ctx, copied)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "kadmin-lua-rehearse-")
	if err != nil {
		return exitf(ExitScript, "rehearse: %v", err)
	}
	defer os.RemoveAll(dir)
	var audit *auditlog.Log
	if !a.flags.dryRun {
		if audit, err = auditlog.Open(filepath.Join(dir, "audit.jsonl")); err != nil {
			return exitf(ExitScript, "rehearse: %v", err)
		}
		defer audit.Close()
	}
	dirs, err := a.pluginDirs()
	if err != nil {
		return err
	}
	cfg := engine.Config{Brokers: copied.Addrs, Timeout: a.flags.timeout, Audit: audit, DryRun: a.flags.dryRun, Verbose: a.verbose()}
	rt, err := a.newRuntime(cmd, &session{dirs: dirs}, luaapi.Options{Config: cfg, Cluster: "copy of " + what,
		ConnectGuard: func(brokers []string) error {
			for _, b := range brokers {
				if !slices.Contains(copied.Addrs, b) {
					return fmt.Errorf("%s is not the rehearsal's copy: a rehearsal reaches no other cluster", b)
				}
			}
			return nil
		}})
	if err != nil {
		return err
	}
	defer rt.Close()
	vals, runErr := a.scriptRunner(args)(ctx, rt)
	if sig, _ := a.sigs.result(); sig != nil {
		return nil // run reports the signal
	}
	after, err := snapshotOf(ctx, copied)
	if err != nil {
		return err
	}
	changes := snapshot.Diff(before, after)
	var values any // the runbook's first value, as data for -o json, ndjson, yaml
	if a.flags.output != "table" && len(vals) > 0 {
		if s, err := rt.Format(vals[:1], "json"); err == nil {
			_ = json.Unmarshal([]byte(s), &values)
		}
	} else if len(vals) > 0 {
		if err := rt.Print(a.st.Stdout, vals, a.flags.output); err != nil {
			return exitf(ExitScript, "rehearse: printing the result: %v", err)
		}
	}
	if err := a.printSnapshotChanges(changes, values); err != nil {
		return err
	}
	fmt.Fprintf(a.st.Stderr, "rehearse: that was a copy of %s; nothing was changed there. For real: kadmin-lua [connection flags] run %s\n",
		luaapi.MessageText(what), luaapi.MessageText(strings.Join(args, " ")))
	if runErr != nil {
		return runErr
	}
	if n := len(rt.CheckFailures()); n > 0 {
		return exitf(ExitCheck, "%d checks failed", n)
	}
	return nil
}

// rehearsalSource is what the copy is made from: --fixture's file, or a
// snapshot of the default cluster (read, never changed).
func (a *app) rehearsalSource(cmd *cobra.Command, sf *snapshotFlags) (*fixture.Fixture, string, error) {
	if a.flags.fixture != "" {
		f, err := fixture.Read(a.flags.fixture)
		if err != nil {
			return nil, "", withCode(ExitUsage, err)
		}
		return f, a.flags.fixture, nil
	}
	o, err := sf.options()
	if err != nil {
		return nil, "", err
	}
	cl, err := a.client(cmd)
	if err != nil {
		return nil, "", err
	}
	defer cl.Close()
	c := cl.Config()
	o.Source = fixture.Source{Brokers: c.Brokers, Profile: c.Profile}
	f, err := snapshot.Take(cmd.Context(), cl, o)
	if err != nil {
		return nil, "", withCode(ExitKafka, err)
	}
	what := c.Profile
	if what == "" {
		what = strings.Join(c.Brokers, ",")
	}
	return f, what, nil
}

// snapshotOf reads the copy as it is now.
func snapshotOf(ctx context.Context, c *fixture.Cluster) (*fixture.Fixture, error) {
	cl, err := engine.New(engine.Config{Brokers: c.Addrs})
	if err != nil {
		return nil, exitf(ExitScript, "rehearse: %v", err)
	}
	defer cl.Close()
	f, err := snapshot.Take(ctx, cl, snapshot.Options{})
	if err != nil {
		return nil, exitf(ExitScript, "rehearse: reading the copy: %v", err)
	}
	return f, nil
}
