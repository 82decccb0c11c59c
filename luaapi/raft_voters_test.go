package luaapi

import (
	"context"
	"encoding/base64"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/undo"
	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

// fakeQuorum is a metadata quorum kfake does not have, answered by
// ControlKey handlers: voters with their endpoints, observers, and the
// voter changes Kafka's controller would make.
type fakeQuorum struct {
	mu        sync.Mutex
	voters    map[int32][16]byte
	endpoints map[int32]kmsg.DescribeQuorumResponseNodeListener
	observers map[int32][16]byte
	asked     []string
}

func dirID(b byte) [16]byte { return [16]byte{0xaa, b, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, b} }

func dirText(b byte) string { d := dirID(b); return base64.RawURLEncoding.EncodeToString(d[:]) }

// quorumEnv is a kfake cluster with a dynamic quorum of voter 3001 and
// observer 3004 (a new controller), an audit log and a REPL-like confirm.
func quorumEnv(t *testing.T, kraftVersion int16) (*env, *fakeQuorum, string, *[]string) {
	c, err := kfake.NewCluster(kfake.NumBrokers(3))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	q := &fakeQuorum{voters: map[int32][16]byte{3001: dirID(1)}, observers: map[int32][16]byte{3004: dirID(4), 1: {}},
		endpoints: map[int32]kmsg.DescribeQuorumResponseNodeListener{}}
	l := kmsg.NewDescribeQuorumResponseNodeListener()
	l.Name, l.Host, l.Port = "CONTROLLER", "controller-1", 9093
	q.endpoints[3001] = l
	advertiseFeatures(t, c, kraftVersion, kmsg.DescribeQuorum, kmsg.AddRaftVoter, kmsg.RemoveRaftVoter)
	c.ControlKey(int16(kmsg.DescribeQuorum), func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		q.mu.Lock()
		defer q.mu.Unlock()
		resp := r.ResponseKind().(*kmsg.DescribeQuorumResponse)
		resp.SetVersion(r.GetVersion())
		rt := kmsg.NewDescribeQuorumResponseTopic()
		rt.Topic = "__cluster_metadata"
		p := kmsg.NewDescribeQuorumResponseTopicPartition()
		p.LeaderID, p.LeaderEpoch, p.HighWatermark = 3001, 2, 100
		state := func(id int32, dir [16]byte) kmsg.DescribeQuorumResponseTopicPartitionReplicaState {
			s := kmsg.NewDescribeQuorumResponseTopicPartitionReplicaState()
			s.ReplicaID, s.ReplicaDirectoryID, s.LogEndOffset = id, dir, 100
			return s
		}
		for id, dir := range q.voters {
			p.CurrentVoters = append(p.CurrentVoters, state(id, dir))
			n := kmsg.NewDescribeQuorumResponseNode()
			n.NodeID = id
			n.Listeners = append(n.Listeners, q.endpoints[id])
			resp.Nodes = append(resp.Nodes, n)
		}
		for id, dir := range q.observers {
			p.Observers = append(p.Observers, state(id, dir))
		}
		rt.Partitions = append(rt.Partitions, p)
		resp.Topics = append(resp.Topics, rt)
		return resp, nil, true
	})
	c.ControlKey(int16(kmsg.AddRaftVoter), func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		q.mu.Lock()
		defer q.mu.Unlock()
		req := r.(*kmsg.AddRaftVoterRequest)
		resp := req.ResponseKind().(*kmsg.AddRaftVoterResponse)
		q.asked = append(q.asked, "add")
		if _, ok := q.voters[req.VoterID]; ok {
			resp.ErrorCode = kerr.DuplicateVoter.Code
			return resp, nil, true
		}
		q.voters[req.VoterID] = req.VoterDirectoryID
		delete(q.observers, req.VoterID)
		l := kmsg.NewDescribeQuorumResponseNodeListener()
		l.Name, l.Host, l.Port = req.Listeners[0].Name, req.Listeners[0].Host, req.Listeners[0].Port
		q.endpoints[req.VoterID] = l
		return resp, nil, true
	})
	c.ControlKey(int16(kmsg.RemoveRaftVoter), func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		q.mu.Lock()
		defer q.mu.Unlock()
		req := r.(*kmsg.RemoveRaftVoterRequest)
		resp := req.ResponseKind().(*kmsg.RemoveRaftVoterResponse)
		q.asked = append(q.asked, "remove")
		if dir, ok := q.voters[req.VoterID]; !ok || dir != req.VoterDirectoryID {
			resp.ErrorCode = kerr.VoterNotFound.Code
			return resp, nil, true
		}
		q.observers[req.VoterID] = q.voters[req.VoterID]
		delete(q.voters, req.VoterID)
		return resp, nil, true
	})
	audit, path := testAudit(t)
	var prompts []string
	e := newEnvOn(t, c, Options{Config: engine.Config{Audit: audit},
		Confirm: func(p string) bool { prompts = append(prompts, p); return true }})
	return e, q, path, &prompts
}

