package luaapi

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/desired"
)

func readSpecText(t *testing.T, name, text string) (desired.Spec, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
	spec, err := ReadSpec(context.Background(), path, SpecOptions{Env: func(k string) string { return map[string]string{"RETENTION": "86400000"}[k] }})
	if err != nil {
		// Errors name the file by its base name in these tests.
		return spec, &engine.Error{Code: "X", Message: strings.ReplaceAll(err.Error(), filepath.Dir(path)+string(filepath.Separator), "")}
	}
	return spec, nil
}

const luaSpec = `local retention = kafka.env("RETENTION")
return {
  topics = {
    {name = "team-a.orders", partitions = 6, replication_factor = 3,
     configs = {["retention.ms"] = retention, ["min.insync.replicas"] = 2}},
    "team-a.events",
  },
  acls = {
    {principal = "User:team-a", operation = "read", resource_type = "topic",
     resource_name = "team-a.", pattern_type = "prefixed"},
  },
  owns = {topics = {"team-a.", {match = "^shared-team-a-"}}, acls = {principals = {"User:team-a"}}},
  policies = {topic_name = "^[a-z.-]+$", min_replication_factor = 1, required_configs = {}},
  quotas = {},
}
`

const yamlSpec = `topics:
  - name: team-a.orders
    partitions: 6
    replication_factor: 3
    configs:
      retention.ms: "86400000"
      min.insync.replicas: 2
  - team-a.events
acls:
  - principal: User:team-a
    operation: read
    resource_type: topic
    resource_name: team-a.
    pattern_type: prefixed
owns:
  topics: [team-a., {match: "^shared-team-a-"}]
  acls: {principals: [User:team-a]}
policies: {topic_name: "^[a-z.-]+$", min_replication_factor: 1, required_configs: []}
quotas: []
`

func TestSpecReadsLuaYAMLAndJSONAlike(t *testing.T) {
	fromLua, err := readSpecText(t, "spec.lua", luaSpec)
	require.NoError(t, err)
	fromYAML, err := readSpecText(t, "spec.yaml", yamlSpec)
	require.NoError(t, err)
	fromJSON, err := readSpecText(t, "spec.json", `{"topics": [{"name": "team-a.orders", "partitions": 6, "replication_factor": 3,
  "configs": {"retention.ms": "86400000", "min.insync.replicas": 2}}, "team-a.events"],
 "acls": [{"principal": "User:team-a", "operation": "read", "resource_type": "topic", "resource_name": "team-a.", "pattern_type": "prefixed"}],
 "owns": {"topics": ["team-a.", {"match": "^shared-team-a-"}], "acls": {"principals": ["User:team-a"]}},
 "policies": {"topic_name": "^[a-z.-]+$", "min_replication_factor": 1, "required_configs": []}}`)
	require.NoError(t, err)

	want := []engine.TopicSpec{
		{Name: "team-a.orders", Partitions: 6, ReplicationFactor: 3, Configs: map[string]string{"retention.ms": "86400000", "min.insync.replicas": "2"}},
		{Name: "team-a.events"},
	}
	for name, s := range map[string]desired.Spec{"lua": fromLua, "yaml": fromYAML, "json": fromJSON} {
		assert.Equal(t, want, s.Topics, name)
		require.Len(t, s.ACLs, 1, name)
		assert.Equal(t, "User:team-a allow read on topic team-a. (prefixed) from *", s.ACLs[0].String(), name, "defaults filled as create_acls fills them")
		assert.True(t, s.Owns.Topics.Contains("team-a.x"), name)
		assert.True(t, s.Owns.Topics.Contains("shared-team-a-1"), name)
		assert.False(t, s.Owns.Topics.Contains("team-b.x"), name)
		assert.True(t, s.Owns.ACLPrincipals.Contains("User:team-a"), name)
		assert.Equal(t, "^[a-z.-]+$", s.Policies.TopicName.String(), name)
		assert.EqualValues(t, 1, s.Policies.MinReplicationFactor, name)
	}
	assert.Equal(t, "spec.lua:4", filepath.Base(fromLua.Where["topic team-a.orders"]), "rows know their line")
	assert.Equal(t, "spec.lua:6", filepath.Base(fromLua.Where["topic team-a.events"]))
	assert.Equal(t, "spec.yaml:2", filepath.Base(fromYAML.Where["topic team-a.orders"]))
}

