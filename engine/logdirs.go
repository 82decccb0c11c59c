package engine

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
)

// LogDirPartition is one replica in a log dir.
type LogDirPartition struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Size      int64  `json:"size"`
	OffsetLag int64  `json:"offset_lag"`
	IsFuture  bool   `json:"is_future"` // a replica being moved into this dir
}

// LogDir is one row of DescribeLogDirs: one broker's log directory. A
// broker that could not be asked has a row with Dir "" and the error.
type LogDir struct {
	Broker      int32             `json:"broker"`
	Dir         string            `json:"dir"`
	TotalBytes  int64             `json:"total_bytes"`
	UsableBytes int64             `json:"usable_bytes"`
	Partitions  []LogDirPartition `json:"partitions"`
	Err         *Error            `json:"error,omitempty"`
}

func (d LogDir) Key() string     { return fmt.Sprintf("broker %d %s", d.Broker, d.Dir) }
func (d LogDir) Failure() *Error { return d.Err }

// LogDirsQuery limits DescribeLogDirs: no brokers means every broker, no
// topics every partition.
type LogDirsQuery struct {
	Brokers []int32
	Topics  []string
}

func brokerKey(b int32) string { return fmt.Sprintf("broker %d", b) }

// DescribeLogDirs describes brokers' log directories and the replicas in
// them, a row per broker and dir sorted by broker then dir. TotalBytes and
// UsableBytes are -1 from brokers older than Kafka 3.3.
func (c *Client) DescribeLogDirs(ctx context.Context, q LogDirsQuery) ([]LogDir, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	known, e := c.sortedBrokerIDs(ctx)
	if e != nil {
		return nil, e
	}
	brokers := slices.Clone(q.Brokers)
	if len(brokers) == 0 {
		brokers = known
	}
	slices.Sort(brokers)
	brokers = slices.Compact(brokers)
	var set kadm.TopicsSet
	if len(q.Topics) > 0 {
		m, e := c.metadata(ctx, slices.Compact(slices.Sorted(slices.Values(q.Topics))))
		if e != nil {
			return nil, e
		}
		set = kadm.TopicsSet{}
		for _, n := range slices.Compact(slices.Sorted(slices.Values(q.Topics))) {
			t, ok := m.Topics[n]
			if !ok || t.Err != nil {
				return nil, AsError(cmp.Or(t.Err, error(kerr.UnknownTopicOrPartition)), n)
			}
			for p := range t.Partitions {
				set.Add(n, p)
			}
		}
	}
	found := map[int32]kadm.DescribedLogDirs{}
	ask, errs := splitUnknownBrokers(brokers, known, brokerKey)
	asked := retryItems(ctx, ask, brokerKey, func(ctx context.Context, pending []int32) (map[int32]*Error, error) {
		answers := map[int32]*Error{}
		for _, b := range pending {
			ds, err := c.adm.DescribeBrokerLogDirs(ctx, b, set)
			if err == nil {
				found[b] = ds
			}
			answers[b] = AsError(err, brokerKey(b))
		}
		return answers, nil
	})
	maps.Copy(errs, asked)
	var out []LogDir
	for _, b := range brokers {
		if errs[b] != nil {
			out = append(out, LogDir{Broker: b, Partitions: []LogDirPartition{}, Err: errs[b]})
			continue
		}
		for _, d := range found[b].Sorted() {
			row := LogDir{Broker: b, Dir: d.Dir, TotalBytes: d.TotalBytes, UsableBytes: d.UsableBytes, Partitions: []LogDirPartition{}}
			row.Err = AsError(d.Err, row.Key())
			for _, p := range d.Topics.Sorted() {
				row.Partitions = append(row.Partitions, LogDirPartition{Topic: p.Topic, Partition: p.Partition, Size: p.Size, OffsetLag: p.OffsetLag, IsFuture: p.IsFuture})
			}
			out = append(out, row)
		}
	}
	return out, nil
}

// LogDirMove asks a broker to move its replica of a partition into Dir.
type LogDirMove struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Broker    int32  `json:"broker"`
	Dir       string `json:"dir"`
}

func (m LogDirMove) String() string {
	return fmt.Sprintf("%s[%d] on broker %d to %s", m.Topic, m.Partition, m.Broker, m.Dir)
}

// MovedReplica is one result of AlterReplicaLogDirs.
type MovedReplica struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Broker    int32  `json:"broker"`
	Dir       string `json:"dir"`
	Err       *Error `json:"error,omitempty"`
}

func (m MovedReplica) Key() string {
	return LogDirMove{m.Topic, m.Partition, m.Broker, m.Dir}.String()
}
func (m MovedReplica) Failure() *Error { return m.Err }

