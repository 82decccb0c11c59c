package luaapi

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

// kfake implements neither DescribeQuorum nor UnregisterBroker, and kgo
// refuses to send a request a broker does not advertise: advertise makes a
// ControlKey handler able to answer them; the real-Kafka suite covers the
// brokers' own answers.
func advertise(t *testing.T, c *kfake.Cluster, keys ...kmsg.Key) {
	t.Helper()
	kafkatest.Advertise(t, c, keys...)
}

func TestDescribeQuorumMapsTheResponse(t *testing.T) {
	e := newEnv(t)
	advertise(t, e.cluster, kmsg.DescribeQuorum)
	var asked []string
	retry := 1
	e.cluster.ControlKey(int16(kmsg.DescribeQuorum), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		e.cluster.KeepControl()
		req := kreq.(*kmsg.DescribeQuorumRequest)
		for _, t := range req.Topics {
			for _, p := range t.Partitions {
				asked = append(asked, t.Topic+":"+string(rune('0'+p.Partition)))
			}
		}
		resp := req.ResponseKind().(*kmsg.DescribeQuorumResponse)
		if retry > 0 { // the active controller moved: retried
			retry--
			resp.ErrorCode = kerr.NotController.Code
			return resp, nil, true
		}
		rt := kmsg.NewDescribeQuorumResponseTopic()
		rt.Topic = "__cluster_metadata"
		p := kmsg.NewDescribeQuorumResponseTopicPartition()
		p.LeaderID, p.LeaderEpoch, p.HighWatermark = 3001, 7, 1000
		voter := func(id int32, leo, fetch, caught int64) kmsg.DescribeQuorumResponseTopicPartitionReplicaState {
			v := kmsg.NewDescribeQuorumResponseTopicPartitionReplicaState()
			v.ReplicaID, v.LogEndOffset, v.LastFetchTimestamp, v.LastCaughtUpTimestamp = id, leo, fetch, caught
			return v
		}
		p.CurrentVoters = append(p.CurrentVoters, voter(3002, 990, 1700000000100, 1700000000050), voter(3001, 1000, -1, -1))
		p.Observers = append(p.Observers, voter(1, 1000, 1700000000200, 1700000000200))
		rt.Partitions = append(rt.Partitions, p)
		resp.Topics = append(resp.Topics, rt)
		return resp, nil, true
	})
	out := e.json(`return describe_quorum()`)
	assert.Equal(t, `{"epoch":7,"high_watermark":1000,"leader":3001,`+
		`"observers":[{"id":1,"lag":0,"last_caught_up_timestamp":1700000000200,"last_fetch_timestamp":1700000000200,"log_end_offset":1000}],`+
		`"voters":[{"id":3001,"lag":0,"last_caught_up_timestamp":-1,"last_fetch_timestamp":-1,"log_end_offset":1000},`+
		`{"id":3002,"lag":10,"last_caught_up_timestamp":1700000000050,"last_fetch_timestamp":1700000000100,"log_end_offset":990}]}`, out)
	assert.Equal(t, []string{"__cluster_metadata:0", "__cluster_metadata:0"}, asked)
}

func TestDescribeQuorumErrors(t *testing.T) {
	e := newEnv(t)
	// Unadvertised (kfake, or a ZooKeeper-era cluster): the client refuses.
	re := e.runErr(`describe_quorum()`)
	assert.Equal(t, KindKafka, re.Kind)
	assert.Equal(t, "UNSUPPORTED_VERSION", re.Code)
	advertise(t, e.cluster, kmsg.DescribeQuorum)
	e = newEnvOn(t, e.cluster, Options{}) // a new connection sees the advertised key
	e.cluster.ControlKey(int16(kmsg.DescribeQuorum), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		resp := kreq.ResponseKind().(*kmsg.DescribeQuorumResponse)
		rt := kmsg.NewDescribeQuorumResponseTopic()
		rt.Topic = "__cluster_metadata"
		p := kmsg.NewDescribeQuorumResponseTopicPartition()
		p.ErrorCode = kerr.ClusterAuthorizationFailed.Code
		rt.Partitions = append(rt.Partitions, p)
		resp.Topics = append(resp.Topics, rt)
		return resp, nil, true
	})
	re = e.runErr(`describe_quorum()`)
	assert.Equal(t, "CLUSTER_AUTHORIZATION_FAILED", re.Code)
	assert.Contains(t, re.Message, "describe_quorum: __cluster_metadata: CLUSTER_AUTHORIZATION_FAILED")
}

