package luaapi

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// leaderEpochs is partition -> leader epoch of topic, through the
// independent client.
func (e *env) leaderEpochs(topic string) map[int32]int32 {
	e.t.Helper()
	// A direct request: kadm's Metadata may answer from kgo's cache.
	req := kmsg.NewPtrMetadataRequest()
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = kmsg.StringPtr(topic)
	req.Topics = append(req.Topics, rt)
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.cluster.ListenAddrs()...))
	require.NoError(e.t, err)
	defer cl.Close()
	resp, err := req.RequestWith(e.ctx(), cl)
	require.NoError(e.t, err)
	require.Len(e.t, resp.Topics, 1)
	out := map[int32]int32{}
	for _, p := range resp.Topics[0].Partitions {
		out[p.Partition] = p.LeaderEpoch
	}
	return out
}

func TestElectLeaders(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "el", partitions = 3, replication_factor = 3}, {name = "other", partitions = 2}}`)
	before := e.leaderEpochs("el")
	// kfake elects by rotating the leader and bumping the epoch.
	out := e.json(`return elect_leaders{topics = "el"}`)
	assert.Contains(t, out, `"partition":2`)
	after := e.leaderEpochs("el")
	for p := range before {
		assert.Greater(t, after[p], before[p], "partition %d elected", p)
	}
	e.run(`
		local r = elect_leaders{partitions = {{topic = "other", partition = 1}}, type = "unclean"}
		assert(#r == 1 and r[1].topic == "other" and r[1].partition == 1 and r[1].leader >= 0)
	`)
	assert.Equal(t, map[int32]int32{0: 0, 1: 1}, e.leaderEpochs("other"), "only other[1] is elected")
}

func TestElectLeadersNotNeededIsNotAFailure(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "nn", partitions = 2}}`)
	h := e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.ElectLeaders}, Topic: "nn", Partitions: []int32{0}, Err: kerr.ElectionNotNeeded, Count: -1})
	defer h.Remove()
	e.run(`
		local r = elect_leaders{topics = {"nn"}}
		assert(r[1].not_needed == true and r[1].error == nil)
		assert(r[2].not_needed == false and r[2].error == nil)
	`)
	assert.Equal(t, map[int32]int32{0: 0, 1: 1}, e.leaderEpochs("nn"), "nn[0] needed no election")
}

func TestElectLeadersErrorsAndRetries(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "er", partitions = 2}}`)
	retry := e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.ElectLeaders}, Topic: "er", Partitions: []int32{1}, Err: kerr.NotController, Count: 2})
	defer retry.Remove()
	bad := e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.ElectLeaders}, Topic: "er", Partitions: []int32{0}, Err: kerr.PreferredLeaderNotAvailable, Count: -1})
	defer bad.Remove()
	e.run(`
		local ok, err = pcall(elect_leaders, {topics = {"er", "missing"}})
		assert(not ok)
		assert(#err.results == 3, tostring(#err.results))
		assert(err.results[1].topic == "er" and err.results[1].error.code == "PREFERRED_LEADER_NOT_AVAILABLE")
		assert(err.results[2].error == nil)
		assert(err.results[3].topic == "missing" and err.results[3].partition == -1)
		assert(err.results[3].error.code == "UNKNOWN_TOPIC_OR_PARTITION")
		local r = elect_leaders{partitions = {{topic = "er", partition = 0}}, partial = true}
		assert(r[1].error.code == "PREFERRED_LEADER_NOT_AVAILABLE")
	`)
	assert.Equal(t, 2, retry.Hits())
	assert.Equal(t, map[int32]int32{0: 0, 1: 1}, e.leaderEpochs("er"), "er[1] elected after retries, er[0] refused")

	for src, want := range map[string]string{
		`elect_leaders{}`: `elect_leaders: name topics= or partitions=, or pass all=true`,
		`elect_leaders{topics = "er", type = "dirty"}`: `elect_leaders: type: must be "preferred" or "unclean", got "dirty"`,
		`elect_leaders{partitions = {{topic = "er"}}}`: `elect_leaders: partitions #1: partition: is required`,
		`elect_leaders{topics = "er", all = true}`:     `all=true cannot be combined`,
		`elect_leaders{topic = "er"}`:                  `elect_leaders: unknown key "topic" (did you mean "topics"?)`,
	} {
		re := e.runErr(src)
		assert.Equal(t, "INVALID_ARGUMENT", re.Code, src)
		assert.Contains(t, re.Message, want, src)
	}
}

func TestElectLeadersAllAndDryRun(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "dr", partitions = 2}}`)
	e.run(`kafka.dry_run(true)
		local r = elect_leaders{all = true}
		assert(#r == 2 and r[1].dry_run == true)
		kafka.dry_run(false)`)
	assert.Equal(t, map[int32]int32{0: 0, 1: 0}, e.leaderEpochs("dr"), "dry-run elects nothing")
	// kfake's preferred replica is the leader, so nothing is planned.
	assert.Contains(t, e.stderr.String(), "dry-run: elect_leaders:")
	e.run(`local r = elect_leaders{all = true}; assert(#r == 2)`)
	assert.Equal(t, map[int32]int32{0: 1, 1: 1}, e.leaderEpochs("dr"))
}

// Issue 7: a partition beyond int32 is refused rather than narrowed, and
// booleans are true or false only; nothing is elected.
func TestElectLeadersArgumentsRefusedBeforeSending(t *testing.T) {
	e, auditPath := auditedEnv(t)
	e.run(`create_topics{{name = "el", partitions = 2}}`)
	before := e.leaderEpochs("el")
	refusedBeforeSending(t, e, auditPath, map[string]string{
		`elect_leaders{partitions = {{topic = "el", partition = 2^32 + 1}}}`: `elect_leaders: partitions #1: partition: must be a partition between 0 and 2147483647, got 4294967297`,
		`elect_leaders{partitions = {topic = "el", partition = 0/0}}`:        `elect_leaders: partitions: partition: must be a partition between 0 and 2147483647, got NaN`,
		`elect_leaders{topics = "el", all = 1}`:                              `elect_leaders: all: must be true or false, got 1`,
		`elect_leaders{all = true, partial = "yes"}`:                         `elect_leaders: partial: must be true or false, got "yes"`,
		`elect_leaders{topics = "el", type = "Unclear"}`:                     `elect_leaders: type: must be "preferred" or "unclean", got "Unclear" (did you mean "unclean"?)`,
		`elect_leaders{topics = "bad name!"}`:                                `elect_leaders: topics: "bad name!" has ' '`,
		`elect_leaders({topics = "el"}, {partial = true})`:                   `elect_leaders: takes at most 1 argument`,
		`elect_leaders("el")`:                                                `elect_leaders: takes one table`,
	})
	assert.Equal(t, before, e.leaderEpochs("el"), "nothing was elected")
}
