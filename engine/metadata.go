package engine

import (
	"context"
	"encoding/base64"
	"math/rand/v2"
	"net"
	"strconv"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// FormatTopicID renders a topic ID the way Kafka's tools do (URL-safe base64
// without padding); "" for the all-zero ID of brokers without topic IDs.
func FormatTopicID(id [16]byte) string {
	if id == [16]byte{} {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString(id[:])
}

// ClusterView is the cluster as one fresh Metadata answer shows it: what
// desired state plans against, read in one request whatever the size.
type ClusterView struct {
	ClusterID string
	Brokers   []Broker // ID, Host, Port and Rack (State is not asked)
	// Topics are the topics the answer lists without an error.
	Topics map[string]TopicView
}

// TopicView is one topic of a ClusterView.
type TopicView struct {
	ID       string // FormatTopicID
	Internal bool
	Replicas map[int32][]int32 // partition -> replicas
}

// View reads the ClusterView: every topic, one Metadata request.
func (c *Client) View(ctx context.Context) (ClusterView, error) {
	m, err := c.metadata(ctx, nil)
	if err != nil {
		return ClusterView{}, err
	}
	v := ClusterView{ClusterID: m.Cluster, Topics: make(map[string]TopicView, len(m.Topics))}
	for _, b := range m.Brokers {
		v.Brokers = append(v.Brokers, Broker{ID: b.NodeID, Host: b.Host, Port: b.Port, Rack: b.Rack})
	}
	for name, t := range m.Topics {
		if t.Err != nil {
			continue
		}
		tv := TopicView{ID: FormatTopicID(t.ID), Internal: t.IsInternal, Replicas: make(map[int32][]int32, len(t.Partitions))}
		for _, p := range t.Partitions {
			tv.Replicas[p.Partition] = p.Replicas
		}
		v.Topics[name] = tv
	}
	return v, nil
}

// metadata issues a fresh Metadata request for topics, or for all topics
// when topics is nil, retrying retriable failures.
func (c *Client) metadata(ctx context.Context, topics []string) (kadm.Metadata, *Error) {
	var m kadm.Metadata
	err := retryCall(ctx, "", func(ctx context.Context) error {
		var err error
		m, err = c.freshMetadata(ctx, topics...)
		return err
	})
	return m, err
}

// freshMetadata asks a broker directly. kgo answers a Metadata request
// issued through the client from a merge with its own cache, which can still
// list a topic deleted a moment ago; an admin's reads must see its writes,
// so the request goes straight to one broker (the first that answers).
func (c *Client) freshMetadata(ctx context.Context, topics ...string) (kadm.Metadata, error) {
	resp, err := c.rawMetadata(ctx, topics...)
	if err != nil {
		return kadm.Metadata{}, err
	}
	return toKadmMetadata(resp), nil
}

// rawMetadata is freshMetadata's request: nil topics means all topics.
func (c *Client) rawMetadata(ctx context.Context, topics ...string) (*kmsg.MetadataResponse, error) {
	req := kmsg.NewPtrMetadataRequest()
	if topics != nil {
		req.Topics = []kmsg.MetadataRequestTopic{}
		for _, t := range topics {
			rt := kmsg.NewMetadataRequestTopic()
			rt.Topic = kmsg.StringPtr(t)
			req.Topics = append(req.Topics, rt)
		}
	}
	resp, err := c.askAnyBroker(ctx, req)
	if err != nil {
		return nil, err
	}
	return resp.(*kmsg.MetadataResponse), nil
}

// askAnyBroker sends req to the first broker that answers.
func (c *Client) askAnyBroker(ctx context.Context, req kmsg.Request) (kmsg.Response, error) {
	var lastErr error
	for _, b := range c.candidateBrokers() {
		resp, err := b.Request(ctx, req)
		if err != nil {
			lastErr = err
			if ctx.Err() != nil {
				break
			}
			continue
		}
		return resp, nil
	}
	if lastErr == nil {
		lastErr = Errorf(CodeNetwork, "", "no broker to ask")
	}
	return nil, lastErr
}

func (c *Client) candidateBrokers() []*kgo.Broker {
	out := c.kgo.DiscoveredBrokers()
	rand.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return append(out, c.kgo.SeedBrokers()...)
}

func toKadmMetadata(resp *kmsg.MetadataResponse) kadm.Metadata {
	m := kadm.Metadata{Controller: resp.ControllerID, Topics: kadm.TopicDetails{}}
	if resp.ClusterID != nil {
		m.Cluster = *resp.ClusterID
	}
	for _, b := range resp.Brokers {
		m.Brokers = append(m.Brokers, kadm.BrokerDetail{NodeID: b.NodeID, Host: b.Host, Port: b.Port, Rack: b.Rack})
	}
	for _, t := range resp.Topics {
		if t.Topic == nil {
			continue
		}
		td := kadm.TopicDetail{Topic: *t.Topic, ID: t.TopicID, IsInternal: t.IsInternal,
			Partitions: kadm.PartitionDetails{}, Err: kerr.ErrorForCode(t.ErrorCode)}
		for _, p := range t.Partitions {
			td.Partitions[p.Partition] = kadm.PartitionDetail{Topic: td.Topic, Partition: p.Partition,
				Leader: p.Leader, LeaderEpoch: p.LeaderEpoch, Replicas: p.Replicas, ISR: p.ISR,
				OfflineReplicas: p.OfflineReplicas, Err: kerr.ErrorForCode(p.ErrorCode)}
		}
		m.Topics[td.Topic] = td
	}
	return m
}

func orEmpty(s []int32) []int32 {
	if s == nil {
		return []int32{}
	}
	return s
}

// brokerAt is the handle to send a request to broker id by. kgo learns
// the brokers only from the Metadata it sends itself (not from ours, sent
// to one broker for freshness: askAnyBroker), so a request to a broker it
// has not met yet first costs a Metadata round trip of kgo's own. A seed
// given at the broker's advertised address is that broker, known at once:
// a one-shot run (peek, lag{time=true}) saves the round trip and a
// connection.
func (c *Client) brokerAt(id int32, meta *kmsg.MetadataResponse) *kgo.Broker {
	if meta != nil {
		seeds := c.kgo.SeedBrokers()
		for _, b := range meta.Brokers {
			if b.NodeID != id || len(seeds) != len(c.cfg.Brokers) {
				continue
			}
			addr := net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port)))
			for i, seed := range c.cfg.Brokers {
				if _, _, err := net.SplitHostPort(seed); err != nil {
					seed = net.JoinHostPort(seed, "9092") // kgo's default port
				}
				if seed == addr {
					return seeds[i]
				}
			}
		}
	}
	return c.kgo.Broker(int(id))
}
