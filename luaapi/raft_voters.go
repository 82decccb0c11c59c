package luaapi

import (
	"fmt"
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

func init() {
	register(
		&Func{Name: "add_raft_voter", Area: "brokers", Needs: raftVoterNeeds(kmsg.AddRaftVoter),
			Params:  []Param{{Name: "voter", Type: raftVoterToAdd, Doc: "the controller to make a voter"}},
			Returns: raftVoterShape,
			Summary: "Make a KRaft controller a voter of the metadata quorum (KIP-853).",
			Doc: `Like kafka-metadata-quorum add-controller. voter is {id=, endpoints={{listener=, host=, port=}...}, [directory_id=]}: the controller's node.id, its controller listeners (controller.listener.names, as advertised) and the directory id of its metadata log dir. Without directory_id the controller's id is looked up among the quorum's observers (describe_quorum): start the new controller first (formatted with --no-initial-controllers); it joins as an observer, and Kafka adds it once it has caught up.
Needs a dynamic quorum: kraft.version 1 or more (Kafka 3.9+, formatted with --standalone or --initial-controllers); on a static quorum (controller.quorum.voters) the call is refused before anything is sent. Kafka answers DUPLICATE_VOTER for a controller already voting.
Declared destructive (the REPL asks first unless --yes) and audited; undo removes the voter again. Under --dry-run nothing is sent and the plan names the voters now.`,
			Example: `local ok, err = pcall(add_raft_voter, {id = 3004, directory_id = "pbvuBlaTTwKRxS5NLJwRFQ",
  endpoints = {{listener = "CONTROLLER", host = "controller-4", port = 9093}}})
print(ok or err.code)`,
			Run: addRaftVoter},
		&Func{Name: "remove_raft_voter", Area: "brokers", Needs: raftVoterNeeds(kmsg.RemoveRaftVoter),
			Params:  []Param{{Name: "voter", Type: raftVoterToRemove, Doc: "the voter to remove"}},
			Returns: raftVoterShape,
			Summary: "Remove a voter from the KRaft metadata quorum (KIP-853).",
			Doc: `Like kafka-metadata-quorum remove-controller --controller-id --controller-directory-id. voter is {id=, directory_id=}; describe_quorum lists the voters with their directory ids. Kafka answers VOTER_NOT_FOUND for a controller that is not a voter with that directory id.
Needs a dynamic quorum (kraft.version 1 or more); a static one is refused before anything is sent. Removing voters can leave the quorum without a majority of live voters: check describe_quorum first.
Declared destructive and audited; undo adds the voter again with the endpoints recorded before (its controller must be running). Under --dry-run nothing is sent.`,
			Example: `local ok, err = pcall(remove_raft_voter, {id = 3004, directory_id = "pbvuBlaTTwKRxS5NLJwRFQ"})
print(ok or err.code)`,
			Run: removeRaftVoter},
	)
}

// raftVoterNeeds: voters change only in a dynamic quorum, KRaft with
// kraft.version finalized at 1 (Kafka 3.9+, formatted with --standalone or
// --initial-controllers).
func raftVoterNeeds(key kmsg.Key) []engine.Need {
	return []engine.Need{engine.NeedKRaft(key, 0, "3.9"), engine.NeedFeature("kraft.version", 1, "dynamic KRaft quorums")}
}

const raftVoterShape = "{id=int, directory_id=string, endpoints={{listener=string, host=string, port=int}...}?}"

// raftDirectoryID is a directory id as Kafka prints it.
var raftDirectoryID = Custom("directory id (22 characters of URL-safe base64)", `"pbvuBlaTTwKRxS5NLJwRFQ"`,
	func(r *reader, v lua.LValue, at string) (any, error) {
		x, err := NonEmptyStr().read(r, v, at)
		if err != nil {
			return nil, err
		}
		if _, perr := engine.ParseDirectoryID(x.(string)); perr != nil {
			return nil, argErr(at, "%v", perr)
		}
		return x, nil
	}, lua.LTString)

var controllerID = Int32(0).Named("controller id")

var raftEndpoints = List[engine.RaftEndpoint](Record(
	Field{Name: "listener", Type: NonEmptyStr(), Required: true, Doc: `the controller listener's name, e.g. "CONTROLLER"`},
	Field{Name: "host", Type: NonEmptyStr(), Required: true, Doc: "the host it is advertised on"},
	Field{Name: "port", Type: Int32(1).Between(1, 65535).Named("port"), Required: true, Doc: "its port"},
).Then(func(rec Rec, _ string) (any, error) {
	return engine.RaftEndpoint{Listener: get[string](rec, "listener"), Host: get[string](rec, "host"), Port: get[int32](rec, "port")}, nil
})).Items("endpoint").NonEmpty()

var raftVoterToAdd = Record(
	Field{Name: "id", Type: controllerID, Required: true, Doc: "the controller's node.id"},
	Field{Name: "directory_id", Type: raftDirectoryID, Doc: "its metadata log dir's directory id (default: looked up among the quorum's observers)"},
	Field{Name: "endpoints", Type: raftEndpoints, Required: true, Doc: "its controller listeners"},
).Then(func(rec Rec, at string) (any, error) {
	v := engine.RaftVoter{ID: get[int32](rec, "id"), DirectoryID: get[string](rec, "directory_id"), Endpoints: get[[]engine.RaftEndpoint](rec, "endpoints")}
	seen := map[string]bool{}
	for _, ep := range v.Endpoints {
		if seen[ep.Listener] {
			return nil, argErr(at, "endpoints: listener %s given twice", ep.Listener)
		}
		seen[ep.Listener] = true
	}
	return v, nil
})

var raftVoterToRemove = Record(
	Field{Name: "id", Type: controllerID, Required: true, Doc: "the voter's id"},
	Field{Name: "directory_id", Type: raftDirectoryID, Required: true, Doc: "its directory id (describe_quorum)"},
).Then(func(rec Rec, _ string) (any, error) {
	return engine.RaftVoter{ID: get[int32](rec, "id"), DirectoryID: get[string](rec, "directory_id")}, nil
})

func addRaftVoter(c *Call) (any, error) {
	v := param[engine.RaftVoter](c, "voter")
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	if err := cl.DynamicQuorum(c.Ctx()); err != nil {
		return nil, err
	}
	var voters, observers []engine.RaftVoter
	var qerr error
	if v.DirectoryID == "" || c.DryRun() {
		voters, observers, qerr = cl.RaftVoters(c.Ctx())
	}
	if v.DirectoryID == "" {
		if qerr != nil {
			return nil, qerr
		}
		i := slices.IndexFunc(observers, func(o engine.RaftVoter) bool { return o.ID == v.ID && o.DirectoryID != "" })
		if i < 0 {
			return nil, argErr("voter", "directory_id: controller %d is not an observer of the quorum (observers: %s): start it first, or give its directory_id", v.ID, voterList(observers))
		}
		v.DirectoryID = observers[i].DirectoryID
	}
	if c.DryRun() {
		c.Plan("add controller %d with directory id %s and endpoints %s (voters now: %s)", v.ID, v.DirectoryID, endpointList(v.Endpoints), votersNow(voters, qerr))
		out := v
		return &out, nil
	}
	return cl.AddRaftVoter(c.Ctx(), v)
}

func removeRaftVoter(c *Call) (any, error) {
	v := param[engine.RaftVoter](c, "voter")
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	if c.DryRun() {
		if err := cl.DynamicQuorum(c.Ctx()); err != nil {
			return nil, err
		}
		voters, _, qerr := cl.RaftVoters(c.Ctx())
		c.Plan("remove KRaft controller %d with directory id %s (voters now: %s)", v.ID, v.DirectoryID, votersNow(voters, qerr))
		out := v
		return &out, nil
	}
	return cl.RemoveRaftVoter(c.Ctx(), v.ID, v.DirectoryID)
}

func votersNow(voters []engine.RaftVoter, err error) string {
	if err != nil {
		return "unknown: " + err.Error()
	}
	return voterList(voters)
}

func voterList(vs []engine.RaftVoter) string {
	if len(vs) == 0 {
		return "none"
	}
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = fmt.Sprintf("%d (%s)", v.ID, v.DirectoryID)
	}
	return strings.Join(s, ", ")
}

// endpointList prints endpoints as kafka-metadata-quorum does:
// CONTROLLER://host:9093, IPv6 hosts in brackets.
func endpointList(eps []engine.RaftEndpoint) string {
	s := make([]string, len(eps))
	for i, ep := range eps {
		h := ep.Host
		if strings.Contains(h, ":") {
			h = "[" + h + "]"
		}
		s[i] = fmt.Sprintf("%s://%s:%d", ep.Listener, h, ep.Port)
	}
	return strings.Join(s, ", ")
}