func TestSpecRefusesBadRowsWithTheirPlace(t *testing.T) {
	for _, tc := range []struct{ name, file, text, want string }{
		{"wrong type, as create_topics says it", "spec.lua", "return {\n  topics = {\n    {name = \"a\"},\n    {name = \"b\",\n     partitions = \"x\"},\n  },\n}\n",
			`spec.lua:5: topics #2: partitions: must be a partition count`},
		{"unknown key in a row", "spec.lua", "return {topics = {\n {name = \"a\", partitons = 3}}}",
			`spec.lua:2: topics #1: unknown key "partitons" (did you mean "partitions"?)`},
		{"unknown top-level key", "spec.lua", "return {\n topic = {}}",
			`spec.lua:1: unknown key "topic" (did you mean "topics"?)`},
		{"duplicate topic", "spec.yaml", "topics:\n  - name: a\n  - b\n  - name: a\n",
			`spec.yaml:4: topics #3: topic a is given twice (first at topics #1)`},
		{"duplicate ACL, defaults filled", "spec.json", "{\"acls\": [\n{\"principal\": \"User:x\", \"operation\": \"read\", \"resource_type\": \"topic\", \"resource_name\": \"t\"},\n{\"principal\": \"User:x\", \"operation\": \"READ\", \"resource_type\": \"topic\", \"resource_name\": \"t\", \"host\": \"*\"}]}",
			`spec.json:3: acls #2: acl User:x allow read on topic t (literal) from * is given twice (first at acls #1)`},
		{"wrong type in YAML", "spec.yaml", "topics:\n  - name: a\n    replication_factor: [1]\n",
			`spec.yaml:3: topics #1: replication_factor: must be a replication factor`},
		{"owns entry", "spec.yaml", "owns:\n  topics: [{match: \"(\"}]\n",
			`spec.yaml:2: owns: topics #1: match: invalid regular expression`},
		{"a quota row as alter_client_quotas reads it", "spec.lua", "return {\n quotas = {{entity = {}, set = {}}}}",
			`spec.lua:2: quotas #1: entity: must name at least one of user, client_id, ip`},
		{"a SCRAM password is never in a spec", "spec.yaml", "scram_users:\n  - {user: a, password: hunter2}\n",
			`spec.yaml:2: scram_users #1: unknown key "password"`},
		{"a SCRAM password's source", "spec.yaml", "scram_users:\n  - {user: a}\n",
			`scram_users #1: must give exactly one of password_env and password_file`},
		{"a broker row", "spec.yaml", "broker_configs:\n  - {broker: -1, set: {a: b}}\n",
			`spec.yaml:2: broker_configs #1: broker: must be a broker id (int32 >= 0) or "default"`},
		{"duplicate group", "spec.yaml", "group_configs:\n  - {group: g, set: {a: b}}\n  - {group: g, set: {a: c}}\n",
			`spec.yaml:3: group_configs #2: group_config g is given twice (first at group_configs #1)`},
		{"not a table", "spec.lua", "return 42", `spec.lua:1: the spec must be a table`},
		{"a JSON syntax error, at its line", "spec.json", "{\"topics\": [\n  {\"name\": \"a\"}\n", `spec.json:2: not valid JSON: did not find expected ',' or ']'`},
		{"a YAML syntax error, at its line", "spec.yaml", "topics:\n  - name: a\n - name: b\n", `spec.yaml:2: not valid YAML: did not find expected key`},
		{"a syntax error, as a script's", "spec.lua", "return {\n topics = {\n}", `spec.lua:3:2: syntax error near 'EOF'`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readSpecText(t, tc.file, tc.text)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestSpecReadsTheOtherKinds(t *testing.T) {
	spec, err := readSpecText(t, "spec.yaml", `quotas:
  - {entity: {user: team-a-svc}, set: {producer_byte_rate: 1024}}
scram_users:
  - {user: team-a-svc, mechanism: SCRAM-SHA-512, iterations: 8192, password_env: TEAM_A_PW}
  - {user: team-a-ro, password_file: /run/secrets/ro}
group_configs:
  - {group: team-a.g, set: {consumer.session.timeout.ms: 50000}}
client_metrics:
  - {client_metrics: team-a-sub, set: {interval.ms: 60000}}
broker_configs:
  - {broker: default, set: {log.cleaner.threads: 2}}
  - {broker: 1, set: {log.cleaner.threads: 3}}
owns: {quotas: [user=team-a], scram_users: [team-a-], group_configs: [team-a.], client_metrics: [team-a-], broker_configs: ["1"]}
`)
	require.NoError(t, err)
	assert.Equal(t, []desired.QuotaSpec{{Entity: engine.QuotaEntity{"user": "team-a-svc"}, Set: map[string]float64{"producer_byte_rate": 1024}}}, spec.Quotas)
	assert.Equal(t, []desired.SCRAMUserSpec{
		{User: "team-a-svc", Mechanism: "SCRAM-SHA-512", Iterations: 8192, PasswordEnv: "TEAM_A_PW"},
		{User: "team-a-ro", Mechanism: "SCRAM-SHA-256", PasswordFile: "/run/secrets/ro"},
	}, spec.SCRAMUsers)
	assert.Equal(t, []desired.ConfigSpec{
		{Kind: desired.KindGroupConfig, Name: "team-a.g", Set: map[string]string{"consumer.session.timeout.ms": "50000"}},
		{Kind: desired.KindClientMetrics, Name: "team-a-sub", Set: map[string]string{"interval.ms": "60000"}},
		{Kind: desired.KindBrokerConfig, Name: "default", Set: map[string]string{"log.cleaner.threads": "2"}},
		{Kind: desired.KindBrokerConfig, Name: "1", Set: map[string]string{"log.cleaner.threads": "3"}},
	}, spec.Configs)
	assert.True(t, spec.Owns.Quotas.Contains("user=team-a-svc"))
	assert.True(t, spec.Owns.SCRAMUsers.Contains("team-a-ro"))
	assert.True(t, spec.Owns.Groups.Contains("team-a.g"))
	assert.True(t, spec.Owns.ClientMetrics.Contains("team-a-sub"))
	assert.True(t, spec.Owns.Brokers.Contains("1"))
	assert.False(t, spec.Owns.Brokers.Contains("default"))
	assert.Equal(t, "spec.yaml:4", filepath.Base(spec.Where["scram_user team-a-svc/SCRAM-SHA-512"]))
}
