package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kadmin-lua/kadmin-lua/internal/starter"
)

// newCmd is `kadmin-lua new runbook|plugin NAME`.
func (a *app) newCmd() *cobra.Command {
	var dir string
	var force bool
	cmd := &cobra.Command{
		Use:   "new runbook|plugin NAME",
		Short: "Write a new runbook (or plugin) and a test file for it that passes",
		Long: `Start a runbook: new runbook NAME writes NAME.lua (its header, which --help
prints and kadmin-lua runbooks reads; flags through lib/args.lua; a read before
the change; dry-run handling), NAME_test.lua (tests on an in-process cluster
that pass as written), and lib/args.lua beside them when it is not there.
new plugin NAME writes a plugin with a function and a command, and its tests.
Change the code and its tests together; kadmin-lua test NAME_test.lua runs
them. Existing files are not overwritten unless --force. Needs no cluster.
See docs/authoring.md.`,
		Example: `  kadmin-lua new runbook rotate-retention
  kadmin-lua test rotate-retention_test.lua
  kadmin-lua new plugin topic-checks --dir ~/.config/kadmin-lua/plugins`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usageErr(fmt.Errorf("new takes a kind (%s) and a NAME, got %d arguments", strings.Join(starter.Kinds, " or "), len(args)))
			}
			return nil
		},
		ValidArgs: starter.Kinds,
		RunE: func(cmd *cobra.Command, args []string) error {
			wrote, err := starter.Write(args[0], args[1], dir, force)
			if err != nil {
				return usageErr(err)
			}
			var b strings.Builder
			for _, p := range wrote {
				fmt.Fprintf(&b, "wrote %s\n", p)
			}
			name := strings.TrimSuffix(args[1], ".lua")
			fmt.Fprintf(&b, "Run its tests: kadmin-lua test %s\n", filepath.Join(dir, name+"_test.lua"))
			return writeText(a.st.Stdout, b.String())
		},
	}
	cmd.Flags().StringVar(&dir, "dir", ".", "write the files into this directory")
	cmd.Flags().BoolVar(&force, "force", false, "overwrite files that exist")
	return cmd
}
