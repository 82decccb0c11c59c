package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
)

// undo --resource / --key / --id revert only what they select; the
// cluster's state is read through a separate client.
func TestUndoSelectsByResourceKeyAndID(t *testing.T) {
	cl, audit := undoWorld(t)

	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "--audit-log", audit, "-e", `
		create_topics{"s1", "s2", "s3", "s4", "s5"}
		alter_configs{{topic = "orders", set = {["retention.ms"] = "2000", ["segment.ms"] = "3600000"}}}
		alter_configs{{topic = "orders", set = {["cleanup.policy"] = "compact"}}}`), c.stderr.String())

	// One topic of the five.
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "--yes", "undo", audit, "--resource", "topic:s3"), c.stderr.String())
	assert.Contains(t, c.stdout.String(), "create_topics  s3")
	names := topicNames(t, cl.admin(t))
	assert.NotContains(t, names, "s3")
	for _, n := range []string{"s1", "s2", "s4", "s5"} {
		assert.Contains(t, names, n)
	}

	// One config key of the first alter_configs.
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "undo", audit, "--resource", "orders", "--key", "retention.ms"), c.stderr.String())
	adm := cl.admin(t)
	assert.Equal(t, "1000", retention(t, adm, "orders"))
	assert.Equal(t, "3600000", topicConfigValue(t, adm, "orders", "segment.ms"), "another key of the same change stays")
	assert.Equal(t, "compact", topicConfigValue(t, adm, "orders", "cleanup.policy"), "another change stays")

	// By id: the last change only.
	var ids []string
	b, err := os.ReadFile(audit)
	require.NoError(t, err)
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var rec struct {
			Type, ID, Op string
			UndoOf       string `json:"undo_of"`
		}
		require.NoError(t, json.Unmarshal([]byte(l), &rec))
		if rec.Type == "intent" && rec.Op == "alter_configs" && rec.UndoOf == "" {
			ids = append(ids, rec.ID)
		}
	}
	require.Len(t, ids, 2)
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "-o", "json", "undo", audit, "--id", ids[1]), c.stderr.String())
	var steps []map[string]string
	require.NoError(t, json.Unmarshal([]byte(c.stdout.String()), &steps), c.stdout.String())
	require.Len(t, steps, 1)
	assert.Equal(t, ids[1], steps[0]["id"])
	assert.Equal(t, "reverted", steps[0]["action"])
	adm = cl.admin(t)
	assert.Equal(t, "delete", topicConfigValue(t, adm, "orders", "cleanup.policy"))
	assert.Equal(t, "3600000", topicConfigValue(t, adm, "orders", "segment.ms"))
	assert.Contains(t, topicNames(t, adm), "s1")

	assert.Equal(t, ExitUsage, c.run("-b", cl.addrs, "undo", audit, "--id", "nope"))
	assert.Contains(t, c.stderr.String(), `--id "nope" is not an intent id`)
	assert.Equal(t, ExitUsage, c.run("-b", cl.addrs, "undo", audit, "--resource", "topic:"))
}

func topicConfigValue(t *testing.T, adm *kadm.Client, topic, key string) string {
	t.Helper()
	rc, err := adm.DescribeTopicConfigs(ctx(t), topic)
	require.NoError(t, err)
	r, err := rc.On(topic, nil)
	require.NoError(t, err)
	for _, c := range r.Configs {
		if c.Key == key {
			return c.MaybeValue()
		}
	}
	return ""
}
