// Package scripts holds the runbooks shipped with kadmin-lua: plain Lua
// files built into the binary, run as `kadmin-lua run NAME ARGS...` (or
// `run scripts/NAME.lua` from a checkout), each starting with a comment
// block (summary, usage, arguments, exit codes, an example) that
// `kadmin-lua run NAME --help` prints. lib/args.lua is their shared
// argument parsing.
//
// The Go code here embeds them (builtin.go) and reads their headers
// (runbooks.go) for `kadmin-lua runbooks` and for docs/runbooks.md, which
// is generated from runbooks.md.tmpl and the headers (`make docs`;
// TestRunbooksDocIsFresh). scripts_test.go runs every runbook through the
// runtime the CLI uses against the demo cluster and checks the cluster's
// state with an independent kadm client.
package scripts
