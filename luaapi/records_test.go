package luaapi

import (
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

// startOffsets lists a topic's log start offsets through the independent
// client, by partition.
func startOffsets(t *testing.T, e *env, topic string) map[int32]int64 {
	t.Helper()
	l, err := e.adm.ListStartOffsets(e.ctx(), topic)
	require.NoError(t, err)
	out := map[int32]int64{}
	for p, o := range l[topic] {
		require.NoError(t, o.Err)
		out[p] = o.Offset
	}
	return out
}

func TestDeleteRecordsMovesLowWatermark(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "dr", partitions = 3}}`)
	produce(t, e, "dr", 0, 10)
	produce(t, e, "dr", 1, 4)
	produce(t, e, "dr", 2, 2)
	out := e.json(`return delete_records{
		{topic = "dr", partition = 1, offset = -1},
		{topic = "dr", partition = 0, offset = 6},
	}`)
	assert.Equal(t, `[{"low_watermark":6,"partition":0,"topic":"dr"},{"low_watermark":4,"partition":1,"topic":"dr"}]`, out)
	assert.Equal(t, map[int32]int64{0: 6, 1: 4, 2: 0}, startOffsets(t, e, "dr"))

	// A single entry without the outer array.
	e.run(`assert(delete_records{topic = "dr", partition = 2, offset = 1}[1].low_watermark == 1)`)
	assert.Equal(t, int64(1), startOffsets(t, e, "dr")[2])
	e.run(`assert(list_offsets("dr", "earliest")[1].offset == 6, "list_offsets sees it")`)
}

func TestDeleteRecordsPerPartitionErrors(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "dre", partitions = 2}}`)
	produce(t, e, "dre", 0, 3)
	produce(t, e, "dre", 1, 3)
	e.run(`
		local ok, err = pcall(delete_records, {
			{topic = "dre", partition = 0, offset = 99},
			{topic = "dre", partition = 1, offset = 2},
			{topic = "nope", partition = 0, offset = 1},
			{topic = "dre", partition = 7, offset = 1},
		})
		assert(not ok)
		assert(err.op == "delete_records")
		assert(err.code == "OFFSET_OUT_OF_RANGE", err.code)
		assert(err.resource == "dre[0]", err.resource)
		assert(#err.results == 4)
		assert(err.results[1].error.code == "OFFSET_OUT_OF_RANGE")
		assert(err.results[2].partition == 1 and err.results[2].error == nil and err.results[2].low_watermark == 2)
		assert(err.results[3].partition == 7 and err.results[3].error.code == "UNKNOWN_TOPIC_OR_PARTITION")
		assert(err.results[4].topic == "nope" and err.results[4].error.code == "UNKNOWN_TOPIC_OR_PARTITION")
	`)
	assert.Equal(t, map[int32]int64{0: 0, 1: 2}, startOffsets(t, e, "dre"))
}

func TestDeleteRecordsRetriesRetriableErrors(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "drr", partitions = 2}}`)
	produce(t, e, "drr", 1, 5)
	h := e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.DeleteRecords}, Topic: "drr", Partitions: []int32{1},
		Err: kerr.LeaderNotAvailable, Count: 3})
	defer h.Remove()
	e.run(`assert(delete_records{{topic = "drr", partition = 1, offset = 3}}[1].low_watermark == 3)`)
	assert.Equal(t, 3, h.Hits())
	assert.Equal(t, int64(3), startOffsets(t, e, "drr")[1])

	// Applied but answered REQUEST_TIMED_OUT: sending it again is safe.
	h2 := e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.DeleteRecords}, Topic: "drr", Partitions: []int32{1},
		Err: kerr.RequestTimedOut, Count: 1})
	defer h2.Remove()
	e.run(`assert(delete_records{{topic = "drr", partition = 1, offset = 4}}[1].low_watermark == 4)`)
	assert.Equal(t, 1, h2.Hits())
	assert.Equal(t, int64(4), startOffsets(t, e, "drr")[1])
}

func TestDeleteRecordsDryRunChangesNothing(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "drd", partitions = 2}}`)
	produce(t, e, "drd", 0, 8)
	_, err := e.adm.DeleteRecords(e.ctx(), offsetsOf("drd", 0, 2))
	require.NoError(t, err)
	e.run(`
		kafka.dry_run(true)
		local r = delete_records({
			{topic = "drd", partition = 0, offset = 5},
			{topic = "drd", partition = 1, offset = -1},
			{topic = "drd", partition = 0 + 1 + 5, offset = 1},
		}, {partial = true})
		assert(#r == 3)
		assert(r[1].dry_run == true and r[1].low_watermark == 5 and r[1].error == nil)
		assert(r[2].low_watermark == 0 and r[2].error == nil)
		assert(r[3].error.code == "UNKNOWN_TOPIC_OR_PARTITION")
		local ok, err = pcall(delete_records, {topic = "drd", partition = 0, offset = 9})
		assert(not ok and err.code == "OFFSET_OUT_OF_RANGE", tostring(err))
	`)
	assert.Equal(t, map[int32]int64{0: 2, 1: 0}, startOffsets(t, e, "drd"))
	assert.Contains(t, e.stderr.String(), "dry-run: delete_records: drd[0]: delete 3 records: offsets 2..4 (low watermark 2 -> 5, high watermark 8)")
	assert.Contains(t, e.stderr.String(), "dry-run: delete_records: drd[1]: nothing to delete")
}

