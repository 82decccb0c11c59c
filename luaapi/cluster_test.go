package luaapi

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
	lua "github.com/yuin/gopher-lua"
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

	re := e.runErr(`describe_cluster({})`)
	assert.Equal(t, "INVALID_ARGUMENT", re.Code)
	assert.Contains(t, re.Message, "describe_cluster: takes no arguments")
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
	e.cluster.ControlKey(int16(kmsg.DescribeQuorum), func(r kmsg.Request) (kmsg.Response, error, bool) {
		e.cluster.KeepControl()
		resp := r.ResponseKind().(*kmsg.DescribeQuorumResponse)
		rt := kmsg.NewDescribeQuorumResponseTopic()
		rt.Topic = "__cluster_metadata"
		p := kmsg.NewDescribeQuorumResponseTopicPartition()
		p.LeaderID, p.LeaderEpoch = 3000, 4
		rt.Partitions = append(rt.Partitions, p)
		resp.Topics = append(resp.Topics, rt)
		return resp, nil, true
	})
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
