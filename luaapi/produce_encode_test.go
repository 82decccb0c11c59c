package luaapi

import (
	"testing"

	"github.com/hamba/avro/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/schemas"
)

// produce with value_schema: tables are encoded with the subject's
// schema and framed for it (an independent consumer and sr's own serde
// read them back); one record that does not fit refuses the whole batch,
// naming the record and the field, before anything is sent.
func TestProduceEncodesWithTheSubjectsSchema(t *testing.T) {
	e := newRegistryEnv(t, engine.Config{})
	e.reg.SeedSchema("payments-value", 1, 31, sr.Schema{Schema: testPaymentSchema})
	e.reg.SeedSchema("events-value", 1, 32, sr.Schema{Type: sr.TypeJSON, Schema: `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`})
	e.run(`create_topics{{name = "payments", partitions = 1}, {name = "events", partitions = 1}}`)

	re := e.runErr(`produce("payments", {
		{key = "a", value = {id = "p-1", amount = "1.50"}},
		{key = "b", value = {id = "p-2", amount = "1.505"}},
	}, {value_schema = {subject = "payments-value"}})`)
	assert.Equal(t, "INVALID_ARGUMENT", re.Code)
	assert.Contains(t, re.Error(), `record #2: value.amount: "1.505" has more than 2 digits after the point`)
	ends, err := e.adm.ListEndOffsets(e.ctx(), "payments")
	require.NoError(t, err)
	end, _ := ends.Lookup("payments", 0)
	assert.Equal(t, int64(0), end.Offset, "nothing was sent")

	// Under --dry-run the records are checked as well, and nothing is sent.
	dry := newEnvOn(t, e.cluster, Options{Config: engine.Config{DryRun: true, Registry: &schemas.Config{URLs: []string{e.reg.URL()}}}})
	re = dry.runErr(`produce("payments", {{value = {id = 7, amount = "1"}}}, {value_schema = {subject = "payments-value"}})`)
	assert.Contains(t, re.Error(), "record #1: value.id: must be a string, got a number 7")
	dry.run(`produce("payments", {{value = {id = "p-0", amount = "1"}}}, {value_schema = {subject = "payments-value"}})`)
	ends, err = e.adm.ListEndOffsets(e.ctx(), "payments")
	require.NoError(t, err)
	end, _ = ends.Lookup("payments", 0)
	assert.Equal(t, int64(0), end.Offset, "nothing was sent under dry-run")

	re = e.runErr(`produce("events", {{value = {n = "three"}}}, {value_schema = {subject = "events-value"}})`)
	assert.Contains(t, re.Error(), "record #1: value.n:")
	re = e.runErr(`produce("events", {{value = {n = 1}}}, {value_schema = {subject = "missing-value"}})`)
	assert.Equal(t, "SUBJECT_NOT_FOUND", re.Code)

	e.run(`
		local r = produce("payments", {
			{key = "a", value = {id = "p-1", amount = "1.50", note = "first"}},
			{key = "b", value = {id = "p-2", amount = 2}},
		}, {value_schema = {subject = "payments-value"}})
		assert(#r == 2 and r[2].offset == 1)
		local back = peek("payments", 0, 0, {decode = "auto"})
		assert(back[1].value_schema_id == 31 and back[1].value.amount == "1.50" and back[1].value.note == "first")
		assert(back[2].value.amount == "2.00" and back[2].value.note == kafka.json.null)
		-- what peek decodes, produce takes back
		produce("payments", {{value = back[1].value}}, {value_schema = {subject = "payments-value"}})
		produce("events", {{value = {n = 7}}}, {value_schema = {subject = "events-value"}})
	`)
	// An independent reader: franz-go's sr serde with the registry's ids.
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.cluster.ListenAddrs()...), kgo.ConsumeTopics("payments", "events"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	require.NoError(t, err)
	defer cl.Close()
	var got []*kgo.Record
	for len(got) < 4 {
		fs := cl.PollFetches(e.ctx())
		require.NoError(t, fs.Err0())
		got = append(got, fs.Records()...)
	}
	var serde sr.Serde
	byTopic := map[string][][]byte{}
	for _, r := range got {
		byTopic[r.Topic] = append(byTopic[r.Topic], r.Value)
	}
	require.Len(t, byTopic["payments"], 3)
	var firsts []testPayment
	for _, v := range byTopic["payments"] {
		id, body, err := serde.DecodeID(v)
		require.NoError(t, err)
		assert.Equal(t, 31, id)
		var p testPayment
		require.NoError(t, avro.Unmarshal(avro.MustParse(testPaymentSchema), body, &p))
		firsts = append(firsts, p)
	}
	assert.Equal(t, "p-1", firsts[0].ID)
	assert.Equal(t, "3/2", firsts[0].Amount.String())
	assert.Equal(t, "first", *firsts[0].Note)
	assert.Equal(t, "2/1", firsts[1].Amount.String())
	assert.Nil(t, firsts[1].Note)
	assert.Equal(t, append([]byte{0, 0, 0, 0, 32}, `{"n":7}`...), byTopic["events"][0])
	assert.Equal(t, byTopic["payments"][0], byTopic["payments"][2], "a decoded value produced again is the same bytes")
}
