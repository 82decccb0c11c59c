package engine

import (
	"context"
	"slices"
)

// Broker is one broker of DescribeCluster.
type Broker struct {
	ID   int32   `json:"id"`
	Host string  `json:"host"`
	Port int32   `json:"port"`
	Rack *string `json:"rack"` // nil when the broker has no rack
}

// Cluster is the result of DescribeCluster.
type Cluster struct {
	ClusterID  string   `json:"cluster_id"`
	Controller int32    `json:"controller"` // -1 when unknown
	Brokers    []Broker `json:"brokers"`    // sorted by id
}

// DescribeCluster returns the cluster ID, the controller and the live
// brokers (sorted by id), from a fresh Metadata request. In KRaft clusters
// Kafka reports a broker as "controller" (the quorum's controllers are not
// reachable by clients); describe_quorum tells the real one.
func (c *Client) DescribeCluster(ctx context.Context) (Cluster, error) {
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
			br := Broker{ID: b.NodeID, Host: b.Host, Port: b.Port}
			if b.Rack != nil && *b.Rack != "" {
				r := *b.Rack
				br.Rack = &r
			}
			out.Brokers = append(out.Brokers, br)
		}
		return nil
	})
	if err != nil {
		return Cluster{}, err
	}
	slices.SortFunc(out.Brokers, func(a, b Broker) int { return int(a.ID) - int(b.ID) })
	return out, nil
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
