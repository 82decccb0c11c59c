package luaapi

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
	yaml "go.yaml.in/yaml/v3"

	"github.com/kadmin-lua/kadmin-lua/engine/demo"
)

// demoEnv is an env on a fresh demo cluster (make demo's): topics, groups
// and lag to print.
func demoEnv(t *testing.T) *env {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := demo.Start(ctx)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return newEnvOn(t, c.Fake(), Options{})
}

// Real results printed in every format, on one demo cluster.
func TestOutputFormatsOfRealResults(t *testing.T) {
	e := demoEnv(t)
	e.run(`alter_client_quotas{
		{entity = {user = "alice", client_id = "app"}, set = {consumer_byte_rate = 2048, producer_byte_rate = 1024}},
		{entity = {ip = "10.0.0.1"}, set = {connection_creation_rate = 5.5}}}`)
	const quotas = `return describe_client_quotas()`

	t.Run("nested maps are key=value cells", func(t *testing.T) {
		e.t = t
		assert.Equal(t, ""+
			"ENTITY                    QUOTAS\n"+
			"client_id=app user=alice  consumer_byte_rate=2048 producer_byte_rate=1024\n"+
			"ip=10.0.0.1               connection_creation_rate=5.5\n", e.format(quotas, "table"))
		assert.Equal(t, ""+
			`{"entity":{"client_id":"app","user":"alice"},"quotas":{"consumer_byte_rate":2048,"producer_byte_rate":1024}}`+"\n"+
			`{"entity":{"ip":"10.0.0.1"},"quotas":{"connection_creation_rate":5.5}}`+"\n", e.format(quotas, "ndjson"))
		assert.Equal(t, ""+
			"- entity:\n"+
			"    client_id: app\n"+
			"    user: alice\n"+
			"  quotas:\n"+
			"    consumer_byte_rate: 2048\n"+
			"    producer_byte_rate: 1024\n"+
			"- entity:\n"+
			"    ip: 10.0.0.1\n"+
			"  quotas:\n"+
			"    connection_creation_rate: 5.5\n", e.format(quotas, "yaml"))
	})

	t.Run("lag: sub-tables, and null for absent fields in JSON", func(t *testing.T) {
		e.t = t
		const billing = `return lag{"billing"}`
		assert.Equal(t, ""+
			"GROUP    STATE  TOTAL_LAG  MAX_LAG  PARTITION_COUNT  LAGGING  WORST_TOPIC  WORST_PARTITION  RECORDS_LOST\n"+
			"billing  Empty  15         11       3                2        payments     1                0\n"+
			"  TOPIC     PARTITION  COMMITTED  END_OFFSET  LAG  RECORDS_LOST\n"+
			"  payments  0          28         32          4    0\n"+
			"  payments  1          25         36          11   0\n"+
			"  payments  2          52         52          0    0\n", e.format(billing, "table"))
		// member_id and client_id are nil for unassigned partitions, and
		// error for rows that did not fail: null, not left out.
		lines := splitLines(e.format(billing, "ndjson"))
		require.Len(t, lines, 1)
		// Fields that lag gives only with {time=true} are null too.
		assert.Equal(t, `{"at_risk":null,"error":null,"failed_in":null,"group":"billing","lagging":2,"max_lag":11,"max_lag_ms":null,"odd_timestamps":null,"partition_count":3,"partitions":[`+
			`{"at_risk":null,"at_risk_by":null,"behind_head_ms":null,"client_id":null,"committed":28,"earliest_local":null,"end_offset":32,"error":null,"lag":4,"lag_ms":null,"member_id":null,"next_deletion_by":null,"next_deletion_ms":null,"next_deletion_records":null,"next_deletion_unknown":null,"oldest_unconsumed":null,"partition":0,"reading_remote":null,"records_lost":0,"remote_only":null,"remote_unknown":null,"stuck_ms":null,"time_unknown":null,"timestamp_type":null,"topic":"payments"},`+
			`{"at_risk":null,"at_risk_by":null,"behind_head_ms":null,"client_id":null,"committed":25,"earliest_local":null,"end_offset":36,"error":null,"lag":11,"lag_ms":null,"member_id":null,"next_deletion_by":null,"next_deletion_ms":null,"next_deletion_records":null,"next_deletion_unknown":null,"oldest_unconsumed":null,"partition":1,"reading_remote":null,"records_lost":0,"remote_only":null,"remote_unknown":null,"stuck_ms":null,"time_unknown":null,"timestamp_type":null,"topic":"payments"},`+
			`{"at_risk":null,"at_risk_by":null,"behind_head_ms":null,"client_id":null,"committed":52,"earliest_local":null,"end_offset":52,"error":null,"lag":0,"lag_ms":null,"member_id":null,"next_deletion_by":null,"next_deletion_ms":null,"next_deletion_records":null,"next_deletion_unknown":null,"oldest_unconsumed":null,"partition":2,"reading_remote":null,"records_lost":0,"remote_only":null,"remote_unknown":null,"stuck_ms":null,"time_unknown":null,"timestamp_type":null,"topic":"payments"}],`+
			`"reading_remote":null,"records_lost":0,"remote_only":null,"remote_unknown":null,"state":"Empty","total_lag":15,"worst_partition":1,"worst_topic":"payments"}`, lines[0])
		assert.Contains(t, e.format(billing, "json"), "\n        \"member_id\": null,\n")
		// The Lua value itself is not changed; kafka.json.encode writes
		// what it holds, so that decode(encode(t)) gives t back.
		assert.Equal(t, "true\n", e.format(`local l = lag{"billing"}; return l[1].partitions[1].member_id == nil and l[1].error == nil`, "table"))
		assert.NotContains(t, e.json(billing), "null")
		// A table the script builds from a result has no declared shape.
		assert.NotContains(t, e.format(`return {lag{"billing"}[1].partitions[1]}`, "ndjson"), "null")
	})

	t.Run("a dry-run delete_acls shows its filter", func(t *testing.T) {
		e.t = t
		e.run(`create_acls{{principal = "User:bob", operation = "read", resource_type = "topic", resource_name = "orders"}}`)
		src := `kafka.dry_run(true); local r = delete_acls{{principal = "User:bob", operation = "read"}}; kafka.dry_run(false); return r`
		// Table output shows the plan once: in the dry-run lines, which
		// name every ACL the filter matches (dryrun_once.go).
		e.stderr.Reset()
		assert.Equal(t, "(dry run: 1 row, as the dry-run lines say; --output json prints the rows)\n", e.format(src, "table"))
		assert.Contains(t, e.stderr.String(), "dry-run: delete_acls: delete ACL User:bob allow read on topic orders (literal) from *")
		// A table the script builds from the result is printed as ever.
		assert.Equal(t, ""+
			"PRINCIPAL  HOST  OPERATION  PERMISSION  RESOURCE_TYPE  RESOURCE_NAME  PATTERN_TYPE\n"+
			"User:bob   *     read       allow       topic          orders         literal\n",
			e.format(`kafka.dry_run(true); local r = delete_acls{{principal = "User:bob", operation = "read"}}; kafka.dry_run(false); return r[1].deleted`, "table"))
		assert.Equal(t, `{"deleted":[{"host":"*","operation":"read","pattern_type":"literal","permission":"allow",`+
			`"principal":"User:bob","resource_name":"orders","resource_type":"topic"}],"dry_run":true,"error":null,`+
			`"filter":{"host":null,"operation":"read","pattern_type":"any","permission":"any","principal":"User:bob",`+
			`"resource_name":null,"resource_type":"any"}}`+"\n", e.format(src, "ndjson"))
	})

	t.Run("an empty result", func(t *testing.T) {
		e.t = t
		const none = `return list_groups{states = {"Dead"}}`
		assert.Equal(t, "(no rows)\n", e.format(none, "table"))
		assert.Equal(t, "[]\n", e.format(none, "json"))
		assert.Equal(t, "", e.format(none, "ndjson"), "no row, no line")
		assert.Equal(t, "[]\n", e.format(none, "yaml"))
		assert.Equal(t, "(no rows)\n(no rows)\n", e.format(`return {}, list_topics{match = "^none$"}`, "table"))
		assert.Equal(t, "{}\n", e.format(`return kafka.json.decode("{}")`, "table"), "an empty object is no list of rows")
	})

	t.Run("times are RFC 3339 in tables only", func(t *testing.T) {
		e.t = t
		const offsets = `return list_offsets("audit-log", "max_timestamp"), list_offsets("audit-log")`
		ms := int64(e.run(`return list_offsets("audit-log", "max_timestamp")[1].timestamp`).(lua.LNumber))
		require.Greater(t, ms, int64(1e12))
		stamp := time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
		assert.Equal(t, ""+
			"TOPIC      PARTITION  OFFSET  TIMESTAMP                 LEADER_EPOCH\n"+
			"audit-log  0          59      "+stamp+"  0\n"+
			// latest has no timestamp: Kafka's -1 stays -1. Its epoch is the
			// partition's: the demo moved its leader once, after the records.
			"TOPIC      PARTITION  OFFSET  TIMESTAMP  LEADER_EPOCH\n"+
			"audit-log  0          60      -1         1\n", e.format(offsets, "table"))
		js := e.format(offsets, "ndjson")
		assert.Contains(t, js, `"timestamp":`+lua.LNumber(ms).String()+`,`)
		assert.NotContains(t, js, stamp[:10])
		assert.Contains(t, e.format(offsets, "yaml"), "timestamp: "+lua.LNumber(ms).String()+"\n")
		// A number the script names timestamp is not a declared time.
		assert.Equal(t, "TIMESTAMP\n1700000000000\n", e.format(`return {{timestamp = 1700000000000}}`, "table"))
	})

	t.Run("YAML reads back as the JSON", func(t *testing.T) {
		e.t = t
		for _, src := range []string{quotas, `return lag()`, `return describe_configs({topic = "payments"}, {dynamic = true})`,
			`return describe_cluster()`, `return describe_topics("orders")`, `return {a = "true", b = "0123", c = "x: y", d = "", e = {}, f = kafka.json.null}`} {
			var fromJSON, fromYAML any
			require.NoError(t, json.Unmarshal([]byte(e.format(src, "json")), &fromJSON), src)
			require.NoError(t, yaml.Unmarshal([]byte(e.format(src, "yaml")), &fromYAML), src)
			// JSON's numbers are float64s, YAML's ints: compare as JSON.
			back, err := json.Marshal(fromYAML)
			require.NoError(t, err, src)
			want, err := json.Marshal(fromJSON)
			require.NoError(t, err, src)
			assert.JSONEq(t, string(want), string(back), src)
		}
	})
}

