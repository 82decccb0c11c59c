package engine

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// The end-to-end probe, after KMinion's (redpanda-data/kminion, e2e): a
// record is written to each partition of a probe topic, read back by a
// consumer of its own, and its offset committed to a probe group; each step
// is timed. The probe topic has one partition per broker, each led by a
// different broker, so that every broker is probed as a leader. Its
// writes go through the audited operations (create_topics once, produce,
// commit_offsets): a probe is a change like any other, if a small one.

// ProbeTopic is the probe's own topic, created on first use; ProbeGroup is
// the group its offsets are committed to.
const (
	ProbeTopic = "kadmin-lua-probe"
	ProbeGroup = "kadmin-lua-probe"
)

// ProbeTopicConfigs is the probe topic's configuration: records are kept
// an hour (segments roll every 10 minutes so that retention can delete),
// never compacted.
var ProbeTopicConfigs = map[string]string{
	"cleanup.policy": "delete",
	"retention.ms":   "3600000",
	"segment.ms":     "600000",
}

// ProbeOptions modify Probe.
type ProbeOptions struct {
	Topic   string        // "" is ProbeTopic, created when missing; another topic must exist
	Group   string        // "" is ProbeGroup
	Timeout time.Duration // for the whole probe; the client's timeout when zero
}

// ProbePartition is one partition's probe.
type ProbePartition struct {
	Partition  int32    `json:"partition"`
	Broker     int32    `json:"broker"` // its leader when probed (-1: none)
	Offset     int64    `json:"offset"` // where the probe record was written (-1: not)
	ProduceMs  *float64 `json:"produce_ms,omitempty"`
	EndToEndMs *float64 `json:"end_to_end_ms,omitempty"`
	Err        *Error   `json:"error,omitempty"`
}

// ProbeResult is a probe: every partition's, the commit, and the failures
// named in one list.
type ProbeResult struct {
	Topic         string           `json:"topic"`
	Group         string           `json:"group"`
	Created       bool             `json:"created"` // the probe topic was created by this probe
	OK            bool             `json:"ok"`
	Partitions    []ProbePartition `json:"partitions"`
	ProduceMsMax  *float64         `json:"produce_ms_max,omitempty"`
	EndToEndMsMax *float64         `json:"end_to_end_ms_max,omitempty"`
	CommitMs      *float64         `json:"commit_ms,omitempty"`
	CommitErr     *Error           `json:"commit_error,omitempty"`
	Failures      []string         `json:"failures"`
}

func ms(d time.Duration) *float64 {
	v := math.Round(float64(d.Microseconds())/10) / 100
	return &v
}

// ProbeTopicSpec is the probe topic for brokers (sorted): one partition
// per broker, partition i led by the i-th broker, replicas on the next
// ones (up to three).
func ProbeTopicSpec(name string, brokers []int32) TopicSpec {
	rf := min(3, len(brokers))
	assign := map[int32][]int32{}
	for i := range brokers {
		for r := range rf {
			assign[int32(i)] = append(assign[int32(i)], brokers[(i+r)%len(brokers)])
		}
	}
	return TopicSpec{Name: name, Configs: ProbeTopicConfigs, Assignment: assign}
}

// ProbePlan is what a probe would do: whether it would create the topic,
// and the partitions and their leaders. Nothing is written.
func (c *Client) ProbePlan(ctx context.Context, o ProbeOptions) (create *TopicSpec, parts []ProbePartition, err error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	o = o.withDefaults()
	m, e := c.metadata(ctx, []string{o.Topic})
	if e != nil {
		return nil, nil, e
	}
	t, ok := m.Topics[o.Topic]
	if !ok || t.Err != nil {
		if o.Topic != ProbeTopic || (t.Err != nil && t.Err != kerr.UnknownTopicOrPartition) {
			return nil, nil, AsError(orErr(t.Err, kerr.UnknownTopicOrPartition), o.Topic)
		}
		ids := m.Brokers.NodeIDs()
		slices.Sort(ids)
		spec := ProbeTopicSpec(o.Topic, ids)
		for p, rs := range spec.Assignment {
			parts = append(parts, ProbePartition{Partition: p, Broker: rs[0], Offset: -1})
		}
		slices.SortFunc(parts, func(a, b ProbePartition) int { return cmp.Compare(a.Partition, b.Partition) })
		return &spec, parts, nil
	}
	for p, pd := range t.Partitions {
		parts = append(parts, ProbePartition{Partition: p, Broker: pd.Leader, Offset: -1})
	}
	slices.SortFunc(parts, func(a, b ProbePartition) int { return cmp.Compare(a.Partition, b.Partition) })
	return nil, parts, nil
}

