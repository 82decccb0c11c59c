package luaapi

import (
	"context"
	"encoding/json"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kcatMetadata is the part of `kcat -L -J` output the cross-check reads.
type kcatMetadata struct {
	Brokers []struct {
		ID int32 `json:"id"`
	} `json:"brokers"`
	Topics []struct {
		Topic      string `json:"topic"`
		Error      string `json:"err"`
		Partitions []struct {
			Partition int32 `json:"partition"`
			Leader    int32 `json:"leader"`
			Replicas  []struct {
				ID int32 `json:"id"`
			} `json:"replicas"`
		} `json:"partitions"`
	} `json:"topics"`
}

// kcat lists topic's metadata with kcat (librdkafka), an independent client.
func kcat(t *testing.T, broker, topic string) kcatMetadata {
	t.Helper()
	path, err := exec.LookPath("kcat")
	if err != nil {
		if testing.Short() {
			t.Skip("kcat is not installed (apt-get install -y kcat); the cross-check runs without -short, as CI does")
		}
		t.Fatal("kcat is not installed: install it (Debian: apt-get update && apt-get install -y kcat; CI installs it) to run the independent-client cross-check")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "-L", "-b", broker, "-t", topic, "-J", "-m", "10").Output()
	var stderr []byte
	if ee, ok := err.(*exec.ExitError); ok {
		stderr = ee.Stderr
	}
	require.NoError(t, err, "kcat -L -b %s -t %s: %s", broker, topic, stderr)
	var md kcatMetadata
	require.NoError(t, json.Unmarshal(out, &md), "kcat -J output: %s", out)
	return md
}

// TestKcatSeesTopicsCreatedFromLua is issue 2's independent-client
// cross-check: what kadmin-lua creates from Lua, librdkafka sees, with the
// same partition count and replication factor.
func TestKcatSeesTopicsCreatedFromLua(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "kcat-check", partitions = 7, replication_factor = 3}}`)

	md := kcat(t, e.cluster.ListenAddrs()[0], "kcat-check")
	assert.Len(t, md.Brokers, 3)
	require.Len(t, md.Topics, 1)
	top := md.Topics[0]
	assert.Equal(t, "kcat-check", top.Topic)
	assert.Empty(t, top.Error)
	require.Len(t, top.Partitions, 7)
	for i, p := range top.Partitions {
		assert.Equal(t, int32(i), p.Partition)
		assert.Len(t, p.Replicas, 3, "partition %d replicas", p.Partition)
		assert.GreaterOrEqual(t, p.Leader, int32(0), "partition %d has a leader", p.Partition)
	}

	// A change made from Lua is seen too, asked of another broker.
	e.run(`create_partitions{["kcat-check"] = 10}`)
	md = kcat(t, e.cluster.ListenAddrs()[2], "kcat-check")
	require.Len(t, md.Topics, 1)
	assert.Len(t, md.Topics[0].Partitions, 10)
}
