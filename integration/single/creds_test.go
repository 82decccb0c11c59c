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

// TestBrokersFlagSendsNoProfilePassword: the default profile logs in as
// admin; -b naming the same SASL listener without --profile sends no
// credentials, so the broker turns the connection away: exit 3 at once
// (AUTH, not a TIMEOUT), with a notice that the profile's credentials
// were not used.
func TestBrokersFlagSendsNoProfilePassword(t *testing.T) {
	need(t)
	config := filepath.Join(t.TempDir(), "config.json")
	require.NoError(t, os.WriteFile(config, []byte(fmt.Sprintf(`{"default_profile": "prod", "profiles": {"prod": {
		"brokers": [%q], "sasl": {"mechanism": "PLAIN", "username": %q, "password_env": "PROD_PW"}}}}`,
		cluster.Bootstrap(), kafkatest.AdminUser)), 0o600))
	env := []string{"PROD_PW=" + kafkatest.AdminPassword}
	run := func(args ...string) kafkatest.BinResult {
		return kafkatest.RunBinary(ctxT(t, 2*time.Minute), t, bin, env, "", append([]string{"--config", config, "--timeout", "20s"}, args...)...)
	}

	res := run("-e", `return #list_topics() >= 0`)
	require.Equal(t, 0, res.Code, "the profile logs in with its own brokers: %s", res.Stderr)

	began := time.Now()
	res = run("-b", cluster.Bootstrap(), "-e", `return list_topics()`)
	assert.Equal(t, 3, res.Code)
	assert.Less(t, time.Since(began), 15*time.Second, "refused at once, not after the 20s timeout")
	assert.Contains(t, res.Stderr, `the brokers come from -b, so the credentials of default profile "prod" were not used`)
	assert.Contains(t, res.Stderr, "AUTH")
	assert.NotContains(t, res.Stderr, "TIMEOUT")
	assert.NotContains(t, res.Stdout+res.Stderr, kafkatest.AdminPassword)
}
