package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/kadmin-lua/kadmin-lua/luaapi/meta"
)

// metaCmd is `kadmin-lua meta --luals DIR` and `kadmin-lua meta --luacheck
// FILE`: editor and linter definitions generated from the declarations.
func (a *app) metaCmd() *cobra.Command {
	var lualsDir, luacheckFile string
	cmd := &cobra.Command{
		Use:   "meta (--luals DIR | --luacheck FILE)",
		Short: "Write editor types (LuaLS) and a luacheck standard for runbooks, plugins and their tests",
		Long: `Write definitions of kadmin-lua's Lua API, generated from the declarations
every function has (the same ones kadmin-lua doc shows):

  --luals DIR      DIR/` + meta.LuaLSFile + ` (a LuaLS ---@meta file: every global function,
                   the kafka library, the client class of kafka.connect with
                   every method, option tables and result rows as classes,
                   enums as literal unions, destructive functions marked),
                   DIR/` + meta.LuaLSTestFile + ` (the same for the functions
                   kadmin-lua test gives a *_test.lua file: test, fixture,
                   run, expect, assert.same, fault, ...) and
                   DIR/` + meta.LuaRCFile + ` (Lua 5.1, the libraries the runtime has).
                   Open DIR, your runbook folder, in an editor with the Lua
                   language server: completion, hover docs, type errors.
  --luacheck FILE  a luacheck configuration defining the standard "kadmin"
                   (every global and its fields), and "kadmin_test" added in
                   *_test.lua files; FILE - writes to stdout.
                   luacheck --config FILE script.lua

Functions of the plugins loaded (--plugin-path, ...) are included as globals.
No cluster is needed. See docs/authoring.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if lualsDir == "" && luacheckFile == "" {
				return usageErr(errors.New("meta: give --luals DIR, --luacheck FILE or both"))
			}
			rt, _, err := a.offlineRuntime(cmd)
			if err != nil {
				return err
			}
			files := meta.Generate(rt.Plugins())
			rt.Close()
			if lualsDir != "" {
				if err := os.MkdirAll(lualsDir, 0o755); err != nil {
					return exitf(ExitScript, "meta: %v", err)
				}
				for name, text := range map[string]string{meta.LuaLSFile: files.LuaLS, meta.LuaLSTestFile: files.LuaLSTest, meta.LuaRCFile: files.LuaRC} {
					if err := os.WriteFile(filepath.Join(lualsDir, name), []byte(text), 0o644); err != nil {
						return exitf(ExitScript, "meta: %v", err)
					}
				}
			}
			switch luacheckFile {
			case "":
			case "-":
				return writeText(a.st.Stdout, files.Luacheck)
			default:
				if err := os.WriteFile(luacheckFile, []byte(files.Luacheck), 0o644); err != nil {
					return exitf(ExitScript, "meta: %v", err)
				}
			}
			if lualsDir != "" {
				fmt.Fprintf(a.st.Stderr, "meta: wrote %s, %s and %s\n", filepath.Join(lualsDir, meta.LuaLSFile),
					filepath.Join(lualsDir, meta.LuaLSTestFile), filepath.Join(lualsDir, meta.LuaRCFile))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&lualsDir, "luals", "", "write the LuaLS definition files and .luarc.json into this directory")
	cmd.Flags().StringVar(&luacheckFile, "luacheck", "", "write a luacheck configuration (the standard \"kadmin\") to this file (- for stdout)")
	return cmd
}
