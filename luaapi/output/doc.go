// Package output is how kadmin-lua prints a Lua value: the aligned table
// (table.go), JSON and NDJSON (json.go), YAML (yaml.go), Lua literals and
// the one-line form of log lines and prompts (literal.go), and the escaping
// that keeps a cluster's strings from driving a terminal (escape.go).
//
// The printers stream: they write to a buffer as they walk the value
// (print.go), and every walk goes through a Guard (guard.go), which stops a
// cyclic, too deep or too large value with a message naming where it is.
// A function's result is printed with its declared Shape (shape.go): times
// in tables, nulls in JSON and YAML.
//
// The package knows nothing of the runtime that made the values. What only
// the runtime knows (kafka.json.null, a result's shape, error values,
// dry-run results, tostring) it asks of a Host; luaapi's Runtime is one.
// Imports go one way: luaapi imports output, never the reverse.
package output
