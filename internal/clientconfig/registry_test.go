package clientconfig

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

func propsFile(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "client.properties")
	require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
	return p
}

func noEnv(string) string { return "" }

// The Java serializers' settings: the URL and basic.auth.user.info become
// the registry's URL and credentials, kept apart from the brokers' SASL.
func TestCommandConfigNamesTheRegistry(t *testing.T) {
	p, err := LoadClientProperties(propsFile(t, `bootstrap.servers=k:9092
schema.registry.url=https://sr-1:8081, https://sr-2:8081
basic.auth.credentials.source=USER_INFO
basic.auth.user.info=ops:p4ss:word
schema.registry.ssl.truststore.location=/etc/sr-ca.pem
schema.registry.ssl.truststore.type=PEM
`))
	require.NoError(t, err)
	cfg, err := p.Config(noEnv, nil)
	require.NoError(t, err)
	require.NotNil(t, cfg.Registry)
	assert.Equal(t, []string{"https://sr-1:8081", "https://sr-2:8081"}, cfg.Registry.URLs)
	assert.Equal(t, "ops", cfg.Registry.Username)
	assert.Equal(t, "p4ss:word", cfg.Registry.Password.Reveal())
	assert.Equal(t, "/etc/sr-ca.pem", cfg.Registry.TLS.CAFile)
	assert.Nil(t, cfg.SASL, "registry credentials are not the brokers'")

	p, err = LoadClientProperties(propsFile(t, "schema.registry.url=http://sr:8081\nbearer.auth.credentials.source=STATIC_TOKEN\nbearer.auth.token=tok\n"))
	require.NoError(t, err)
	cfg, err = p.Config(noEnv, nil)
	require.NoError(t, err)
	assert.Equal(t, "tok", cfg.Registry.Token.Reveal())

	p, err = LoadClientProperties(propsFile(t, "schema.registry.url=http://ops:pw@sr:8081\nbasic.auth.credentials.source=URL\n"))
	require.NoError(t, err)
	assert.Equal(t, "http://sr:8081", p.SchemaRegistry.URL, "the credentials leave the URL")
	assert.Equal(t, engine.Secret("pw"), p.SchemaRegistry.Password)
}

func TestCommandConfigRegistryMistakes(t *testing.T) {
	for body, want := range map[string]string{
		"basic.auth.user.info=ops:pw\n":                                                    "without schema.registry.url",
		"schema.registry.url=http://ops:secret-pw@sr:8081\n":                               "holds credentials",
		"schema.registry.url=http://sr:8081\nbasic.auth.credentials.source=SASL_INHERIT\n": "SASL_INHERIT is not supported",
		"schema.registry.url=http://sr:8081\nbasic.auth.user.info=nocolon\n":               "USER:PASSWORD",
	} {
		_, err := LoadClientProperties(propsFile(t, body))
		require.Error(t, err, body)
		assert.Contains(t, err.Error(), want, body)
		assert.NotContains(t, err.Error(), "secret-pw")
	}
}

// A profile's registry reads its password from the variable it names, and
// lists it among the variables to seal.
func TestProfileRegistryReadsItsSecretsFromTheEnvironment(t *testing.T) {
	cf, err := ParseConfigFile("c.json", []byte(`{"profiles": {"prod": {"brokers": ["k:9092"],
		"schema_registry": {"url": "https://sr:8081", "username": "ops", "password_env": "PROD_SR_PW"}}}}`))
	require.NoError(t, err)
	p, err := cf.Profile("prod")
	require.NoError(t, err)
	cfg, err := p.Config(func(k string) string { return map[string]string{"PROD_SR_PW": "pw1"}[k] }, nil)
	require.NoError(t, err)
	assert.Equal(t, "pw1", cfg.Registry.Password.Reveal())
	assert.Contains(t, p.SecretEnvNames(), "PROD_SR_PW")

	_, err = ParseConfigFile("c.json", []byte(`{"profiles": {"prod": {"schema_registry": {"url": "https://sr:8081", "password": "x"}}}}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "password_env")

	tok, err := ParseConfigFile("c.json", []byte(`{"profiles": {"p": {"schema_registry": {"url": "https://sr:8081"}}}}`))
	require.NoError(t, err)
	p, err = tok.Profile("p")
	require.NoError(t, err)
	cfg, err = p.Config(func(k string) string { return map[string]string{RegistryTokenEnv: "tok"}[k] }, nil)
	require.NoError(t, err)
	assert.Equal(t, "tok", cfg.Registry.Token.Reveal())
	assert.Equal(t, []string{RegistryTokenEnv}, p.SecretEnvNames())
}

// Credentials go with the URL they were given with: a higher layer naming
// another registry does not take the lower layer's credentials; naming
// the same one without credentials keeps them.
func TestRegistryCredentialsStayWithTheirURL(t *testing.T) {
	base := Profile{SchemaRegistry: &ProfileRegistry{URL: "https://sr:8081", Username: "ops", Password: "pw"}}
	other := Overlay(base, Profile{SchemaRegistry: &ProfileRegistry{URL: "https://elsewhere:8081"}})
	assert.Equal(t, "https://elsewhere:8081", other.SchemaRegistry.URL)
	assert.Empty(t, other.SchemaRegistry.Username)
	assert.Empty(t, other.SchemaRegistry.Password)

	same := Overlay(base, Profile{SchemaRegistry: &ProfileRegistry{URL: "https://sr:8081/"}})
	assert.Equal(t, "ops", same.SchemaRegistry.Username)
	assert.Equal(t, engine.Secret("pw"), same.SchemaRegistry.Password)

	kept := Overlay(base, Profile{Brokers: []string{"k:9092"}})
	assert.Equal(t, base.SchemaRegistry, kept.SchemaRegistry)
}
