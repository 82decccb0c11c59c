package repl

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Lines that assign to a secret-looking name never reach the history,
// whatever the value; lines that only look alike do.
func TestHistoryDropsSecretAssignments(t *testing.T) {
	for _, tc := range []struct {
		chunk string
		keep  bool
	}{
		// assignments of secrets
		{`local pw = "hunter2"`, false},
		{`pw="hunter2"`, false},
		{`local PW = 'x'`, false},
		{`pass = io.read()`, false},
		{`local user, pass = "alice", "x"`, false},
		{`local pass, user = "x", "alice"`, false},
		{`adminPwd = "x"`, false},
		{`db_pwd = "x"`, false},
		{`token=abc`, false},
		{`local t = {user = "alice", pass = "x"}`, false},
		{`cfg["ssl.key.password"] = "x"`, false},
		{`cfg['ssl.keystore.key'] = pem`, false},
		{`props = {["my.custom.pwd"] = v}`, false},
		{"local ok = 1\nlocal pw = 'x'", false},
		{`if x == 1 then pw = "x" end`, false},
		// reading a secret from the environment
		{`kafka.env("X_PASSWORD")`, false},
		{`kafka.env("KAFKA_PW")`, false},
		{`local p = kafka.env "ADMIN_PASS"`, false},
		{`kafka.env("HOME")`, true},
		// not assignments of secrets
		{`local key = "orders"`, true},
		{`local keys = {"a", "b"}`, true},
		{`describe_topics{"compass"}`, true},
		{`local passengers = 3`, true},
		{`if pw == nil then print(1) end`, true},
		{`x = pw_len ~= 3`, true},
		{`local ok = #pw >= 3`, true},
		{`create_topics{{name = "bypass", partitions = 3}}`, true},
		{`commit_offsets("g", {{topic = "t", partition = 0, offset = 5}})`, true},
		{`local r = list_offsets{"orders"}`, true},
		{`kafka.connect{brokers = "b:9092"}`, true},
	} {
		assert.Equal(t, tc.keep, keepInHistory(tc.chunk), tc.chunk)
	}
}
