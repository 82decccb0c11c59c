package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
)

const cliSpec = `return {
  topics = {
    {name = "team-a.orders", partitions = 3, replication_factor = 1, configs = {["retention.ms"] = 86400000}},
  },
  acls = {
    {principal = "User:team-a", operation = "read", resource_type = "topic", resource_name = "team-a.orders"},
  },
  owns = {topics = {"team-a."}, acls = {principals = {"User:team-a"}}},
  policies = {max_partitions = 12},
}
`

func TestPlanApplyPlanCommands(t *testing.T) {
	cl := newCluster(t)
	cl.adm = cl.admin(t)
	_, err := cl.adm.CreateTopic(ctx(t), 1, 1, nil, "team-a.stray")
	require.NoError(t, err)
	_, err = cl.adm.CreateTopic(ctx(t), 1, 1, nil, "team-b.keep")
	require.NoError(t, err)
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.lua")
	require.NoError(t, os.WriteFile(spec, []byte(cliSpec), 0o600))
	plan := filepath.Join(dir, "plan.json")
	audit := filepath.Join(dir, "audit.jsonl")

	c := newCLI(t)
	require.Equal(t, ExitPlanChanges, c.run("-b", cl.addrs, "plan", spec, "--prune", "--exit-code", "--out", plan), c.stderr.String())
	out := c.stdout.String()
	assert.Contains(t, out, "create topic team-a.orders (partitions 3, replication factor 1, 1 configs)")
	assert.Contains(t, out, "delete topic team-a.stray")
	assert.NotContains(t, out, "team-b.keep", "outside owns")
	assert.Contains(t, out, "Plan: 3 changes.")
	var p struct {
		Format    string `json:"format"`
		ClusterID string `json:"cluster_id"`
		Changes   []struct {
			Action  string          `json:"action"`
			Against json.RawMessage `json:"against"`
		} `json:"changes"`
	}
	b, err := os.ReadFile(plan)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &p))
	assert.Equal(t, "kadmin-lua-plan/2", p.Format)
	assert.NotEmpty(t, p.ClusterID)
	require.Len(t, p.Changes, 3)

	// --dry-run applies nothing.
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "--dry-run", "apply", plan), c.stderr.String())
	assert.Contains(t, c.stdout.String(), "dry_run")
	assert.NotContains(t, topicNames(t, cl.adm), "team-a.orders")

	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "--audit-log", audit, "apply", plan), c.stderr.String())
	assert.Contains(t, c.stdout.String(), "applied")
	names := topicNames(t, cl.admin(t))
	assert.Contains(t, names, "team-a.orders")
	assert.NotContains(t, names, "team-a.stray")
	assert.Contains(t, names, "team-b.keep")
	assert.Equal(t, "86400000", retention(t, cl.adm, "team-a.orders"))
	acls, err := cl.adm.DescribeACLs(ctx(t), kadm.NewACLs().Allow("User:team-a").AllowHosts("*").Topics("team-a.orders").Operations(kadm.OpRead))
	require.NoError(t, err)
	assert.Len(t, acls[0].Described, 1)

	// The second plan is empty: exit 0.
	require.Equal(t, ExitPlanNoChanges, c.run("-b", cl.addrs, "plan", spec, "--prune", "--exit-code"), c.stderr.String())
	assert.Contains(t, c.stdout.String(), "No changes")

	// The same plan again is stale: each item says why, nothing is sent.
	require.Equal(t, ExitScript, c.run("-b", cl.addrs, "apply", plan), c.stderr.String())
	assert.Contains(t, c.stdout.String(), "the topic was created since the plan")
	assert.Contains(t, c.stdout.String(), "the topic was deleted since the plan")

	// undo reverts the apply from the audit log (the deleted topic cannot
	// come back, and undo says so).
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "--yes", "undo", audit), c.stdout.String()+c.stderr.String())
	assert.NotContains(t, topicNames(t, cl.admin(t)), "team-a.orders")
	acls, err = cl.adm.DescribeACLs(ctx(t), kadm.NewACLs().Allow("User:team-a").AllowHosts("*").Topics("team-a.orders").Operations(kadm.OpRead))
	require.NoError(t, err)
	assert.Empty(t, acls[0].Described)
}

