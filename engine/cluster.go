package engine

import (
	"context"
	"slices"
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
)

// Broker is one broker of DescribeCluster. Host and Port are empty for a
// broker the cluster does not know (unregistered, offline).
type Broker struct {
	ID    int32   `json:"id"`
	Host  string  `json:"host,omitempty"`
	Port  int32   `json:"port,omitempty"`
	Rack  *string `json:"rack"`  // nil when the broker has no rack
	State string  `json:"state"` // one of the Broker* states
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
	ActiveController *int32   `json:"active_controller,omitempty"`
	Brokers          []Broker `json:"brokers"` // sorted by id
}

// quorumWait bounds DescribeCluster's question to the metadata quorum.
const quorumWait = 5 * time.Second

// DescribeCluster returns the cluster ID, every broker with its state and
// the active controller. The brokers come from DescribeCluster with fenced
// brokers included (v2, Kafka 4.0+), plus the brokers partition replicas
// name that the cluster does not list (every topic is read for them, page by
// page); the active controller from DescribeQuorum.
func (c *Client) DescribeCluster(ctx context.Context) (Cluster, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	out, fencedKnown, err := c.registeredBrokers(ctx)
	if err != nil {
		return Cluster{}, err
	}
	known := map[int32]bool{}
	for _, b := range out.Brokers {
		known[b.ID] = true
	}
	inReplicas := map[int32]bool{}
	if e := retryCall(ctx, "", func(ctx context.Context) error {
		return c.eachTopic(ctx, nil, func(t topicAnswer) {
			for _, p := range t.Partitions {
				for _, r := range p.Replicas {
					inReplicas[r] = true
				}
			}
		})
	}); e != nil {
		return Cluster{}, e
	}
	for id := range inReplicas {
		if !known[id] {
			st := BrokerOffline
			if fencedKnown {
				st = BrokerUnregistered
			}
			out.Brokers = append(out.Brokers, Broker{ID: id, State: st})
		}
	}
	// A quorum in the middle of an election is not waited for long: the
	// brokers' states are the answer's point.
	qctx, qcancel := context.WithTimeout(ctx, quorumWait)
	defer qcancel()
	if q, err := c.DescribeQuorum(qctx); err == nil && q.Leader >= 0 {
		out.ActiveController = &q.Leader
	}
	slices.SortFunc(out.Brokers, func(a, b Broker) int { return int(a.ID) - int(b.ID) })
	return out, nil
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