// AlterReplicaLogDirs moves replicas between log dirs of their brokers, a
// result per move sorted by topic, partition, broker. The broker copies the
// data in the background (a "future" replica in DescribeLogDirs until it
// catches up). Asking again for a move already under way is harmless, so
// retriable errors are retried.
func (c *Client) AlterReplicaLogDirs(ctx context.Context, moves []LogDirMove) ([]MovedReplica, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	slices.SortFunc(moves, func(a, b LogDirMove) int {
		return cmp.Or(cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition), cmp.Compare(a.Broker, b.Broker))
	})
	for i := 1; i < len(moves); i++ {
		if a, b := moves[i-1], moves[i]; a.Topic == b.Topic && a.Partition == b.Partition && a.Broker == b.Broker {
			return nil, Errorf(CodeInvalidArgument, b.String(), "%s[%d] on broker %d is moved twice", b.Topic, b.Partition, b.Broker)
		}
	}
	known, e := c.sortedBrokerIDs(ctx)
	if e != nil {
		return nil, e
	}
	keys := make([]string, len(moves))
	for i, m := range moves {
		keys[i] = m.String()
	}
	return mutate(ctx, c, mutation[[]LogDirMove, []MovedReplica]{
		op: "alter_replica_log_dirs", keys: keys,
		args: struct {
			Moves []LogDirMove `json:"moves"`
		}{moves},
		before: func(ctx context.Context) ([]LogDirMove, error) { return c.replicaDirs(ctx, moves) },
		send: func(ctx context.Context, _ []LogDirMove) ([]MovedReplica, error) {
			return c.moveReplicas(ctx, moves, known), nil
		},
		items: asItems[MovedReplica],
	})
}

// replicaDirs is where each moved replica is now (Dir "" when not found):
// alter_replica_log_dirs' before-state.
func (c *Client) replicaDirs(ctx context.Context, moves []LogDirMove) ([]LogDirMove, error) {
	var brokers []int32
	var topics []string
	for _, m := range moves {
		brokers, topics = append(brokers, m.Broker), append(topics, m.Topic)
	}
	dirs, err := c.DescribeLogDirs(ctx, LogDirsQuery{Brokers: brokers, Topics: topics})
	if err != nil {
		return nil, err
	}
	out := make([]LogDirMove, len(moves))
	for i, m := range moves {
		out[i] = LogDirMove{Topic: m.Topic, Partition: m.Partition, Broker: m.Broker}
		for _, d := range dirs {
			for _, p := range d.Partitions {
				if d.Broker == m.Broker && p.Topic == m.Topic && p.Partition == m.Partition && !p.IsFuture {
					out[i].Dir = d.Dir
				}
			}
		}
	}
	return out, nil
}

func (c *Client) moveReplicas(ctx context.Context, moves []LogDirMove, known []int32) []MovedReplica {
	ask, errs := splitUnknownBrokers(moves, known, LogDirMove.String)
	asked := retryItems(ctx, ask, LogDirMove.String, func(ctx context.Context, pending []LogDirMove) (map[LogDirMove]*Error, error) {
		byBroker := map[int32]kadm.AlterReplicaLogDirsReq{}
		for _, m := range pending {
			r := byBroker[m.Broker]
			r.Add(m.Dir, kadm.TopicsSet{m.Topic: {m.Partition: {}}})
			byBroker[m.Broker] = r
		}
		answers := map[LogDirMove]*Error{}
		for b, req := range byBroker {
			resp, err := c.adm.AlterBrokerReplicaLogDirs(ctx, b, req)
			for _, m := range pending {
				if m.Broker != b {
					continue
				}
				if err != nil {
					answers[m] = AsError(err, m.String())
					continue
				}
				if r, ok := resp[m.Topic][m.Partition]; ok {
					answers[m] = AsError(r.Err, m.String())
				}
			}
		}
		return answers, nil
	})
	maps.Copy(errs, asked)
	out := make([]MovedReplica, 0, len(moves))
	for _, m := range moves {
		out = append(out, MovedReplica{Topic: m.Topic, Partition: m.Partition, Broker: m.Broker, Dir: m.Dir, Err: errs[m]})
	}
	return out
}

// brokerIDs lists the cluster's brokers, sorted.
func (c *Client) sortedBrokerIDs(ctx context.Context) ([]int32, *Error) {
	var md kadm.Metadata
	if e := retryCall(ctx, "", func(ctx context.Context) (err error) {
		md, err = c.adm.BrokerMetadata(ctx)
		return err
	}); e != nil {
		return nil, e
	}
	ids := md.Brokers.NodeIDs()
	slices.Sort(ids)
	return ids, nil
}

// splitUnknownBrokers fails the items addressed to brokers not in the
// cluster (BROKER_NOT_AVAILABLE, final: asking would only time out) and
// returns the others.
func splitUnknownBrokers[K comparable](items []K, known []int32, key func(K) string) ([]K, map[K]*Error) {
	errs := map[K]*Error{}
	var ask []K
	for _, it := range items {
		var b int32
		switch v := any(it).(type) {
		case int32:
			b = v
		case LogDirMove:
			b = v.Broker
		}
		if !slices.Contains(known, b) {
			errs[it] = &Error{Code: kerr.BrokerNotAvailable.Message, Message: fmt.Sprintf("no broker %d in the cluster", b), Resource: key(it)}
			continue
		}
		ask = append(ask, it)
	}
	return ask, errs
}
