package lua

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Options.OpenFile sees every file a script opens by name: a host that
// refuses some files refuses them whichever library function names them.

func TestOpenFileHookSeesEveryOpen(t *testing.T) {
	dir := t.TempDir()
	mod := filepath.Join(dir, "m.lua")
	if err := os.WriteFile(mod, []byte("return 42"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.txt")
	var opened []string
	L := NewState()
	defer L.Close()
	L.Options.OpenFile = func(name string, flag int, perm os.FileMode) (*os.File, error) {
		opened = append(opened, filepath.Base(name))
		return os.OpenFile(name, flag, perm)
	}
	L.SetGlobal("dir", LString(dir))
	L.SetField(L.GetGlobal("package"), "path", LString(filepath.Join(dir, "?.lua")))
	src := `
		local f = assert(io.open(dir .. "/m.lua")); f:close()
		for _ in io.lines(dir .. "/m.lua") do end
		io.output(dir .. "/out.txt"); io.output(io.stdout)
		io.input(dir .. "/m.lua"); io.input(io.stdin)
		assert(loadfile(dir .. "/m.lua"))
		assert(dofile(dir .. "/m.lua") == 42)
		assert(require("m") == 42)
	`
	if err := L.DoString(src); err != nil {
		t.Fatal(err)
	}
	want := []string{"m.lua", "m.lua", filepath.Base(out), "m.lua", "m.lua", "m.lua", "m.lua"}
	if !slices.Equal(opened, want) {
		t.Fatalf("opened %v, want %v", opened, want)
	}
}

func TestOpenFileHookRefusal(t *testing.T) {
	L := NewState()
	defer L.Close()
	L.Options.OpenFile = func(name string, flag int, perm os.FileMode) (*os.File, error) {
		return nil, errors.New("refused by the host")
	}
	L.SetField(L.GetGlobal("package"), "path", LString(filepath.Join(t.TempDir(), "?.lua")))
	for src, want := range map[string]string{
		`local f, err = io.open("x"); assert(f == nil); error(err)`: "refused by the host",
		`dofile("x")`:                     "refused by the host",
		`error(select(2, loadfile("x")))`: "can not open file",
	} {
		err := L.DoString(src)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", src, err, want)
		}
	}
}
