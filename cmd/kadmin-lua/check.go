package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kadmin-lua/kadmin-lua/luaapi"
	"github.com/kadmin-lua/kadmin-lua/luaapi/check"
)

// checkCmd is `kadmin-lua check FILE...`: scripts, runbooks and plugins
// read without running them (luaapi/check).
func (a *app) checkCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "check FILE|DIR...",
		Short: "Find mistakes in scripts, runbooks and plugins without running them; list what they can change",
		Long: `Read Lua scripts, runbooks and plugins without running them and without a
cluster, and report what would fail at run time, as file:line:col: message:
syntax errors; unknown globals and fields of the built-in tables (with the
name meant); calls whose arguments the function's declaration refuses (too
many, an unknown option key, a literal of the wrong kind or out of range);
flags a runbook reads but does not declare (scripts/lib/args.lua); plugin
tables of the wrong shape. Then, for each file, the calls that can change
the cluster (destructive ones marked), with their lines.

A test file (*_test.lua, run by kadmin-lua test) also has the test functions
(test, fixture, run, expect, assert.same, fault, ...): their names are known
and their calls are checked as the test runner reads them.

A directory is searched for *.lua files, test files included. The plugins
loaded (--plugin-path, ...) are known: their functions are globals. --json prints
{"files": [{"file", "findings", "changes"}]}.
Exit codes: 0 nothing found, 2 findings, 1 a file cannot be read.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			files, err := checkFiles(args)
			if err != nil {
				return err
			}
			rt, _, err := a.offlineRuntime(cmd)
			if err != nil {
				return err
			}
			plugins := rt.Plugins()
			rt.Close()
			c := check.New(plugins)
			defer c.Close()
			reports := []*check.Report{}
			found := 0
			for _, f := range files {
				src, err := readScript(f)
				if err != nil {
					return exitf(ExitScript, "check: %v", err)
				}
				r := c.Check(f, src)
				found += len(r.Findings)
				reports = append(reports, r)
			}
			if asJSON {
				b, err := json.MarshalIndent(map[string]any{"files": reports}, "", "  ")
				if err != nil {
					return exitf(ExitScript, "check: %v", err)
				}
				if err := writeText(a.st.Stdout, string(b)+"\n"); err != nil {
					return err
				}
			} else if err := writeText(a.st.Stdout, checkText(reports)); err != nil {
				return err
			}
			if found > 0 {
				return &exitError{code: ExitUsage, err: fmt.Errorf("check: %d finding%s in %d file%s", found, plural(found), len(files), plural(len(files)))}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the findings and changes as JSON")
	return cmd
}

// checkFiles expands the arguments: files as given, directories to their
// *.lua files, test files (*_test.lua) among them.
func checkFiles(args []string) ([]string, error) {
	var out []string
	for _, arg := range args {
		fi, err := os.Stat(arg)
		if err != nil {
			return nil, exitf(ExitScript, "check: %v", err)
		}
		if !fi.IsDir() {
			out = append(out, arg)
			continue
		}
		var found []string
		err = filepath.WalkDir(arg, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(p, ".lua") {
				found = append(found, p)
			}
			return nil
		})
		if err != nil {
			return nil, exitf(ExitScript, "check: %v", err)
		}
		if len(found) == 0 {
			return nil, usageErr(errors.New("check: no .lua file in " + arg))
		}
		slices.Sort(found)
		out = append(out, found...)
	}
	return out, nil
}

// checkText is the findings as gcc prints diagnostics (file:line:col:
// message, which editors and CI parse), then each file's changes as notes.
func checkText(reports []*check.Report) string {
	var b strings.Builder
	for _, r := range reports {
		for _, f := range r.Findings {
			fmt.Fprintf(&b, "%s:%d:%d: %s\n", r.File, f.Line, f.Col, f.Message)
		}
	}
	for _, r := range reports {
		for _, c := range r.Changes {
			what := "changes the cluster"
			if c.Destructive {
				what = "changes the cluster, destructive"
			}
			fmt.Fprintf(&b, "%s:%d:%d: note: %s: %s\n", r.File, c.Line, c.Col, what, c.Function)
		}
	}
	// Names in messages come from the scripts: escaped for the terminal.
	return luaapi.TerminalText(b.String())
}

// readScript reads a script file, as large as run reads one.
func readScript(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := luaapi.ReadBounded(f, luaapi.MaxScriptBytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}
