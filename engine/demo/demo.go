// Package demo starts the in-process cluster behind --embedded and
// `make demo`: three kfake brokers seeded with a few realistic topics holding
// records, and consumer groups with committed offsets and lag, so that
// lag(), list_topics() and describe_groups() show something at once.
//
// The seeded shape is deterministic: the same topics, configs, record counts
// per partition (records are keyed and partitioned by key hash), committed
// offsets and lag every time. Only record timestamps move: they are spread
// over the hour before seeding.
//
// A Schema Registry runs beside it (franz-go's in-memory srfake, served on
// loopback), holding one subject, orders-value, whose Avro schema has the
// fields of the orders records' JSON.
package demo

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"
)

// The seeded names, for tests and docs.
const (
	ClusterID = "kadmin-lua-demo"

	TopicOrders   = "orders"
	TopicPayments = "payments"
	TopicAudit    = "audit-log"

	GroupOrders  = "orders-processor" // Stable: one live member holding every orders partition
	GroupBilling = "billing"          // Empty: consumed payments once, now stopped

	// MemberClientID is the client id of orders-processor's live member.
	MemberClientID = "orders-service"

	// SubjectOrders is the registry's seeded subject: OrderSchema, as
	// version 1 with id 1.
	SubjectOrders = "orders-value"
)

// OrderSchema is the Avro schema of the seeded subject: the orders
// records' JSON fields.
const OrderSchema = `{"type":"record","name":"Order","namespace":"demo","fields":[` +
	`{"name":"order_id","type":"string"},{"name":"customer","type":"string"},` +
	`{"name":"amount_cents","type":"long"},{"name":"status","type":"string"}]}`

// Topic is one seeded topic.
type Topic struct {
	Name       string
	Partitions int32
	Replicas   int16
	Configs    map[string]string
	Records    int // how many records are produced into it
}

// Topics is the seeded topics, in name order.
var Topics = []Topic{
	{Name: TopicAudit, Partitions: 1, Replicas: 3, Records: 60,
		Configs: map[string]string{"retention.ms": "2592000000"}}, // 30 days
	{Name: TopicOrders, Partitions: 6, Replicas: 3, Records: 300,
		Configs: map[string]string{
			"retention.ms":        "259200000", // 3 days
			"cleanup.policy":      "delete",
			"min.insync.replicas": "2",
			"compression.type":    "lz4",
		}},
	{Name: TopicPayments, Partitions: 3, Replicas: 3, Records: 120,
		Configs: map[string]string{
			"cleanup.policy":      "compact",
			"min.insync.replicas": "2",
			"delete.retention.ms": "86400000",
		}},
}

// Lag is how far behind the end each seeded group's committed offset is,
// per partition (clamped at offset 0): orders-processor is 56 records
// behind in total, billing 15.
var Lag = map[string]map[string][]int64{
	GroupOrders:  {TopicOrders: {0, 7, 12, 3, 25, 9}},
	GroupBilling: {TopicPayments: {4, 11, 0}},
}

// Cluster is a running embedded cluster.
type Cluster struct {
	Addrs []string
	// RegistryURL is the Schema Registry's, on loopback.
	RegistryURL string
	fake        *kfake.Cluster
	registry    *srfake.Registry
	member      *kgo.Client // orders-processor's live member
}

// Registry returns the in-memory Schema Registry (for tests).
func (c *Cluster) Registry() *srfake.Registry { return c.registry }

// Fake returns the underlying kfake cluster (for fault injection in tests).
func (c *Cluster) Fake() *kfake.Cluster { return c.fake }

// Close stops the live group member, then the brokers.
func (c *Cluster) Close() {
	if c.member != nil {
		c.member.Close()
	}
	c.fake.Close()
	if c.registry != nil {
		c.registry.Close()
	}
}

// Start starts a 3-broker kfake cluster, seeds it (Seed) and joins a live
// member to orders-processor, returning once the group is Stable.
func Start(ctx context.Context) (*Cluster, error) {
	fake, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.ClusterID(ClusterID))
	if err != nil {
		return nil, fmt.Errorf("demo: starting kfake: %w", err)
	}
	c := &Cluster{Addrs: fake.ListenAddrs(), fake: fake, registry: srfake.New()}
	c.RegistryURL = c.registry.URL()
	c.registry.SeedSchema(SubjectOrders, 1, 1, sr.Schema{Schema: OrderSchema, Type: sr.TypeAvro})
	if err := Seed(ctx, c.Addrs); err != nil {
		c.Close()
		return nil, err
	}
	if err := spreadLeaders(fake); err != nil {
		c.Close()
		return nil, err
	}
	if c.member, err = joinGroup(ctx, c.Addrs, MemberClientID, GroupOrders, TopicOrders); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// spreadLeaders leads the seeded partitions from the brokers in turn
// (4, 3 and 3 of the 10): kfake picks each leader at random, and a demo
// whose leadership is uneven (7 of 10 partitions on one broker) fails
// cluster-health's leader balance check one run in three. Each move is a
// leader election: every seeded partition's leader epoch is 1, its records'
// 0.
func spreadLeaders(fake *kfake.Cluster) error {
	i := int32(0)
	for _, t := range Topics {
		for p := range t.Partitions {
			if err := fake.MoveTopicPartition(t.Name, p, i%3); err != nil {
				return fmt.Errorf("demo: leading %s[%d] from broker %d: %w", t.Name, p, i%3, err)
			}
			i++
		}
	}
	return nil
}

