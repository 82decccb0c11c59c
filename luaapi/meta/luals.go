// Package meta writes editor and linter definitions of kadmin-lua's Lua
// surface from the declarations every function has in luaapi: a LuaLS
// definition file (`---@meta`) with a .luarc.json, and a luacheck
// standard. Nothing here lists functions by hand: a function declared in
// luaapi appears in every file the next time `make docs` runs, and the
// freshness test fails until the committed copy in types/ is regenerated.
package meta

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

// errorClass is the error value's class (luaapi/errors.go makes the value).
const errorClass = "kadmin.Error"

// clientClass is a client object's class: kafka.connect's result and
// kafka.default.
const clientClass = "kadmin.Client"

// Plugin functions are globals too; their declarations are free text.
type PluginFunc struct {
	Name, Args, Summary, Doc, Plugin string
}

// LuaLS renders the definition file: every global function, the kafka
// library, the client class with every method, option tables and result
// rows as classes, enums as literal unions.
func LuaLS(plugins []PluginFunc, clientExtras []string) string {
	ty := newTyper()
	var globals, methods, library strings.Builder
	for _, f := range luaapi.Funcs() {
		if !f.Declared() {
			continue
		}
		if f.IsAdmin() {
			for _, name := range append([]string{f.Name}, f.Aliases...) {
				writeFunc(&globals, ty, f, name, name)
				writeFunc(&methods, ty, f, name, "Client:"+name)
			}
			continue
		}
		writeFunc(&library, ty, f, f.Name, f.Name)
	}
	var b strings.Builder
	b.WriteString("---@meta kadmin-lua\n")
	b.WriteString("-- kadmin-lua's Lua API for the Lua language server (LuaLS), generated from the declarations\n")
	b.WriteString("-- by `kadmin-lua meta --luals DIR` (`make docs`). Do not edit: regenerate.\n\n")
	writeErrorClass(&b)
	for _, c := range ty.classes {
		writeClass(&b, c)
	}
	fmt.Fprintf(&b, "---A client of one cluster: every admin function is a method (`c:list_topics()`).\n---@class %s\nlocal Client = {}\n\n", clientClass)
	for _, m := range clientExtras {
		fmt.Fprintf(&b, "---%s\nfunction Client:%s() end\n\n", clientExtraDoc(m), m)
	}
	b.WriteString(methods.String())
	b.WriteString("---kadmin-lua's library (also `require(\"kafka\")`).\nkafka = {}\n\n")
	b.WriteString("---The default cluster's client (from -b, --profile or --embedded): the globals call it.\n")
	fmt.Fprintf(&b, "---@type %s\nkafka.default = nil\n\n", clientClass)
	for _, sub := range libraryTables() {
		fmt.Fprintf(&b, "kafka.%s = {}\n\n", sub)
	}
	b.WriteString("---JSON's null: what kafka.json.decode gives for null, and what kafka.json.encode writes as null.\n")
	b.WriteString("---@type userdata\nkafka.json.null = nil\n\n")
	b.WriteString(library.String())
	b.WriteString("---A script's arguments: arg[0] is the script, arg[1..] what followed it on the command line.\n")
	b.WriteString("---@type table<integer, string>\narg = {}\n\n")
	b.WriteString(globals.String())
	for _, p := range plugins {
		writePluginFunc(&b, p)
	}
	return b.String()
}

// writeFunc writes one function's annotations and stub, as name (a global,
// "Client:name" or a dotted library name). results names the values it
// returns when there are several, each of its result's type.
func writeFunc(b *strings.Builder, ty *typer, f *luaapi.Func, luaName, stub string, results ...string) {
	b.WriteString(docComment(f, luaName))
	var names []string
	class := "kadmin." + strings.ReplaceAll(f.Name, ":", ".") // expectation:is is a method
	optsClass := ""
	if f.OptionsRecord() != nil {
		if f.TableCall && len(f.Params) == 0 {
			optsClass = ty.optionsClass(f, class+".args")
		} else {
			optsClass = ty.optionsClass(f, class+".options")
		}
	}
	for i, p := range f.Params {
		typ := ty.argType(p.Type, class+"."+p.Name)
		if p.Optional && optsClass != "" && !isAny(p.Type) {
			// The options table may come in its place: lag{partial=true}.
			typ = union(typ, optsClass)
		}
		name := luaIdent(p.Name)
		if f.Variadic && i == len(f.Params)-1 {
			fmt.Fprintf(b, "---@param ... %s %s\n", typ, oneLine(p.Doc))
			names = append(names, "...")
			continue
		}
		opt := ""
		if p.Optional {
			opt = "?"
		}
		fmt.Fprintf(b, "---@param %s%s %s %s\n", name, opt, typ, oneLine(p.Doc))
		names = append(names, name)
	}
	if optsClass != "" {
		switch {
		case f.TableCall && len(f.Params) == 0:
			fmt.Fprintf(b, "---@param args %s\n", optsClass)
			names = append(names, "args")
		default:
			fmt.Fprintf(b, "---@param options? %s\n", optsClass)
			names = append(names, "options")
		}
	}
	switch ret := returnType(ty, f); {
	case ret == "":
	case len(results) > 0:
		for _, r := range results {
			fmt.Fprintf(b, "---@return %s %s\n", ret, r)
		}
	default:
		fmt.Fprintf(b, "---@return %s\n", ret)
	}
	fmt.Fprintf(b, "function %s(%s) end\n\n", stub, strings.Join(names, ", "))
}

