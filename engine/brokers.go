package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
)

// QuorumReplica is a voter or observer of the KRaft metadata quorum.
// Timestamps are Unix milliseconds, -1 when unknown; Lag is the leader's
// high watermark minus the replica's log end offset.
type QuorumReplica struct {
	ID                    int32  `json:"id"`
	DirectoryID           string `json:"directory_id,omitempty"`
	LogEndOffset          int64  `json:"log_end_offset"`
	Lag                   int64  `json:"lag"`
	LastFetchTimestamp    int64  `json:"last_fetch_timestamp"`
	LastCaughtUpTimestamp int64  `json:"last_caught_up_timestamp"`
}

// Quorum is the state of the KRaft metadata quorum (__cluster_metadata).
type Quorum struct {
	Leader        int32           `json:"leader"`
	Epoch         int32           `json:"epoch"`
	HighWatermark int64           `json:"high_watermark"`
	Voters        []QuorumReplica `json:"voters"`
	Observers     []QuorumReplica `json:"observers"`
}

// DescribeQuorum describes the metadata quorum: its leader and epoch, and
// how far each voter and observer is behind. Brokers forward the request
// to the active controller.
func (c *Client) DescribeQuorum(ctx context.Context) (*Quorum, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	p, _, e := c.quorumPartition(ctx)
	if e != nil {
		return nil, e
	}
	return &Quorum{Leader: p.LeaderID, Epoch: p.LeaderEpoch, HighWatermark: p.HighWatermark,
		Voters: quorumReplicas(p.CurrentVoters, p.HighWatermark), Observers: quorumReplicas(p.Observers, p.HighWatermark)}, nil
}

// quorumAnswerWait bounds each DescribeQuorum attempt. A broker forwards
// DescribeQuorum to the active controller and answers within a round trip;
// with no active controller it holds the request (Kafka's forwarding gives
// up after a minute), so waiting longer tells nothing more. A quorum whose
// leader died elects another in about 3-4 s at Kafka's defaults: the voters
// notice after controller.quorum.fetch.timeout.ms (2 s), then vote within
// controller.quorum.election.timeout.ms (1 s, randomized up to 2 s). 5 s
// waits out such an election; no answer after it means no leader to
// forward to: the quorum has lost its majority, or the brokers cannot
// reach it. A call with a shorter timeout waits half of it (answerWait),
// keeping the other half for the rest of the call (describe_cluster's
// broker probes).
const quorumAnswerWait = 5 * time.Second

// answerWait is how long one DescribeQuorum attempt waits for an answer.
func (c *Client) answerWait() time.Duration { return min(quorumAnswerWait, c.cfg.timeout()/2) }

// errNoQuorumAnswer marks DescribeQuorum's error when no controller
// answered within answerWait.
var errNoQuorumAnswer = errors.New("no controller answered")

// quorumPartition asks DescribeQuorum about __cluster_metadata: its
// partition and (v2+, KIP-853) the voters' endpoints. Each attempt goes to
// a broker that answers (any broker forwards it; kgo would send it to the
// controller Metadata names, in KRaft a random broker that may be dead) and
// waits at most answerWait: no answer by then fails at once, with a
// TIMEOUT that says so, rather than at the call's deadline.
func (c *Client) quorumPartition(ctx context.Context) (*kmsg.DescribeQuorumResponseTopicPartition, []kmsg.DescribeQuorumResponseNode, *Error) {
	var out *kmsg.DescribeQuorumResponseTopicPartition
	var nodes []kmsg.DescribeQuorumResponseNode
	e := retryCall(ctx, "", func(ctx context.Context) error {
		req := kmsg.NewPtrDescribeQuorumRequest()
		t := kmsg.NewDescribeQuorumRequestTopic()
		t.Topic = "__cluster_metadata"
		p := kmsg.NewDescribeQuorumRequestTopicPartition()
		t.Partitions = append(t.Partitions, p)
		req.Topics = append(req.Topics, t)
		// The call's own deadline, when it comes first, is a plain TIMEOUT.
		wait := c.answerWait()
		deadline, ok := ctx.Deadline()
		bounded := !ok || time.Until(deadline) > wait
		actx, cancel := context.WithTimeout(ctx, wait)
		kresp, err := c.askAnyBroker(actx, heldRequest{req})
		cancel()
		if err != nil && bounded && ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded) {
			return &Error{Code: CodeTimeout, Err: errNoQuorumAnswer, Message: fmt.Sprintf("no controller answered within %s: "+
				"brokers forward DescribeQuorum to the active controller, and there is none: "+
				"the metadata quorum has no leader (a majority of its voters down?), or the brokers cannot reach it", wait)}
		}
		if err != nil {
			return err
		}
		resp := kresp.(*kmsg.DescribeQuorumResponse)
		if e := kafkaErr(resp.ErrorCode, resp.ErrorMessage, ""); e != nil {
			return e
		}
		for _, t := range resp.Topics {
			for i, p := range t.Partitions {
				if p.Partition != 0 {
					continue
				}
				if e := kafkaErr(p.ErrorCode, p.ErrorMessage, t.Topic); e != nil {
					return e
				}
				out, nodes = &t.Partitions[i], resp.Nodes
				return nil
			}
		}
		return &Error{Code: CodeUnknown, Message: "no __cluster_metadata partition in the DescribeQuorum answer"}
	})
	if e != nil {
		if errors.Is(e, errNoQuorumAnswer) {
			e.Retriable = true // final for this call (retrying would wait again), not for the cluster
		}
		return nil, nil, e
	}
	return out, nodes, nil
}

