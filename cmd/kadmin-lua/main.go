// Command kadmin-lua administers Kafka from Lua. (Stub: the CLI lands in its
// own change.)
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "kadmin-lua: CLI not wired yet")
	os.Exit(2)
}