func (o ProbeOptions) withDefaults() ProbeOptions {
	o.Topic, o.Group = cmp.Or(o.Topic, ProbeTopic), cmp.Or(o.Group, ProbeGroup)
	return o
}

// Probe writes a record to each partition of the probe topic, reads each
// back and commits its offset, and reports each step's latency and each
// failure. It fails as a whole only when it cannot start (the topic is
// missing and cannot be created, the cluster cannot be reached); a
// partition that cannot be written or read is a failure in the result.
func (c *Client) Probe(ctx context.Context, o ProbeOptions) (*ProbeResult, error) {
	o = o.withDefaults()
	timeout := cmp.Or(o.Timeout, c.cfg.timeout())
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	create, parts, err := c.ProbePlan(ctx, o)
	if err != nil {
		return nil, err
	}
	res := &ProbeResult{Topic: o.Topic, Group: o.Group, Failures: []string{}}
	if create != nil {
		created, err := c.CreateTopics(ctx, []TopicSpec{*create}, CreateTopicsOptions{IfNotExists: true})
		if e, _ := FirstFailure(created); err == nil && e != nil {
			err = e
		}
		if err != nil {
			return nil, err
		}
		res.Created = len(created) == 1 && !created[0].Existed
		if parts, err = c.awaitProbeLeaders(ctx, o.Topic, len(parts)); err != nil {
			return nil, err
		}
	}
	res.Partitions = parts
	run := make([]byte, 8)
	_, _ = rand.Read(run)
	runID := hex.EncodeToString(run)

	// Where each partition ends now: the consumer starts there, before
	// anything is written, so that it sees the probe records as they come.
	tps := make([]TopicPartition, len(parts))
	for i, p := range parts {
		tps[i] = TopicPartition{Topic: o.Topic, Partition: p.Partition}
	}
	ends, err := c.listOffsets(ctx, tps, OffsetQuery{Kind: OffsetAtLatest})
	if err != nil {
		return nil, err
	}
	start := map[int32]kgo.Offset{}
	for _, e := range ends {
		if e.Err == nil {
			start[e.Partition] = kgo.NewOffset().At(e.Offset)
		}
	}
	c.probers.mu.Lock()
	defer c.probers.mu.Unlock()
	producer, consumer, err := c.probeClients()
	if err != nil {
		return nil, err
	}
	consumer.AddConsumePartitions(map[string]map[int32]kgo.Offset{o.Topic: start})
	defer consumer.RemoveConsumePartitions(map[string][]int32{o.Topic: slices.Collect(maps.Keys(start))})
	got := make(chan map[int32]time.Time, 1)
	// Reading back gets two thirds of the time: the commit, the rest.
	readCtx, readCancel := context.WithTimeout(ctx, timeout*2/3)
	defer readCancel()
	go func() { got <- readProbes(readCtx, consumer, runID, len(start)) }()

	recs := make([]ProduceRecord, len(parts))
	key := "kadmin-lua-probe"
	for i, p := range parts {
		v := runID + "/" + strconv.Itoa(int(p.Partition))
		recs[i] = ProduceRecord{Key: &key, Value: &v, Partition: p.Partition, Headers: []Header{{Key: "kadmin-lua-probe", Value: runID}}}
	}
	// A partition that cannot be written gives up after a third of the
	// probe's time, so that the others are read back and committed.
	pctx, pcancel := context.WithTimeout(ctx, timeout/3)
	produced, perr := c.produce(pctx, o.Topic, recs, ProduceOptions{}, producer)
	pcancel()
	if perr != nil {
		readCancel() // the reader has nothing to wait for
		<-got
		return nil, perr
	}
	received := <-got
	var commits []OffsetCommit
	for i := range res.Partitions {
		p := &res.Partitions[i]
		pr := produced[i]
		what := fmt.Sprintf("%s[%d] (leader %d)", o.Topic, p.Partition, p.Broker)
		if pr.Err != nil {
			p.Err = pr.Err
			res.Failures = append(res.Failures, fmt.Sprintf("%s: produce: %s", what, errText(pr.Err)))
			continue
		}
		p.Offset, p.ProduceMs = pr.Offset, ms(pr.acked.Sub(pr.sent))
		at, ok := received[p.Partition]
		if !ok {
			p.Err = Errorf(CodeTimeout, vocab.PartitionKey(o.Topic, p.Partition), "written at offset %d but not read back within %s", pr.Offset, timeout)
			res.Failures = append(res.Failures, fmt.Sprintf("%s: end-to-end: %s", what, p.Err.Message))
			continue
		}
		p.EndToEndMs = ms(at.Sub(pr.sent))
		commits = append(commits, OffsetCommit{Topic: o.Topic, Partition: p.Partition, Offset: pr.Offset + 1, LeaderEpoch: -1})
	}
	if len(commits) > 0 {
		began := time.Now()
		cres, cerr := c.CommitOffsets(ctx, o.Group, commits)
		took := time.Since(began)
		if e, _ := FirstFailure(cres); cerr == nil && e != nil {
			cerr = e
		}
		if cerr != nil {
			res.CommitErr = AsError(cerr, o.Group)
			res.Failures = append(res.Failures, fmt.Sprintf("commit to group %s: %s", o.Group, errText(res.CommitErr)))
		} else {
			res.CommitMs = ms(took)
		}
	}
	for _, p := range res.Partitions {
		if p.ProduceMs != nil && (res.ProduceMsMax == nil || *p.ProduceMs > *res.ProduceMsMax) {
			res.ProduceMsMax = p.ProduceMs
		}
		if p.EndToEndMs != nil && (res.EndToEndMsMax == nil || *p.EndToEndMs > *res.EndToEndMsMax) {
			res.EndToEndMsMax = p.EndToEndMs
		}
	}
	res.OK = len(res.Failures) == 0
	return res, nil
}

