package scripts

import (
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"sync"
	"text/template"
)

// Runbook is what a built-in runbook's header comment says about it.
type Runbook struct {
	Name    string `json:"name"`    // "reset-offsets": kadmin-lua run reset-offsets ...
	Summary string `json:"summary"` // the first line after "NAME.lua: "
	Args    string `json:"args"`    // the Usage line's arguments: "GROUP TO [TOPIC[:PARTITION]...] [--force]"
	Header  string `json:"-"`       // the whole comment block, as --help prints it
}

// Usage is how the runbook is run by name.
func (r Runbook) Usage() string {
	return strings.TrimSpace("kadmin-lua run " + r.Name + " " + r.Args)
}

// Runbooks reads every built-in runbook's header, in name order.
func Runbooks() []Runbook {
	var out []Runbook
	for _, n := range Names() {
		if r, ok := Get(n); ok {
			out = append(out, r)
		}
	}
	return out
}

// Get reads one built-in runbook's header by name (as Lookup accepts it).
func Get(name string) (Runbook, bool) {
	file, ok := Lookup(name)
	if !ok {
		return Runbook{}, false
	}
	src, err := fs.ReadFile(FS, file)
	if err != nil {
		return Runbook{}, false
	}
	h := Header(string(src))
	r := Runbook{Name: strings.TrimSuffix(file, ".lua"), Header: h}
	first, _, _ := strings.Cut(h, "\n")
	r.Summary = strings.TrimSpace(strings.TrimPrefix(first, file+":"))
	if m := usageLine().FindStringSubmatch(h); m != nil {
		r.Args = strings.TrimSpace(m[1])
	}
	return r, true
}

var (
	commentPrefix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-+ ?`) })
	usageLine     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^Usage:\s+kadmin-lua run \S+\.lua(.*)$`) })
)

// Header is the comment block at the top of a script without its "-- "
// prefixes: what `--help` prints. It is the rule of lib/args.lua's header()
// (a #! first line skipped, then every line starting with "--").
func Header(src string) string {
	var lines []string
	for i, line := range strings.Split(src, "\n") {
		line = strings.TrimSuffix(line, "\r")
		switch {
		case i == 0 && strings.HasPrefix(line, "#!"):
		case strings.HasPrefix(line, "--"):
			lines = append(lines, commentPrefix().ReplaceAllString(line, ""))
		default:
			return strings.Join(lines, "\n")
		}
	}
	return strings.Join(lines, "\n")
}

// Flag is a flag a script's usage line names, with the words its header's
// Arguments list gives it.
type Flag struct {
	Name  string // "--max"
	Value string // "N" for a flag that takes a value; "" for a boolean
	Doc   string
}

var (
	usageFlag = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(--[A-Za-z0-9][\w-]*)(?:[ =]([A-Z][A-Z0-9_]*))?`) })
	argLine   = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*(--[A-Za-z0-9][\w-]*)(?:[ =][A-Z][A-Z0-9_]*)?\s{2,}(.+)$`)
	})
)

// Flags reads the flags a script declares: those its usage (a Usage line's
// arguments, or a plugin command's declared usage) names, in order, each
// with the first line the header's Arguments list says of it. lib/args
// refuses any other flag, so the usage is the list to complete from.
func Flags(usage, header string) []Flag {
	docs := map[string]string{}
	for _, line := range strings.Split(header, "\n") {
		if m := argLine().FindStringSubmatch(line); m != nil && docs[m[1]] == "" {
			docs[m[1]] = strings.TrimSpace(m[2])
		}
	}
	var out []Flag
	seen := map[string]bool{}
	for _, m := range usageFlag().FindAllStringSubmatch(usage, -1) {
		if seen[m[1]] {
			continue
		}
		seen[m[1]] = true
		out = append(out, Flag{Name: m[1], Value: m[2], Doc: docs[m[1]]})
	}
	return out
}

// WantsHelp reports whether a runbook's arguments ask for its usage: -h or
// --help before a "--", as lib/args.lua reads them.
func WantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "--help":
			return true
		}
	}
	return false
}

// RenderDoc renders docs/runbooks.md from its template
// (scripts/runbooks.md.tmpl): {{table}} is the table of runbooks and
// {{usage "NAME"}} one runbook's full usage header, both from the headers.
func RenderDoc(tmpl string) (string, error) {
	funcs := template.FuncMap{
		"table": func() string {
			var b strings.Builder
			b.WriteString("| runbook | does |\n|---|---|\n")
			for _, r := range Runbooks() {
				fmt.Fprintf(&b, "| [`%s`](#%s) | %s |\n", strings.TrimSpace(r.Name+" "+r.Args), r.Name, escapeCell(r.Summary))
			}
			return strings.TrimSuffix(b.String(), "\n")
		},
		"usage": func(name string) (string, error) {
			r, ok := Get(name)
			if !ok {
				return "", fmt.Errorf("no built-in runbook %q", name)
			}
			return "```\n$ kadmin-lua run " + r.Name + " --help\n" + r.Header + "\n```", nil
		},
	}
	t, err := template.New("runbooks.md").Funcs(funcs).Option("missingkey=error").Parse(tmpl)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := t.Execute(&b, nil); err != nil {
		return "", err
	}
	return b.String(), nil
}

func escapeCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
