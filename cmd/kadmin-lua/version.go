package main

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// version is the release version. `make build` stamps it from git:
//
//	-ldflags "-X main.version=$(git describe --tags --always --dirty)"
//
// Without it (go build, go install) the version is the one Go records in
// the binary's module information: v1.2.3 for `go install ...@v1.2.3`, a
// pseudo-version or "(devel)" for a build in a checkout; "dev" when there is
// none.
var version string

// Module paths whose versions --version reports.
const (
	franzGoModule = "github.com/twmb/franz-go"
	kadmModule    = "github.com/twmb/franz-go/pkg/kadm"
)

// versionInfo is what `kadmin-lua --version` and `kadmin-lua version` say:
// the version, the commit it was built from, and the Go and franz-go
// versions, from the build's module information.
type versionInfo struct {
	Version  string `json:"version"`
	Commit   string `json:"commit,omitempty"`      // vcs.revision
	Time     string `json:"commit_time,omitempty"` // vcs.time
	Modified bool   `json:"modified"`              // built from a tree with uncommitted changes
	Go       string `json:"go"`
	FranzGo  string `json:"franz_go,omitempty"`
	Kadm     string `json:"kadm,omitempty"`
}

// currentVersion reads the running binary's build information.
func currentVersion() versionInfo {
	bi, _ := debug.ReadBuildInfo()
	return readVersion(bi, version)
}

// readVersion builds the versionInfo from bi (nil when the binary has none)
// and the version stamped with -ldflags ("" when none was).
func readVersion(bi *debug.BuildInfo, stamped string) versionInfo {
	v := versionInfo{Version: strings.TrimSpace(stamped)}
	if bi == nil {
		if v.Version == "" {
			v.Version = "dev"
		}
		return v
	}
	if v.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v.Version = bi.Main.Version
	}
	if v.Version == "" {
		v.Version = "dev"
	}
	v.Go = bi.GoVersion
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	for _, d := range bi.Deps {
		mod := d
		if d.Replace != nil {
			mod = d.Replace
		}
		switch d.Path {
		case franzGoModule:
			v.FranzGo = mod.Version
		case kadmModule:
			v.Kadm = mod.Version
		}
	}
	return v
}

// Short is the version with the commit when the version alone does not
// say which build it is: "v1.2.0", "dev (commit 36f4d38a1b2c, modified)".
func (v versionInfo) Short() string {
	if v.Version != "dev" && v.Version != "" || v.Commit == "" {
		return v.Version
	}
	s := "commit " + shortCommit(v.Commit)
	if v.Modified {
		s += ", modified"
	}
	return fmt.Sprintf("%s (%s)", v.Version, s)
}

// Text is the multi-line --version output.
func (v versionInfo) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "kadmin-lua %s\n", v.Version)
	if v.Commit != "" {
		fmt.Fprintf(&b, "commit:   %s", v.Commit)
		if v.Time != "" {
			fmt.Fprintf(&b, " (%s)", v.Time)
		}
		if v.Modified {
			b.WriteString(", with uncommitted changes")
		}
		b.WriteString("\n")
	}
	if v.Go != "" {
		fmt.Fprintf(&b, "go:       %s\n", v.Go)
	}
	if v.FranzGo != "" {
		fmt.Fprintf(&b, "franz-go: %s", v.FranzGo)
		if v.Kadm != "" {
			fmt.Fprintf(&b, " (kadm %s)", v.Kadm)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func shortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

// versionCmd is `kadmin-lua version`: the same as --version, or JSON with
// -o json.
func (a *app) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, the commit, and the Go and franz-go versions it was built with",
		Long: `Print kadmin-lua's version (stamped by make build from git describe, else the
module version Go recorded), the commit it was built from, and the Go and
franz-go versions. The same as --version; -o json prints it as JSON.`,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			v := currentVersion()
			if ok, err := a.printData("version", v); ok {
				return err
			}
			return writeText(a.st.Stdout, v.Text())
		},
	}
}