func errText(e *Error) string {
	c := *e
	c.Resource = ""
	return c.Error()
}

// awaitProbeLeaders waits until the new probe topic's partitions have
// leaders in the metadata.
func (c *Client) awaitProbeLeaders(ctx context.Context, topic string, n int) ([]ProbePartition, error) {
	for {
		m, err := c.freshMetadata(ctx, topic)
		if err == nil {
			if t, ok := m.Topics[topic]; ok && t.Err == nil && len(t.Partitions) == n {
				var parts []ProbePartition
				for p, pd := range t.Partitions {
					if pd.Leader >= 0 {
						parts = append(parts, ProbePartition{Partition: p, Broker: pd.Leader, Offset: -1})
					}
				}
				if len(parts) == n {
					slices.SortFunc(parts, func(a, b ProbePartition) int { return cmp.Compare(a.Partition, b.Partition) })
					return parts, nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return nil, Errorf(CodeTimeout, topic, "the probe topic was created but its partitions have no leaders yet")
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// probers are the probe's producer and consumer, made on the first probe
// and kept (closed with the client): a probe in a loop (run --every) then
// times the cluster, not connecting to it. mu is held for a whole probe.
type probers struct {
	mu       sync.Mutex
	producer *kgo.Client
	consumer *kgo.Client
}

func (p *probers) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, cl := range []*kgo.Client{p.producer, p.consumer} {
		if cl != nil {
			cl.Close()
		}
	}
	p.producer, p.consumer = nil, nil
}

// probeClients returns the probers, made when missing; called with mu held.
func (c *Client) probeClients() (producer, consumer *kgo.Client, err error) {
	p := &c.probers
	if p.producer == nil {
		// A record that cannot be written gives up after a few tries with
		// its last error (NOT_ENOUGH_REPLICAS, not a bare timeout).
		if p.producer, err = c.producer(kgo.AllISRAcks(), true, kgo.RecordRetries(3)); err != nil {
			return nil, nil, err
		}
	}
	if p.consumer == nil {
		opts, err := c.cfg.kgoOpts()
		if err != nil {
			return nil, nil, err
		}
		if p.consumer, err = kgo.NewClient(append(opts, kgo.WithHooks(c.contact), kgo.FetchMaxWait(200*time.Millisecond))...); err != nil {
			return nil, nil, AsError(err, "")
		}
	}
	return p.producer, p.consumer, nil
}

// readProbes polls until the run's record of each of n partitions has
// come, or ctx ends, and says when each came.
func readProbes(ctx context.Context, cl *kgo.Client, runID string, n int) map[int32]time.Time {
	seen := map[int32]time.Time{}
	for len(seen) < n && ctx.Err() == nil {
		fs := cl.PollFetches(ctx)
		now := time.Now()
		fs.EachRecord(func(r *kgo.Record) {
			for _, h := range r.Headers {
				if h.Key == "kadmin-lua-probe" && string(h.Value) == runID {
					if _, ok := seen[r.Partition]; !ok {
						seen[r.Partition] = now
					}
				}
			}
		})
	}
	return seen
}
