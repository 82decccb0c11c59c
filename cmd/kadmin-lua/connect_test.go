package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBrokersFromEnv(t *testing.T) {
	cl := newCluster(t)
	adm := cl.admin(t)
	c := newCLI(t)
	c.env["KADMIN_BROKERS"] = " " + strings.ReplaceAll(cl.addrs, ",", ", ") + " "
	require.Equal(t, ExitOK, c.run("-e", `create_topics{"via-env"}`), c.stderr.String())
	assert.Contains(t, topicNames(t, adm), "via-env")
}

func TestBrokersFlagBeatsEnv(t *testing.T) {
	cl := newCluster(t)
	c := newCLI(t)
	c.env["KADMIN_BROKERS"] = closedPort(t)
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "--timeout", "5s", "-e", `return #list_topics()`), c.stderr.String())
}

func TestNoBrokersIsAnError(t *testing.T) {
	c := newCLI(t)
	code := c.run("-e", `return list_topics()`)
	assert.NotEqual(t, ExitOK, code)
	assert.Contains(t, c.stderr.String(), "no brokers")
}

// writeConfig writes $XDG_CONFIG_HOME/kadmin-lua/config.json for c.
func writeConfig(t *testing.T, c *cli, content string) string {
	t.Helper()
	dir := t.TempDir()
	c.env["XDG_CONFIG_HOME"] = dir
	path := filepath.Join(dir, "kadmin-lua", "config.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	return path
}

func TestDefaultProfileFromConfigFile(t *testing.T) {
	cl := newCluster(t)
	adm := cl.admin(t)
	c := newCLI(t)
	writeConfig(t, c, fmt.Sprintf(`{"default_profile": "dev", "profiles": {"dev": {"brokers": [%q], "timeout": "5s"}}}`, cl.addrs))
	require.Equal(t, ExitOK, c.run("-e", `create_topics{"by-default-profile"}`), c.stderr.String())
	assert.Contains(t, topicNames(t, adm), "by-default-profile")
}

func TestProfilePrecedence(t *testing.T) {
	cl := newCluster(t)
	dead := closedPort(t)
	cfg := fmt.Sprintf(`{"default_profile": "dead", "profiles": {
		"dead": {"brokers": [%q]},
		"live": {"brokers": [%q]}}}`, dead, cl.addrs)

	t.Run("env beats the default profile", func(t *testing.T) {
		c := newCLI(t)
		writeConfig(t, c, cfg)
		c.env["KADMIN_BROKERS"] = cl.addrs
		require.Equal(t, ExitOK, c.run("--timeout", "5s", "-e", `return #list_topics()`), c.stderr.String())
	})
	t.Run("--profile beats env", func(t *testing.T) {
		c := newCLI(t)
		writeConfig(t, c, cfg)
		c.env["KADMIN_BROKERS"] = dead
		require.Equal(t, ExitOK, c.run("--profile", "live", "--timeout", "5s", "-e", `return #list_topics()`), c.stderr.String())
	})
	t.Run("KADMIN_PROFILE selects a profile", func(t *testing.T) {
		c := newCLI(t)
		writeConfig(t, c, cfg)
		c.env["KADMIN_PROFILE"] = "live"
		require.Equal(t, ExitOK, c.run("--timeout", "5s", "-e", `return #list_topics()`), c.stderr.String())
	})
	t.Run("-b beats the profile", func(t *testing.T) {
		c := newCLI(t)
		writeConfig(t, c, cfg)
		require.Equal(t, ExitOK, c.run("--profile", "dead", "-b", cl.addrs, "--timeout", "5s", "-e", `return #list_topics()`), c.stderr.String())
	})
	t.Run("--config names another file", func(t *testing.T) {
		c := newCLI(t)
		path := writeFile(t, "other.json", cfg)
		require.Equal(t, ExitOK, c.run("--config", path, "--profile", "live", "-e", `return #list_topics()`), c.stderr.String())
	})
}

func TestConfigFileErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		config string
		args   []string
		want   string
	}{
		"unknown profile": {`{"profiles": {"a": {}}}`, []string{"--profile", "b"}, `no profile "b" (profiles: a)`},
		"password in file": {`{"profiles": {"a": {"sasl": {"mechanism": "PLAIN", "username": "u", "password": "hunter2"}}}}`,
			nil, "profiles cannot hold passwords"},
		"bad json":         {"{\n\"profiles\": {,}}", nil, "line 2"},
		"unknown key":      {`{"profiles": {"a": {"borkers": ["x"]}}}`, nil, `unknown field "borkers"`},
		"bad default":      {`{"default_profile": "x", "profiles": {}}`, nil, `default_profile "x"`},
		"bad timeout":      {`{"profiles": {"a": {"timeout": "soon"}}}`, nil, "timeout"},
		"bad mechanism":    {`{"profiles": {"a": {"brokers": ["x:1"], "sasl": {"mechanism": "NTLM", "username": "u"}}}}`, []string{"--profile", "a"}, "unsupported SASL mechanism"},
		"missing --config": {"", []string{"--config", "/nonexistent/kadmin.json"}, "config file not found"},
	} {
		t.Run(name, func(t *testing.T) {
			c := newCLI(t)
			if tc.config != "" {
				writeConfig(t, c, tc.config)
			}
			require.Equal(t, ExitUsage, c.run(append(tc.args, "-e", "return 1")...))
			assert.Contains(t, c.stderr.String(), tc.want)
			assert.NotContains(t, c.stderr.String(), "hunter2")
		})
	}
}

