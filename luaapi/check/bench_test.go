package check

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/kadmin-lua/kadmin-lua/scripts"
)

// BenchmarkCheckEveryShippedRunbook is `kadmin-lua check` of everything
// shipped (the runbooks, their library and tests, the example plugin), the
// checker built each time as the command builds it (issue 34 wants well
// under a second).
func BenchmarkCheckEveryShippedRunbook(b *testing.B) {
	type file struct {
		name string
		src  []byte
	}
	var files []file
	_ = fs.WalkDir(scripts.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			src, _ := fs.ReadFile(scripts.FS, p)
			files = append(files, file{p, src})
		}
		return err
	})
	examples, _ := filepath.Glob("../../examples/*/*.lua")
	tests, _ := filepath.Glob("../../scripts/tests/*_test.lua")
	for _, p := range append(examples, tests...) {
		src, _ := os.ReadFile(p)
		files = append(files, file{p, src})
	}
	if len(files) < 15 {
		b.Fatalf("found %d files", len(files))
	}
	b.ReportAllocs()
	for b.Loop() {
		c := New(nil)
		for _, f := range files {
			if r := c.Check(f.name, f.src); len(r.Findings) > 0 {
				b.Fatalf("%s: %v", f.name, r.Findings)
			}
		}
		c.Close()
	}
}