// heldRequest is a DescribeQuorum request sent on kgo's connection for
// requests with a timeout, whose reads are abandoned, connection and all,
// when their context ends. A broker without an active controller holds
// DescribeQuorum, and Kafka answers a connection's requests in order: on
// kgo's ordinary connection, every later request to that broker would wait
// behind the abandoned one until kgo's read timeout killed the connection
// (10 s on), as the requests after a lost quorum did.
type heldRequest struct{ *kmsg.DescribeQuorumRequest }

// Timeout is what makes kgo pick the connection (the wire request has no
// timeout field); its read timeout is kgo's overhead plus this.
func (heldRequest) Timeout() int32 { return int32(quorumAnswerWait.Milliseconds()) }

func quorumReplicas(rs []kmsg.DescribeQuorumResponseTopicPartitionReplicaState, hw int64) []QuorumReplica {
	out := make([]QuorumReplica, 0, len(rs))
	for _, r := range rs {
		q := QuorumReplica{ID: r.ReplicaID, LogEndOffset: r.LogEndOffset, Lag: max(hw-r.LogEndOffset, 0),
			LastFetchTimestamp: r.LastFetchTimestamp, LastCaughtUpTimestamp: r.LastCaughtUpTimestamp}
		if r.ReplicaDirectoryID != [16]byte{} {
			q.DirectoryID = FormatTopicID(r.ReplicaDirectoryID) // Kafka prints directory ids like topic ids
		}
		out = append(out, q)
	}
	slices.SortFunc(out, func(a, b QuorumReplica) int { return int(a.ID) - int(b.ID) })
	return out
}

// UnregisteredBroker is the result of UnregisterBroker.
type UnregisteredBroker struct {
	Broker int32 `json:"broker"`
}

// UnregisterBroker removes a broker's registration from the cluster
// metadata (KIP-500: for a broker gone for good). After REQUEST_TIMED_OUT
// the broker may or may not be unregistered: the retry's
// BROKER_ID_NOT_REGISTERED then counts as success.
func (c *Client) UnregisterBroker(ctx context.Context, id int32) (*UnregisteredBroker, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	key := brokerKey(id)
	return mutate(ctx, c, mutation[struct{}, *UnregisteredBroker]{
		op: "unregister_broker", keys: []string{key},
		args: struct {
			Broker int32 `json:"broker"`
		}{id},
		send: func(ctx context.Context, _ struct{}) (*UnregisteredBroker, error) { return c.unregisterBroker(ctx, id) },
		items: func(r *UnregisteredBroker) []Item {
			if r == nil {
				return nil
			}
			return oneItem(key, nil)
		},
		look: func(ctx context.Context, _ struct{}, r *UnregisteredBroker, err error, _ map[string]bool) (*UnregisteredBroker, error, map[string]string) {
			ids, e := c.sortedBrokerIDs(ctx)
			switch {
			case e != nil:
				return r, err, nil
			case slices.Contains(ids, id):
				return r, err, map[string]string{key: auditlog.FoundNotApplied}
			}
			// Metadata lists live brokers only: a dead broker is not
			// listed whether it is registered or not.
			return r, err, map[string]string{key: auditlog.FoundUndetermined}
		},
	})
}

func (c *Client) unregisterBroker(ctx context.Context, id int32) (*UnregisteredBroker, error) {
	maybe := false
	if e := retryCall(ctx, brokerKey(id), func(ctx context.Context) error {
		req := kmsg.NewPtrUnregisterBrokerRequest()
		req.BrokerID = id
		resp, err := req.RequestWith(ctx, c.kgo)
		if err != nil {
			return err
		}
		e := kafkaErr(resp.ErrorCode, resp.ErrorMessage, brokerKey(id))
		switch {
		case e == nil:
		case resp.ErrorCode == kerr.RequestTimedOut.Code:
			maybe, e.Retriable = true, true
		case resp.ErrorCode == kerr.BrokerIDNotRegistered.Code && maybe:
			e = nil
		}
		if e == nil {
			return nil
		}
		return e
	}); e != nil {
		return nil, e
	}
	return &UnregisteredBroker{Broker: id}, nil
}

// BrokerRegistered reports whether broker id is in the cluster's metadata
// now (a live, registered broker).
func (c *Client) BrokerRegistered(ctx context.Context, id int32) (bool, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	ids, e := c.sortedBrokerIDs(ctx)
	if e != nil {
		return false, e
	}
	return slices.Contains(ids, id), nil
}
