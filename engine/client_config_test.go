package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine/login"
)

func TestConfigWithoutCredentials(t *testing.T) {
	cfg := Config{Brokers: []string{"a:1"}, SASL: &login.SASLConfig{Mechanism: "PLAIN", Username: "u", Password: "pw"},
		TLS: &login.TLSConfig{CAFile: "/ca.pem", CertFile: "/c", KeyFile: "/k"}}
	require.True(t, cfg.HasCredentials())
	assert.Equal(t, Config{Brokers: []string{"a:1"}, TLS: &login.TLSConfig{CAFile: "/ca.pem"}}, cfg.WithoutCredentials())
}
