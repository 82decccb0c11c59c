package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kadmin-lua/kadmin-lua/luaapi"
	"github.com/kadmin-lua/kadmin-lua/scripts"
)

// runnable is one name `kadmin-lua run NAME` runs without a file: a
// built-in runbook or a plugin's command.
type runnable struct {
	Name    string `json:"name"`
	Usage   string `json:"usage"`
	Summary string `json:"summary"`
	Plugin  string `json:"plugin,omitempty"` // the plugin adding it; "" for a built-in runbook
	// Shadows: a plugin command with a built-in runbook's name runs
	// instead of it (run NAME.lua runs the runbook).
	Shadows bool `json:"shadows_runbook,omitempty"`
}

// offlineRuntime loads the plugins into a runtime with no cluster, for the
// commands that only list what exists (plugins, runbooks, completion).
func (a *app) offlineRuntime(cmd *cobra.Command) (*luaapi.Runtime, []string, error) {
	dirs, err := a.pluginDirs()
	if err != nil {
		return nil, nil, err
	}
	rt := luaapi.New(luaapi.Options{Stdout: a.st.Stdout, Stderr: a.st.Stderr, Stdin: a.st.Stdin,
		Env: a.scriptEnv, PluginPath: dirs, Output: a.flags.output})
	if err := loadPlugins(cmd.Context(), rt); err != nil {
		rt.Close()
		return nil, nil, err
	}
	return rt, dirs, nil
}

// runnables lists the built-in runbooks, then the plugins' commands.
func runnables(rt *luaapi.Runtime) (runbooks, commands []runnable) {
	runbooks = []runnable{}
	for _, r := range scripts.Runbooks() {
		runbooks = append(runbooks, runnable{Name: r.Name, Usage: r.Usage(), Summary: r.Summary})
	}
	commands = []runnable{}
	for _, p := range rt.Plugins() {
		for _, c := range p.Commands {
			_, builtin := scripts.Lookup(c.Name)
			commands = append(commands, runnable{Name: c.Name, Usage: strings.TrimSpace("kadmin-lua run " + c.Name + " " + c.Usage),
				Summary: c.Summary, Plugin: p.Name, Shadows: builtin && !strings.HasSuffix(c.Name, ".lua")})
		}
	}
	return runbooks, commands
}

// runbooksCmd is `kadmin-lua runbooks`: what `run NAME` runs without a
// file, with one line each.
func (a *app) runbooksCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "runbooks",
		Short: "List the built-in runbooks and the plugins' commands, with their summaries",
		Long: `List what kadmin-lua run NAME runs when no file NAME exists: the runbooks built
into kadmin-lua (docs/runbooks.md) and the commands plugins add
(docs/plugins.md), each with its usage and one-line summary.
kadmin-lua run NAME --help prints a runbook's full usage. -o json prints the
lists as JSON. Needs no cluster.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rt, _, err := a.offlineRuntime(cmd)
			if err != nil {
				return err
			}
			defer rt.Close()
			runbooks, commands := runnables(rt)
			if ok, err := a.printData("runbooks", map[string]any{"runbooks": runbooks, "commands": commands}); ok {
				return err
			}
			return writeText(a.st.Stdout, runnablesText(runbooks, commands))
		},
	}
}

func runnablesText(runbooks, commands []runnable) string {
	var b strings.Builder
	b.WriteString("Built-in runbooks (kadmin-lua run NAME --help for the full usage; docs/runbooks.md):\n")
	writeRunnables(&b, runbooks)
	if len(commands) == 0 {
		b.WriteString("\nNo plugin commands (kadmin-lua plugins says where plugins are looked for).\n")
		return b.String()
	}
	b.WriteString("\nPlugin commands (docs/plugins.md):\n")
	writeRunnables(&b, commands)
	return b.String()
}

func writeRunnables(b *strings.Builder, list []runnable) {
	width := 0
	for _, r := range list {
		width = max(width, len(r.Name))
	}
	for _, r := range list {
		summary := r.Summary
		if r.Plugin != "" {
			summary = strings.TrimSpace(summary + " (plugin " + r.Plugin + ")")
		}
		fmt.Fprintf(b, "  %-*s  %s\n", width, r.Name, summary)
		fmt.Fprintf(b, "  %-*s  %s\n", width, "", r.Usage)
		if r.Shadows {
			fmt.Fprintf(b, "  %-*s  (shadows the built-in runbook %s; run %s.lua for that one)\n", width, "", r.Name, r.Name)
		}
	}
}
