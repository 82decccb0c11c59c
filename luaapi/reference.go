package luaapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// FuncDoc is one function's documentation as `kadmin-lua doc --json`
// gives it.
type FuncDoc struct {
	Name    string `json:"name"`
	Area    string `json:"area"`
	Args    string `json:"args"`
	Returns string `json:"returns"`
	// Result is Returns as data: the declared shape, fields with their
	// types (a mutating function's rows also declare dry_run); null when
	// the function returns no table.
	Result      *ShapeDoc `json:"result"`
	Summary     string    `json:"summary"`
	Doc         string    `json:"doc"`
	Example     string    `json:"example"`
	Mutating    bool      `json:"mutating"`
	Destructive bool      `json:"destructive"`
	// Operation is a mutating function's row of the engine's operations
	// table: how it dry-runs, what its audit line records, how undo
	// reverts it; null for a function that changes nothing.
	Operation *OperationDoc `json:"operation"`
	Aliases   []string      `json:"aliases"` // never null: [] when none
	// Needs is what the function needs of a cluster beyond Kafka 3.9 in
	// either mode (Func.Needs), in words; [] when nothing.
	Needs   []string `json:"needs"`
	Params  []ArgDoc `json:"params"`  // positional arguments, in order; [] when none
	Options []ArgDoc `json:"options"` // keys of the options table; [] when none
}

// ArgDoc documents one positional argument or option, from its declaration.
type ArgDoc struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Required bool   `json:"required"`
	Doc      string `json:"doc,omitempty"`
}

// argDocs lists f's positional arguments and options as declared.
func argDocs(f *Func) (params, options []ArgDoc) {
	params, options = []ArgDoc{}, []ArgDoc{}
	if !f.declared() {
		return params, options
	}
	for _, p := range f.Params {
		params = append(params, ArgDoc{Name: p.Name, Type: p.Type.Doc(), Required: !p.Optional, Doc: p.Doc})
	}
	for _, o := range f.options() {
		options = append(options, ArgDoc{Name: o.Name, Type: o.Type.Doc(), Required: o.Required, Doc: o.Doc})
	}
	return params, options
}

// writeArgDocs writes a list of arguments or options as Markdown or help
// text lines: "- `name` (type, required): doc".
func writeArgDocs(b *strings.Builder, title string, docs []ArgDoc, markdown bool) {
	if len(docs) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s:\n", title)
	if markdown {
		b.WriteString("\n")
	}
	for _, d := range docs {
		name := d.Name
		if markdown {
			name = "`" + name + "`"
		}
		req := ""
		if d.Required {
			req = ", required"
		}
		line := fmt.Sprintf("%s (%s%s)", name, d.Type, req)
		if d.Doc != "" {
			line += ": " + d.Doc
		}
		if markdown {
			fmt.Fprintf(b, "- %s\n", line)
		} else {
			fmt.Fprintf(b, "  %s\n", line)
		}
	}
}

// DocOf gives f's documentation record.
func DocOf(f *Func) FuncDoc {
	aliases := append([]string{}, f.Aliases...)
	slices.Sort(aliases)
	params, options := argDocs(f)
	return FuncDoc{Name: f.Name, Area: f.Area, Args: signature(f), Returns: f.Returns, Result: f.resultShape().Doc(), Summary: f.Summary,
		Doc: f.Doc, Example: f.Example, Mutating: f.Mutating, Destructive: f.Destructive, Operation: operationDoc(f.Operation), Aliases: aliases,
		Needs: needsText(f), Params: params, Options: options}
}

