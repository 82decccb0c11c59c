package clientconfig

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOverlayPairsUserWithItsOwnPasswordSource(t *testing.T) {
	profile := Profile{Brokers: []string{"p:9093"}, SASL: &ProfileSASL{Mechanism: "SCRAM-SHA-512", Username: "ops", PasswordEnv: "PROD_PW"}}
	env := map[string]string{"PROD_PW": "prod-pw", PasswordEnv: "generic-pw"}
	lookup := func(k string) string { return env[k] }

	for name, over := range map[string]*ProfileSASL{
		"another user":                  {Username: "alice"},
		"the same name, another source": {Username: "ops"},
	} {
		t.Run(name, func(t *testing.T) {
			cfg, err := Overlay(profile, Profile{SASL: over}).Config(lookup, nil)
			require.NoError(t, err)
			assert.Equal(t, over.Username, cfg.SASL.Username)
			assert.Equal(t, "SCRAM-SHA-512", cfg.SASL.Mechanism, "the mechanism is not a secret: it may come from below")
			assert.Equal(t, "generic-pw", cfg.SASL.Password.Reveal(), "never the profile's PROD_PW")
		})
	}

	// A user from a client.properties file brings its password with it.
	cfg, err := Overlay(profile, Profile{SASL: &ProfileSASL{Username: "bob", Password: "bob-pw"}}).Config(lookup, nil)
	require.NoError(t, err)
	assert.Equal(t, "bob-pw", cfg.SASL.Password.Reveal())

	// A layer naming no user (only a mechanism) leaves the user and its
	// password source alone.
	cfg, err = Overlay(profile, Profile{SASL: &ProfileSASL{Mechanism: "SCRAM-SHA-256"}}).Config(lookup, nil)
	require.NoError(t, err)
	assert.Equal(t, "ops", cfg.SASL.Username)
	assert.Equal(t, "prod-pw", cfg.SASL.Password.Reveal())

	// A client certificate and its key are one credential.
	tlsBase := Profile{TLS: &ProfileTLS{CAFile: "/ca.pem", CertFile: "/p.crt", KeyFile: "/p.key"}}
	got := Overlay(tlsBase, Profile{TLS: &ProfileTLS{CertFile: "/mine.crt"}})
	assert.Equal(t, ProfileTLS{CAFile: "/ca.pem", CertFile: "/mine.crt"}, *got.TLS, "never /mine.crt with /p.key")
	_, err = got.Config(lookup, nil)
	require.Error(t, err)
}

func TestProfileAndItsCommandConfigAreOneSource(t *testing.T) {
	// Inside one profile, its password_env may serve the user its own
	// command_config names (the two are one source).
	props := writeTemp(t, "c.properties", "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"+
		`sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="svc";`+"\n")
	cf, err := ParseConfigFile("config.json", []byte(`{"profiles": {"p": {"brokers": ["b:1"], "command_config": "`+props+`", "sasl": {"password_env": "SVC_PW"}}}}`))
	require.NoError(t, err)
	p, err := cf.Profile("p")
	require.NoError(t, err)
	cfg, err := p.Config(func(k string) string { return map[string]string{"SVC_PW": "svc-pw"}[k] }, nil)
	require.NoError(t, err)
	assert.Equal(t, "svc", cfg.SASL.Username)
	assert.Equal(t, "svc-pw", cfg.SASL.Password.Reveal())
}

func TestWithoutCredentials(t *testing.T) {
	p := Profile{Brokers: []string{"a:1"}, ClientID: "id", SASL: &ProfileSASL{Mechanism: "PLAIN", Username: "u"},
		TLS: &ProfileTLS{CAFile: "/ca.pem", ServerName: "k", CertFile: "/c", KeyFile: "/k"}}
	require.True(t, p.HasCredentials())
	bare := p.WithoutCredentials()
	assert.False(t, bare.HasCredentials())
	assert.Equal(t, Profile{Brokers: []string{"a:1"}, ClientID: "id", TLS: &ProfileTLS{CAFile: "/ca.pem", ServerName: "k"}}, bare)
	assert.Equal(t, "/c", p.TLS.CertFile, "p itself is unchanged")
	assert.False(t, SameCredentials(p, bare))
	assert.True(t, SameCredentials(bare, Profile{TLS: &ProfileTLS{CAFile: "/other"}}), "trust settings are not credentials")

}

func TestBrokersWithin(t *testing.T) {
	profile := []string{"kafka-1.prod:9093,kafka-2.prod:9093", "kafka-3.prod:9093"}
	assert.True(t, BrokersWithin([]string{"kafka-2.prod:9093"}, profile))
	assert.True(t, BrokersWithin([]string{"KAFKA-1.prod:9093, kafka-3.prod:9093"}, profile))
	assert.False(t, BrokersWithin([]string{"kafka-1.prod:9093", "kafka-1.staging:9093"}, profile))
	assert.False(t, BrokersWithin([]string{"kafka-1.prod:9092"}, profile), "another port is another listener")
	assert.False(t, BrokersWithin([]string{"x:1"}, nil), "a profile without brokers lends its credentials to none")
}
