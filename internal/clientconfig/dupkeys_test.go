package clientconfig

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