func TestPlanRefusesABadSpec(t *testing.T) {
	cl := newCluster(t)
	spec := writeFile(t, "spec.yaml", "topics:\n  - name: team-a.big\n    partitions: 64\npolicies:\n  max_partitions: 12\n")
	c := newCLI(t)
	require.Equal(t, ExitPlanError, c.run("-b", cl.addrs, "plan", spec, "--exit-code"))
	assert.Contains(t, c.stderr.String(), "spec.yaml:2: topic team-a.big: policy max_partitions: partitions 64 is above 12")
	require.Equal(t, ExitUsage, c.run("-b", cl.addrs, "plan", spec), "without --exit-code a bad spec is a usage error")

	// apply SPEC without a terminal or --yes applies nothing.
	ok := writeFile(t, "ok.yaml", "topics: [team-a.x]\n")
	require.Equal(t, ExitScript, c.run("-b", cl.addrs, "apply", ok))
	assert.Contains(t, c.stderr.String(), "not confirmed")
	assert.NotContains(t, topicNames(t, cl.admin(t)), "team-a.x")
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "--yes", "apply", ok), c.stderr.String())
	assert.Contains(t, topicNames(t, cl.admin(t)), "team-a.x")
}

// A SCRAM user's password comes from the environment when planning and
// again when applying; the plan file and the output never hold it.
func TestPlanApplySCRAMUserAndQuota(t *testing.T) {
	cl := newCluster(t)
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.yaml")
	require.NoError(t, os.WriteFile(spec, []byte(`scram_users:
  - {user: svc, mechanism: SCRAM-SHA-512, password_env: SVC_PASSWORD}
quotas:
  - {entity: {user: svc}, set: {producer_byte_rate: 1024}}
`), 0o600))
	plan := filepath.Join(dir, "plan.json")
	c := newCLI(t)
	c.env["SVC_PASSWORD"] = "pw-never-shown"
	require.Equal(t, ExitPlanChanges, c.run("-b", cl.addrs, "plan", spec, "--exit-code", "--out", plan), c.stderr.String())
	assert.Contains(t, c.stdout.String(), "create scram_user svc/SCRAM-SHA-512 (iterations 4096, password from $SVC_PASSWORD)")
	b, err := os.ReadFile(plan)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "pw-never-shown")
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "apply", plan), c.stderr.String())
	assert.NotContains(t, c.stdout.String()+c.stderr.String(), "pw-never-shown")
	adm := cl.admin(t)
	d, err := adm.DescribeUserSCRAMs(ctx(t), "svc")
	require.NoError(t, err)
	require.Len(t, d["svc"].CredInfos, 1)
	assert.Equal(t, kadm.ScramSha512, d["svc"].CredInfos[0].Mechanism)
	qs, err := adm.DescribeClientQuotas(ctx(t), false, nil)
	require.NoError(t, err)
	require.Len(t, qs, 1)
	assert.Equal(t, 1024.0, qs[0].Values[0].Value)
	require.Equal(t, ExitPlanNoChanges, c.run("-b", cl.addrs, "plan", spec, "--exit-code"), c.stderr.String())
}

// plan and apply run on the embedded cluster under --embedded, as every
// other command does: the spec is planned against the demo's topics, and
// apply plans and applies on one cluster in one process.
func TestPlanAndApplyOnTheEmbeddedCluster(t *testing.T) {
	dir := t.TempDir()
	// The demo's orders topic as it is (a listed topic's configs are all
	// the spec's: one left out would be planned back to its default).
	orders := `name = "orders", replication_factor = 3, configs = {["retention.ms"] = 259200000,
	  ["cleanup.policy"] = "delete", ["min.insync.replicas"] = 2, ["compression.type"] = "lz4"}`
	same := filepath.Join(dir, "same.lua")
	require.NoError(t, os.WriteFile(same, []byte(`return {topics = {{partitions = 6, `+orders+`}}}`), 0o600))
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("--embedded", "plan", same, "--exit-code"), c.stderr.String())
	assert.Contains(t, c.stdout.String(), "No changes")

	more := filepath.Join(dir, "more.lua")
	require.NoError(t, os.WriteFile(more, []byte(`return {topics = {{partitions = 8, `+orders+`}, {name = "new-one", partitions = 2}}}`), 0o600))
	audit := filepath.Join(dir, "audit.jsonl")
	c = newCLI(t)
	require.Equal(t, ExitOK, c.run("--embedded", "--yes", "--audit-log", audit, "apply", more), c.stderr.String())
	out := c.stdout.String()
	assert.Contains(t, out, "create_partitions")
	assert.Regexp(t, `applied +create +topic +new-one`, out)
	b, err := os.ReadFile(audit)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"cluster_id":"`)
	assert.Contains(t, string(b), "new-one")
}
