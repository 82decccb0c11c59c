package luaapi

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// replicaDirs is "topic[p]" -> dir as broker b reports it, through the
// independent client.
func (e *env) replicaDirs(b int32, topic string) map[int32]string {
	e.t.Helper()
	ds, err := e.adm.DescribeBrokerLogDirs(e.ctx(), b, kadm.TopicsSet{topic: {0: {}, 1: {}}})
	require.NoError(e.t, err)
	out := map[int32]string{}
	ds.Each(func(d kadm.DescribedLogDir) {
		for _, p := range d.Topics[topic] {
			out[p.Partition] = d.Dir
		}
	})
	return out
}

func TestDescribeLogDirs(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "ld", partitions = 2}, {name = "other", partitions = 1}}`)
	e.run(`
		local rows = describe_log_dirs{topics = "ld"}
		assert(#rows == 3, tostring(#rows))
		for i, r in ipairs(rows) do
			assert(r.broker == i - 1 and r.dir == "/mem/kfake", r.dir)
			assert(#r.partitions == 2 and r.partitions[1].topic == "ld" and r.partitions[2].partition == 1)
			assert(r.partitions[1].is_future == false and r.partitions[1].size >= 0)
			assert(r.usable_bytes > 0)
		end
		local one = describe_log_dirs{brokers = 2}
		assert(#one == 1 and one[1].broker == 2)
		local seen = {}
		for _, p in ipairs(one[1].partitions) do seen[p.topic] = true end
		assert(seen.ld and seen.other)
	`)
	re := e.runErr(`describe_log_dirs{brokers = {1, 99}}`)
	assert.Equal(t, "BROKER_NOT_AVAILABLE", re.Code)
	assert.Contains(t, re.Message, "no broker 99 in the cluster")
	re = e.runErr(`describe_log_dirs{topics = "missing"}`)
	assert.Equal(t, "UNKNOWN_TOPIC_OR_PARTITION", re.Code)
	for src, want := range map[string]string{
		`describe_log_dirs{brokers = "x"}`:                         `describe_log_dirs: query: brokers: must be a broker id between 0 and 2147483647, got "x"`,
		`describe_log_dirs{brokers = {1, 2^32 + 1}}`:               `describe_log_dirs: query: brokers #2: must be a broker id between 0 and 2147483647, got 4294967297`,
		`describe_log_dirs{topics = {"ld", ""}}`:                   `describe_log_dirs: query: topics #2: must not be empty`,
		`describe_log_dirs{topic = "ld"}`:                          `describe_log_dirs: query: unknown key "topic" (did you mean "topics"?)`,
		`describe_log_dirs({topics = "ld"}, {partial = "true"})`:   `describe_log_dirs: options: partial: must be true or false, got "true"`,
		`describe_log_dirs({topics = "ld"}, {partial = true}, {})`: `describe_log_dirs: takes at most 2 arguments`,
	} {
		re := e.runErr(src)
		assert.Equal(t, "INVALID_ARGUMENT", re.Code, src)
		assert.Contains(t, re.Message, want, src)
	}

	h := e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.DescribeLogDirs}, Resource: "/mem/kfake", Err: kerr.KafkaStorageError, Count: -1, Nodes: []int32{1}})
	defer h.Remove()
	e.run(`
		local r = describe_log_dirs({topics = "ld"}, {partial = true})
		assert(r[1].error == nil and r[2].error.code == "KAFKA_STORAGE_ERROR" and r[3].error == nil)
	`)
}