// advertiseFeatures is advertise with kraft.version finalized at level.
func advertiseFeatures(t *testing.T, c *kfake.Cluster, level int16, keys ...kmsg.Key) {
	kafkatest.AdvertiseEdited(t, c, func(resp *kmsg.ApiVersionsResponse) {
		for i := range resp.FinalizedFeatures {
			if resp.FinalizedFeatures[i].Name == "kraft.version" {
				resp.FinalizedFeatures[i].MaxVersionLevel = level
			}
		}
	}, keys...)
}

func (q *fakeQuorum) state() (voters []int32, asked []string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for id := range q.voters {
		voters = append(voters, id)
	}
	slices.Sort(voters)
	return voters, append([]string(nil), q.asked...)
}

// add_raft_voter and remove_raft_voter: the directory id looked up among
// the observers, the change made, audited with the quorum before, confirmed
// first, and undone by the opposite change.
func TestRaftVoters(t *testing.T) {
	e, q, path, prompts := quorumEnv(t, 1)
	e.run(`local v = add_raft_voter{id = 3004, endpoints = {{listener = "CONTROLLER", host = "controller-4", port = 9093}}}
		assert(v.id == 3004 and v.directory_id == "` + dirText(4) + `", v.directory_id)`)
	voters, asked := q.state()
	assert.Equal(t, []int32{3001, 3004}, voters, "the controller's quorum changed")
	assert.Equal(t, []string{"add"}, asked)
	require.Len(t, *prompts, 1, "destructive: asked first")
	assert.Contains(t, (*prompts)[0], "add_raft_voter(")

	re := e.runErr(`add_raft_voter{id = 3004, directory_id = "` + dirText(4) + `", endpoints = {{listener = "CONTROLLER", host = "h", port = 1}}}`)
	assert.Equal(t, "DUPLICATE_VOTER", re.Code)
	assert.Contains(t, re.Message, "add_raft_voter: voter 3004: DUPLICATE_VOTER")

	e.run(`local v = remove_raft_voter{id = 3001, directory_id = "` + dirText(1) + `"}; assert(v.id == 3001)`)
	voters, _ = q.state()
	assert.Equal(t, []int32{3004}, voters)
	re = e.runErr(`remove_raft_voter{id = 3001, directory_id = "` + dirText(1) + `"}`)
	assert.Equal(t, "VOTER_NOT_FOUND", re.Code)

	// The audit log: the intent with the voters before, the outcomes.
	changes := readChanges(t, path)
	require.Len(t, changes, 4)
	assert.Equal(t, "add_raft_voter", changes[0].Intent.Op)
	assert.JSONEq(t, `[{"id":3001,"directory_id":"`+dirText(1)+`","endpoints":[{"listener":"CONTROLLER","host":"controller-1","port":9093}]}]`,
		string(changes[0].Intent.Before))
	assert.Equal(t, "remove_raft_voter", changes[2].Intent.Op)

	// Undo, newest first: voter 3001 back with its recorded endpoints, then
	// 3004 removed: the quorum as it was.
	cl, err := engine.New(engine.Config{Brokers: e.cluster.ListenAddrs(), Timeout: 10 * time.Second})
	require.NoError(t, err)
	defer cl.Close()
	steps, err := undo.Run(context.Background(), cl, changes, undo.Options{Confirm: func(string) bool { return true }})
	require.NoError(t, err)
	var did []string
	for _, s := range steps {
		did = append(did, s.Op+" "+s.Resource+" "+s.Action)
	}
	t.Logf("undo: %+v", steps)
	assert.Contains(t, did, "remove_raft_voter voter 3001 "+engine.UndoReverted)
	assert.Contains(t, did, "add_raft_voter voter 3004 "+engine.UndoReverted)
	voters, _ = q.state()
	assert.Equal(t, []int32{3001}, voters, "the quorum as before")
	q.mu.Lock()
	assert.Equal(t, "controller-1", q.endpoints[3001].Host, "added back on its recorded endpoint")
	q.mu.Unlock()

	// Dry-run: the plan, nothing sent.
	_, before := q.state()
	e.run(`kafka.dry_run(true)
		local v = add_raft_voter{id = 3004, endpoints = {{listener = "CONTROLLER", host = "::1", port = 9093}}}
		assert(v.dry_run == true)
		remove_raft_voter{id = 3001, directory_id = "` + dirText(1) + `"}
		kafka.dry_run(false)`)
	_, after := q.state()
	assert.Equal(t, before, after, "dry-run sends no change")
	assert.Contains(t, e.stderr.String(), "add controller 3004 with directory id "+dirText(4)+" and endpoints CONTROLLER://[::1]:9093 (voters now: 3001 ("+dirText(1)+"))")
	assert.Contains(t, e.stderr.String(), "remove KRaft controller 3001 with directory id "+dirText(1))
}