// Seed creates the demo topics on the cluster at addrs (which must have at
// least three brokers and none of the topics), produces keyed records into
// them, lets billing consume payments once and leave, and commits both
// groups' offsets behind the end (Lag). It does not join the live
// orders-processor member: Start does.
//
// The batches are snappy-compressed, so every reader of the demo decodes
// compressed batches. Not lz4: its writer and reader each take 4 MB
// blocks, which under the race detector made page faults and TLB
// shootdowns 40% of the luaapi tests' CPU (a demo cluster per example).
// Nor do the demo's clients push KIP-714 client metrics (kfake asks for
// them, lz4-compressed): kadmin-lua's own clients do not either.
func Seed(ctx context.Context, addrs []string) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addrs...), kgo.ClientID("kadmin-lua-demo-seed"),
		kgo.DisableClientMetrics(), kgo.ProducerLinger(0), kgo.ProducerBatchCompression(kgo.SnappyCompression()))
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)

	for _, t := range Topics {
		cfg := map[string]*string{}
		for k, v := range t.Configs {
			cfg[k] = kadm.StringPtr(v)
		}
		r, err := adm.CreateTopic(ctx, t.Partitions, t.Replicas, cfg, t.Name)
		if err == nil {
			err = r.Err
		}
		if err != nil {
			return fmt.Errorf("demo: creating topic %s: %w", t.Name, err)
		}
	}

	now := time.Now().Truncate(time.Second)
	var recs []*kgo.Record
	for _, t := range Topics {
		recs = append(recs, records(t, now)...)
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		return fmt.Errorf("demo: producing records: %w", err)
	}

	// billing ran once (so its protocol type is "consumer") and stopped.
	billing, err := joinGroup(ctx, addrs, "billing-service", GroupBilling, TopicPayments)
	if err != nil {
		return err
	}
	billing.Close()

	ends, err := adm.ListEndOffsets(ctx, TopicOrders, TopicPayments)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return fmt.Errorf("demo: listing end offsets: %w", err)
	}
	for _, group := range []string{GroupOrders, GroupBilling} {
		offs := kadm.Offsets{}
		for topic, lags := range Lag[group] {
			for p, lag := range lags {
				end, ok := ends.Lookup(topic, int32(p))
				if !ok {
					return fmt.Errorf("demo: no end offset for %s[%d]", topic, p)
				}
				offs.AddOffset(topic, int32(p), max(end.Offset-lag, 0), -1)
			}
		}
		resp, err := adm.CommitOffsets(ctx, group, offs)
		if err == nil {
			err = resp.Error()
		}
		if err != nil {
			return fmt.Errorf("demo: committing %s offsets: %w", group, err)
		}
	}
	return nil
}

// records makes t's records: keyed by customer, payment or user, so they
// spread over partitions by key hash (the same way every run), with JSON
// values and timestamps spread evenly over the hour before now.
func records(t Topic, now time.Time) []*kgo.Record {
	start := now.Add(-time.Hour)
	step := time.Hour / time.Duration(t.Records)
	statuses := []string{"created", "paid", "packed", "shipped", "delivered"}
	out := make([]*kgo.Record, 0, t.Records)
	for i := range t.Records {
		var key, value string
		switch t.Name {
		case TopicOrders:
			key = fmt.Sprintf("customer-%03d", i%40)
			value = fmt.Sprintf(`{"order_id":"o-%05d","customer":%q,"amount_cents":%d,"status":%q}`,
				10000+i, key, 500+(i*7919)%25000, statuses[i%len(statuses)])
		case TopicPayments:
			key = fmt.Sprintf("payment-%03d", i%30) // repeated keys: the compacted view keeps the last
			value = fmt.Sprintf(`{"payment_id":%q,"order_id":"o-%05d","state":%q}`,
				key, 10000+i, []string{"authorized", "captured", "settled", "refunded"}[i/30%4])
		default:
			key = fmt.Sprintf("user-%02d", i%7)
			value = fmt.Sprintf(`{"actor":%q,"action":%q,"seq":%d}`,
				key, []string{"login", "create_topic", "alter_config", "logout"}[i%4], i)
		}
		out = append(out, &kgo.Record{Topic: t.Name, Key: []byte(key), Value: []byte(value),
			Timestamp: start.Add(time.Duration(i) * step)})
	}
	return out
}

// joinGroup starts a classic consumer-group member of group on topic and
// returns once it has been assigned every partition (the group is Stable).
// The member never commits (auto-commit is off) and never polls, so the
// committed offsets and lag stay as seeded.
func joinGroup(ctx context.Context, addrs []string, clientID, group, topic string) (*kgo.Client, error) {
	assigned := make(chan struct{}, 1)
	cl, err := kgo.NewClient(kgo.SeedBrokers(addrs...), kgo.ClientID(clientID), kgo.DisableClientMetrics(),
		kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic), kgo.DisableAutoCommit(),
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, m map[string][]int32) {
			if len(m[topic]) > 0 {
				select {
				case assigned <- struct{}{}:
				default:
				}
			}
		}))
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	select {
	case <-assigned:
		return cl, nil
	case <-ctx.Done():
		cl.Close()
		return nil, fmt.Errorf("demo: joining group %s: %w", group, ctx.Err())
	}
}