func TestProfileRequestedWithoutConfigFile(t *testing.T) {
	c := newCLI(t)
	require.Equal(t, ExitUsage, c.run("--profile", "prod", "-e", "return 1"))
	assert.Contains(t, c.stderr.String(), "config file not found")
}

func TestConnectProfileFromLua(t *testing.T) {
	main, other := newCluster(t), newCluster(t)
	c := newCLI(t)
	writeConfig(t, c, fmt.Sprintf(`{"profiles": {"other": {"brokers": [%q]}}}`, other.addrs))
	require.Equal(t, ExitOK, c.run("-b", main.addrs, "-e", `
		local o = kafka.connect{profile = "other"}
		o:create_topics{"only-on-other"}
		return #list_topics(), #o:list_topics()`), c.stderr.String())
	assert.Equal(t, "0\n1\n", c.stdout.String())
	assert.Equal(t, []string{"only-on-other"}, topicNames(t, other.admin(t)))
}

func TestSASLPlainWithFlagsAndEnvPassword(t *testing.T) {
	cl, adm := saslCluster(t)
	c := newCLI(t)
	c.env["KADMIN_SASL_PASSWORD"] = "secret"
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "--sasl-mechanism", "plain", "--sasl-username", "admin",
		"-e", `create_topics{"authed"}`), c.stderr.String())
	assert.Contains(t, topicNames(t, adm), "authed")
}

func TestSASLWrongPasswordExit3WithoutLeaking(t *testing.T) {
	cl, _ := saslCluster(t)
	c := newCLI(t)
	c.env["KADMIN_SASL_PASSWORD"] = "wrong-pa55word"
	code := c.run("-b", cl.addrs, "--sasl-mechanism", "PLAIN", "--sasl-username", "admin", "--timeout", "5s",
		"-e", `return list_topics()`)
	require.Equal(t, ExitKafka, code, c.stderr.String())
	assert.Contains(t, c.stderr.String(), "authentication failed")
	assert.NotContains(t, c.stderr.String()+c.stdout.String(), "wrong-pa55word")
}

func TestSASLPasswordPromptOnTerminal(t *testing.T) {
	cl, adm := saslCluster(t)
	c := newCLI(t)
	c.terminal = true
	var prompts []string
	c.password = func(prompt string) (string, error) {
		prompts = append(prompts, prompt)
		return "secret", nil
	}
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "--sasl-mechanism", "PLAIN", "--sasl-username", "admin",
		"-e", `create_topics{"prompted"}; return #list_topics()`), c.stderr.String())
	assert.Equal(t, []string{"SASL password for admin: "}, prompts, "asked once, lazily")
	assert.Contains(t, topicNames(t, adm), "prompted")
}

func TestSASLNoPasswordAndNoTerminal(t *testing.T) {
	cl, _ := saslCluster(t)
	c := newCLI(t)
	c.password = func(string) (string, error) { return "", errors.New("must not prompt without a terminal") }
	code := c.run("-b", cl.addrs, "--sasl-mechanism", "PLAIN", "--sasl-username", "admin", "--timeout", "5s",
		"-e", `return list_topics()`)
	require.Equal(t, ExitKafka, code, c.stderr.String())
	assert.Contains(t, c.stderr.String(), "KADMIN_SASL_PASSWORD")
}

