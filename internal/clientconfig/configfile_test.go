package clientconfig

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/login"
)

func TestParseProperties(t *testing.T) {
	props, err := ParseProperties(strings.NewReader(`# comment
! also a comment
   bootstrap.servers = a:9092,b:9092
client.id:ops-tool
spaced value with spaces
sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required \
    username="alice" \
    password="p=a:ss";
escaped\ key=tab\there
unicode=caf\u00e9
empty=
trailing=back\\
`))
	require.NoError(t, err)
	assert.Equal(t, map[string]string{
		"bootstrap.servers": "a:9092,b:9092",
		"client.id":         "ops-tool",
		"spaced":            "value with spaces",
		"sasl.jaas.config":  `org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="p=a:ss";`,
		"escaped key":       "tab\there",
		"unicode":           "café",
		"empty":             "",
		"trailing":          `back\`,
	}, props)
}

func TestParsePropertiesBadEscapeDoesNotQuoteValue(t *testing.T) {
	_, err := ParseProperties(strings.NewReader("a=1\nsasl.jaas.config=x password=\"hunter2\\uZZ\"\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "line 2")
	assert.Contains(t, err.Error(), "sasl.jaas.config")
	assert.NotContains(t, err.Error(), "hunter2")
}

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
	return p
}

func TestLoadClientPropertiesSASLSSL(t *testing.T) {
	path := writeTemp(t, "client.properties", `bootstrap.servers=k1:9093, k2:9093
security.protocol=SASL_SSL
sasl.mechanism=SCRAM-SHA-512
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="ops" password="s\\"cret";
ssl.truststore.type=PEM
ssl.truststore.location=/etc/kafka/ca.pem
ssl.keystore.type=PEM
ssl.keystore.location=/etc/kafka/client.pem
acks=all
`)
	p, err := LoadClientProperties(path)
	require.NoError(t, err)
	assert.Equal(t, []string{"k1:9093", "k2:9093"}, p.Brokers)
	require.NotNil(t, p.SASL)
	assert.Equal(t, "SCRAM-SHA-512", p.SASL.Mechanism)
	assert.Equal(t, "ops", p.SASL.Username)
	assert.Equal(t, `s"cret`, p.SASL.Password.Reveal())
	require.NotNil(t, p.TLS)
	assert.Equal(t, ProfileTLS{CAFile: "/etc/kafka/ca.pem", CertFile: "/etc/kafka/client.pem", KeyFile: "/etc/kafka/client.pem"}, *p.TLS)
	assert.NotContains(t, fmt.Sprintf("%v %+v", p, *p.SASL), "cret", "the password never prints")

	cfg, err := p.Config(func(string) string { return "from-env" }, nil)
	require.NoError(t, err)
	assert.Equal(t, `s"cret`, cfg.SASL.Password.Reveal(), "the file's password beats the environment")
}

func TestLoadClientPropertiesPlaintext(t *testing.T) {
	p, err := LoadClientProperties(writeTemp(t, "c.properties", "bootstrap.servers=localhost:9092\n"))
	require.NoError(t, err)
	assert.Equal(t, Profile{Brokers: []string{"localhost:9092"}}, p)
}

func TestLoadClientPropertiesRefusals(t *testing.T) {
	for name, tc := range map[string]struct{ props, want string }{
		"bks truststore": {"security.protocol=SSL\nssl.truststore.location=/x/t.bks\nssl.truststore.type=BKS\n", "ssl.truststore.type=BKS is not supported (want JKS, PKCS12, PEM)"},
		"encrypted key":  {"security.protocol=SSL\nssl.keystore.location=/x/k.pem\nssl.keystore.type=PEM\nssl.key.password=pw\n", "encrypted PEM private keys"},
		"inline certs":   {"security.protocol=SSL\nssl.truststore.certificates=-----BEGIN\n", "inline PEM"},
		"no hostname":    {"security.protocol=SSL\nssl.endpoint.identification.algorithm=\n", "host name verification off"},
		"bad protocol":   {"security.protocol=TLS\n", "unknown security.protocol"},
		"no username":    {"security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required password=\"pw\";\n", "no username"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := LoadClientProperties(writeTemp(t, "c.properties", tc.props))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			var e *engine.Error
			require.True(t, errors.As(err, &e))
			assert.Equal(t, engine.CodeInvalidArgument, e.Code)
		})
	}
}

func TestConfigFileProfiles(t *testing.T) {
	props := writeTemp(t, "client.properties", "bootstrap.servers=cc:9092\nclient.id=from-props\n")
	cf, err := ParseConfigFile("config.json", []byte(fmt.Sprintf(`{
		"default_profile": "dev",
		"profiles": {
			"dev": {"brokers": ["localhost:9092"]},
			"prod": {"brokers": ["p1:9093,p2:9093"], "timeout": "1m",
			         "sasl": {"mechanism": "scram-sha-256", "username": "ops", "password_env": "PROD_PW"},
			         "tls": {"ca_file": "/ca.pem", "server_name": "kafka.prod"}},
			"viaprops": {"command_config": %q, "client_id": "mine"}
		}}`, props)))
	require.NoError(t, err)

	dev, err := cf.Profile("")
	require.NoError(t, err)
	assert.Equal(t, []string{"localhost:9092"}, dev.Brokers)

	prod, err := cf.Profile("prod")
	require.NoError(t, err)
	env := map[string]string{"PROD_PW": "pw1", PasswordEnv: "other"}
	cfg, err := prod.Config(func(k string) string { return env[k] }, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"p1:9093", "p2:9093"}, cfg.Brokers)
	assert.Equal(t, time.Minute, cfg.Timeout)
	assert.Equal(t, "SCRAM-SHA-256", cfg.SASL.Mechanism)
	assert.Equal(t, "pw1", cfg.SASL.Password.Reveal())
	assert.Equal(t, &login.TLSConfig{CAFile: "/ca.pem", ServerName: "kafka.prod"}, cfg.TLS)

	vp, err := cf.Profile("viaprops")
	require.NoError(t, err)
	assert.Equal(t, []string{"cc:9092"}, vp.Brokers, "from the command config")
	assert.Equal(t, "mine", vp.ClientID, "the profile's own setting wins")

	_, err = cf.Profile("nope")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `no profile "nope" (profiles: dev, prod, viaprops)`)
}

