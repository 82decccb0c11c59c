package luaapi

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

func TestDescribeCluster(t *testing.T) {
	e := newEnv(t)
	m, err := e.adm.BrokerMetadata(e.ctx())
	require.NoError(t, err)
	e.run(`
		local c = describe_cluster()
		assert(type(c.cluster_id) == "string" and c.cluster_id ~= "", tostring(c.cluster_id))
		assert(type(c.controller) == "number")
		assert(#c.brokers == 3, #c.brokers)
		for i, b in ipairs(c.brokers) do
			assert(type(b.host) == "string" and b.port > 0)
			assert(type(b.rack) == "string", "kfake gives every broker a rack")
			if i > 1 then assert(c.brokers[i-1].id < b.id, "sorted by id") end
		end
		cluster = c
	`)
	assert.Equal(t, lua.LString(m.Cluster), e.run(`return cluster.cluster_id`))
	assert.Equal(t, lua.LNumber(m.Controller), e.run(`return cluster.controller`))
	var want []string
	for _, b := range m.Brokers {
		want = append(want, fmt.Sprintf(`{"host":%q,"id":%d,"port":%d,"rack":%q,"state":"live"}`, b.Host, b.NodeID, b.Port, *b.Rack))
	}
	assert.Equal(t, "["+strings.Join(want, ",")+"]", e.json(`return cluster.brokers`))
	assert.Equal(t, lua.LNil, e.run(`return cluster.active_controller`), "kfake has no metadata quorum to ask")
	assert.Equal(t, lua.LString("none"), e.run(`return cluster.quorum`), "kfake has no metadata quorum to ask")

	// with_topics=true: every topic, internal ones included, as describe_topics().
	e.run(`create_topics{{name = "t1", partitions = 2}}`)
	assert.Equal(t, e.json(`return describe_topics()`), e.json(`return describe_cluster{with_topics = true}.topics`))

	re := e.runErr(`describe_cluster{topics = true}`)
	assert.Equal(t, "INVALID_ARGUMENT", re.Code)
	assert.Contains(t, re.Message, `describe_cluster: options: unknown key "topics" (allowed: with_topics)`)
}

func TestDescribeClusterRackNilWhenUnset(t *testing.T) {
	e := newEnv(t)
	m, err := e.adm.BrokerMetadata(e.ctx())
	require.NoError(t, err)
	// kfake gives every broker a rack: answer DescribeCluster with the
	// same brokers, broker 1 without one.
	e.cluster.ControlKey(int16(kmsg.DescribeCluster), func(r kmsg.Request) (kmsg.Response, error, bool) {
		e.cluster.KeepControl()
		return craftCluster(m, r, nil), nil, true
	})
	e.run(`
		local bs = describe_cluster().brokers
		assert(#bs == 3)
		assert(bs[1].id == 0 and bs[1].rack ~= nil)
		assert(bs[2].id == 1 and bs[2].rack == nil, tostring(bs[2].rack))
	`)
	assert.NotContains(t, e.json(`return describe_cluster().brokers[2]`), "rack")
}

// craftCluster answers a DescribeCluster request with kfake's brokers
// (broker 1 without a rack), edited by edit.
// m is read before the handler is installed: a handler cannot ask kfake.
func craftCluster(m kadm.Metadata, r kmsg.Request, edit func(*kmsg.DescribeClusterResponse)) kmsg.Response {
	req := r.(*kmsg.DescribeClusterRequest)
	resp := req.ResponseKind().(*kmsg.DescribeClusterResponse)
	resp.Version = req.Version
	resp.ClusterID, resp.ControllerID = m.Cluster, m.Controller
	for _, b := range m.Brokers {
		sb := kmsg.NewDescribeClusterResponseBroker()
		sb.NodeID, sb.Host, sb.Port, sb.Rack = b.NodeID, b.Host, b.Port, b.Rack
		if b.NodeID == 1 {
			sb.Rack = nil
		}
		resp.Brokers = append(resp.Brokers, sb)
	}
	if edit != nil {
		edit(resp)
	}
	return resp
}

