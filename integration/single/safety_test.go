package single

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

// auditEntries reads an audit log through the engine's reader.
func auditEntries(t *testing.T, path string) []auditlog.Change {
	t.Helper()
	changes, problems, err := auditlog.ReadFile(path, auditlog.Options{})
	require.NoError(t, err)
	require.Empty(t, problems)
	return changes
}

// TestAuditAndDryRunInLoopModeAndFleets: the unattended run modes keep
// the safety promises on a real broker. Loop mode (run --every, with a
// metrics file) and a fleet (run --profiles) write their changes ahead to
// --audit-log, --dry-run sends none of them, and kadmin-lua undo reverts
// what each wrote.
func TestAuditAndDryRunInLoopModeAndFleets(t *testing.T) {
	need(t)
	dir := t.TempDir()
	loopTopic, fleetTopic := unique("it-loop"), unique("it-fleet")
	script := func(topic string) string {
		p := filepath.Join(dir, topic+".lua")
		require.NoError(t, os.WriteFile(p, []byte(fmt.Sprintf(`create_topics({%q}, {if_not_exists = true})`, topic)), 0o600))
		return p
	}
	loopScript, fleetScript := script(loopTopic), script(fleetTopic)
	config := filepath.Join(dir, "config.json")
	require.NoError(t, os.WriteFile(config, []byte(fmt.Sprintf(`{"profiles": {
		"real": {"brokers": [%q], "sasl": {"mechanism": "SCRAM-SHA-256", "username": %q, "password_env": "REAL_PW"}}}}`,
		cluster.Bootstrap(), kafkatest.AdminUser)), 0o600))
	env := []string{"REAL_PW=" + kafkatest.AdminPassword}
	runK := func(args ...string) kafkatest.BinResult {
		return kafkatest.RunBinary(ctxT(t, 2*time.Minute), t, bin, env, "", append([]string{"--config", config, "--timeout", "20s"}, args...)...)
	}
	loop := func(extra ...string) []string {
		return append(extra, "run", "--every", "100ms", "--max-runs", "2", "--metrics-file", filepath.Join(dir, "m.prom"), loopScript)
	}
	fleet := func(extra ...string) []string { return append(extra, "run", "--profiles", "real", fleetScript) }

	// Dry runs first: nothing is created, nothing is written.
	dryLog := filepath.Join(dir, "dry.jsonl")
	for _, args := range [][]string{loop("--profile", "real", "--dry-run", "--audit-log", dryLog), fleet("--dry-run", "--audit-log", dryLog)} {
		res := runK(args...)
		require.Equal(t, 0, res.Code, "%v\n%s", args, res.Stderr)
		assert.Contains(t, res.Stderr, "dry-run: create_topics", "the plan is shown")
	}
	assert.Empty(t, auditEntries(t, dryLog), "a dry run writes no audit line")
	assert.NotContains(t, topics(t), loopTopic)
	assert.NotContains(t, topics(t), fleetTopic)

	// Then for real: each change is in the log, with its cluster and profile.
	for _, c := range []struct {
		topic string
		args  []string
	}{{loopTopic, loop("--profile", "real", "--audit-log", filepath.Join(dir, "loop.jsonl"))},
		{fleetTopic, fleet("--audit-log", filepath.Join(dir, "fleet.jsonl"))}} {
		res := runK(c.args...)
		require.Equal(t, 0, res.Code, "%v\n%s", c.args, res.Stderr)
		waitTopic(t, c.topic, 1)
	}
	loopLog, fleetLog := auditEntries(t, filepath.Join(dir, "loop.jsonl")), auditEntries(t, filepath.Join(dir, "fleet.jsonl"))
	require.Len(t, loopLog, 2, "both runs of the loop are written ahead (the second finds the topic there)")
	require.Len(t, fleetLog, 1)
	for _, ch := range append(loopLog, fleetLog...) {
		assert.Equal(t, "create_topics", ch.Intent.Op)
		assert.NotEmpty(t, ch.Intent.ClusterID)
		assert.Equal(t, "real", ch.Intent.Profile)
		require.NotNil(t, ch.Outcome)
	}

	// Undo reverts each: the topics the runs created are deleted.
	for _, c := range []struct{ topic, log string }{{loopTopic, "loop.jsonl"}, {fleetTopic, "fleet.jsonl"}} {
		res := runK("--profile", "real", "undo", "--yes", filepath.Join(dir, c.log))
		require.Equal(t, 0, res.Code, "stdout:\n%s\nstderr:\n%s", res.Stdout, res.Stderr)
		assert.Equal(t, 1, strings.Count(res.Stdout, engine.UndoReverted), res.Stdout)
		waitTopic(t, c.topic, gone)
	}
}
