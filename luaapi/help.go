package luaapi

import (
	"fmt"
	"io"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/luaapi/output"
)

// FuncHelp is one function's help text, as help(fn) prints it.
func FuncHelp(f *Func) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s%s -> %s\n", f.Name, signature(f), f.Returns)
	if len(f.Aliases) > 0 {
		fmt.Fprintf(&b, "  aliases: %s\n", strings.Join(f.Aliases, ", "))
	}
	var marks []string
	if f.Mutating {
		marks = append(marks, "changes the cluster (dry-run and audit log apply)")
	}
	if f.Destructive {
		marks = append(marks, "destructive (the REPL asks first unless --yes)")
	}
	if len(marks) > 0 {
		fmt.Fprintf(&b, "  %s\n", strings.Join(marks, "; "))
	}
	for _, n := range operationNotes(f.Operation) {
		fmt.Fprintf(&b, "  %s\n", n)
	}
	if n := needsNote(f); n != "" {
		fmt.Fprintf(&b, "  %s\n", n)
	}
	fmt.Fprintf(&b, "\n%s\n", f.Summary)
	params, options := argDocs(f)
	writeArgDocs(&b, "Arguments", params, false)
	writeArgDocs(&b, "Options", options, false)
	if f.Doc != "" {
		fmt.Fprintf(&b, "\n%s\n", f.Doc)
	}
	if f.Example != "" {
		fmt.Fprintf(&b, "\nExample:\n  %s\n", strings.ReplaceAll(f.Example, "\n", "\n  "))
	}
	return b.String()
}

// helpIndex lists every function by area with its summary.
func helpIndex() string {
	var b strings.Builder
	b.WriteString("kadmin-lua functions (help(name) or help(fn) for details):\n")
	area := ""
	for _, f := range Funcs() {
		if f.Area != area {
			area = f.Area
			fmt.Fprintf(&b, "\n%s:\n", area)
		}
		fmt.Fprintf(&b, "  %-34s %s\n", f.Name, f.Summary)
	}
	return b.String()
}

func (r *Runtime) libHelp(c *Call) int {
	L := c.L
	var text string
	switch v := L.Get(1).(type) {
	case *lua.LNilType:
		text = helpIndex() + r.pluginIndex()
	case *lua.LFunction:
		f := r.funcOf[v]
		if f == nil {
			text = "no help for this function (it is not one of kadmin-lua's)\n"
		} else if pt, ok := r.pluginHelp(f); ok {
			text = pt
		} else {
			text = FuncHelp(f)
		}
	case lua.LString:
		f := Lookup(string(v))
		if f == nil {
			f = Lookup("kafka." + string(v))
		}
		if f == nil {
			f = r.pluginFunc(string(v))
		}
		if pt, ok := r.pluginHelp(f); ok {
			text = pt
		} else if f == nil {
			text = fmt.Sprintf("no function named %s%s; help() lists them\n",
				output.QuoteLua(string(v)), unknownGlobalHint(string(v), r.helpNames()))
		} else {
			text = FuncHelp(f)
		}
	default:
		text = "help takes a function or its name\n"
	}
	// Plugins' texts (summaries, docs, names of files) are theirs: escaped
	// for the terminal as cluster strings are (newlines and tabs stay).
	_, _ = io.WriteString(r.opts.Stdout, TerminalText(text))
	return 0
}

// helpNames are the names help(name) knows: every function and alias,
// the kafka.* ones also without "kafka.", and the plugins' functions.
func (r *Runtime) helpNames() []string {
	var names []string
	for _, f := range Funcs() {
		for _, n := range append([]string{f.Name}, f.Aliases...) {
			names = append(names, n, strings.TrimPrefix(n, "kafka."))
		}
	}
	if r.plug != nil {
		for n := range r.plug.funcs {
			names = append(names, n)
		}
	}
	return names
}