// Reference gives every declared function's documentation, sorted by name.
func Reference() []FuncDoc {
	out := []FuncDoc{}
	for _, f := range Funcs() {
		out = append(out, DocOf(f))
	}
	slices.SortFunc(out, func(a, b FuncDoc) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// ReferenceJSON renders the declarations as JSON for `kadmin-lua doc
// --json`: an array of FuncDoc sorted by name, indented, ending in a newline.
func ReferenceJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(Reference()); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// referenceIntro is the top of docs/api.md: the conventions every function
// follows.
const referenceIntro = `# kadmin-lua API reference

<!-- Generated from the declarations in luaapi/*.go by ` + "`make docs`" + `. Do not edit by hand:
     a test (TestAPIDocIsFresh) fails when this file is stale. -->

Every function below is a global bound to the default cluster (from the command-line flags or
profile, connected on first use) and a method of every client made by ` + "`kafka.connect{...}`" + `:
` + "`list_topics()`" + ` and ` + "`prod:list_topics()`" + ` do the same thing on different clusters. ` + "`help(fn)`" + ` at
the prompt and ` + "`kadmin-lua doc NAME`" + ` show the same text; ` + "`kadmin-lua doc --json`" + ` gives it as data.
Every example runs, in a test, against the demo cluster of ` + "`make demo`" + ` (see [demo.md](demo.md)).

## Conventions

- **Arguments** are declared: each function below lists its arguments and options with their types, and
  every call is checked against that declaration before anything is sent. Plural functions take an array; a single string is accepted as a one-element array
  (` + "`describe_topics(\"orders\")`" + ` is ` + "`describe_topics({\"orders\"})`" + `). Options come last, in a table:
  ` + "`delete_topics(\"t\", {if_exists = true})`" + `. An unknown option, or an argument of the wrong type, raises an
  INVALID_ARGUMENT error naming the function and the argument:
  ` + "`create_topics: spec #2: partitions must be a positive integer, got \"x\"`" + `.
- **Results** are plain Lua tables: arrays of records with snake_case keys, sorted (by topic name, then
  partition). Empty results are empty tables (` + "`[]`" + ` in JSON, ` + "`(no rows)`" + ` in a table).
  Each function declares its result's shape with types: ` + "`string`" + `, ` + "`int`" + `, ` + "`number`" + `, ` + "`bool`" + `,
  ` + "`time`" + ` (milliseconds since the epoch; RFC 3339 in tables), ` + "`duration`" + ` (milliseconds; 4m10s in
  tables), ` + "`rate`" + ` (per second; one decimal in tables), ` + "`error`" + ` (an error value, below),
  ` + "`json`" + ` (a value decoded from JSON the cluster holds: a string, number, bool, table or ` + "`kafka.json.null`" + `),
  ` + "`{k=T, ...}`" + ` a record, ` + "`{T...}`" + ` a list, ` + "`{[string]=T}`" + ` a map, and ` + "`T?`" + ` a field that may be absent
  (nil). A field absent from a row is ` + "`null`" + ` in JSON and YAML output; ` + "`kadmin-lua doc --json`" + ` gives the
  shape as data (` + "`result`" + `). A mutating function's rows may also hold ` + "`dry_run`" + ` (below).
- **Numbers** are Lua numbers (doubles): offsets, timestamps (milliseconds since the epoch) and counts are
  exact below 2^53 (9007199254740992), which every real offset is.
- **Errors are raised**, never returned. The error value is a table with the fields ` + "`code`" + ` (a Kafka
  error name like TOPIC_ALREADY_EXISTS, or a client-side INVALID_ARGUMENT, TIMEOUT, NETWORK, AUTH,
  CANCELED, DRY_RUN, ...), ` + "`message`" + `, ` + "`retriable`" + ` (boolean), ` + "`op`" + ` (the function),
  ` + "`resource`" + ` (the topic, group, ... when there is one), ` + "`mechanism`" + ` (a refused SASL login's, also in
  ` + "`tostring(err)`" + `: ` + "`SASL_AUTHENTICATION_FAILED (PLAIN): ...`" + `) and, for a batch call, ` + "`results`" + ` (every
  item, each with its own ` + "`error`" + ` or nil). ` + "`tostring(err)`" + ` reads
  ` + "`create_topics: orders: TOPIC_ALREADY_EXISTS: ...`" + `. Catch errors with ` + "`pcall`" + `:
  ` + "`local ok, err = pcall(create_topics, \"orders\"); if not ok then print(err.code) end`" + `.
- **Batches and partial.** A batch call does every item it can, then raises if any item failed;
  ` + "`err.results`" + ` says which items succeeded. With ` + "`{partial = true}`" + ` it returns the results instead,
  each failed item carrying its ` + "`error`" + ` table.
- **Retries.** Retriable errors (NOT_CONTROLLER, LEADER_NOT_AVAILABLE, COORDINATOR_LOAD_IN_PROGRESS,
  timeouts, ...) are retried with backoff until the call's deadline (` + "`--timeout`" + `, default 30s), per item
  where Kafka answers per item. A mutation whose outcome is unknown is checked, never blindly repeated.
- **Idempotent helpers** for runbooks: ` + "`if_not_exists`" + ` on creates, ` + "`if_exists`" + ` on deletes.
- **Mutations** (marked *changes the cluster* below) honour dry-run (` + "`--dry-run`" + ` or
  ` + "`kafka.dry_run(true)`" + `): nothing changes, Kafka validates where the API can (` + "`validate_only`" + `), the plan
  is printed to stderr and results carry ` + "`dry_run = true`" + `. Every mutation that runs is written ahead to the
  audit log (` + "`--audit-log FILE`" + `): an intent line with the state before, synced before the request is
  sent, then an outcome line; secrets left out; ` + "`kadmin-lua undo`" + ` reverts from it. *Destructive* ones (deletes, resets,
  reassignments, ...) ask for confirmation in the REPL unless ` + "`--yes`" + `.
- **Aliases.** kafka-python's names work too (` + "`describe_consumer_groups`" + ` for ` + "`describe_groups`" + `, ...).
`

// ReferenceMarkdown renders docs/api.md from the declarations: the
// conventions, an index, then every function grouped by area (admin areas
// in name order, then the library areas).
func ReferenceMarkdown() string {
	areas, byArea := groupByArea(Funcs())
	var b strings.Builder
	b.WriteString(referenceIntro)

	b.WriteString("\n## Index\n")
	for _, area := range areas {
		fmt.Fprintf(&b, "\n**%s**\n\n", areaTitle(area))
		for _, f := range byArea[area] {
			fmt.Fprintf(&b, "- [`%s`](#%s)%s: %s\n", f.Name, anchor(f.Name), marks(f), oneLine(f.Summary))
		}
	}

	for _, area := range areas {
		fmt.Fprintf(&b, "\n## %s\n", areaTitle(area))
		for _, f := range byArea[area] {
			writeFunc(&b, f)
		}
	}
	return b.String()
}

func writeFunc(b *strings.Builder, f *Func) {
	fmt.Fprintf(b, "\n<a id=\"%s\"></a>\n### %s\n\n", anchor(f.Name), f.Name)
	fmt.Fprintf(b, "```lua\n%s%s -> %s\n```\n\n", f.Name, signature(f), f.Returns)
	b.WriteString(oneLine(f.Summary) + "\n")
	var notes []string
	if len(f.Aliases) > 0 {
		as := append([]string{}, f.Aliases...)
		slices.Sort(as)
		notes = append(notes, "Aliases: `"+strings.Join(as, "`, `")+"`.")
	}
	switch {
	case f.Destructive:
		notes = append(notes, "*Changes the cluster, destructive*: dry-run and the audit log apply; the REPL asks first unless `--yes`.")
	case f.Mutating:
		notes = append(notes, "*Changes the cluster*: dry-run and the audit log apply.")
	}
	notes = append(notes, operationNotes(f.Operation)...)
	if n := needsNote(f); n != "" {
		notes = append(notes, n+" (see [compatibility.md](compatibility.md)).")
	}
	if len(notes) > 0 {
		b.WriteString("\n" + strings.Join(notes, " ") + "\n")
	}
	params, options := argDocs(f)
	writeArgDocs(b, "Arguments", params, true)
	writeArgDocs(b, "Options", options, true)
	if d := docParagraphs(f.Doc); d != "" {
		b.WriteString("\n" + d + "\n")
	}
	if ex := strings.TrimSpace(f.Example); ex != "" {
		fmt.Fprintf(b, "\nExample:\n\n```lua\n%s\n```\n", ex)
	}
}

// groupByArea orders the areas: those with admin functions first, by name,
// then the library areas, by name.
func groupByArea(fs []*Func) ([]string, map[string][]*Func) {
	byArea := map[string][]*Func{}
	admin := map[string]bool{}
	var areas []string
	for _, f := range fs {
		if _, seen := byArea[f.Area]; !seen {
			areas = append(areas, f.Area)
		}
		byArea[f.Area] = append(byArea[f.Area], f)
		if f.IsAdmin() {
			admin[f.Area] = true
		}
	}
	slices.SortFunc(areas, func(a, b string) int {
		if admin[a] != admin[b] {
			if admin[a] {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	for _, a := range areas {
		slices.SortFunc(byArea[a], func(x, y *Func) int { return strings.Compare(x.Name, y.Name) })
	}
	return areas, byArea
}

func areaTitle(area string) string {
	if area == "" {
		return "Other"
	}
	return strings.ToUpper(area[:1]) + area[1:]
}

// anchor is the HTML id of a function's section: its name, which GitHub and
// other renderers accept as is (dots included).
func anchor(name string) string { return strings.ReplaceAll(name, " ", "-") }

func marks(f *Func) string {
	switch {
	case f.Destructive:
		return " (destructive)"
	case f.Mutating:
		return " (changes the cluster)"
	}
	return ""
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// docParagraphs turns a declaration's plain-text Doc into Markdown: every
// line is a paragraph, except that consecutive list items ("- " or "* ")
// and indented lines stay together.
func docParagraphs(doc string) string {
	var b strings.Builder
	prevList := false
	for _, line := range strings.Split(strings.TrimSpace(doc), "\n") {
		line = strings.TrimRight(line, " \t")
		if strings.TrimSpace(line) == "" {
			continue
		}
		trimmed := strings.TrimLeft(line, " \t")
		list := strings.HasPrefix(trimmed, "- ") || strings.HasPrefix(trimmed, "* ") || trimmed != line
		if b.Len() > 0 {
			if list && prevList {
				b.WriteString("\n")
			} else {
				b.WriteString("\n\n")
			}
		}
		b.WriteString(line)
		prevList = list
	}
	return b.String()
}
