// Package luaapi is kadmin-lua's Lua surface: the functions a script or the
// REPL calls, the kafka.* library, error values, and the runtime that runs
// chunks. How a value is printed (tables, JSON, YAML, Lua) is package
// luaapi/output's; the runtime serves it as its output.Host (print.go).
//
// Every function is declared once as data (a Func in the area's file, e.g.
// topics.go) and registered in init. That one declaration feeds the loader
// (globals and client methods), help(), REPL completion and the generated
// reference in docs/api.md. A Func's Run parses Lua arguments, calls the
// engine (never kadm directly) and returns Go values; the dispatcher in
// dispatch.go turns them into Lua tables and applies the shared conventions:
// batch errors and {partial=true}, dry-run, confirmation of destructive
// calls, and the audit log.
package luaapi
