package single

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

// TestFleetLoopOnARealBroker: the binary runs a script twice (loop mode)
// over a fleet of two profiles, the real SASL node and a cluster nobody
// answers for, and writes a metrics file. The real node's runs succeed on
// its own credentials; the other is reported at once (exit 3) without
// holding it up; the exit code is the worst.
func TestFleetLoopOnARealBroker(t *testing.T) {
	need(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	gone := l.Addr().String()
	require.NoError(t, l.Close())
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	require.NoError(t, os.WriteFile(config, []byte(fmt.Sprintf(`{"profiles": {
		"real": {"brokers": [%q], "sasl": {"mechanism": "SCRAM-SHA-256", "username": %q, "password_env": "REAL_PW"}},
		"gone": {"brokers": [%q]}}}`, cluster.Bootstrap(), kafkatest.AdminUser, gone)), 0o600))
	script := filepath.Join(dir, "count.lua")
	require.NoError(t, os.WriteFile(script, []byte(`
local n = #list_topics{internal = true}
kafka.metric("kafka_topics", n, {}, "Topics, internal ones included")
return n >= 0`), 0o600))
	prom := filepath.Join(dir, "fleet.prom")

	began := time.Now()
	res := kafkatest.RunBinary(ctxT(t, 2*time.Minute), t, bin, []string{"REAL_PW=" + kafkatest.AdminPassword}, "",
		"--config", config, "--timeout", "30s", "-o", "json",
		"run", "--profiles", "real,gone", "--every", "200ms", "--max-runs", "2", "--metrics-file", prom, script)
	took := time.Since(began)
	require.Equal(t, 3, res.Code, "the worst of 0 and 3: %s", res.Stderr)
	assert.Less(t, took, 20*time.Second, "the unreachable cluster did not wait for --timeout")

	var got []string
	for _, line := range strings.Split(strings.TrimSpace(res.Stdout), "\n") {
		var r struct {
			Profile string  `json:"profile"`
			Run     int     `json:"run"`
			Exit    int     `json:"exit"`
			Error   *string `json:"error"`
			Result  any     `json:"result"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &r), line)
		got = append(got, fmt.Sprintf("%d %s %d %v", r.Run, r.Profile, r.Exit, r.Result))
		if r.Profile == "gone" {
			require.NotNil(t, r.Error)
			assert.Contains(t, *r.Error, "NETWORK")
		}
	}
	assert.Equal(t, []string{"1 real 0 true", "1 gone 3 <nil>", "2 real 0 true", "2 gone 3 <nil>"}, got)
	assert.Contains(t, res.Stderr, "INFO run=2 profile=real exit=0")
	assert.Contains(t, res.Stderr, "ERROR run=2 profile=gone exit=3")

	raw, err := os.ReadFile(prom)
	require.NoError(t, err)
	text := string(raw)
	assert.Contains(t, text, `kadmin_lua_run_exit_code{profile="real",script="count.lua"} 0`)
	assert.Contains(t, text, `kadmin_lua_run_exit_code{profile="gone",script="count.lua"} 3`)
	assert.Contains(t, text, `kafka_topics{profile="real"} `)
	assert.True(t, strings.HasSuffix(text, "# EOF\n"))
	assert.NotContains(t, res.Stdout+res.Stderr+text, kafkatest.AdminPassword)
	t.Logf("2 runs over 2 clusters (one unreachable) in %s", took.Round(time.Millisecond))
}