func TestDeleteRecordsBadArguments(t *testing.T) {
	e := newEnv(t)
	for src, want := range map[string]string{
		`delete_records("t")`: `delete_records: deletions: must be {topic=, partition=, offset=}, or an array of them, got "t"`,
		`delete_records({})`:  `delete_records: deletions: must name at least one`,
		`delete_records{{topic = "t", partition = 0, offset = -2}}`:                                          `delete_records: deletions #1: offset: must be a record offset between -1 and 9223372036854775807, got -2`,
		`delete_records{{topic = "t", partition = "x", offset = 1}}`:                                         `delete_records: deletions #1: partition: must be a partition between 0 and 2147483647, got "x"`,
		`delete_records{{topic = "t", partition = 0}}`:                                                       `delete_records: deletions #1: offset: is required`,
		`delete_records{{topic = "t", offset = 1}}`:                                                          `delete_records: deletions #1: partition: is required`,
		`delete_records{{topic = "t", partition = 0, offset = 1, extra = 1}}`:                                `delete_records: deletions #1: unknown key "extra"`,
		`delete_records{{topic = "t", partition = 0, offset = 1}, {topic = "t", partition = 0, offset = 2}}`: `delete_records: deletions: t[0] is given twice`,
		`delete_records({{topic = "t", partition = 0, offset = 1}}, {force = true})`:                         `delete_records: options: unknown key "force" (allowed: partial)`,
	} {
		re := e.runErr(src)
		assert.Equal(t, "INVALID_ARGUMENT", re.Code, src)
		assert.Contains(t, re.Message, want, src)
	}
}

// auditedEnv is newEnv with an audit log, whose path it returns.
func auditedEnv(t *testing.T) (*env, string) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(3))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	audit, path := testAudit(t)
	sent := &sentCounter{}
	e := newEnvOn(t, c, Options{Config: engine.Config{Audit: audit, Verbose: sent}})
	e.sent = sent
	return e, path
}

// sentCounter counts the requests the runtime's own clients send (their
// --verbose lines): a refused call must send none, whatever other clients
// of the test (a transactional producer's background requests) send.
type sentCounter struct{ n atomic.Int64 }

func (s *sentCounter) Write(p []byte) (int, error) {
	s.n.Add(int64(strings.Count(string(p), "verbose: -> ")))
	return len(p), nil
}

// refusedBeforeSending runs each call, which the declaration must refuse:
// INVALID_ARGUMENT naming the argument, no request sent, no audit line.
func refusedBeforeSending(t *testing.T, e *env, auditPath string, calls map[string]string) {
	t.Helper()
	before, err := os.ReadFile(auditPath)
	require.NoError(t, err)
	// The runtime's own requests when auditedEnv counts them, else every
	// request the cluster sees.
	sent := func() int64 { return e.sent.n.Load() }
	if e.sent != nil {
		require.Positive(t, sent(), "the counter sees the requests of the calls that set the test up")
	} else {
		all := countRequests(e.cluster)
		sent = all.Load
	}
	for src, want := range calls {
		n := sent()
		re := e.runErr(src)
		assert.Equal(t, "INVALID_ARGUMENT", re.Code, src)
		assert.Contains(t, re.Message, want, src)
		assert.Equal(t, n, sent(), "%s: a refused call sends no request", src)
	}
	after, err := os.ReadFile(auditPath)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "a refused call writes no audit line")
}

// Issue 7: a partition of 2^32+1 was narrowed to 1 and deleted its records.
func TestDeleteRecordsRefusesValuesBeyondTheFieldWidth(t *testing.T) {
	e, auditPath := auditedEnv(t)
	e.run(`create_topics{{name = "wide", partitions = 2}}`)
	produce(t, e, "wide", 0, 3)
	produce(t, e, "wide", 1, 3)
	refusedBeforeSending(t, e, auditPath, map[string]string{
		`delete_records{{topic = "wide", partition = 2^32 + 1, offset = -1}}`:                                      `delete_records: deletions #1: partition: must be a partition between 0 and 2147483647, got 4294967297`,
		`delete_records{topic = "wide", partition = 2^31, offset = -1}`:                                            `delete_records: deletions: partition: must be a partition between 0 and 2147483647, got 2147483648`,
		`delete_records{{topic = "wide", partition = 1, offset = 2^63}}`:                                           `delete_records: deletions #1: offset: must be a record offset between -1 and 9223372036854775807, got 9.223372036854776e+18`,
		`delete_records{{topic = "wide", partition = 1, offset = 0/0}}`:                                            `delete_records: deletions #1: offset: must be a record offset`,
		`delete_records{{topic = "wide", partition = 1, offset = math.huge}}`:                                      `delete_records: deletions #1: offset: must be a record offset`,
		`delete_records{{topic = "wide", partition = 1.5, offset = 1}}`:                                            `delete_records: deletions #1: partition: must be a partition between 0 and 2147483647, got 1.5`,
		`delete_records({{topic = "wide", partition = 1, offset = 1}}, {partial = "yes"})`:                         `delete_records: options: partial: must be true or false, got "yes"`,
		`delete_records({{topic = "wide", partition = 1, offset = 1}}, {partail = true})`:                          `delete_records: options: unknown key "partail" (did you mean "partial"?)`,
		`delete_records({{topic = "wide", partition = 1, offset = 1}}, {}, 1)`:                                     `delete_records: takes at most 2 arguments`,
		`delete_records{{topic = "wide", partition = 0, offset = 1}, {topic = "wide", partition = 0, offset = 2}}`: `delete_records: deletions: wide[0] is given twice`,
		`local t = {topic = "wide", partition = 1, offset = 1} t.self = t delete_records{t}`:                       `delete_records: deletions #1: unknown key "self"`,
	})
	assert.Equal(t, map[int32]int64{0: 0, 1: 0}, startOffsets(t, e, "wide"), "nothing was deleted")
}
