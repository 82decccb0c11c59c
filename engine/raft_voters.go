package engine

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
)

// RaftEndpoint is one listener a KRaft controller is reached on.
type RaftEndpoint struct {
	Listener string `json:"listener"`
	Host     string `json:"host"`
	Port     int32  `json:"port"`
}

// RaftVoter is one voter of the metadata quorum (KIP-853): a controller's
// id, the directory id of its metadata log dir and its endpoints.
type RaftVoter struct {
	ID          int32          `json:"id"`
	DirectoryID string         `json:"directory_id"`
	Endpoints   []RaftEndpoint `json:"endpoints,omitempty"`
}

func voterKey(id int32) string { return fmt.Sprintf("voter %d", id) }

// ParseDirectoryID reads a directory id as Kafka prints it (a Uuid: 22
// characters of URL-safe base64). Kafka reserves the ids whose first 8
// bytes are zero and whose last 8 are below 100 (unassigned, lost,
// migrating...): none names a real directory.
func ParseDirectoryID(s string) ([16]byte, error) {
	var id [16]byte
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) != 16 {
		return id, fmt.Errorf("not a directory id (22 characters of URL-safe base64, as kafka-metadata-quorum describe prints it): %q", s)
	}
	copy(id[:], b)
	var hi, lo uint64
	for i := range 8 {
		hi, lo = hi<<8|uint64(id[i]), lo<<8|uint64(id[8+i])
	}
	if hi == 0 && lo < 100 {
		return id, fmt.Errorf("%q is a reserved directory id, not a real directory's", s)
	}
	return id, nil
}

// DynamicQuorum checks that the cluster's metadata quorum can change its
// voters: kraft.version finalized at 1 or more (a quorum formatted with
// --standalone or --initial-controllers, or upgraded). A static quorum
// (controller.quorum.voters) cannot.
func (c *Client) DynamicQuorum(ctx context.Context) error {
	fs, err := c.DescribeFeatures(ctx)
	if err != nil {
		return err
	}
	for _, f := range fs {
		if f.Feature == "kraft.version" && f.FinalizedLevel >= 1 {
			return nil
		}
	}
	return Errorf(kerr.UnsupportedVersion.Message, "", "the metadata quorum is static (kraft.version is not finalized at 1 or more): "+
		"voters can be added or removed only in a dynamic quorum (KIP-853, Kafka 3.9+: format with --standalone or --initial-controllers, or upgrade kraft.version)")
}

// RaftVoters reads the quorum's voters with their directory ids and, where
// the controller says (DescribeQuorum v2), their endpoints; and its
// observers (controllers not voting among them) without endpoints.
func (c *Client) RaftVoters(ctx context.Context) (voters, observers []RaftVoter, _ error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	p, nodes, e := c.quorumPartition(ctx)
	if e != nil {
		return nil, nil, e
	}
	conv := func(rs []kmsg.DescribeQuorumResponseTopicPartitionReplicaState, withEndpoints bool) []RaftVoter {
		out := make([]RaftVoter, 0, len(rs))
		for _, r := range rs {
			v := RaftVoter{ID: r.ReplicaID, DirectoryID: FormatTopicID(r.ReplicaDirectoryID)}
			for _, n := range nodes {
				if n.NodeID == r.ReplicaID && withEndpoints {
					for _, l := range n.Listeners {
						v.Endpoints = append(v.Endpoints, RaftEndpoint{Listener: l.Name, Host: l.Host, Port: int32(l.Port)})
					}
				}
			}
			out = append(out, v)
		}
		slices.SortFunc(out, func(a, b RaftVoter) int { return int(a.ID) - int(b.ID) })
		return out
	}
	return conv(p.CurrentVoters, true), conv(p.Observers, false), nil
}

// isVoter reports whether voters has id with directory dir.
func isVoter(voters []RaftVoter, id int32, dir string) bool {
	return slices.ContainsFunc(voters, func(v RaftVoter) bool { return v.ID == id && v.DirectoryID == dir })
}

// AddRaftVoter makes controller v a voter of the metadata quorum
// (AddRaftVoter, KIP-853). The controller must be running and caught up as
// an observer. After REQUEST_TIMED_OUT the voter may have been added: the
// retry's DUPLICATE_VOTER then counts as success.
func (c *Client) AddRaftVoter(ctx context.Context, v RaftVoter) (*RaftVoter, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	dir, err := ParseDirectoryID(v.DirectoryID)
	if err != nil {
		return nil, Errorf(CodeInvalidArgument, voterKey(v.ID), "directory_id: %v", err)
	}
	if len(v.Endpoints) == 0 {
		return nil, Errorf(CodeInvalidArgument, voterKey(v.ID), "endpoints: the controller's listeners are required")
	}
	if e := c.DynamicQuorum(ctx); e != nil {
		return nil, e
	}
	return c.changeVoter(ctx, "add_raft_voter", v, func(ctx context.Context) *Error {
		req := kmsg.NewPtrAddRaftVoterRequest()
		req.TimeoutMillis = int32(c.cfg.timeout().Milliseconds())
		req.VoterID, req.VoterDirectoryID, req.AckWhenCommitted = v.ID, dir, true
		for _, ep := range v.Endpoints {
			l := kmsg.NewAddRaftVoterRequestListener()
			l.Name, l.Host, l.Port = ep.Listener, ep.Host, uint16(ep.Port)
			req.Listeners = append(req.Listeners, l)
		}
		resp, err := req.RequestWith(ctx, c.kgo)
		if err != nil {
			return AsError(err, voterKey(v.ID))
		}
		return kafkaErr(resp.ErrorCode, resp.ErrorMessage, voterKey(v.ID))
	}, kerr.DuplicateVoter, true)
}

