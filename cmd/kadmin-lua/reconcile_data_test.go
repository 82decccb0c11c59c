package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine/desired"
)

// A spec is data and a plan is what was reviewed (issue 28).

// A Lua spec that connects to the cluster itself changes nothing, under
// any flag: the spec has no kafka.connect, so nothing reaches the cluster
// (checked through a separate client) and the audit log stays empty
// because nothing was ever sent, not because something escaped it.
func TestPlanOfASpecThatConnectsChangesNothing(t *testing.T) {
	cl := newCluster(t)
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.lua")
	require.NoError(t, os.WriteFile(spec, []byte(`kafka.connect{brokers = "`+cl.ListenAddrs()[0]+`"}:create_topics{"x"}
return {topics = {"team-a.y"}}
`), 0o600))
	audit := filepath.Join(dir, "a.jsonl")
	for _, args := range [][]string{
		{"plan", spec},
		{"--dry-run", "--audit-log", audit, "plan", spec},
		{"--audit-log", audit, "plan", spec, "--prune", "--exit-code"},
		{"--yes", "--audit-log", audit, "apply", spec},
		{"--dry-run", "--yes", "apply", spec},
	} {
		c := newCLI(t)
		code := c.run(append([]string{"-b", cl.addrs}, args...)...)
		assert.Contains(t, []int{ExitUsage, ExitPlanError}, code, "%v", args)
		assert.Contains(t, c.stderr.String(), "kafka.connect is not available in a spec: a spec is data", "%v", args)
		names := topicNames(t, cl.admin(t))
		assert.NotContains(t, names, "x", "%v", args)
		assert.NotContains(t, names, "team-a.y", "%v", args)
	}
	b, err := os.ReadFile(audit)
	if err == nil {
		assert.Empty(t, string(b), "no mutation was ever sent")
	}

	// Nor can a spec put a credential into the plan that CI prints.
	secret := writeFile(t, "secret.lua", `return {topics = {kafka.env("KADMIN_SASL_PASSWORD")}}`)
	c := newCLI(t)
	c.env["KADMIN_SASL_PASSWORD"] = "pw-never-printed"
	require.Equal(t, ExitUsage, c.run("-b", cl.addrs, "plan", secret))
	assert.Contains(t, c.stderr.String(), `kafka.env: "KADMIN_SASL_PASSWORD": a spec cannot read kadmin-lua's own variables`)
	assert.NotContains(t, c.stdout.String()+c.stderr.String(), "pw-never-printed")
}

// Specs and plan files get the checks every input file gets: a FIFO is
// refused, not waited on; a 3 GiB plan file is refused unread.
func TestPlanAndApplyRefuseFilesThatAreNotPlainFiles(t *testing.T) {
	cl := newCluster(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "plan.json")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	c := newCLI(t)
	require.Equal(t, ExitUsage, c.run("-b", cl.addrs, "apply", fifo))
	assert.Contains(t, c.stderr.String(), "is a named pipe (FIFO), not a regular file")
	specFIFO := filepath.Join(dir, "spec.yaml")
	require.NoError(t, syscall.Mkfifo(specFIFO, 0o600))
	require.Equal(t, ExitUsage, c.run("-b", cl.addrs, "plan", specFIFO))
	assert.Contains(t, c.stderr.String(), "is a named pipe (FIFO), not a regular file")

	huge := filepath.Join(dir, "huge.json")
	f, err := os.Create(huge)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(3<<30)) // sparse: no disk used
	require.NoError(t, f.Close())
	require.Equal(t, ExitUsage, c.run("-b", cl.addrs, "apply", huge))
	assert.Contains(t, c.stderr.String(), "huge.json: larger than 64 MiB, the most kadmin-lua reads of such a file")
}

// An edited plan file is refused whole with the change named; the plan as
// reviewed applies, named by the digest plan printed.
func TestApplyRefusesAnEditedPlanFile(t *testing.T) {
	cl := newCluster(t)
	cl.adm = cl.admin(t)
	for _, name := range []string{"team-a.stray", "team-b.keep"} {
		_, err := cl.adm.CreateTopic(ctx(t), 1, 1, nil, name)
		require.NoError(t, err)
	}
	dir := t.TempDir()
	spec := writeFile(t, "spec.yaml", "topics: [team-a.orders]\nowns: {topics: [team-a.]}\n")
	plan := filepath.Join(dir, "plan.json")
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "plan", spec, "--prune", "--out", plan), c.stderr.String())
	digest := regexp.MustCompile(`(?m)^Digest: (sha256:[0-9a-f]{64})$`).FindStringSubmatch(c.stdout.String())
	require.Len(t, digest, 2, c.stdout.String())
	reviewed, err := os.ReadFile(plan)
	require.NoError(t, err)
	assert.Contains(t, string(reviewed), `"digest": "`+digest[1]+`"`)

	// Edited by hand: the digest no longer matches.
	require.NoError(t, os.WriteFile(plan, []byte(strings.Replace(string(reviewed), `"name": "team-a.stray"`, `"name": "team-b.keep"`, 1)), 0o600))
	require.Equal(t, ExitUsage, c.run("-b", cl.addrs, "apply", plan))
	assert.Contains(t, c.stderr.String(), "the plan's content does not match its digest "+digest[1])

	// Edited with its digest made again: the change is named.
	var p desired.Plan
	require.NoError(t, json.Unmarshal(reviewed, &p))
	for i, ch := range p.Changes {
		if ch.Action == desired.ActionDelete {
			p.Changes[i].Name = "team-b.keep"
		}
	}
	require.NoError(t, p.Seal())
	b, err := json.Marshal(p)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(plan, b, 0o600))
	require.Equal(t, ExitUsage, c.run("-b", cl.addrs, "--yes", "apply", plan))
	assert.Contains(t, c.stderr.String(), `change #2 (delete topic team-b.keep): team-b.keep is outside owns.topics (prefix "team-a.")`)
	require.Equal(t, ExitUsage, c.run("-b", cl.addrs, "apply", plan, "--digest", digest[1]))
	assert.Contains(t, c.stderr.String(), "this is not the plan that was reviewed")
	assert.Contains(t, topicNames(t, cl.admin(t)), "team-b.keep")
	assert.Contains(t, topicNames(t, cl.admin(t)), "team-a.stray")

	require.NoError(t, os.WriteFile(plan, reviewed, 0o600))
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "apply", plan, "--digest", digest[1]), c.stderr.String())
	names := topicNames(t, cl.admin(t))
	assert.Contains(t, names, "team-a.orders")
	assert.NotContains(t, names, "team-a.stray")
	assert.Contains(t, names, "team-b.keep")
}
