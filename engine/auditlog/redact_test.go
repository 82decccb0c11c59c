package auditlog_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
)

func TestAuditRedactsByKeyPattern(t *testing.T) {
	path := t.TempDir() + "/audit.jsonl"
	a, err := auditlog.Open(path)
	require.NoError(t, err)
	args, err := auditlog.RedactedJSON([]any{map[string]any{
		"topic": "t", "set": map[string]any{"my.custom.pwd": "hunter2", "ssl.key.password": "s3cret", "retention.ms": "1"},
	}})
	require.NoError(t, err)
	require.NoError(t, a.Append(auditlog.Record{Type: auditlog.TypeIntent, Op: "alter_configs", Args: args}))
	require.NoError(t, a.Close())
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	b := string(raw)
	assert.NotContains(t, b, "hunter2")
	assert.NotContains(t, b, "s3cret")
	assert.Contains(t, b, `"my.custom.pwd":"***"`)
	assert.Contains(t, b, `"retention.ms":"1"`)
}
