package main

import (
	"testing"
)

// BenchmarkStartReturn1 is the in-process part of `kadmin-lua -e 'return 1'`:
// flags, runtime, plugins, the chunk, printing, closing (S in docs/benchmarks.md
// measures the whole process).
func BenchmarkStartReturn1(b *testing.B) {
	c := newCLI(&testing.T{})
	b.ReportAllocs()
	for range b.N {
		if code := c.run("-e", "return 1"); code != 0 {
			b.Fatalf("exit %d: %s", code, c.stderr.String())
		}
	}
}
