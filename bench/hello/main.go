// Command hello is the yardstick of start-up time (workload S in
// docs/benchmarks.md): a Go program that prints one line, built the way
// kadmin-lua is.
package main

import "fmt"

func main() { fmt.Println(1) }
