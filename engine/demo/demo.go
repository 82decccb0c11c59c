// Package demo starts the in-process cluster behind --embedded and
// `make demo`. (Stub: seeding lands in its own change.)
package demo

import (
	"context"

	"github.com/twmb/franz-go/pkg/kfake"
)

// Cluster is a running embedded cluster.
type Cluster struct {
	Addrs []string
	fake  *kfake.Cluster
}

// Close stops it.
func (c *Cluster) Close() { c.fake.Close() }

// Start starts a 3-broker kfake cluster.
func Start(ctx context.Context) (*Cluster, error) {
	c, err := kfake.NewCluster(kfake.NumBrokers(3))
	if err != nil {
		return nil, err
	}
	return &Cluster{Addrs: c.ListenAddrs(), fake: c}, nil
}