func TestUnregisterBroker(t *testing.T) {
	e := newEnv(t)
	advertise(t, e.cluster, kmsg.UnregisterBroker)
	var asked []int32
	registered := map[int32]bool{7: true}
	timedOut := false
	e.cluster.ControlKey(int16(kmsg.UnregisterBroker), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		e.cluster.KeepControl()
		req := kreq.(*kmsg.UnregisterBrokerRequest)
		asked = append(asked, req.BrokerID)
		resp := req.ResponseKind().(*kmsg.UnregisterBrokerResponse)
		switch {
		case req.BrokerID == 8 && !timedOut: // applied, but the answer is lost
			timedOut = true
			registered[8] = false
			resp.ErrorCode = kerr.RequestTimedOut.Code
		case !registered[req.BrokerID]:
			resp.ErrorCode = kerr.BrokerIDNotRegistered.Code
		default:
			registered[req.BrokerID] = false
		}
		return resp, nil, true
	})
	registered[8] = true
	e.run(`local r = unregister_broker(7); assert(r.broker == 7)`)
	assert.False(t, registered[7])
	re := e.runErr(`unregister_broker(7)`)
	assert.Equal(t, "BROKER_ID_NOT_REGISTERED", re.Code)
	assert.Contains(t, re.Message, "unregister_broker: broker 7: BROKER_ID_NOT_REGISTERED")
	e.run(`unregister_broker(8)`) // timed out, then "not registered": it was us
	assert.False(t, registered[8])
	assert.Equal(t, []int32{7, 7, 8, 8}, asked)

	e.run(`kafka.dry_run(true)
		local r = unregister_broker(1)
		assert(r.dry_run == true and r.broker == 1)
		kafka.dry_run(false)`)
	assert.Equal(t, []int32{7, 7, 8, 8}, asked, "dry-run sends nothing")
	assert.Contains(t, e.stderr.String(), "dry-run: unregister_broker: unregister broker 1 (registered and live now")

	for src, want := range map[string]string{
		`unregister_broker("x")`:      `unregister_broker: id: must be a broker id between 0 and 2147483647, got "x"`,
		`unregister_broker(-1)`:       `unregister_broker: id: must be a broker id between 0 and 2147483647, got -1`,
		`unregister_broker(2^32 + 7)`: `unregister_broker: id: must be a broker id between 0 and 2147483647, got 4294967303`,
		`unregister_broker(7.5)`:      `unregister_broker: id: must be a broker id between 0 and 2147483647, got 7.5`,
		`unregister_broker()`:         `unregister_broker: id: is required`,
		`unregister_broker(1, 2)`:     `unregister_broker: takes at most 1 argument`,
		`unregister_broker(1, {})`:    `unregister_broker: takes at most 1 argument`,
		`describe_quorum{}`:           `describe_quorum: takes no arguments`,
	} {
		re := e.runErr(src)
		assert.Equal(t, "INVALID_ARGUMENT", re.Code, src)
		assert.Contains(t, re.Message, want, src)
	}
	assert.Equal(t, []int32{7, 7, 8, 8}, asked, "refused calls send nothing: 2^32+7 does not become broker 7")
}

// No controller to forward to (kafkatest.LoseQuorum): describe_quorum fails
// after half the call's 1 s timeout with an error that says so, not with
// the call's own deadline, and a retry may answer.
func TestDescribeQuorumNoAnswer(t *testing.T) {
	e := newEnv(t)
	kafkatest.LoseQuorum(t, e.cluster, 2)
	e = newEnvOn(t, e.cluster, Options{Config: engine.Config{Timeout: time.Second}})
	assert.Equal(t, `{"code":"TIMEOUT","message":"describe_quorum: TIMEOUT: no controller answered within 500ms: brokers forward DescribeQuorum `+
		`to the active controller, and there is none: the metadata quorum has no leader (a majority of its voters down?), or the brokers `+
		`cannot reach it","retriable":true}`,
		e.json(`local ok, err = pcall(describe_quorum) assert(not ok)
			return {code = err.code, message = tostring(err), retriable = err.retriable}`))
}
