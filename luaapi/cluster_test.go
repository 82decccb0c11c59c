package luaapi

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
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
		want = append(want, fmt.Sprintf(`{"host":%q,"id":%d,"port":%d,"rack":%q}`, b.Host, b.NodeID, b.Port, *b.Rack))
	}
	assert.Equal(t, "["+strings.Join(want, ",")+"]", e.json(`return cluster.brokers`))

	re := e.runErr(`describe_cluster({})`)
	assert.Equal(t, "INVALID_ARGUMENT", re.Code)
	assert.Contains(t, re.Message, "describe_cluster: takes no arguments")
}

func TestDescribeClusterRackNilWhenUnset(t *testing.T) {
	e := newEnv(t)
	m, err := e.adm.BrokerMetadata(e.ctx())
	require.NoError(t, err)
	// kfake gives every broker a rack: answer broker metadata requests
	// with the same brokers, broker 1 without one.
	e.cluster.ControlKey(int16(kmsg.Metadata), func(r kmsg.Request) (kmsg.Response, error, bool) {
		e.cluster.KeepControl()
		req := r.(*kmsg.MetadataRequest)
		if req.Topics == nil || len(req.Topics) > 0 {
			return nil, nil, false
		}
		resp := req.ResponseKind().(*kmsg.MetadataResponse)
		resp.Version = req.Version
		id := m.Cluster
		resp.ClusterID, resp.ControllerID = &id, m.Controller
		for _, b := range m.Brokers {
			sb := kmsg.NewMetadataResponseBroker()
			sb.NodeID, sb.Host, sb.Port, sb.Rack = b.NodeID, b.Host, b.Port, b.Rack
			if b.NodeID == 1 {
				sb.Rack = nil
			}
			resp.Brokers = append(resp.Brokers, sb)
		}
		return resp, nil, true
	})
	e.run(`
		local bs = describe_cluster().brokers
		assert(#bs == 3)
		assert(bs[1].id == 0 and bs[1].rack ~= nil)
		assert(bs[2].id == 1 and bs[2].rack == nil, tostring(bs[2].rack))
	`)
	assert.NotContains(t, e.json(`return describe_cluster().brokers[2]`), "rack")
}