func TestSASLFlagMistakes(t *testing.T) {
	c := newCLI(t)
	require.Equal(t, ExitUsage, c.run("-b", "x:1", "--sasl-mechanism", "PLAIN", "-e", "return 1"))
	assert.Contains(t, c.stderr.String(), "needs a username")

	c = newCLI(t)
	require.Equal(t, ExitUsage, c.run("-b", "x:1", "--sasl-mechanism", "OAUTHBEARER", "--sasl-username", "u", "-e", "return 1"))
	assert.Contains(t, c.stderr.String(), "SASL OAUTHBEARER takes no username")

	c = newCLI(t)
	require.Equal(t, ExitUsage, c.run("-b", "x:1", "--sasl-mechanism", "SCRAM-SHA-1", "--sasl-username", "u", "-e", "return 1"))
	assert.Contains(t, c.stderr.String(), "unsupported SASL mechanism")
}

func TestCommandConfigSASLPlain(t *testing.T) {
	cl, adm := saslCluster(t)
	props := writeFile(t, "client.properties", fmt.Sprintf(`# written by ops
bootstrap.servers=%s
security.protocol=SASL_PLAINTEXT
sasl.mechanism=PLAIN
sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required \
    username="admin" \
    password="secret";
linger.ms=5
`, cl.addrs))
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("--command-config", props, "-e", `create_topics{"from-properties"}`), c.stderr.String())
	assert.Contains(t, topicNames(t, adm), "from-properties")
}

func TestCommandConfigWrongPassword(t *testing.T) {
	cl, _ := saslCluster(t)
	props := writeFile(t, "client.properties", fmt.Sprintf(`bootstrap.servers=%s
security.protocol=SASL_PLAINTEXT
sasl.mechanism=PLAIN
sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="n0t-the-pa55";
`, cl.addrs))
	c := newCLI(t)
	code := c.run("--command-config", props, "--timeout", "5s", "-e", `return list_topics()`)
	require.Equal(t, ExitKafka, code, c.stderr.String())
	assert.Contains(t, c.stderr.String(), "authentication failed")
	assert.NotContains(t, c.stderr.String()+c.stdout.String(), "n0t-the-pa55")
}

func TestCommandConfigUnsupported(t *testing.T) {
	for name, tc := range map[string]struct{ props, want string }{
		"bks truststore": {"security.protocol=SSL\nssl.truststore.location=/etc/kafka/truststore.bks\nssl.truststore.type=BKS\nssl.truststore.password=changeit\n",
			"ssl.truststore.type=BKS is not supported (want JKS, PKCS12, PEM)"},
		"unknown mechanism": {"security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-1\n", "sasl.mechanism SCRAM-SHA-1 is not supported"},
		"custom oauth handler": {"security.protocol=SASL_SSL\nsasl.mechanism=OAUTHBEARER\nsasl.login.callback.handler.class=com.example.VaultHandler\n" +
			"sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required clientSecret=\"s3cr3t\";\n",
			"sasl.login.callback.handler.class com.example.VaultHandler is a Java class kadmin-lua cannot run"},
		"oauth module": {"security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nsasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required clientSecret=\"s3cr3t\";\n",
			"uses OAuthBearerLoginModule but sasl.mechanism is PLAIN"},
		"module mismatch": {"security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"s3cr3t\";\n",
			"uses PlainLoginModule but sasl.mechanism is SCRAM-SHA-512"},
	} {
		t.Run(name, func(t *testing.T) {
			c := newCLI(t)
			props := writeFile(t, "client.properties", tc.props)
			require.Equal(t, ExitUsage, c.run("-b", "x:1", "--command-config", props, "-e", "return 1"))
			assert.Contains(t, c.stderr.String(), tc.want)
			assert.NotContains(t, c.stderr.String(), "s3cr3t")
			assert.NotContains(t, c.stderr.String(), "changeit")
		})
	}
}

func TestAuditLogCannotOpen(t *testing.T) {
	c := newCLI(t)
	require.Equal(t, ExitUsage, c.run("--audit-log", filepath.Join(t.TempDir(), "no", "such", "dir", "a.log"), "-e", "return 1"))
	assert.Contains(t, c.stderr.String(), "opening audit log")
}
