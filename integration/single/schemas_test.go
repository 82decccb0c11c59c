package single

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/sr/srfake"

	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

// confluentPython is the Python of the venv tools/deps.sh installs
// Confluent's client (confluent-kafka with its Avro and JSON Schema
// serializers) into.
func confluentPython(t *testing.T) string {
	t.Helper()
	home, err := os.UserHomeDir()
	require.NoError(t, err)
	py := filepath.Join(home, ".cache", "kadmin-lua", "confluent-venv", "bin", "python")
	_, err = os.Stat(py)
	require.NoError(t, err, "Confluent's Python client is needed (tools/deps.sh installs it)")
	return py
}

// confluentSerde runs testdata/confluent_serde.py on the Avro, JSON
// Schema and Protobuf topics: produce, or consume n records of them and return their values as its deserializers
// give them.
func confluentSerde(t *testing.T, py, registry string, topics [3]string, mode string, n int) map[string][]map[string]any {
	t.Helper()
	out, err := exec.CommandContext(ctxT(t, 2*time.Minute), py, "testdata/confluent_serde.py", mode, cluster.Bootstrap(),
		kafkatest.AdminUser, kafkatest.AdminPassword, registry, topics[0], topics[1], topics[2], fmt.Sprint(n)).CombinedOutput()
	require.NoError(t, err, "confluent_serde.py %s: %s", mode, out)
	if mode != "consume" {
		return nil
	}
	var got map[string][]map[string]any
	require.NoError(t, json.Unmarshal(out, &got), "%s", out)
	return got
}

// TestConfluentSerializersAgree (issue 31, done when): records written by
// Confluent's Python serializers (Avro with a decimal, a union, an enum, a
// timestamp and a date; JSON Schema; Protobuf with a nested message and
// enum, a well-known type, its second message's index, its schema
// registered as a serialized descriptor) into real Kafka, with the schemas in
// a registry served by srfake over HTTP on loopback, decode in kadmin-lua
// (the binary, --schema-registry) to the values Confluent's deserializers
// return; records kadmin-lua produces with value_schema decode in that
// client to what was written.
func TestConfluentSerializersAgree(t *testing.T) {
	need(t)
	py := confluentPython(t)
	reg := srfake.New()
	t.Cleanup(reg.Close)
	avroTopic, jsonTopic, protoTopic := unique("sr-avro"), unique("sr-json"), unique("sr-proto")
	topics := [3]string{avroTopic, jsonTopic, protoTopic}
	r := adminRT(t, kafkatest.MechScram512)
	r.Run(fmt.Sprintf(`create_topics{{name = %q, partitions = 1}, {name = %q, partitions = 1}, {name = %q, partitions = 1}}`,
		avroTopic, jsonTopic, protoTopic))
	for _, topic := range topics {
		waitTopic(t, topic, 1)
	}

	confluentSerde(t, py, reg.URL(), topics, "produce", 0)
	theirs := confluentSerde(t, py, reg.URL(), topics, "consume", 6)
	for _, topic := range topics {
		require.Len(t, theirs[topic], 2, topic)
	}

	kadmin := func(src string) map[string][]map[string]any {
		res := runBin(t, kafkatest.MechScram512, kafkatest.AdminUser, kafkatest.AdminPassword,
			"--schema-registry", reg.URL(), "-o", "json", "-e", src)
		require.Equal(t, 0, res.Code, "stderr: %s", res.Stderr)
		var got map[string][]map[string]any
		require.NoError(t, json.Unmarshal([]byte(res.Stdout), &got), "%s", res.Stdout)
		return got
	}
	ours := kadmin(fmt.Sprintf(`return {avro = peek(%q, 0, 0, {decode = "auto"}), json = peek(%q, 0, 0, {decode = "auto"}),
		proto = peek(%q, 0, 0, {decode = "auto"})}`, avroTopic, jsonTopic, protoTopic))
	for side, topic := range map[string]string{"avro": avroTopic, "json": jsonTopic, "proto": protoTopic} {
		require.Len(t, ours[side], len(theirs[topic]), side)
		for i, row := range ours[side] {
			assert.Nil(t, row["error"], "%s row %d", side, i)
			assert.NotNil(t, row["value_schema_id"], "%s row %d", side, i)
			assert.Equal(t, topic+"-value", row["value_subject"], "%s row %d: the subject Confluent's serializer registered under", side, i)
			assert.NotNil(t, row["value_version"], "%s row %d", side, i)
			assert.Equal(t, theirs[topic][i]["value"], row["value"], "%s row %d: kadmin-lua decodes what Confluent's deserializer returns", side, i)
		}
	}

	// The other way: kadmin-lua encodes, Confluent's deserializers read.
	mine := map[string]any{"id": "p-3", "amount": "7.25", "note": "from kadmin-lua", "status": "NEW",
		"at": "2026-05-28T20:26:40.123Z", "day": "2026-05-28", "tags": []any{"x"}}
	kadmin(fmt.Sprintf(`
		produce(%q, {{key = "p-3", value = {id = "p-3", amount = "7.25", note = "from kadmin-lua", status = "NEW",
			at = "2026-05-28T20:26:40.123Z", day = "2026-05-28", tags = {"x"}}}}, {value_schema = {subject = %q}})
		produce(%q, {{value = {n = 3, what = "kadmin-lua"}}}, {value_schema = {subject = %q}})
		produce(%q, {{value = {id = "o-3", cents = 725, status = "PAID", lines = {{sku = "y", qty = 3}}, at = "2026-05-28T20:26:40.123Z"}}},
			{value_schema = {subject = %q, message = "shop.Order"}})
		return {done = {}}`, avroTopic, avroTopic+"-value", jsonTopic, jsonTopic+"-value", protoTopic, protoTopic+"-value"))
	theirs = confluentSerde(t, py, reg.URL(), topics, "consume", 9)
	for _, topic := range topics {
		require.Len(t, theirs[topic], 3, topic)
	}
	assert.Equal(t, mine, theirs[avroTopic][2]["value"])
	assert.Equal(t, map[string]any{"n": 3.0, "what": "kadmin-lua"}, theirs[jsonTopic][2]["value"])
	assert.Equal(t, map[string]any{"id": "o-3", "cents": 725.0, "status": "PAID", "lines": []any{map[string]any{"sku": "y", "qty": 3.0}},
		"at": "2026-05-28T20:26:40.123Z"}, theirs[protoTopic][2]["value"])
}
