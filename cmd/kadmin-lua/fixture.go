package main

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"

	"github.com/spf13/cobra"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/fixture"
	"github.com/kadmin-lua/kadmin-lua/luaapi"
	"github.com/kadmin-lua/kadmin-lua/snapshot"
)

// --fixture FILE: like --embedded, every command runs on an in-process
// cluster, seeded from FILE (a fixture, or a snapshot of a real cluster).

// fixtureConfig starts --fixture's cluster once per process and is the
// default cluster of every command. Like --embedded it ignores -b,
// profiles and credentials.
func (a *app) fixtureConfig(cmd *cobra.Command) (engine.Config, error) {
	if a.flags.embedded {
		return engine.Config{}, usageErr(errors.New("give --embedded or --fixture, not both"))
	}
	if a.copy == nil {
		f, err := fixture.Read(a.flags.fixture)
		if err != nil {
			return engine.Config{}, withCode(ExitUsage, err)
		}
		c, err := fixture.Start(cmd.Context(), f)
		if err != nil {
			return engine.Config{}, exitf(ExitScript, "--fixture %s: %v", a.flags.fixture, err)
		}
		a.copy = c
	}
	return a.engineConfig(engine.Config{Brokers: a.copy.Addrs, Timeout: a.flags.timeout})
}

// snapshotFlags are what snapshot and rehearse read of a cluster.
type snapshotFlags struct {
	records int
	redact  bool
	match   string
}

func (sf *snapshotFlags) options() (snapshot.Options, error) {
	o := snapshot.Options{Records: sf.records, RedactValues: sf.redact}
	if sf.match != "" {
		re, err := regexp.Compile(sf.match)
		if err != nil {
			return o, usageErr(fmt.Errorf("--match: %v", err))
		}
		o.Match = re
	}
	if sf.records < 0 || sf.records > snapshot.MaxRecordsPerPartition {
		return o, usageErr(fmt.Errorf("--records must be from 0 to %d, got %d", snapshot.MaxRecordsPerPartition, sf.records))
	}
	return o, nil
}

// snapshotCmd is `kadmin-lua snapshot [-o FILE]`.
func (a *app) snapshotCmd() *cobra.Command {
	sf := &snapshotFlags{}
	cmd := &cobra.Command{
		Use:   "snapshot [-o FILE]",
		Short: "Write the cluster's layout and state as a fixture file (JSON), to seed copies and tests",
		Long: `Read the cluster's brokers and racks, topics (partitions, replicas, the configs
set on them, log start and end offsets), consumer groups (committed offsets,
members), ACLs, client quotas and SCRAM users, and write them as a fixture: the
file --fixture FILE starts an in-process copy from, and kadmin-lua test seeds
tests with. It changes nothing and reads no secret: a sensitive config is left
out, a SCRAM user is its name, mechanism and iterations. What the cluster
refuses to show is listed in the file's "unread" and on stderr.

Here -o/--output names the file (the format is always JSON; without -o the
snapshot goes to stdout). Records are read only with --records N (the first N
of each partition); --redact-values keeps their keys and sizes, not their
values. See docs/authoring.md.`,
		Example: `  kadmin-lua --profile prod snapshot -o prod.json
  kadmin-lua --profile prod snapshot --match '^orders' --records 10 --redact-values -o orders.json
  kadmin-lua --fixture prod.json -e 'return describe_topics("orders")'`,
		Args: cobra.NoArgs,
		// -o is this command's file, not the output format: the root's
		// check of --output does not apply.
		PersistentPreRunE: func(*cobra.Command, []string) error { return nil },
		RunE: func(cmd *cobra.Command, _ []string) error {
			path := ""
			if cmd.Flags().Changed("output") {
				path = a.flags.output
				if slices.Contains(luaapi.Outputs, path) {
					return usageErr(fmt.Errorf("snapshot writes JSON; -o names its file (-o %s.json), not a format", path))
				}
			}
			o, err := sf.options()
			if err != nil {
				return err
			}
			cl, err := a.client(cmd)
			if err != nil {
				return err
			}
			defer cl.Close()
			o.Source = fixture.Source{Brokers: cl.Config().Brokers, Profile: cl.Config().Profile}
			f, err := snapshot.Take(cmd.Context(), cl, o)
			if err != nil {
				return withCode(ExitKafka, err)
			}
			b, err := fixture.Marshal(f)
			if err != nil {
				return exitf(ExitScript, "snapshot: %v", err)
			}
			for _, u := range f.Unread {
				fmt.Fprintf(a.st.Stderr, "snapshot: not read: %s\n", luaapi.MessageText(u))
			}
			if path == "" {
				_, err := a.st.Stdout.Write(b)
				return err
			}
			// Records and names are the cluster's data: the owner's alone.
			if err := os.WriteFile(path, b, 0o600); err != nil {
				return exitf(ExitScript, "snapshot: %v", err)
			}
			fmt.Fprintf(a.st.Stderr, "snapshot: wrote %s: %s\n", path, snapshot.Summary(f))
			return nil
		},
	}
	cmd.Flags().IntVar(&sf.records, "records", 0, "read the first N records of each partition (at most 10000)")
	cmd.Flags().BoolVar(&sf.redact, "redact-values", false, "with --records: keep keys, sizes and header names, leave values out")
	cmd.Flags().StringVar(&sf.match, "match", "", "only topics, groups, ACLs (resource or principal), quota entities and SCRAM users whose name matches (RE2)")
	return cmd
}

// printSnapshotChanges prints a rehearsal's changes as the plan table, or
// as data with -o json/yaml.
func (a *app) printSnapshotChanges(changes []snapshot.Change, values any) error {
	if changes == nil {
		changes = []snapshot.Change{}
	}
	if ok, err := a.printData("rehearse", map[string]any{"values": values, "changes": changes}); ok {
		return err
	}
	return snapshot.Print(a.st.Stdout, changes, "Rehearsal")
}
