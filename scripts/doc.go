// Package scripts holds the runbooks shipped with kadmin-lua: plain Lua
// files run as `kadmin-lua run scripts/NAME.lua ARGS...`, each starting with a
// comment block (usage, arguments, exit codes, an example) that
// `kadmin-lua run scripts/NAME.lua --help` prints. lib/args.lua is their
// shared argument parsing. docs/runbooks.md lists them.
//
// There is no Go code here: scripts_test.go runs every runbook through the
// runtime the CLI uses (luaapi.Runtime.DoFile) against the demo cluster and
// checks the cluster's state with an independent kadm client.
package scripts