func TestAlterReplicaLogDirs(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "mv", partitions = 2}}`)
	// kfake records the dir without copying data; the copy (is_future
	// replicas, real JBOD dirs) is for the real-Kafka suite.
	out := e.json(`return alter_replica_log_dirs{{topic = "mv", partition = 1, broker = 0, dir = "/mem/other"}}`)
	assert.Equal(t, `[{"broker":0,"dir":"/mem/other","partition":1,"topic":"mv"}]`, out)
	assert.Equal(t, map[int32]string{0: "/mem/kfake", 1: "/mem/other"}, e.replicaDirs(0, "mv"))
	e.run(`
		local ok, err = pcall(alter_replica_log_dirs, {
			{topic = "mv", partition = 0, broker = 0, dir = "/mem/other"},
			{topic = "nope", partition = 0, broker = 0, dir = "/mem/other"},
			{topic = "mv", partition = 0, broker = 42, dir = "/mem/other"},
		})
		assert(not ok)
		assert(err.results[1].topic == "mv" and err.results[1].error == nil)
		assert(err.results[2].broker == 42 and err.results[2].error.code == "BROKER_NOT_AVAILABLE")
		assert(err.results[3].topic == "nope" and err.results[3].error.code == "UNKNOWN_TOPIC_OR_PARTITION")
	`)
	assert.Equal(t, map[int32]string{0: "/mem/other", 1: "/mem/other"}, e.replicaDirs(0, "mv"))
}

func TestAlterReplicaLogDirsRetriesDryRunAndBadArguments(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "r", partitions = 1}, "stays"}`)
	h := e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.AlterReplicaLogDirs}, Topic: "r", Err: kerr.NotLeaderForPartition, Count: 2})
	defer h.Remove()
	e.run(`alter_replica_log_dirs{topic = "r", partition = 0, broker = 1, dir = "/mem/b"}`)
	assert.Equal(t, 2, h.Hits())
	assert.Equal(t, "/mem/b", e.replicaDirs(1, "r")[0])

	e.run(`kafka.dry_run(true)
		local ok, err = pcall(alter_replica_log_dirs, {{topic = "r", partition = 0, broker = 1, dir = "/mem/nowhere"}})
		assert(not ok and err.code == "LOG_DIR_NOT_FOUND", tostring(err))
		local r = alter_replica_log_dirs{{topic = "r", partition = 0, broker = 2, dir = "/mem/kfake"}}
		assert(r[1].dry_run == true)
		kafka.dry_run(false)`)
	assert.Equal(t, "/mem/b", e.replicaDirs(1, "r")[0])
	assert.Equal(t, "/mem/b", e.replicaDirs(2, "r")[0], "kfake keeps one dir per partition, whatever the broker")
	assert.Contains(t, e.stderr.String(), "dry-run: alter_replica_log_dirs: move r[0] on broker 2 to /mem/kfake")

	for src, want := range map[string]string{
		`alter_replica_log_dirs{{topic = "r", partition = 0, dir = "/x"}}`:                              `alter_replica_log_dirs: move #1: broker: is required`,
		`alter_replica_log_dirs{{topic = "r", partition = -1, broker = 0, dir = "/x"}}`:                 `alter_replica_log_dirs: move #1: partition: must be a partition between 0 and 2147483647, got -1`,
		`alter_replica_log_dirs{{topic = "r", partition = 2^32 + 1, broker = 1, dir = "/x"}}`:           `alter_replica_log_dirs: move #1: partition: must be a partition between 0 and 2147483647, got 4294967297`,
		`alter_replica_log_dirs{{topic = "r", partition = 0, broker = 2^32 + 1, dir = "/x"}}`:           `alter_replica_log_dirs: move #1: broker: must be a broker id between 0 and 2147483647, got 4294967297`,
		`alter_replica_log_dirs{{topic = "r", partition = 0, broker = 1, dir = ""}}`:                    `alter_replica_log_dirs: move #1: dir: must not be empty`,
		`alter_replica_log_dirs{{topic = "r", partition = 0, broker = 1, dri = "/x"}}`:                  `alter_replica_log_dirs: move #1: unknown key "dri" (did you mean "dir"?)`,
		`alter_replica_log_dirs({{topic = "r", partition = 0, broker = 1, dir = "/x"}}, {partial = 0})`: `alter_replica_log_dirs: options: partial: must be true or false, got 0`,
		`alter_replica_log_dirs{}`: `alter_replica_log_dirs: moves: must name at least one`,
		`alter_replica_log_dirs{{topic = "r", partition = 0, broker = 0, dir = "/x"}, {topic = "r", partition = 0, broker = 0, dir = "/y"}}`: `is moved twice`,
	} {
		re := e.runErr(src)
		assert.Equal(t, "INVALID_ARGUMENT", re.Code, src)
		assert.Contains(t, re.Message, want, src)
	}
	assert.Equal(t, "/mem/b", e.replicaDirs(1, "r")[0], "refused moves change nothing")
}
