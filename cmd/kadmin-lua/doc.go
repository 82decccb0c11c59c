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
	var search string
	cmd := &cobra.Command{
		Use:   "doc [NAME]",
		Short: "Show the API reference, or one function's documentation",
		Long: `Without NAME, print the whole API reference as Markdown (the source of
docs/api.md), or as JSON with --json. With NAME (create_topics, kafka.sleep,
an alias such as describe_consumer_groups), print that function's
documentation, or its JSON entry with --json. --search WORDS lists the
functions whose name, summary, documentation or arguments mention every
word (case-insensitive), names that match first.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if asJSON && asMarkdown {
				return usageErr(errors.New("doc: --json and --markdown exclude each other"))
			}
			out := a.st.Stdout
			if search != "" {
				if len(args) > 0 {
					return usageErr(errors.New("doc: --search takes no NAME"))
				}
				found := searchFuncs(search)
				if found == "" {
					// As grep: nothing found is exit 1, said on stderr.
					return exitf(ExitScript, "doc: no function mentions %q (kadmin-lua doc lists them all)", search)
				}
				return writeText(out, found)
			}
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
	cmd.Flags().StringVar(&search, "search", "", "list the functions whose documentation mentions every one of these words")
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

// searchFuncs lists the functions that mention every word of words in
// their name, summary, doc or arguments: a line each, "name  summary",
// those whose name matches a word first; "" when none does.
func searchFuncs(words string) string {
	terms := strings.Fields(strings.ToLower(words))
	type hit struct {
		f      *luaapi.Func
		byName bool
	}
	var hits []hit
	for _, f := range luaapi.Funcs() {
		d := luaapi.DocOf(f)
		var text strings.Builder
		text.WriteString(strings.ToLower(f.Name + " " + d.Summary + " " + d.Doc + " " + d.Args + " " + strings.Join(d.Aliases, " ")))
		for _, a := range append(d.Params, d.Options...) {
			text.WriteString(" " + strings.ToLower(a.Name+" "+a.Doc))
		}
		all, byName := true, false
		for _, w := range terms {
			if !strings.Contains(text.String(), w) {
				all = false
				break
			}
			byName = byName || strings.Contains(strings.ToLower(f.Name), w)
		}
		if all {
			hits = append(hits, hit{f, byName})
		}
	}
	var b strings.Builder
	for _, pass := range []bool{true, false} {
		for _, h := range hits {
			if h.byName == pass {
				fmt.Fprintf(&b, "%-32s %s\n", h.f.Name, h.f.Summary)
			}
		}
	}
	return b.String()
}
