package single

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

// TestCreateWithCreateRightOnly: a principal allowed to CREATE topics but
// not to DESCRIBE them creates topics as with Kafka's own tools. The
// before-state the audit reads (does the topic exist already?) is refused
// to it; the intent line says so (hidden) and the create is still sent and
// decided by Kafka's answer.
func TestCreateWithCreateRightOnly(t *testing.T) {
	need(t)
	prefix := unique("create-only")
	admin := adminRT(t, kafkatest.MechScram512)
	admin.json(fmt.Sprintf(`return create_acls{
		{principal="User:alice", operation="create", resource_type="topic", resource_name=%q, pattern_type="prefixed"},
	}`, prefix), new(any))
	t.Cleanup(func() { admin.Run(`delete_acls{{principal="User:alice"}}`) })

	topic := prefix + "-a"
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	create := func(extra string) kafkatest.BinResult {
		return runBin(t, kafkatest.MechScram256, kafkatest.AliceUser, kafkatest.AlicePassword, "--audit-log", audit,
			"-o", "json", "-e", fmt.Sprintf(`return create_topics({{name=%q, partitions=3}}%s)`, topic, extra))
	}
	// The broker applies the new ACL from its metadata log: the first
	// attempts may still be refused (and create nothing).
	var res kafkatest.BinResult
	require.Eventually(t, func() bool {
		res = create("")
		return res.Code == 0
	}, 30*time.Second, 200*time.Millisecond, "alice's create with the CREATE right only: %+v", res)
	t.Cleanup(func() { admin.Run(fmt.Sprintf(`delete_topics{%q}`, topic)) })
	assert.Contains(t, res.Stdout, `"partitions": 3`)
	waitTopic(t, topic, 3)

	// Still refused to describe; the audit's intent line says why the
	// before-state is missing.
	res = runBin(t, kafkatest.MechScram256, kafkatest.AliceUser, kafkatest.AlicePassword, "-e", fmt.Sprintf(`return describe_topics(%q)`, topic))
	assert.Equal(t, 3, res.Code)
	assert.Contains(t, res.Stderr, "TOPIC_AUTHORIZATION_FAILED")
	log, err := os.ReadFile(audit)
	require.NoError(t, err)
	assert.Contains(t, string(log), `"hidden":"TOPIC_AUTHORIZATION_FAILED"`)

	// Asked again: Kafka's answer says it was there before this call.
	res = create("")
	assert.Equal(t, 3, res.Code, res.Stderr)
	assert.Contains(t, res.Stderr, "TOPIC_ALREADY_EXISTS")
	res = create(", {if_not_exists=true}")
	assert.Equal(t, 0, res.Code, res.Stderr)
	assert.Contains(t, res.Stdout, `"existed": true`)
}
