package clientconfig

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestProfileSecretEnvNamesAndTokenCommandEnv(t *testing.T) {
	cf, err := ParseConfigFile("config.json", []byte(`{"profiles": {
		"scram": {"brokers": ["a:9092"], "sasl": {"mechanism": "SCRAM-SHA-512", "username": "ops", "password_env": "PROD_PW"}},
		"plain": {"brokers": ["a:9092"], "sasl": {"mechanism": "PLAIN", "username": "ops"},
		          "tls": {"keystore": "/k.p12", "keystore_password_env": "KS_PW"}},
		"vault": {"brokers": ["a:9092"], "sasl": {"mechanism": "OAUTHBEARER", "oauth": {
		          "token_command": "vault read -field=token secret/kafka", "token_command_env": ["VAULT_ADDR", "VAULT_TOKEN"]}}},
		"idp": {"brokers": ["a:9092"], "sasl": {"mechanism": "OAUTHBEARER", "oauth": {
		          "token_endpoint": "https://idp/token", "client_id": "c", "client_secret_env": "IDP_SECRET"}}},
		"open": {"brokers": ["a:9092"]}}}`))
	require.NoError(t, err)
	for name, want := range map[string][]string{
		"scram": {"PROD_PW"},
		"plain": {"KADMIN_SASL_PASSWORD", "KADMIN_TLS_KEY_PASSWORD", "KS_PW"},
		"vault": {"VAULT_ADDR", "VAULT_TOKEN"},
		"idp":   {"IDP_SECRET"},
		"open":  nil,
	} {
		assert.Equal(t, want, cf.Profiles[name].SecretEnvNames(), name)
	}
	p, err := cf.Profile("vault")
	require.NoError(t, err)
	env := map[string]string{"VAULT_TOKEN": "s.sealed"}
	cfg, err := p.Config(func(n string) string { return env[n] }, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"VAULT_ADDR", "VAULT_TOKEN"}, cfg.SASL.OAuth.TokenCommandEnv, "the names reach the engine")
	// The token command reads them from the environment the profile was
	// read with (the CLI's, from which it took its secrets), not the
	// process's.
	v, ok := cfg.SASL.OAuth.LookupEnv("VAULT_TOKEN")
	assert.Equal(t, "s.sealed", v)
	assert.True(t, ok)
	_, ok = cfg.SASL.OAuth.LookupEnv("VAULT_ADDR")
	assert.False(t, ok)
}
