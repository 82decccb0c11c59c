package clientconfig

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

// A key given twice in one object is refused with its path and line:
// encoding/json would keep the last silently.
func TestConfigFileDuplicateKeys(t *testing.T) {
	_, err := ParseConfigFile("c.json", []byte(`{"profiles": {
  "prod": {"brokers": ["a:9092"]},
  "dev": {"brokers": ["b:9092"]},
  "prod": {"brokers": ["c:9092"]}
}}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `bad config file: line 4: profiles.prod is given twice`)

	_, err = ParseConfigFile("c.json", []byte(`{"profiles": {"p": {"brokers": ["a:1"], "sasl": {"mechanism": "PLAIN", "mechanism": "SCRAM-SHA-256"}}}}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "profiles.p.sasl.mechanism is given twice")

	_, err = ParseConfigFile("c.json", []byte(`{"default_profile": "p", "default_profile": "q", "profiles": {"p": {}, "q": {}}}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "line 1: default_profile is given twice")

	// The same key in different objects, and arrays of objects, are fine.
	cf, err := ParseConfigFile("c.json", []byte(`{"profiles": {"a": {"brokers": ["x:1", "y:2"]}, "b": {"brokers": ["x:1"]}}}`))
	require.NoError(t, err)
	assert.Len(t, cf.Profiles, 2)
}

// A setting kadmin-lua reads, given twice in client.properties (Java keeps
// the last silently), is refused with its name and both lines; so is a
// JAAS option given twice. A producer setting given twice means nothing
// here and is let be.
func TestClientPropertiesDuplicateKeys(t *testing.T) {
	for name, tc := range map[string]struct{ props, want string }{
		"brokers": {"bootstrap.servers=a:9092\n# later\nacks=all\n\nbootstrap.servers=b:9092\n",
			"bad command config: bootstrap.servers is given twice, on lines 1 and 5 (Java would keep the last silently)"},
		"continued line": {"security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nsasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule \\\n  required username=\"a\" password=\"pw\";\nsasl.mechanism=SCRAM-SHA-256\n",
			"sasl.mechanism is given twice, on lines 2 and 5"},
		"escaped key": {"ssl.truststore.location=/a\nssl\\u002etruststore.location=/b\n", "ssl.truststore.location is given twice, on lines 1 and 2"},
		"jaas option": {"security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"a\" password=\"pw\" username=\"b\";\n",
			"sasl.jaas.config gives option username twice"},
	} {
		t.Run(name, func(t *testing.T) {
			path := writeTemp(t, "c.properties", tc.props)
			_, err := LoadClientProperties(path)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), path)
			assert.NotContains(t, err.Error(), "pw", "never a value")
			assert.Equal(t, engine.CodeInvalidArgument, engine.AsError(err, "").Code)
		})
	}
	p, err := LoadClientProperties(writeTemp(t, "c.properties", "bootstrap.servers=a:9092\nacks=1\nacks=all\nlinger.ms=5\nlinger.ms=10\n"))
	require.NoError(t, err, "duplicates of settings kadmin-lua ignores")
	assert.Equal(t, []string{"a:9092"}, p.Brokers)
}