// YAML output escapes what a terminal must not get, as JSON does, and a
// string that is not UTF-8 reads back as its bytes.
func TestYAMLOutputEscapesAndReadsBack(t *testing.T) {
	e := newBareEnv(t, Options{})
	out := e.format(`return {bidi = "a\226\128\174b", esc = "x\27[31m", ["zw\226\128\139"] = 1, raw = "\255\254", line = "a\nb"}`, "yaml")
	assert.Equal(t, ""+
		`bidi: "a\u202Eb"`+"\n"+
		`esc: "x\e[31m"`+"\n"+
		`line: "a\nb"`+"\n"+
		"raw: !!binary //4=\n"+
		`"zw\u200B": 1`+"\n", out)
	var back map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(out), &back))
	assert.Equal(t, map[string]any{"bidi": "a\u202eb", "esc": "x\x1b[31m", "zw\u200b": 1, "raw": "\xff\xfe", "line": "a\nb"}, back)
}

// ndjson writes one compact line per element of an array, one line for
// any other value; a function's rows get their nulls there too.
func TestNDJSONLines(t *testing.T) {
	e := newBareEnv(t, Options{})
	assert.Equal(t, "{\"a\":1}\n[1,2]\n\"s\"\n7\n", e.format(`return {{a = 1}, {1, 2}}, "s", 7`, "ndjson"))
	assert.Equal(t, "{\"a\":{\"b\":[]}}\n", e.format(`return {a = {b = {}}}`, "ndjson"))
	assert.Equal(t, "", e.format(`return {}`, "ndjson"))
	assert.Equal(t, strings.Repeat("{\"n\":1}\n", 3), e.format(`return {{n = 1}, {n = 1}, {n = 1}}`, "ndjson"))
}

// Go values printed by commands without a runtime (version, undo) go
// through the same printers.
func TestFormatGo(t *testing.T) {
	type step struct {
		ID     string `json:"id"`
		Action string `json:"action"`
		Note   string `json:"note,omitempty"`
	}
	steps := []step{{ID: "1", Action: "reverted"}, {ID: "2", Action: "skipped\x1b", Note: "n"}}
	out, err := FormatGo(steps, "ndjson")
	require.NoError(t, err)
	assert.Equal(t, `{"action":"reverted","id":"1"}`+"\n"+`{"action":"skipped\u001b","id":"2","note":"n"}`+"\n", out)
	out, err = FormatGo(steps, "yaml")
	require.NoError(t, err)
	assert.Equal(t, "- action: reverted\n  id: \"1\"\n- action: \"skipped\\e\"\n  id: \"2\"\n  note: n\n", out)
}
