package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Broker states in DescribeCluster.
const (
	BrokerLive         = "live"         // registered and unfenced: serving
	BrokerFenced       = "fenced"       // registered but fenced: down, or not yet caught up
	BrokerUnregistered = "unregistered" // not registered, yet named in partition replicas
	BrokerOffline      = "offline"      // named in replicas, not live; the cluster (before Kafka 4.0) cannot say whether registered
	// BrokerUnknown: the metadata quorum has no leader (or did not answer),
	// so nothing says what the broker is now. The broker that answered
	// describes the cluster as of the last metadata it had: a broker that
	// died since still reads live there.
	BrokerUnknown = "unknown"
)

// States of the KRaft metadata quorum in DescribeCluster.
const (
	QuorumLed      = "led"       // it has a leader, the active controller
	QuorumNoLeader = "no_leader" // it answered that it has no leader (an election)
	QuorumNoAnswer = "no_answer" // no controller answered within answerWait (5 s): no leader to forward to
	// QuorumNoMajority: the leader answered, but too few voters fetch from
	// it (quorumFetchTimeout) to make a majority: it can commit nothing,
	// and resigns once Kafka's check-quorum timer expires.
	QuorumNoMajority = "no_majority"
	QuorumNone       = "none"    // no metadata quorum to ask: a ZooKeeper-era cluster (no DescribeQuorum)
	QuorumUnknown    = "unknown" // asking failed otherwise (QuorumError says how)
)

// Broker is one broker of DescribeCluster. Host and Port are empty for a
// broker the cluster does not know (unregistered, offline).
type Broker struct {
	ID    int32   `json:"id"`
	Host  string  `json:"host,omitempty"`
	Port  int32   `json:"port,omitempty"`
	Rack  *string `json:"rack"`  // nil when the broker has no rack
	State string  `json:"state"` // one of the Broker* states
	// Reachable says whether this client got an answer from the broker
	// just now (ApiVersions, within probeWait). It is asked only when the
	// state is unknown; nil otherwise, and for a broker without an address.
	Reachable *bool `json:"reachable,omitempty"`
}

// Cluster is the result of DescribeCluster.
type Cluster struct {
	ClusterID string `json:"cluster_id"`
	// Controller is the broker Kafka's answer names as controller (-1
	// when unknown). In KRaft it is a live broker that forwards to the
	// quorum, not the active controller.
	Controller int32 `json:"controller"`
	// ActiveController is the metadata quorum's leader (describe_quorum);
	// nil where the cluster cannot say (not KRaft, no leader, not allowed).
	ActiveController *int32 `json:"active_controller,omitempty"`
	// Quorum is the metadata quorum's state (Quorum*); QuorumError the
	// error that made it no_answer or unknown.
	Quorum      string   `json:"quorum"`
	QuorumError string   `json:"quorum_error,omitempty"`
	Brokers     []Broker `json:"brokers"` // sorted by id
	// Topics is every topic, as DescribeTopics describes it, when asked
	// for (DescribeClusterTopics); nil otherwise.
	Topics []TopicDescription `json:"topics,omitempty"`
}

// probeWait bounds asking each broker whether it answers, when the quorum
// cannot say what the brokers are: a running broker answers ApiVersions in
// milliseconds and a stopped one refuses the connection at once; only an
// address that drops packets waits it out.
const probeWait = 2 * time.Second

// DescribeCluster returns the cluster ID, every broker with its state and
// the metadata quorum's state and leader (the active controller). The
// brokers come from DescribeCluster with fenced brokers included (v2, Kafka
// 4.0+), plus the brokers partition replicas name that the cluster does not
// list (every topic is read for them, page by page); the active controller
// from DescribeQuorum. When the quorum has no leader (or none answers
// within answerWait), the brokers' states are unknown, and each broker
// is asked whether it answers.
func (c *Client) DescribeCluster(ctx context.Context) (Cluster, error) {
	out, err := c.DescribeClusterTopics(ctx)
	out.Topics = nil
	return out, err
}

