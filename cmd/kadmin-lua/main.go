// Command kadmin-lua administers Kafka from Lua: a REPL on a terminal, a
// script runner for runbooks and batch jobs. main only wires the process to
// run (root.go); every behaviour lives behind the State seam.
package main

func main() {
	adjustStartingHeap()
	st := NewOSState()
	st.Exit(run(st))
}
