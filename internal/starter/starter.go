// Package starter writes the files `kadmin-lua new` starts an author
// with: a runbook (its header, flags read by lib/args.lua, dry-run
// handling) or a plugin, each with a test file that passes as written
// (`kadmin-lua test`), for the author to change along with the code.
package starter

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/kadmin-lua/kadmin-lua/scripts"
)

//go:embed templates/*.lua
var templates embed.FS

// Kinds are what `new` writes.
var Kinds = []string{"runbook", "plugin"}

var validName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)

// Write writes the files of a new runbook or plugin called name into dir,
// and returns their paths. It refuses to overwrite a file unless force; a
// runbook's lib/args.lua already there is left as it is.
func Write(kind, name, dir string, force bool) ([]string, error) {
	name = strings.TrimSuffix(name, ".lua")
	if !validName.MatchString(name) {
		return nil, fmt.Errorf("new %s: the name must be letters, digits, '-' and '_', starting with a letter, got %q", kind, name)
	}
	if strings.HasSuffix(name, "_test") {
		return nil, fmt.Errorf("new %s: %q would be taken for a test file (*_test.lua)", kind, name)
	}
	fn := strings.ReplaceAll(strings.ToLower(name), "-", "_")
	files := map[string]string{}
	switch kind {
	case "runbook":
		files[name+".lua"] = "runbook.lua"
		files[name+"_test.lua"] = "runbook_test.lua"
	case "plugin":
		files[name+".lua"] = "plugin.lua"
		files[name+"_test.lua"] = "plugin_test.lua"
	default:
		return nil, fmt.Errorf("new: kind must be one of %s, got %q", strings.Join(Kinds, ", "), kind)
	}
	var exists []string
	for file := range files {
		if _, err := os.Lstat(filepath.Join(dir, file)); err == nil {
			exists = append(exists, filepath.Join(dir, file))
		}
	}
	if len(exists) > 0 && !force {
		return nil, fmt.Errorf("new %s: %s exists already (--force overwrites)", kind, strings.Join(exists, ", "))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var wrote []string
	for _, file := range []string{name + ".lua", name + "_test.lua"} {
		t, err := templates.ReadFile("templates/" + files[file])
		if err != nil {
			return nil, err
		}
		text := strings.NewReplacer("__NAME__", name, "__FUNC__", fn).Replace(string(t))
		p := filepath.Join(dir, file)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return nil, err
		}
		wrote = append(wrote, p)
	}
	if kind == "runbook" {
		p, err := writeArgsLib(dir)
		if err != nil {
			return nil, err
		}
		if p != "" {
			wrote = append(wrote, p)
		}
	}
	return wrote, nil
}

// writeArgsLib puts the runbooks' argument library (scripts/lib/args.lua)
// beside a new runbook, so require("lib.args") finds it wherever the
// runbook runs from; one already there is kept.
func writeArgsLib(dir string) (string, error) {
	p := filepath.Join(dir, "lib", "args.lua")
	if _, err := os.Lstat(p); err == nil {
		return "", nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	src, err := fs.ReadFile(scripts.FS, "lib/args.lua")
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return "", err
	}
	return p, os.WriteFile(p, src, 0o644)
}