// DescribeClusterTopics is DescribeCluster with Topics: the topics it read
// to find the brokers replicas name, every topic as DescribeTopics
// describes it (a topic that failed carries its error). A health check
// reads them once.
func (c *Client) DescribeClusterTopics(ctx context.Context) (Cluster, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	out, fencedKnown, err := c.registeredBrokers(ctx)
	if err != nil {
		return Cluster{}, err
	}
	topics, terr := c.DescribeTopics(ctx, nil)
	if terr != nil {
		return Cluster{}, terr
	}
	out.Topics = topics
	known := map[int32]bool{}
	for _, b := range out.Brokers {
		known[b.ID] = true
	}
	for _, t := range topics {
		for _, p := range t.Partitions {
			for _, r := range p.Replicas {
				if !known[r] {
					known[r] = true
					st := BrokerOffline
					if fencedKnown {
						st = BrokerUnregistered
					}
					out.Brokers = append(out.Brokers, Broker{ID: r, State: st})
				}
			}
		}
	}
	slices.SortFunc(out.Brokers, func(a, b Broker) int { return int(a.ID) - int(b.ID) })
	out.Quorum, out.ActiveController, out.QuorumError = c.quorumState(ctx)
	switch out.Quorum {
	case QuorumLed, QuorumNone:
	default:
		for i := range out.Brokers {
			out.Brokers[i].State = BrokerUnknown
		}
		c.probeBrokers(ctx, out.Brokers)
	}
	return out, nil
}

// quorumState asks the metadata quorum for its leader. A controller that
// refuses DESCRIBE on the cluster has answered: the quorum is led, by a
// leader this client may not see.
func (c *Client) quorumState(ctx context.Context) (state string, leader *int32, why string) {
	q, err := c.DescribeQuorum(ctx)
	if err == nil {
		if q.Leader < 0 {
			return QuorumNoLeader, nil, ""
		}
		if why := q.minority(); why != "" {
			return QuorumNoMajority, &q.Leader, why
		}
		return QuorumLed, &q.Leader, ""
	}
	e := AsError(err, "")
	switch {
	case errors.Is(e, errNoQuorumAnswer):
		return QuorumNoAnswer, nil, e.Message
	case e.Code == kerr.UnsupportedVersion.Message:
		return QuorumNone, nil, ""
	case e.Code == kerr.ClusterAuthorizationFailed.Message:
		return QuorumLed, nil, ""
	}
	return QuorumUnknown, nil, e.Error()
}

// probeBrokers sets Reachable on each broker kgo knows an address for: did
// it answer ApiVersions within probeWait. kgo learns the addresses from a
// Metadata answer (the calls before were raw requests), so one is asked
// first; without it, or for a broker it does not list, or when the call
// ends first, Reachable stays nil.
func (c *Client) probeBrokers(ctx context.Context, bs []Broker) {
	pctx, cancel := context.WithTimeout(ctx, probeWait)
	defer cancel()
	m, err := c.adm.BrokerMetadata(pctx)
	if err != nil {
		return
	}
	listed := map[int32]bool{}
	for _, b := range m.Brokers {
		listed[b.NodeID] = true
	}
	var wg sync.WaitGroup
	for i := range bs {
		if !listed[bs[i].ID] {
			continue
		}
		wg.Go(func() {
			_, err := c.kgo.Broker(int(bs[i].ID)).Request(pctx, kmsg.NewPtrApiVersionsRequest())
			if err != nil && ctx.Err() != nil {
				return
			}
			answered := err == nil
			bs[i].Reachable = &answered
		})
	}
	wg.Wait()
}

// registeredBrokers asks DescribeCluster for the registered brokers, the
// fenced ones included where the broker can (fencedKnown); a broker without
// DescribeCluster (before Kafka 2.8) is asked with Metadata.
func (c *Client) registeredBrokers(ctx context.Context) (out Cluster, fencedKnown bool, _ *Error) {
	err := retryCall(ctx, "", func(ctx context.Context) error {
		req := kmsg.NewPtrDescribeClusterRequest()
		req.IncludeFencedBrokers = true
		kresp, err := c.askAnyBroker(ctx, req)
		if e := AsError(err, ""); e != nil && e.Code == kerr.UnsupportedVersion.Message {
			out, err = c.ClusterBrokers(ctx)
			return err
		}
		if err != nil {
			return err
		}
		resp := kresp.(*kmsg.DescribeClusterResponse)
		if e := kafkaErr(resp.ErrorCode, resp.ErrorMessage, ""); e != nil {
			return e
		}
		fencedKnown = resp.GetVersion() >= 2
		out = Cluster{ClusterID: resp.ClusterID, Controller: resp.ControllerID, Brokers: make([]Broker, 0, len(resp.Brokers))}
		for _, b := range resp.Brokers {
			br := Broker{ID: b.NodeID, Host: b.Host, Port: b.Port, Rack: rackOf(b.Rack), State: BrokerLive}
			if b.IsFenced {
				br.State = BrokerFenced
			}
			out.Brokers = append(out.Brokers, br)
		}
		return nil
	})
	return out, fencedKnown, err
}

