package kafkatest

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// SASLMechanism returns the franz-go mechanism for mech (MechPlain,
// MechScram256 or MechScram512) logging in as user with password.
func SASLMechanism(mech, user, password string) (sasl.Mechanism, error) {
	switch mech {
	case MechPlain:
		return plain.Auth{User: user, Pass: password}.AsMechanism(), nil
	case MechScram256:
		return scram.Auth{User: user, Pass: password}.AsSha256Mechanism(), nil
	case MechScram512:
		return scram.Auth{User: user, Pass: password}.AsSha512Mechanism(), nil
	}
	return nil, fmt.Errorf("kafkatest: unknown SASL mechanism %q", mech)
}

// ClientOpts returns the kgo options to reach the cluster as user/password
// with mech. On a PLAINTEXT cluster mech, user and password are ignored.
func (c *Cluster) ClientOpts(mech, user, password string) ([]kgo.Opt, error) {
	opts := []kgo.Opt{kgo.SeedBrokers(c.Brokers()...)}
	if c.Protocol == ProtoSASL {
		m, err := SASLMechanism(mech, user, password)
		if err != nil {
			return nil, err
		}
		opts = append(opts, kgo.SASL(m))
	}
	return opts, nil
}

// ClientAs returns a kgo client logged in as user/password with mech (on a
// PLAINTEXT cluster: unauthenticated). Extra opts are appended. The caller
// closes it.
func (c *Cluster) ClientAs(mech, user, password string, opts ...kgo.Opt) (*kgo.Client, error) {
	base, err := c.ClientOpts(mech, user, password)
	if err != nil {
		return nil, err
	}
	return kgo.NewClient(append(base, opts...)...)
}

// Client returns a kgo client with full rights: the super user admin over
// PLAIN on the SASL cluster, unauthenticated on a PLAINTEXT one.
func (c *Cluster) Client(opts ...kgo.Opt) (*kgo.Client, error) {
	return c.ClientAs(MechPlain, AdminUser, AdminPassword, opts...)
}

// AdminAs is ClientAs wrapped in a kadm client; Close the kadm client to
// close the underlying kgo client.
func (c *Cluster) AdminAs(mech, user, password string, opts ...kgo.Opt) (*kadm.Client, error) {
	cl, err := c.ClientAs(mech, user, password, opts...)
	if err != nil {
		return nil, err
	}
	return kadm.NewClient(cl), nil
}

// Admin is Client wrapped in a kadm client.
func (c *Cluster) Admin(opts ...kgo.Opt) (*kadm.Client, error) {
	return c.AdminAs(MechPlain, AdminUser, AdminPassword, opts...)
}

// PartitionState is one partition as a broker reports it in Metadata.
type PartitionState struct {
	Leader   int32
	Epoch    int32
	Replicas []int32 // sorted
	ISR      []int32 // sorted
	Err      int16   // the partition's error code
}

// Partitions asks the cluster afresh (a raw kmsg.MetadataRequest through a
// brand-new client, so nothing comes from a metadata cache; see
// LiveBrokers) for topic's partitions, by partition id.
func (c *Cluster) Partitions(ctx context.Context, topic string) (map[int32]PartitionState, error) {
	cl, err := c.Client(kgo.DialTimeout(2 * time.Second))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	req := kmsg.NewPtrMetadataRequest()
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = kmsg.StringPtr(topic)
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return nil, err
	}
	if len(resp.Topics) != 1 {
		return nil, fmt.Errorf("kafkatest: %d topics in the metadata of %s", len(resp.Topics), topic)
	}
	if err := kerr.ErrorForCode(resp.Topics[0].ErrorCode); err != nil {
		return nil, fmt.Errorf("kafkatest: topic %s: %w", topic, err)
	}
	out := map[int32]PartitionState{}
	for _, p := range resp.Topics[0].Partitions {
		out[p.Partition] = PartitionState{
			Leader: p.Leader, Epoch: p.LeaderEpoch, Err: p.ErrorCode,
			Replicas: slices.Sorted(slices.Values(p.Replicas)), ISR: slices.Sorted(slices.Values(p.ISR)),
		}
	}
	return out, nil
}