// docComment is the function's description: summary, what it changes
// (DESTRUCTIVE ones said so first), its doc and example.
func docComment(f *luaapi.Func, name string) string {
	var lines []string
	if name != f.Name {
		lines = append(lines, fmt.Sprintf("Alias of `%s`.", f.Name), "")
	}
	switch {
	case f.Destructive:
		lines = append(lines, "**DESTRUCTIVE**: changes the cluster and may lose data; dry-run and the audit log apply, the REPL asks first unless --yes.", "")
	case f.Mutating:
		lines = append(lines, "**Changes the cluster**: dry-run and the audit log apply.", "")
	}
	lines = append(lines, oneLine(f.Summary))
	for _, para := range strings.Split(strings.TrimSpace(f.Doc), "\n") {
		if para = strings.TrimRight(para, " \t"); strings.TrimSpace(para) != "" {
			lines = append(lines, "", para)
		}
	}
	if ex := strings.TrimSpace(f.Example); ex != "" {
		lines = append(lines, "", "```lua")
		lines = append(lines, strings.Split(ex, "\n")...)
		lines = append(lines, "```")
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("---" + l + "\n")
	}
	return b.String()
}

// returnType is f's result: its declared shape, or what its Returns words
// say for a function that returns no table.
func returnType(ty *typer, f *luaapi.Func) string {
	if s := f.ResultShape(); s != nil {
		return ty.resultType(s, "kadmin."+f.Name+".result")
	}
	switch f.Returns {
	case "nothing", "never", "":
		return ""
	case "string", "number", "boolean":
		return f.Returns
	case "client":
		return clientClass
	}
	if c, ok := ty.wordClasses[f.Returns]; ok {
		return c // a test function's expectation
	}
	return "any"
}

func writeClass(b *strings.Builder, c *class) {
	if c.doc != "" {
		fmt.Fprintf(b, "---%s\n", oneLine(c.doc))
	}
	fmt.Fprintf(b, "---@class %s\n", c.name)
	for _, f := range c.fields {
		opt := ""
		if f.optional {
			opt = "?"
		}
		line := fmt.Sprintf("---@field %s%s %s", f.name, opt, f.typ)
		if f.doc != "" {
			line += " " + f.doc
		}
		b.WriteString(line + "\n")
	}
	b.WriteString("\n")
}

// writeErrorClass declares the error value every failed call raises
// (docs/api.md, Conventions).
func writeErrorClass(b *strings.Builder) {
	writeClass(b, &class{name: errorClass, doc: "An error value: what a failed call raises, and a batch item's error.", fields: []classField{
		{name: "code", typ: "string", doc: "a Kafka error name (TOPIC_ALREADY_EXISTS) or a client-side one (INVALID_ARGUMENT, TIMEOUT, NETWORK, AUTH, CANCELED, DRY_RUN, ...)"},
		{name: "message", typ: "string"},
		{name: "retriable", typ: "boolean"},
		{name: "op", typ: "string", optional: true, doc: "the function"},
		{name: "resource", typ: "string", optional: true, doc: "the topic, group, ... when there is one"},
		{name: "mechanism", typ: "string", optional: true, doc: "a refused SASL login's mechanism"},
		{name: "results", typ: "table[]", optional: true, doc: "a batch call's every item, each with its own error or nil"},
	}})
}

func writePluginFunc(b *strings.Builder, p PluginFunc) {
	fmt.Fprintf(b, "---%s\n---\n---From plugin %s. %s %s\n", oneLine(p.Summary), p.Plugin, p.Name+p.Args, oneLine(p.Doc))
	fmt.Fprintf(b, "---@param ... any\n---@return any\nfunction %s(...) end\n\n", p.Name)
}

// libraryTables are the kafka.* sub-tables the library functions live in
// (kafka.json, kafka.log), in order.
func libraryTables() []string {
	var out []string
	for _, f := range luaapi.Funcs() {
		parts := strings.Split(f.Name, ".")
		if f.IsAdmin() || len(parts) < 3 || parts[0] != "kafka" {
			continue
		}
		sub := strings.Join(parts[1:len(parts)-1], ".")
		if !slices.Contains(out, sub) {
			out = append(out, sub)
		}
	}
	slices.Sort(out)
	return out
}

// clientExtraDoc describes a client method that is no admin function.
func clientExtraDoc(name string) string {
	switch name {
	case "close":
		return "Close the client's connections (it reconnects on the next call)."
	case "brokers":
		return "The client's seed brokers, comma-separated.\n---@return string"
	}
	return name
}

func isAny(t luaapi.Type) bool { _, ok := t.(luaapi.AnyType); return ok }

// luaIdent makes a parameter name a Lua name ("end" is a keyword).
func luaIdent(s string) string {
	switch s {
	case "end", "function", "in", "local", "return", "repeat", "until", "then", "for", "do", "if", "or", "and", "not", "nil", "true", "false", "while", "break", "else", "elseif":
		return s + "_"
	}
	return s
}