func TestProfilePasswordPromptIsLazy(t *testing.T) {
	p := Profile{Brokers: []string{"x:1"}, SASL: &ProfileSASL{Mechanism: "PLAIN", Username: "u"}}
	asked := 0
	cfg, err := p.Config(func(string) string { return "" }, func(user string) (string, error) {
		asked++
		return "pw-" + user, nil
	})
	require.NoError(t, err)
	assert.Equal(t, 0, asked, "not asked until a login needs it")
	require.NotNil(t, cfg.SASL.PasswordFunc)
	pw, err := cfg.SASL.PasswordFunc()
	require.NoError(t, err)
	assert.Equal(t, "pw-u", pw)
}

func TestOverlay(t *testing.T) {
	base := Profile{Brokers: []string{"a:1"}, ClientID: "base", Timeout: Duration(time.Second),
		SASL: &ProfileSASL{Mechanism: "PLAIN", Username: "alice", Password: "alice-pw"},
		TLS:  &ProfileTLS{CAFile: "/ca.pem"}}
	got := Overlay(base, Profile{Brokers: []string{"b:2"}, SASL: &ProfileSASL{Username: "bob"}, TLS: &ProfileTLS{ServerName: "k"}})
	assert.Equal(t, []string{"b:2"}, got.Brokers)
	assert.Equal(t, "base", got.ClientID)
	assert.Equal(t, ProfileSASL{Mechanism: "PLAIN", Username: "bob"}, *got.SASL, "alice's password is not bob's")
	assert.Equal(t, ProfileTLS{CAFile: "/ca.pem", ServerName: "k"}, *got.TLS)
	assert.Equal(t, "alice", base.SASL.Username, "the base is not modified")
}

func TestDefaultConfigPath(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	assert.Equal(t, "/x/kadmin-lua/config.json", DefaultConfigPath(env(map[string]string{"XDG_CONFIG_HOME": "/x", "HOME": "/h"})))
	assert.Equal(t, "/h/.config/kadmin-lua/config.json", DefaultConfigPath(env(map[string]string{"HOME": "/h"})))
	assert.Equal(t, "", DefaultConfigPath(env(nil)))
}

func TestLoadConfigFileMissing(t *testing.T) {
	_, err := LoadConfigFile(filepath.Join(t.TempDir(), "none.json"))
	require.Error(t, err)
	assert.True(t, errors.Is(err, os.ErrNotExist))
}
