package scripts

import (
	"embed"
	"io/fs"
	"path"
	"strings"
)

// FS holds the runbooks and their library, built into the binary so that
// `kadmin-lua run add-partitions.lua orders 24` works from any directory.
//
//go:embed *.lua lib/*.lua
var FS embed.FS

// Lookup finds a built-in runbook by name, with or without ".lua" (and
// with or without a leading "scripts/"), returning its path in FS.
func Lookup(name string) (string, bool) {
	name = strings.TrimPrefix(path.Clean(name), "scripts/")
	if !strings.HasSuffix(name, ".lua") {
		name += ".lua"
	}
	if strings.Contains(name, "/") {
		return "", false
	}
	if _, err := fs.Stat(FS, name); err != nil {
		return "", false
	}
	return name, true
}

// Names lists the built-in runbooks.
func Names() []string {
	entries, _ := fs.ReadDir(FS, ".")
	var out []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".lua") {
			out = append(out, strings.TrimSuffix(e.Name(), ".lua"))
		}
	}
	return out
}
