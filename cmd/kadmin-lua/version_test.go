package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadVersion(t *testing.T) {
	bi := &debug.BuildInfo{
		GoVersion: "go1.26.8",
		Main:      debug.Module{Path: "github.com/kadmin-lua/kadmin-lua", Version: "v1.4.0"},
		Deps: []*debug.Module{
			{Path: "github.com/twmb/franz-go", Version: "v1.22.3"},
			{Path: "github.com/twmb/franz-go/pkg/kadm", Version: "v1.19.0", Replace: &debug.Module{Path: "../kadm", Version: "v1.20.0"}},
		},
		Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "36f4d38a1b2c3d4e5f60718293a4b5c6d7e8f901"},
			{Key: "vcs.time", Value: "2026-11-30T10:00:00Z"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	v := readVersion(bi, "")
	assert.Equal(t, versionInfo{Version: "v1.4.0", Commit: "36f4d38a1b2c3d4e5f60718293a4b5c6d7e8f901", Time: "2026-11-30T10:00:00Z",
		Modified: true, Go: "go1.26.8", FranzGo: "v1.22.3", Kadm: "v1.20.0"}, v)
	assert.Equal(t, "v1.4.0", v.Short())
	assert.Equal(t, `kadmin-lua v1.4.0
commit:   36f4d38a1b2c3d4e5f60718293a4b5c6d7e8f901 (2026-11-30T10:00:00Z), with uncommitted changes
go:       go1.26.8
franz-go: v1.22.3 (kadm v1.20.0)
`, v.Text())

	// -ldflags -X main.version wins over the module version.
	assert.Equal(t, "v1.5.0-2-g36f4d38-dirty", readVersion(bi, "v1.5.0-2-g36f4d38-dirty\n").Version)

	// A build in a checkout without a stamp: "dev", with the commit.
	bi.Main.Version = "(devel)"
	v = readVersion(bi, "")
	assert.Equal(t, "dev", v.Version)
	assert.Equal(t, "dev (commit 36f4d38a1b2c, modified)", v.Short())

	// No build information at all.
	assert.Equal(t, versionInfo{Version: "dev"}, readVersion(nil, ""))
	assert.Equal(t, "kadmin-lua dev\n", readVersion(nil, "").Text())
}

// The running binary's own franz-go version, as Go recorded it.
func franzGoVersion(t *testing.T) string {
	bi, ok := debug.ReadBuildInfo()
	require.True(t, ok)
	for _, d := range bi.Deps {
		if d.Path == franzGoModule {
			return d.Version
		}
	}
	t.Fatal("franz-go is not among the dependencies")
	return ""
}

func TestVersionFlagAndCommand(t *testing.T) {
	fg := franzGoVersion(t)
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("--version"), c.stderr.String())
	flag := c.stdout.String()
	assert.True(t, strings.HasPrefix(flag, "kadmin-lua "), flag)
	assert.Contains(t, flag, "franz-go: "+fg+" (kadm v")
	assert.Contains(t, flag, "go:       go1.")

	require.Equal(t, ExitOK, c.run("version"), c.stderr.String())
	assert.Equal(t, flag, c.stdout.String(), "version prints what --version prints")

	require.Equal(t, ExitOK, c.run("-o", "json", "version"), c.stderr.String())
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(c.stdout.String()), &v), c.stdout.String())
	assert.Equal(t, fg, v["franz_go"])
	assert.Contains(t, v, "version")
	assert.Contains(t, v, "go")

	assert.Equal(t, ExitUsage, c.run("version", "extra"))
}

func TestREPLBannerShowsVersion(t *testing.T) {
	c := newCLI(t)
	c.terminal = true
	require.Equal(t, ExitOK, c.run(), c.stderr.String())
	assert.Contains(t, c.stdout.String(), "kadmin-lua "+currentVersion().Short()+" (Lua 5.1)")
}

// make build stamps the version from git describe (falling back to nothing
// outside git), and a stamped binary prints it.
func TestBuildStampsVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	if _, err := exec.LookPath("make"); err == nil {
		out, err := exec.Command("make", "-s", "-n", "-C", root, "build").CombinedOutput()
		require.NoError(t, err, string(out))
		if desc, err := exec.Command("git", "-C", root, "describe", "--tags", "--always", "--dirty").Output(); err == nil {
			assert.Contains(t, string(out), "-X main.version="+strings.TrimSpace(string(desc)))
		}
		// Outside a git checkout nothing is stamped, and the build still works.
		dir := t.TempDir()
		mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "Makefile"), mk, 0o600))
		cmd := exec.Command("make", "-s", "-n", "build")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CEILING_DIRECTORIES="+filepath.Dir(dir))
		out, err = cmd.CombinedOutput()
		require.NoError(t, err, string(out))
		assert.Contains(t, string(out), "-ldflags ''")
	}

	bin := filepath.Join(t.TempDir(), "kadmin-lua")
	build := exec.Command("go", "build", "-ldflags", "-X main.version=v9.8.7-test", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, string(out))
	out, err = exec.Command(bin, "--version").Output()
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(out), "kadmin-lua v9.8.7-test\n"), string(out))
	assert.Contains(t, string(out), "franz-go: "+franzGoVersion(t))
}