// Bad arguments and a static quorum are refused before anything is sent:
// no change asked, no audit line.
func TestRaftVotersRefused(t *testing.T) {
	e, q, path, prompts := quorumEnv(t, 1)
	for src, want := range map[string]string{
		`add_raft_voter{id = -1, endpoints = {{listener = "C", host = "h", port = 1}}}`:                                         `add_raft_voter: voter: id: must be a controller id`,
		`add_raft_voter{id = 4, directory_id = "nope", endpoints = {{listener = "C", host = "h", port = 1}}}`:                   `add_raft_voter: voter: directory_id: not a directory id`,
		`add_raft_voter{id = 4, directory_id = "AAAAAAAAAAAAAAAAAAAAAQ", endpoints = {{listener = "C", host = "h", port = 1}}}`: `is a reserved directory id`,
		`add_raft_voter{id = 4, endpoints = {}}`:                                                                                `add_raft_voter: voter: endpoints: must name at least one`,
		`add_raft_voter{id = 4, endpoints = {{listener = "C", host = "h", port = 70000}}}`:                                      `port`,
		`add_raft_voter{id = 4, endpoints = {{listener = "C", host = "h", port = 1}, {listener = "C", host = "g", port = 2}}}`:  `listener C given twice`,
		`add_raft_voter{id = 4, endpoints = {{listener = "C", host = "h", port = 1}}}`:                                          `controller 4 is not an observer of the quorum (observers: 1 (), 3004 (` + dirText(4) + `)): start it first, or give its directory_id`,
		`remove_raft_voter{id = 3001}`: `remove_raft_voter: voter: directory_id: is required`,
		`remove_raft_voter(3001)`:      `remove_raft_voter: voter: `,
	} {
		re := e.runErr(src)
		assert.Equal(t, "INVALID_ARGUMENT", re.Code, src)
		assert.Contains(t, re.Message, want, src)
	}
	_, asked := q.state()
	assert.Empty(t, asked, "refused calls send nothing")
	assert.Len(t, *prompts, 1, "only the call whose arguments are right asks (then finds no such observer)")
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Empty(t, string(raw), "a refused call writes no audit line")

	// A static quorum (kraft.version 0).
	e, q, path, _ = quorumEnv(t, 0)
	for _, src := range []string{
		`add_raft_voter{id = 3004, endpoints = {{listener = "CONTROLLER", host = "h", port = 1}}}`,
		`remove_raft_voter{id = 3001, directory_id = "` + dirText(1) + `"}`,
	} {
		re := e.runErr(src)
		assert.Equal(t, "UNSUPPORTED_VERSION", re.Code, src)
		assert.Contains(t, re.Message, "needs the kraft.version feature at level 1 or above", src)
	}
	_, asked = q.state()
	assert.Empty(t, asked)
	raw, err = os.ReadFile(path)
	require.NoError(t, err)
	assert.Empty(t, string(raw))
}
