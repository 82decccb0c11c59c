package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConfigWithoutCredentials(t *testing.T) {
	cfg := Config{Brokers: []string{"a:1"}, SASL: &SASLConfig{Mechanism: "PLAIN", Username: "u", Password: "pw"},
		TLS: &TLSConfig{CAFile: "/ca.pem", CertFile: "/c", KeyFile: "/k"}}
	require.True(t, cfg.HasCredentials())
	assert.Equal(t, Config{Brokers: []string{"a:1"}, TLS: &TLSConfig{CAFile: "/ca.pem"}}, cfg.WithoutCredentials())
}