// RemoveRaftVoter removes controller id (with directory dir) from the
// metadata quorum's voters (RemoveRaftVoter, KIP-853). After
// REQUEST_TIMED_OUT the voter may have been removed: the retry's
// VOTER_NOT_FOUND then counts as success.
func (c *Client) RemoveRaftVoter(ctx context.Context, id int32, dirID string) (*RaftVoter, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	dir, err := ParseDirectoryID(dirID)
	if err != nil {
		return nil, Errorf(CodeInvalidArgument, voterKey(id), "directory_id: %v", err)
	}
	if e := c.DynamicQuorum(ctx); e != nil {
		return nil, e
	}
	return c.changeVoter(ctx, "remove_raft_voter", RaftVoter{ID: id, DirectoryID: dirID}, func(ctx context.Context) *Error {
		req := kmsg.NewPtrRemoveRaftVoterRequest()
		req.VoterID, req.VoterDirectoryID = id, dir
		resp, err := req.RequestWith(ctx, c.kgo)
		if err != nil {
			return AsError(err, voterKey(id))
		}
		return kafkaErr(resp.ErrorCode, resp.ErrorMessage, voterKey(id))
	}, kerr.VoterNotFound, false)
}

// changeVoter sends one voter change through mutate. done is the error
// Kafka gives when the change is already made (after a lost answer);
// adding says which way the change goes, for looking after an unknown
// outcome.
func (c *Client) changeVoter(ctx context.Context, op string, v RaftVoter, send func(context.Context) *Error, done *kerr.Error, adding bool) (*RaftVoter, error) {
	key := voterKey(v.ID)
	return mutate(ctx, c, mutation[[]RaftVoter, *RaftVoter]{
		op: op, keys: []string{key}, args: v,
		before: func(ctx context.Context) ([]RaftVoter, error) {
			voters, _, err := c.RaftVoters(ctx)
			return voters, err
		},
		send: func(ctx context.Context, _ []RaftVoter) (*RaftVoter, error) {
			maybe := false
			if e := retryCall(ctx, key, func(ctx context.Context) error {
				e := send(ctx)
				switch {
				case e == nil:
					return nil
				case e.Code == ErrorName(kerr.RequestTimedOut):
					maybe, e.Retriable = true, true
				case e.Code == ErrorName(done) && maybe:
					return nil
				}
				return e
			}); e != nil {
				return nil, e
			}
			out := v
			return &out, nil
		},
		items: func(r *RaftVoter) []Item {
			if r == nil {
				return nil
			}
			return oneItem(key, nil)
		},
		look: func(ctx context.Context, _ []RaftVoter, r *RaftVoter, err error, _ map[string]bool) (*RaftVoter, error, map[string]string) {
			voters, _, e := c.RaftVoters(ctx)
			if e != nil {
				return r, err, nil
			}
			if isVoter(voters, v.ID, v.DirectoryID) == adding {
				out := v
				return &out, nil, map[string]string{key: auditlog.FoundApplied}
			}
			return r, err, map[string]string{key: auditlog.FoundNotApplied}
		},
	})
}

// addedRaftVoter undoes add_raft_voter: removes the voter again.
func (u *undoer) addedRaftVoter(applied map[string]auditlog.ItemOutcome) error {
	return u.raftVoter(applied, true)
}

// removedRaftVoter undoes remove_raft_voter: adds the voter again with the
// endpoints the intent line recorded.
func (u *undoer) removedRaftVoter(applied map[string]auditlog.ItemOutcome) error {
	return u.raftVoter(applied, false)
}

func (u *undoer) raftVoter(applied map[string]auditlog.ItemOutcome, added bool) error {
	var v RaftVoter
	if err := auditlog.DecodeField(u.ch.Intent.Args, &v); err != nil {
		return err
	}
	key := voterKey(v.ID)
	if _, ok := applied[key]; !ok {
		return nil
	}
	voters, _, err := u.c.RaftVoters(u.ctx)
	if err != nil {
		u.step(key, UndoFailed, "describing the quorum: %v", err)
		return nil
	}
	now := isVoter(voters, v.ID, v.DirectoryID)
	if s, ok := simulated[bool](u, simKey("voter", key, v.DirectoryID)); ok {
		now = s
	}
	switch {
	case added && !now:
		u.step(key, UndoSkipped, "no longer a voter")
	case !added && now:
		u.step(key, UndoSkipped, "a voter again")
	case added:
		u.simulate(simKey("voter", key, v.DirectoryID), false)
		u.revert(key, fmt.Sprintf("remove voter %d (directory %s)", v.ID, v.DirectoryID), func(ctx context.Context) error {
			_, err := u.c.RemoveRaftVoter(ctx, v.ID, v.DirectoryID)
			return err
		})
	default:
		var before []RaftVoter
		if err := auditlog.DecodeField(u.ch.Intent.Before, &before); err != nil {
			return err
		}
		i := slices.IndexFunc(before, func(b RaftVoter) bool { return b.ID == v.ID && b.DirectoryID == v.DirectoryID })
		if i < 0 || len(before[i].Endpoints) == 0 {
			u.step(key, UndoRefused, "the voter's endpoints before were not recorded: add it with add_raft_voter and its controller listeners")
			return nil
		}
		u.simulate(simKey("voter", key, v.DirectoryID), true)
		u.revert(key, fmt.Sprintf("add voter %d (directory %s) again; its controller must be running", v.ID, v.DirectoryID), func(ctx context.Context) error {
			_, err := u.c.AddRaftVoter(ctx, before[i])
			return err
		})
	}
	return nil
}
