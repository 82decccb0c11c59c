package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/internal/clientconfig"
	"github.com/kadmin-lua/kadmin-lua/luaapi"
	"github.com/kadmin-lua/kadmin-lua/scripts"
)

// runCmd is `kadmin-lua run FILE [ARGS...]`. Everything after FILE belongs
// to the script, flags included, as with lua.c: arg[0] is FILE, arg[1..]
// and ... are ARGS.
func (a *app) runCmd() *cobra.Command {
	sched := &schedule{}
	cmd := &cobra.Command{
		Use:   "run FILE [ARGS...]",
		Short: "Run a Lua script; ARGS go to the script as arg[1..] and ...",
		Long: `Run a Lua script. arg[0] is FILE and arg[1..] are ARGS, which the chunk also
gets as ... (as lua.c does). Flags after FILE belong to the script; put
kadmin-lua's own flags before it. The values the script returns are printed
per --output. A #! first line is ignored.

FILE may also name, when no such file exists here, a command a plugin adds
(kadmin-lua plugins lists them; see docs/plugins.md) or else a runbook built
into kadmin-lua: ` + strings.Join(scripts.Names(), ", ") + ` (see docs/runbooks.md;
kadmin-lua runbooks lists them with the plugins' commands, and
kadmin-lua run NAME --help prints a runbook's full usage).

--every runs the script again and again (loop mode), each run in a fresh Lua
state on one Kafka connection, logging one line per run; --profiles runs it
once per profile, concurrently; --metrics-file writes OpenMetrics text for
Prometheus after each run. See docs/scheduling.md.`,
		Example: `  kadmin-lua -b localhost:9092 run scripts/reset-offsets.lua orders-consumer 2026-11-30T10:00:00Z
  kadmin-lua --profile prod -o json run health.lua --strict
  kadmin-lua --profile prod run --every 5m --metrics-file /var/lib/node_exporter/lag.prom check-lag.lua --max 1000
  kadmin-lua run --profiles 'prod-*,dr' --parallel 8 cluster-health.lua`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if sched.active(cmd) {
				return a.runScheduled(cmd, args, sched)
			}
			return a.runScript(cmd, a.scriptRunner(args))
		},
	}
	cmd.Flags().SetInterspersed(false)
	sched.addFlags(cmd)
	return cmd
}

// scriptRunner runs `run FILE ARGS...`: a file on disk wins; otherwise a
// plugin's command; otherwise a runbook built into the binary (scripts/),
// so `run add-partitions.lua` works anywhere.
func (a *app) scriptRunner(args []string) func(context.Context, *luaapi.Runtime) ([]lua.LValue, error) {
	return func(ctx context.Context, rt *luaapi.Runtime) ([]lua.LValue, error) {
		if _, err := os.Stat(args[0]); err != nil && os.IsNotExist(err) {
			if c, p, ok := rt.Command(args[0]); ok {
				if scripts.WantsHelp(args[1:]) && (c.Usage != "" || c.Summary != "" || c.Doc != "") {
					// A command that declares its usage is answered
					// from it: its code never sees --help.
					return nil, writeText(a.st.Stdout, commandHelp(c, p))
				}
				return rt.RunCommand(ctx, args[0], args[1:])
			}
			if name, ok := scripts.Lookup(args[0]); ok {
				if r, _ := scripts.Get(name); scripts.WantsHelp(args[1:]) && r.Header != "" {
					// The runbook's own --help reads its header from
					// disk; built in, it is read here.
					return nil, writeText(a.st.Stdout, r.Header)
				}
				return rt.DoFS(ctx, scripts.FS, name, args[1:])
			}
			vals, err := rt.DoFile(ctx, args[0], args[1:])
			return vals, a.notFound(err)
		}
		return rt.DoFile(ctx, args[0], args[1:])
	}
}

// notFound adds to a missing script's error where else the name was
// looked for: under cron, with no HOME or XDG_CONFIG_HOME, the plugin
// directory is not there, and "cannot read script" alone hid why.
func (a *app) notFound(err error) error {
	var re *luaapi.RunError
	if !errors.As(err, &re) {
		return err
	}
	dirs, derr := a.pluginDirs()
	var where string
	switch cfg := clientconfig.DefaultConfigPath(a.st.Env); {
	case derr == nil && len(dirs) > 0:
		where = "plugin directories searched: " + strings.Join(dirs, ", ")
	case cfg == "":
		where = "no plugin directory: neither XDG_CONFIG_HOME nor HOME is set (as under cron); use --plugin-path or KADMIN_PLUGIN_PATH"
	default:
		where = "no plugin directory: " + filepath.Join(filepath.Dir(cfg), "plugins") + " does not exist"
	}
	c := *re
	c.Message += "; nor is it a plugin command (" + where + ") or a runbook (kadmin-lua runbooks lists them)"
	return &c
}

// commandHelp is a plugin command's --help, from its declaration; the
// plugin's texts are escaped as cluster strings are.
func commandHelp(c *luaapi.PluginCommand, p *luaapi.Plugin) string {
	var b strings.Builder
	b.WriteString("Usage: kadmin-lua run " + luaapi.TerminalText(strings.TrimSpace(c.Name+" "+c.Usage)) + "\n")
	if c.Summary != "" {
		b.WriteString("\n" + luaapi.TerminalText(c.Summary) + "\n")
	}
	if c.Doc != "" {
		b.WriteString("\n")
		for _, line := range strings.Split(c.Doc, "\n") {
			b.WriteString(luaapi.TerminalText(line) + "\n")
		}
	}
	if p != nil {
		b.WriteString("\n(from plugin " + luaapi.TerminalText(p.Name) + ")\n")
	}
	return b.String()
}