// Every broker with its state: the fenced one from DescribeCluster v2, the
// one only partition replicas name as unregistered (offline before v2), and
// the active controller from the metadata quorum, not DescribeCluster's.
func TestDescribeClusterBrokerStates(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "spread", partitions = 3, replication_factor = 3}}`)
	advertise(t, e.cluster, kmsg.DescribeQuorum)
	e = newEnvOn(t, e.cluster, Options{})
	m, err := e.adm.BrokerMetadata(e.ctx()) // a separate client
	require.NoError(t, err)
	var sawFencedAsked bool
	e.cluster.ControlKey(int16(kmsg.DescribeCluster), func(r kmsg.Request) (kmsg.Response, error, bool) {
		e.cluster.KeepControl()
		req := r.(*kmsg.DescribeClusterRequest)
		if req.Version >= 2 && req.IncludeFencedBrokers {
			sawFencedAsked = true
		}
		return craftCluster(m, req, func(resp *kmsg.DescribeClusterResponse) {
			resp.ControllerID = 0
			resp.Brokers = slices.DeleteFunc(resp.Brokers, func(b kmsg.DescribeClusterResponseBroker) bool { return b.NodeID == 2 })
			resp.Brokers[1].IsFenced = true // broker 1
		}), nil, true
	})
	answerQuorum(e.cluster, func(p *kmsg.DescribeQuorumResponseTopicPartition) { p.LeaderID, p.LeaderEpoch = 3000, 4 })
	type broker struct {
		ID    int32   `json:"id"`
		Host  string  `json:"host"`
		Port  int32   `json:"port"`
		State string  `json:"state"`
		Rack  *string `json:"rack"`
	}
	var got struct {
		Controller       int32    `json:"controller"`
		ActiveController *int32   `json:"active_controller"`
		Brokers          []broker `json:"brokers"`
	}
	require.NoError(t, json.Unmarshal([]byte(e.json(`return describe_cluster()`)), &got))
	assert.True(t, sawFencedAsked, "fenced brokers are asked for")
	assert.Equal(t, int32(0), got.Controller, "DescribeCluster's controller, kept as it said")
	require.NotNil(t, got.ActiveController)
	assert.Equal(t, int32(3000), *got.ActiveController, "the quorum's leader")
	assert.Equal(t, lua.LString("led"), e.run(`return describe_cluster().quorum`))
	var b0 kadm.BrokerDetail
	for _, b := range m.Brokers {
		if b.NodeID == 0 {
			b0 = b
		}
	}
	require.Len(t, got.Brokers, 3)
	assert.Equal(t, broker{ID: 0, Host: b0.Host, Port: b0.Port, State: "live", Rack: b0.Rack}, got.Brokers[0])
	assert.Equal(t, "fenced", got.Brokers[1].State)
	assert.NotEmpty(t, got.Brokers[1].Host, "a fenced broker is registered: its address is known")
	assert.Equal(t, broker{ID: 2, State: "unregistered"}, got.Brokers[2], "in the replicas of spread, not registered")

	// Before Kafka 4.0 (DescribeCluster v1): fenced brokers are not
	// listed, nor told apart from unregistered ones.
	v := kversion.Stable()
	v.SetMaxKeyVersion(int16(kmsg.DescribeCluster), 1)
	old := newEnv(t, kfake.MaxVersions(v))
	old.run(`create_topics{{name = "spread", partitions = 3, replication_factor = 3}}`)
	om, err := old.adm.BrokerMetadata(old.ctx())
	require.NoError(t, err)
	old.cluster.ControlKey(int16(kmsg.DescribeCluster), func(r kmsg.Request) (kmsg.Response, error, bool) {
		old.cluster.KeepControl()
		assert.Equal(t, int16(1), r.GetVersion())
		return craftCluster(om, r, func(resp *kmsg.DescribeClusterResponse) {
			resp.Brokers = slices.DeleteFunc(resp.Brokers, func(b kmsg.DescribeClusterResponseBroker) bool { return b.NodeID == 2 })
		}), nil, true
	})
	got.ActiveController = nil
	require.NoError(t, json.Unmarshal([]byte(old.json(`return describe_cluster()`)), &got))
	require.Len(t, got.Brokers, 3)
	assert.Nil(t, got.ActiveController)
	assert.Equal(t, []string{"live", "live"}, []string{got.Brokers[0].State, got.Brokers[1].State})
	assert.Equal(t, "offline", got.Brokers[2].State)
}

// A cluster that has lost its metadata quorum (kafkatest.LoseQuorum: broker
// 2 dead, the others holding DescribeQuorum): describe_cluster says so
// within the call (no_answer, after half the 1 s timeout), marks every
// broker's state unknown rather than the live the frozen metadata says,
// says which brokers answer, and still returns the topics it can see.
func TestDescribeClusterWithoutQuorum(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "spread", partitions = 3, replication_factor = 3}}`)
	kafkatest.LoseQuorum(t, e.cluster, 2)
	e = newEnvOn(t, e.cluster, Options{Config: engine.Config{Timeout: time.Second}})
	type broker struct {
		ID        int32  `json:"id"`
		State     string `json:"state"`
		Reachable *bool  `json:"reachable"`
	}
	var got struct {
		Quorum           string   `json:"quorum"`
		QuorumError      string   `json:"quorum_error"`
		ActiveController *int32   `json:"active_controller"`
		Brokers          []broker `json:"brokers"`
		Topics           []struct {
			Name       string `json:"name"`
			Partitions []struct {
				Leader int32 `json:"leader"`
			} `json:"partitions"`
		} `json:"topics"`
	}
	require.NoError(t, json.Unmarshal([]byte(e.json(`return describe_cluster{with_topics = true}`)), &got))
	assert.Equal(t, "no_answer", got.Quorum)
	assert.Contains(t, got.QuorumError, "no controller answered within 500ms", "the bound, not the call's deadline")
	assert.Nil(t, got.ActiveController)
	yes, no := true, false
	assert.Equal(t, []broker{{0, "unknown", &yes}, {1, "unknown", &yes}, {2, "unknown", &no}}, got.Brokers,
		"the brokers holding DescribeQuorum answer the probe: the held request is not in its way")
	require.Len(t, got.Topics, 1)
	assert.Equal(t, "spread", got.Topics[0].Name)
	assert.Len(t, got.Topics[0].Partitions, 3, "the partitions the answering brokers can see")

	// Without with_topics the result has none.
	assert.Equal(t, `["unknown",false]`, e.json(`local c = describe_cluster() return {c.brokers[1].state, c.topics ~= nil}`))
}

