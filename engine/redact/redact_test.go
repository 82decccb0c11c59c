package redact

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIsSecretKey(t *testing.T) {
	for _, tc := range []struct {
		key    string
		secret bool
	}{
		// passwords, whatever the spelling and case
		{"password", true},
		{"PASSWORD", true},
		{"sasl_password", true},
		{"ssl.key.password", true},
		{"ssl.keystore.password", true},
		{"ssl.truststore.password", true},
		{"my.custom.pwd", true},
		{"db_passwd", true},
		{"pass", true},
		{"sasl_pass", true},
		{"key_pass", true},
		{"Pass", true},
		{"pw", true},
		{"adminPw", true},
		{"passphrase", true},
		// secrets, tokens, credentials
		{"secret", true},
		{"client.secret", true},
		{"sasl.oauthbearer.client.credentials.client.secret", true},
		{"token", true},
		{"token_id", true},
		{"hmac", true},
		{"credentials", true},
		{"sasl.jaas.config", true},
		{"listener.name.sasl_ssl.plain.sasl.jaas.config", true},
		{"SASL.JAAS.CONFIG", true},
		// key material
		{"ssl.keystore.key", true},
		{"ssl.key.pem", true},
		{"ssl.key.location", true},
		{"private_key", true},
		{"privateKey", true},
		{"privatekey", true},
		{"signing.key", true},
		// not secrets
		{"key", false},
		{"keys", false},
		{"value", false},
		{"name", false},
		{"user", false},
		{"sasl_username", false},
		{"sasl_mechanism", false},
		{"sasl.mechanism", false},
		{"retention.ms", false},
		{"key.serializer", false},
		{"ssl.keystore.location", false},
		{"ssl.keystore.type", false},
		{"ssl.truststore.location", false},
		{"ssl.keymanager.algorithm", false},
		{"tls_key", false}, // a file name, not the key
		{"api_key", false}, // a Kafka request's number
		{"compass", false},
		{"bypass.cache", false},
		{"passive", false},
		{"spw", false},
		{"", false},
	} {
		assert.Equal(t, tc.secret, IsSecretKey(tc.key), tc.key)
	}
}

func TestRedactNested(t *testing.T) {
	in := map[string]any{
		"topic": "orders",
		"set": map[string]any{
			"retention.ms":     "1000",
			"my.custom.pwd":    "hunter2",
			"ssl.keystore.key": "-----BEGIN PRIVATE KEY-----",
		},
		"cfg": map[string]any{"nested": []any{map[string]any{"Password": "p", "ok": 1.0}}},
		"configs": []any{
			map[string]any{"name": "sasl.jaas.config", "value": "org.apache...password=\"x\";"},
			map[string]any{"name": "cleanup.policy", "value": "compact"},
			map[string]any{"name": "custom.hidden", "value": "v", "sensitive": true},
			map[string]any{"name": "custom.unset", "value": nil, "sensitive": true},
		},
		"records":     []any{map[string]any{"key": "k1", "value": "v1"}},
		"strings":     map[string]string{"token": "t", "user": "u"},
		"key":         "record-key",
		"credentials": map[string]any{"user": "alice", "password": "x"},
	}
	got := Value(in).(map[string]any)
	assert.Equal(t, map[string]any{"retention.ms": "1000", "my.custom.pwd": "***", "ssl.keystore.key": "***"}, got["set"])
	assert.Equal(t, map[string]any{"nested": []any{map[string]any{"Password": "***", "ok": 1.0}}}, got["cfg"])
	assert.Equal(t, []any{
		map[string]any{"name": "sasl.jaas.config", "value": "***"},
		map[string]any{"name": "cleanup.policy", "value": "compact"},
		map[string]any{"name": "custom.hidden", "value": "***", "sensitive": true},
		map[string]any{"name": "custom.unset", "value": nil, "sensitive": true},
	}, got["configs"])
	assert.Equal(t, []any{map[string]any{"key": "k1", "value": "v1"}}, got["records"], "a record's key is not a secret")
	assert.Equal(t, map[string]string{"token": "***", "user": "u"}, got["strings"])
	assert.Equal(t, "record-key", got["key"])
	assert.Equal(t, "***", got["credentials"], "a secret-named key hides its whole value")

	b, err := json.Marshal(got)
	require.NoError(t, err)
	for _, s := range []string{"hunter2", "PRIVATE KEY", "password=", `"p"`, `"x"`} {
		assert.NotContains(t, string(b), s)
	}
	assert.Equal(t, "hunter2", in["set"].(map[string]any)["my.custom.pwd"], "the input is not modified")
}

func TestRedactLeavesScalars(t *testing.T) {
	assert.Equal(t, "password", Value("password"), "a value is not a key")
	assert.Equal(t, 3.0, Value(3.0))
	assert.Nil(t, Value(nil))
	assert.Equal(t, []any{"a", 1.0}, Value([]any{"a", 1.0}))
}

func TestRedact(t *testing.T) {
	got := Value(map[string]any{"user": "a", "password": "p", "nested": []any{map[string]any{"hmac": "x", "ok": 1}}})
	assert.Equal(t, map[string]any{"user": "a", "password": "***", "nested": []any{map[string]any{"hmac": "***", "ok": 1}}}, got)
}
