package main

import (
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kadmin-lua/kadmin-lua/engine/login"
	"github.com/kadmin-lua/kadmin-lua/luaapi"
	"github.com/kadmin-lua/kadmin-lua/scripts"
)

// completionCmd is `kadmin-lua completion bash|zsh|fish|powershell`:
// cobra's generators. The scripts call `kadmin-lua __complete ...`, which
// completes flags and subcommands from the command tree and, through the
// functions below, profile names, runbook and plugin command names, and
// API function names.
func (a *app) completionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print a shell completion script",
		Long: `Print a completion script for the shell. It completes subcommands and flags,
profile names after --profile (from the config file), runbook and plugin
command names after run (and .lua files), and function names after doc.

  bash (with or without the bash-completion package):
    source <(kadmin-lua completion bash)                # this shell
    kadmin-lua completion bash > ~/.local/share/bash-completion/completions/kadmin-lua
  zsh (compinit loaded):
    kadmin-lua completion zsh > "${fpath[1]}/_kadmin-lua"
  fish:
    kadmin-lua completion fish > ~/.config/fish/completions/kadmin-lua.fish
  powershell:
    kadmin-lua completion powershell | Out-String | Invoke-Expression`,
		Args:                  cobra.ExactArgs(1),
		ValidArgs:             []string{"bash", "zsh", "fish", "powershell"},
		DisableFlagsInUseLine: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			root, out := cmd.Root(), a.st.Stdout
			var err error
			switch args[0] {
			case "bash":
				if _, err = io.WriteString(out, bashWithoutBashCompletion); err == nil {
					err = root.GenBashCompletionV2(out, true)
				}
			case "zsh":
				err = root.GenZshCompletion(out)
			case "fish":
				err = root.GenFishCompletion(out, true)
			case "powershell":
				err = root.GenPowerShellCompletionWithDesc(out)
			default:
				return usageErr(fmt.Errorf("completion: unknown shell %q (bash, zsh, fish or powershell)", args[0]))
			}
			if err != nil {
				return exitf(ExitScript, "completion: %v", err)
			}
			return nil
		},
	}
}

// bashWithoutBashCompletion comes before cobra's bash script, which calls
// _get_comp_words_by_ref from the bash-completion package: without the
// package every Tab printed "_get_comp_words_by_ref: command not found".
// Where the package is loaded its own function stays.
const bashWithoutBashCompletion = `# Without the bash-completion package: a minimal _get_comp_words_by_ref
# (the words as bash split them), so that completion still works.
if ! declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
_get_comp_words_by_ref() {
    while [[ $# -gt 0 && $1 == -* ]]; do
        case $1 in -n) shift 2 ;; *) shift ;; esac
    done
    local v
    for v in "$@"; do
        case $v in
        cur) cur=${COMP_WORDS[COMP_CWORD]} ;;
        prev) prev=${COMP_WORDS[COMP_CWORD-1]} ;;
        words) words=("${COMP_WORDS[@]}") ;;
        cword) cword=$COMP_CWORD ;;
        esac
    done
}
fi
`

// registerCompletions adds the completions that need more than the command
// tree: call it once every command is added.
func (a *app) registerCompletions(root *cobra.Command) {
	_ = root.RegisterFlagCompletionFunc("profile", a.completeProfiles)
	_ = root.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(luaapi.Outputs, cobra.ShellCompDirectiveNoFileComp))
	_ = root.RegisterFlagCompletionFunc("sasl-mechanism", cobra.FixedCompletions(
		login.SASLMechanisms, cobra.ShellCompDirectiveNoFileComp))
	_ = root.MarkPersistentFlagDirname("plugin-path")
	for _, c := range root.Commands() {
		switch c.Name() {
		case "run":
			c.ValidArgsFunction = a.completeRunnables
		case "doc":
			c.ValidArgsFunction = completeFuncs
		}
	}
}

// completeProfiles lists the config file's profiles (--config or the
// default file), the default one described as such.
func (a *app) completeProfiles(_ *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
	cf, err := a.configFile(false)
	if err != nil || cf == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(cf.Profiles)) {
		desc := strings.Join(cf.Profiles[name].Brokers, ",")
		if name == cf.DefaultProfile {
			desc = strings.TrimSpace("default profile " + desc)
		}
		out = append(out, withDesc(name, desc))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeRunnables completes run's FILE: built-in runbooks, plugin
// commands, and .lua files and directories. Later arguments belong to the
// script: the shell's file completion.
func (a *app) completeRunnables(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		if strings.HasPrefix(toComplete, "-") {
			return a.completeScriptFlags(cmd, args[0], toComplete)
		}
		return nil, cobra.ShellCompDirectiveDefault
	}
	var out []string
	if rt, _, err := a.offlineRuntime(cmd); err == nil {
		runbooks, commands := runnables(rt)
		rt.Close()
		for _, r := range append(runbooks, commands...) {
			if strings.HasPrefix(r.Name, toComplete) {
				out = append(out, withDesc(r.Name, r.Summary))
			}
		}
	}
	directive := cobra.ShellCompDirectiveNoFileComp
	matches, _ := filepath.Glob(globEscape(toComplete) + "*")
	for _, m := range matches {
		fi, err := os.Stat(m)
		switch {
		case err != nil:
		case fi.IsDir():
			out = append(out, m+string(filepath.Separator))
			directive |= cobra.ShellCompDirectiveNoSpace
		case strings.HasSuffix(m, ".lua"):
			out = append(out, m)
		}
	}
	return out, directive
}

// completeScriptFlags completes the flags of the script run runs (a
// built-in runbook, a plugin command or a .lua file): the ones its usage
// names (lib/args refuses others), described by its header's Arguments
// list, and --help. The script is read, never run.
func (a *app) completeScriptFlags(cmd *cobra.Command, script, toComplete string) ([]string, cobra.ShellCompDirective) {
	var usage, header string
	found := false
	if fi, err := os.Stat(script); err == nil && !fi.IsDir() {
		if src, err := os.ReadFile(script); err == nil {
			header = scripts.Header(string(src))
			if _, args, ok := strings.Cut(header, "Usage:"); ok {
				usage, _, _ = strings.Cut(args, "\n")
			}
		}
		found = true
	}
	if rt, _, err := a.offlineRuntime(cmd); err == nil && !found { // a plugin command shadows a runbook
		_, commands := runnables(rt)
		rt.Close()
		for _, c := range commands {
			if c.Name == script {
				usage, header, found = c.Usage, c.Summary, true
			}
		}
	}
	if r, ok := scripts.Get(script); ok && !found {
		usage, header = r.Args, r.Header
	}
	var out []string
	for _, f := range append(scripts.Flags(usage, header), scripts.Flag{Name: "--help", Doc: "print the usage"}) {
		if strings.HasPrefix(f.Name, toComplete) {
			out = append(out, withDesc(f.Name, strings.TrimSpace(f.Value+"  "+f.Doc)))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeFuncs completes doc's NAME: every function and alias.
func completeFuncs(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, f := range luaapi.Funcs() {
		for _, n := range append([]string{f.Name}, f.Aliases...) {
			if strings.HasPrefix(n, toComplete) {
				out = append(out, withDesc(n, f.Summary))
			}
		}
	}
	slices.Sort(out)
	return out, cobra.ShellCompDirectiveNoFileComp
}

// withDesc is a completion with its description (cobra's "name\tdesc"),
// kept to one line.
func withDesc(name, desc string) string {
	desc = strings.Join(strings.Fields(desc), " ")
	if desc == "" {
		return name
	}
	return name + "\t" + desc
}

func globEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`, "[", `\[`).Replace(s)
}