// The quorum's other answers: an election in progress (no leader) makes
// the states unknown too; a controller refusing DESCRIBE on the cluster
// has answered, so the quorum is led and the states stand; a leader most
// of whose voters no longer fetch from it is no majority.
func TestDescribeClusterQuorumStates(t *testing.T) {
	e := newEnv(t)
	advertise(t, e.cluster, kmsg.DescribeQuorum)
	e = newEnvOn(t, e.cluster, Options{})
	leader, code := int32(-1), int16(0)
	var fetched []int64 // voters 1, 2, 3's last fetch; the leader's is its now
	answerQuorum(e.cluster, func(p *kmsg.DescribeQuorumResponseTopicPartition) {
		p.LeaderID, p.ErrorCode = leader, code
		for i, ts := range fetched {
			v := kmsg.NewDescribeQuorumResponseTopicPartitionReplicaState()
			v.ReplicaID, v.LastFetchTimestamp, v.LastCaughtUpTimestamp = int32(i+1), ts, ts
			p.CurrentVoters = append(p.CurrentVoters, v)
		}
	})
	const view = `local c = describe_cluster()
		local s, r = {}, {}
		for i, b in ipairs(c.brokers) do s[i], r[i] = b.state, tostring(b.reachable) end
		return {quorum = c.quorum, active_controller = c.active_controller or kafka.json.null, states = s, reachable = r}`
	assert.Equal(t, `{"active_controller":null,"quorum":"no_leader","reachable":["true","true","true"],"states":["unknown","unknown","unknown"]}`,
		e.json(view))
	code = kerr.ClusterAuthorizationFailed.Code
	assert.Equal(t, `{"active_controller":null,"quorum":"led","reachable":["nil","nil","nil"],"states":["live","live","live"]}`,
		e.json(view))
	leader, code = 1, 0
	assert.Equal(t, `{"active_controller":1,"quorum":"led","reachable":["nil","nil","nil"],"states":["live","live","live"]}`,
		e.json(view))

	// The leader's clock (its own timestamps): voter 3 has not fetched for
	// 2.5 s, one voter of three; then voter 2 has never fetched either, and
	// the leader has no majority: it can commit nothing (a dead broker stays
	// live in the metadata), so the states are unknown.
	const now = 1_700_000_000_000
	fetched = []int64{now, now - 300, now - 2500}
	assert.Equal(t, `{"active_controller":1,"quorum":"led","reachable":["nil","nil","nil"],"states":["live","live","live"]}`,
		e.json(view))
	fetched[1] = -1
	assert.Equal(t, `{"active_controller":1,"quorum":"no_majority","reachable":["true","true","true"],"states":["unknown","unknown","unknown"]}`,
		e.json(view))
	assert.Equal(t, lua.LString("leader 1 answered, but 2 of its 3 voters have not fetched from it for over 2s: 2 (never fetched from this leader), "+
		"3 (last fetched 2.5s before): without a majority it can commit nothing (fence a broker, elect a partition leader), and it resigns"),
		e.run(`return describe_cluster().quorum_error`))
}

// answerQuorum answers every DescribeQuorum (advertised first) with the
// __cluster_metadata partition fill makes.
func answerQuorum(c *kfake.Cluster, fill func(p *kmsg.DescribeQuorumResponseTopicPartition)) {
	c.ControlKey(int16(kmsg.DescribeQuorum), func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		resp := r.ResponseKind().(*kmsg.DescribeQuorumResponse)
		rt := kmsg.NewDescribeQuorumResponseTopic()
		rt.Topic = "__cluster_metadata"
		p := kmsg.NewDescribeQuorumResponseTopicPartition()
		fill(&p)
		rt.Partitions = append(rt.Partitions, p)
		resp.Topics = append(resp.Topics, rt)
		return resp, nil, true
	})
}
