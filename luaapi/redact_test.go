package luaapi

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
)

// kafka.log hides secret-named fields at any depth, not only at the top.
func TestLogRedactsSecretsAtAnyDepth(t *testing.T) {
	var stderr bytes.Buffer
	rt := New(Options{Stdout: &bytes.Buffer{}, Stderr: &stderr})
	t.Cleanup(rt.Close)
	_, err := rt.DoString(context.Background(), "test", `
		kafka.log.info{msg = "connecting", cfg = {password = "hunter2", user = "alice",
			["ssl.key.password"] = "k3y", ["my.custom.pwd"] = "pwd1",
			nested = {{token = "tok1", ok = 1}}}}
		kafka.log.warn{msg = "props", configs = {{name = "sasl.jaas.config", value = "jaas-secret"},
			{name = "retention.ms", value = "1000"}}}
		kafka.log.error{msg = "top", pw = "pw1", key = "record-key"}
	`)
	require.NoError(t, err)
	out := stderr.String()
	for _, s := range []string{"hunter2", "k3y", "pwd1", "tok1", "jaas-secret", "pw1"} {
		assert.NotContains(t, out, s)
	}
	assert.Contains(t, out, ` INFO connecting cfg={"my.custom.pwd":"***","nested":[{"ok":1,"token":"***"}],"password":"***","ssl.key.password":"***","user":"alice"}`)
	assert.Contains(t, out, `WARN props configs=[{"name":"sasl.jaas.config","value":"***"},{"name":"retention.ms","value":"1000"}]`)
	assert.Contains(t, out, `ERROR top key="record-key" pw="***"`)
}

// The audit line of alter_configs keeps the config names and hides the
// values of secret-looking ones, custom names included; the cluster gets
// the real values.
func TestAuditRedactsCustomSecretConfigs(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	audit, err := auditlog.Open(path)
	require.NoError(t, err)
	e := newEnvOn(t, c, Options{Config: engine.Config{Audit: audit}})
	e.run(`create_topics{"sec"}
		alter_configs{{topic = "sec", set = {["retention.ms"] = "1000", ["my.custom.pwd"] = "hunter2"}}}`)
	require.NoError(t, audit.Close())
	log, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(log), `"my.custom.pwd":"***"`)
	assert.Contains(t, string(log), `"retention.ms":"1000"`)
	assert.NotContains(t, string(log), "hunter2")

	rc, err := e.adm.DescribeTopicConfigs(e.ctx(), "sec")
	require.NoError(t, err)
	v, err := rc.On("sec", nil)
	require.NoError(t, err)
	found := false
	for _, cfg := range v.Configs {
		if cfg.Key == "my.custom.pwd" {
			found = true
			assert.Equal(t, "hunter2", cfg.MaybeValue(), "the cluster has the real value")
		}
	}
	assert.True(t, found, "my.custom.pwd set on the cluster")
}
