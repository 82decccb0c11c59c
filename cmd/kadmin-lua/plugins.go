package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kadmin-lua/kadmin-lua/internal/clientconfig"
	"github.com/kadmin-lua/kadmin-lua/luaapi"
	"github.com/kadmin-lua/kadmin-lua/scripts"
)

// pluginDirs is where plugins (and require's modules) are looked for,
// first wins: every --plugin-path directory, then every KADMIN_PLUGIN_PATH
// one (colon-separated), then $XDG_CONFIG_HOME/kadmin-lua/plugins (else
// ~/.config/kadmin-lua/plugins) when it exists. A directory named on the
// command line or in the environment must exist: a typo must not silently
// drop the plugin a cron job relies on.
func (a *app) pluginDirs() ([]string, error) {
	var dirs []string
	seen := map[string]bool{}
	add := func(d string) {
		d = filepath.Clean(d)
		if !seen[d] {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	type source struct {
		name string
		dirs []string
	}
	var envDirs []string
	for _, d := range filepath.SplitList(a.st.Env("KADMIN_PLUGIN_PATH")) {
		if d != "" {
			envDirs = append(envDirs, d)
		}
	}
	var flagDirs []string
	for _, d := range a.flags.pluginPath {
		flagDirs = append(flagDirs, clientconfig.SplitList(d)...)
	}
	for _, src := range []source{{"--plugin-path", flagDirs}, {"KADMIN_PLUGIN_PATH", envDirs}} {
		for _, d := range src.dirs {
			fi, err := os.Stat(d)
			if err != nil {
				return nil, exitf(ExitUsage, "%s: %v", src.name, err)
			}
			if !fi.IsDir() {
				return nil, exitf(ExitUsage, "%s: %s is not a directory", src.name, d)
			}
			add(d)
		}
	}
	if cfg := clientconfig.DefaultConfigPath(a.st.Env); cfg != "" {
		d := filepath.Join(filepath.Dir(cfg), "plugins")
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			add(d)
		}
	}
	return dirs, nil
}

// loadPlugins loads the runtime's plugins. A syntax error or a plugin of
// the wrong shape is a configuration error (exit 2); an error its module
// raised while loading exits as a script's would (1, or 3 for Kafka).
func loadPlugins(ctx context.Context, rt *luaapi.Runtime) error {
	err := rt.LoadPlugins(ctx)
	if err == nil {
		return nil
	}
	var re *luaapi.RunError
	if errors.As(err, &re) {
		return err
	}
	return withCode(ExitUsage, err)
}

// pluginsCmd is `kadmin-lua plugins`: the plugins found, their functions
// and commands. It needs no cluster.
func (a *app) pluginsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "plugins",
		Short: "List the plugins loaded, with their functions and commands",
		Long: `List the plugins kadmin-lua loads at start, with the functions they add
(globals) and the commands they add (kadmin-lua run NAME ARGS...), and the
directories searched: --plugin-path, then $KADMIN_PLUGIN_PATH, then
$XDG_CONFIG_HOME/kadmin-lua/plugins (else ~/.config/kadmin-lua/plugins).
-o json prints them as JSON. See docs/plugins.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rt, dirs, err := a.offlineRuntime(cmd)
			if err != nil {
				return err
			}
			defer rt.Close()
			plugins := rt.Plugins()
			if plugins == nil {
				plugins = []*luaapi.Plugin{}
			}
			if dirs == nil {
				dirs = []string{}
			}
			if ok, err := a.printData("plugins", map[string]any{"directories": dirs, "plugins": plugins}); ok {
				return err
			}
			return writeText(a.st.Stdout, pluginsText(plugins, dirs))
		},
	}
}

func pluginsText(plugins []*luaapi.Plugin, dirs []string) string {
	var b strings.Builder
	for _, p := range plugins {
		fmt.Fprintf(&b, "%s", p.Name)
		if p.Version != "" {
			fmt.Fprintf(&b, " %s", p.Version)
		}
		fmt.Fprintf(&b, " (%s)\n", p.File)
		if p.Description != "" {
			fmt.Fprintf(&b, "  %s\n", p.Description)
		}
		if len(p.Functions) > 0 {
			b.WriteString("  functions:\n")
			for _, f := range p.Functions {
				sig := f.Args
				if !strings.HasPrefix(sig, "(") {
					sig = "(" + sig + ")"
				}
				fmt.Fprintf(&b, "    %s%s -> %s\n", f.Name, sig, f.Returns)
				if f.Summary != "" {
					fmt.Fprintf(&b, "        %s\n", f.Summary)
				}
			}
		}
		if len(p.Commands) > 0 {
			b.WriteString("  commands:\n")
			for _, c := range p.Commands {
				fmt.Fprintf(&b, "    kadmin-lua run %s", c.Name)
				if c.Usage != "" {
					fmt.Fprintf(&b, " %s", c.Usage)
				}
				b.WriteString("\n")
				if c.Summary != "" {
					fmt.Fprintf(&b, "        %s\n", c.Summary)
				}
				if _, builtin := scripts.Lookup(c.Name); builtin && !strings.HasSuffix(c.Name, ".lua") {
					fmt.Fprintf(&b, "        (shadows the built-in runbook %s; run %s.lua for that one)\n", c.Name, c.Name)
				}
			}
		}
		b.WriteString("\n")
	}
	if len(plugins) == 0 {
		b.WriteString("no plugins found\n")
	}
	if len(dirs) == 0 {
		b.WriteString("plugin directories: none (use --plugin-path, KADMIN_PLUGIN_PATH or ~/.config/kadmin-lua/plugins)\n")
	} else {
		fmt.Fprintf(&b, "plugin directories: %s\n", strings.Join(dirs, ", "))
	}
	// A plugin's texts are its own: escaped for the terminal as cluster
	// strings are (newlines and tabs stay).
	return luaapi.TerminalText(b.String())
}
