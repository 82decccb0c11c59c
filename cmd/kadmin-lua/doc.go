package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

// docCmd is `kadmin-lua doc [NAME] [--json|--markdown]`: the API reference
// generated from the declarations, or one function's help.
func (a *app) docCmd() *cobra.Command {
	var asJSON, asMarkdown bool
	cmd := &cobra.Command{
		Use:   "doc [NAME]",
		Short: "Show the API reference, or one function's documentation",
		Long: `Without NAME, print the whole API reference as Markdown (the source of
docs/api.md), or as JSON with --json. With NAME (create_topics, kafka.sleep,
an alias such as describe_consumer_groups), print that function's
documentation, or its JSON entry with --json.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if asJSON && asMarkdown {
				return usageErr(errors.New("doc: --json and --markdown exclude each other"))
			}
			out := a.st.Stdout
			if len(args) == 0 {
				if asJSON {
					b, err := luaapi.ReferenceJSON()
					if err != nil {
						return exitf(ExitScript, "doc: %v", err)
					}
					return writeText(out, string(b))
				}
				return writeText(out, luaapi.ReferenceMarkdown())
			}
			f := lookupFunc(args[0])
			if f == nil {
				if near := luaapi.NearestFunc(args[0]); near != "" {
					return exitf(ExitUsage, "doc: no function named %q; did you mean %s? (kadmin-lua doc lists them all)", args[0], near)
				}
				return exitf(ExitUsage, "doc: no function named %q (kadmin-lua doc lists them all)", args[0])
			}
			if asJSON {
				entry, err := referenceEntry(f.Name)
				if err != nil {
					return exitf(ExitScript, "doc: %v", err)
				}
				return writeText(out, string(entry))
			}
			return writeText(out, luaapi.FuncHelp(f))
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&asMarkdown, "markdown", false, "print Markdown (the default)")
	return cmd
}

// lookupFunc finds a function by name or alias; "sleep" finds kafka.sleep
// as help("sleep") does.
func lookupFunc(name string) *luaapi.Func {
	if f := luaapi.Lookup(name); f != nil {
		return f
	}
	return luaapi.Lookup("kafka." + name)
}

// referenceEntry picks one function's entry out of the JSON reference.
func referenceEntry(name string) ([]byte, error) {
	b, err := luaapi.ReferenceJSON()
	if err != nil {
		return nil, err
	}
	var entries []json.RawMessage
	if err := json.Unmarshal(b, &entries); err != nil {
		return nil, fmt.Errorf("the JSON reference is not an array: %v", err)
	}
	for _, e := range entries {
		var head struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(e, &head) == nil && head.Name == name {
			return json.MarshalIndent(e, "", "  ")
		}
	}
	return nil, fmt.Errorf("%s is missing from the JSON reference", name)
}

func writeText(w io.Writer, s string) error {
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	if _, err := io.WriteString(w, s); err != nil {
		return exitf(ExitScript, "doc: %v", err)
	}
	return nil
}