// ClusterBrokers returns the cluster ID, the controller Kafka names and the
// live brokers (sorted by id) from one Metadata request: the cheap view
// (completion, the REPL's prompt), without states or the active controller.
func (c *Client) ClusterBrokers(ctx context.Context) (Cluster, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	var out Cluster
	err := retryCall(ctx, "", func(ctx context.Context) error {
		m, err := c.adm.BrokerMetadata(ctx)
		if err != nil {
			return err
		}
		out = Cluster{ClusterID: m.Cluster, Controller: m.Controller, Brokers: make([]Broker, 0, len(m.Brokers))}
		for _, b := range m.Brokers {
			out.Brokers = append(out.Brokers, Broker{ID: b.NodeID, Host: b.Host, Port: b.Port, Rack: rackOf(b.Rack), State: BrokerLive})
		}
		return nil
	})
	if err != nil {
		return Cluster{}, err
	}
	slices.SortFunc(out.Brokers, func(a, b Broker) int { return int(a.ID) - int(b.ID) })
	return out, nil
}

// rackOf is a broker's rack, nil when it has none.
func rackOf(r *string) *string {
	if r == nil || *r == "" {
		return nil
	}
	s := *r
	return &s
}

// brokerIDs returns the live brokers' ids.
func (c *Client) brokerIDs(ctx context.Context) (map[int32]bool, *Error) {
	var ids map[int32]bool
	err := retryCall(ctx, "", func(ctx context.Context) error {
		m, err := c.adm.BrokerMetadata(ctx)
		if err != nil {
			return err
		}
		ids = map[int32]bool{}
		for _, b := range m.Brokers {
			ids[b.NodeID] = true
		}
		return nil
	})
	return ids, err
}

// quorumFetchTimeout is how long a voter may go without fetching from the
// leader before it counts as gone: Kafka's controller.quorum.fetch.timeout.ms
// default, after which a follower that has not heard from its leader
// stands for election. A live follower fetches far more often: each fetch
// waits at most 500 ms for new records.
const quorumFetchTimeout = 2 * time.Second

// minority says why the quorum's leader has no majority behind it: the
// voters that have not fetched from it within quorumFetchTimeout, by the
// leader's clock (DescribeQuorum gives the leader's own timestamps as its
// now, so no clock is compared with this host's). "" when a majority fetch,
// or when the answer does not say (no timestamps).
func (q *Quorum) minority() string {
	now := int64(-1)
	for _, v := range q.Voters {
		if v.ID == q.Leader {
			now = v.LastFetchTimestamp
		}
	}
	if now < 0 {
		return ""
	}
	var silent []string
	for _, v := range q.Voters {
		switch {
		case v.ID == q.Leader:
		case v.LastFetchTimestamp < 0:
			silent = append(silent, fmt.Sprintf("%d (never fetched from this leader)", v.ID))
		case now-v.LastFetchTimestamp > quorumFetchTimeout.Milliseconds():
			silent = append(silent, fmt.Sprintf("%d (last fetched %s before)", v.ID, time.Duration(now-v.LastFetchTimestamp)*time.Millisecond))
		}
	}
	if 2*(len(q.Voters)-len(silent)) > len(q.Voters) {
		return ""
	}
	return fmt.Sprintf("leader %d answered, but %d of its %d voters have not fetched from it for over %s: %s: "+
		"without a majority it can commit nothing (fence a broker, elect a partition leader), and it resigns",
		q.Leader, len(silent), len(q.Voters), quorumFetchTimeout, strings.Join(silent, ", "))
}
