package main

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// instruction is one line of a Containerfile, continuations joined.
type instruction struct {
	op, args string
	line     int
}

func parseContainerfile(t *testing.T, path string) []instruction {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []instruction
	var cur strings.Builder
	start := 0
	for i, raw := range strings.Split(string(b), "\n") {
		line := strings.TrimSpace(raw)
		if cur.Len() == 0 && (line == "" || strings.HasPrefix(line, "#")) {
			continue
		}
		if cur.Len() == 0 {
			start = i + 1
		}
		if more, ok := strings.CutSuffix(line, `\`); ok {
			cur.WriteString(more + " ")
			continue
		}
		cur.WriteString(line)
		op, args, _ := strings.Cut(cur.String(), " ")
		out = append(out, instruction{strings.ToUpper(op), strings.TrimSpace(args), start})
		cur.Reset()
	}
	return out
}

// TestContainerfile checks deploy/Containerfile by the rules a linter
// (hadolint) and the issue ask, since no container engine runs in CI: a
// pinned builder of the module's Go, a static build, a final stage of
// nothing but the binary (and CA roots) on scratch, a numeric non-root
// user, an exec-form entrypoint.
func TestContainerfile(t *testing.T) {
	ins := parseContainerfile(t, "../../deploy/Containerfile")
	var stages [][]instruction
	for _, in := range ins {
		if in.op == "FROM" {
			stages = append(stages, nil)
		}
		require.NotEmpty(t, stages, "line %d: %s before FROM", in.line, in.op)
		stages[len(stages)-1] = append(stages[len(stages)-1], in)
		assert.NotEqual(t, "ADD", in.op, "line %d: COPY, not ADD (DL3020)", in.line)
		assert.NotEqual(t, "MAINTAINER", in.op, "line %d", in.line)
	}
	require.Len(t, stages, 2, "a build stage and the image")

	// The builder: pinned to the module's Go, building statically.
	build := stages[0]
	goMod, err := os.ReadFile("../../go.mod")
	require.NoError(t, err)
	goVersion := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(goMod)
	require.NotNil(t, goVersion)
	assert.Regexp(t, `^docker\.io/library/golang:`+regexp.QuoteMeta(string(goVersion[1]))+`-\S+ AS build$`, build[0].args, "the builder is pinned to go.mod's Go (DL3006, DL3007)")
	var buildRun string
	for _, in := range build {
		if in.op == "RUN" && strings.Contains(in.args, "go build") {
			buildRun = in.args
		}
	}
	assert.Contains(t, buildRun, "CGO_ENABLED=0", "a static binary")
	assert.Contains(t, buildRun, "./cmd/kadmin-lua")

	// The image: scratch, the binary, a non-root user, exec form.
	image := stages[1]
	assert.Equal(t, "scratch", image[0].args)
	var user, entry string
	for _, in := range image[1:] {
		switch in.op {
		case "COPY":
			assert.True(t, strings.HasPrefix(in.args, "--from=build "), "line %d: only what the build made", in.line)
		case "USER":
			user = in.args
		case "ENTRYPOINT":
			entry = in.args
		case "ENV":
		default:
			t.Errorf("line %d: %s in a scratch image (no shell to run it)", in.line, in.op)
		}
	}
	assert.Regexp(t, `^[1-9][0-9]*:[1-9][0-9]*$`, user, "a numeric non-root user, so runAsNonRoot can check it (DL3002)")
	var argv []string
	require.NoError(t, json.Unmarshal([]byte(entry), &argv), "ENTRYPOINT in exec form (DL3025)")
	assert.Equal(t, []string{"/kadmin-lua"}, argv)

	// The manifests run it as that user.
	r := renderDeploy(t)
	for name, cj := range r.cronJobs {
		sc := cj.Spec.JobTemplate.Spec.Template.Spec.SecurityContext
		require.NotNil(t, sc.RunAsUser, name)
		assert.Equal(t, strings.Split(user, ":")[0], itoa(*sc.RunAsUser), name)
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }
