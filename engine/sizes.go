package engine

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// Sizes on disk, from DescribeLogDirs (every broker's replicas and their
// sizes) and Metadata (who leads each partition, each broker's rack, the
// replicas a broker should hold even when it cannot be asked). Every size
// is in bytes, as the brokers report them: the size of the replica's log
// segments. A future replica (being moved between log dirs of its broker)
// counts in bytes, which are on the disk, but not as a replica.

// replicaSize is one replica in one log dir.
type replicaSize struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Broker    int32  `json:"broker"`
	Dir       string `json:"dir"`
	Bytes     int64  `json:"bytes"`
	Leader    bool   `json:"leader"`
	IsFuture  bool   `json:"is_future"`
	OffsetLag int64  `json:"offset_lag"`
}

// TopicSize is one topic (or, per partition, one partition of it), its
// replicas summed. Bytes counts every replica, LeaderBytes the leaders'
// replicas only: the data once.
type TopicSize struct {
	Topic               string `json:"topic"`
	Partition           *int32 `json:"partition,omitempty"` // per partition
	Leader              *int32 `json:"leader,omitempty"`    // per partition: its leader (-1 for none)
	Partitions          int    `json:"partitions"`
	Replicas            int    `json:"replicas"`
	Leaders             int    `json:"leaders"` // partitions whose leader's replica was measured
	Bytes               int64  `json:"bytes"`
	LeaderBytes         int64  `json:"leader_bytes"`
	LargestReplicaBytes int64  `json:"largest_replica_bytes"`
}

// BrokerSize is one broker (Dir "") or one of its log dirs.
type BrokerSize struct {
	Broker      int32  `json:"broker"`
	Rack        string `json:"rack"`
	Dir         string `json:"dir,omitempty"`
	Dirs        int    `json:"dirs"`
	Replicas    int    `json:"replicas"`
	Leaders     int    `json:"leaders"`
	Bytes       int64  `json:"bytes"`
	LeaderBytes int64  `json:"leader_bytes"`
	TotalBytes  int64  `json:"total_bytes"`  // the dirs' volumes; -1 when unknown
	UsableBytes int64  `json:"usable_bytes"` // free on them; -1 when unknown
	Err         *Error `json:"error,omitempty"`
}

func (b BrokerSize) Key() string {
	if b.Dir != "" {
		return fmt.Sprintf("broker %d %s", b.Broker, b.Dir)
	}
	return brokerKey(b.Broker)
}
func (b BrokerSize) Failure() *Error { return b.Err }

// SizesOptions choose what sizes cover and how fine the rows are.
type SizesOptions struct {
	Topics []string // these topics only; every topic when empty
	// Per is the row: for topic sizes "topic" (default) or "partition";
	// for broker sizes "broker" (default) or "dir".
	Per string
}

// sizeData is one look at the cluster: every replica measured, the
// leaders, the racks, and the brokers that could not be asked.
type sizeData struct {
	replicas []replicaSize
	dirs     []LogDir
	leaders  map[TopicPartition]int32
	assigned map[TopicPartition][]int32 // replicas per Metadata
	racks    map[int32]string
	brokers  []int32 // every broker in Metadata or holding a replica, sorted
}

func (c *Client) lookSizes(ctx context.Context, topics []string) (*sizeData, error) {
	var names []string
	if len(topics) > 0 {
		names = slices.Compact(slices.Sorted(slices.Values(topics)))
	}
	m, e := c.metadata(ctx, names)
	if e != nil {
		return nil, e
	}
	d := &sizeData{leaders: map[TopicPartition]int32{}, assigned: map[TopicPartition][]int32{}, racks: map[int32]string{}}
	seen := map[int32]bool{}
	for _, b := range m.Brokers {
		seen[b.NodeID] = true
		if b.Rack != nil {
			d.racks[b.NodeID] = *b.Rack
		}
	}
	for name, t := range m.Topics {
		if t.Err != nil {
			return nil, AsError(t.Err, name)
		}
		for p, pd := range t.Partitions {
			tp := TopicPartition{Topic: name, Partition: p}
			d.leaders[tp] = pd.Leader
			d.assigned[tp] = pd.Replicas
			for _, r := range pd.Replicas {
				seen[r] = true
			}
		}
	}
	d.brokers = slices.Sorted(func(yield func(int32) bool) {
		for b := range seen {
			if !yield(b) {
				return
			}
		}
	})
	dirs, err := c.DescribeLogDirs(ctx, LogDirsQuery{Topics: names})
	if err != nil {
		return nil, err
	}
	d.dirs = dirs
	for _, dir := range dirs {
		if dir.Err != nil {
			continue // an offline dir's replicas cannot be measured
		}
		for _, p := range dir.Partitions {
			tp := TopicPartition{Topic: p.Topic, Partition: p.Partition}
			if _, ok := d.leaders[tp]; !ok && len(names) > 0 {
				continue
			}
			d.replicas = append(d.replicas, replicaSize{Topic: p.Topic, Partition: p.Partition, Broker: dir.Broker, Dir: dir.Dir,
				Bytes: p.Size, Leader: !p.IsFuture && d.leaders[tp] == dir.Broker, IsFuture: p.IsFuture, OffsetLag: p.OffsetLag})
		}
	}
	slices.SortFunc(d.replicas, func(a, b replicaSize) int {
		return cmp.Or(comparePartition(a.Topic, a.Partition, b.Topic, b.Partition), cmp.Compare(a.Broker, b.Broker),
			cmp.Compare(a.Dir, b.Dir), cmp.Compare(boolInt(a.IsFuture), boolInt(b.IsFuture)))
	})
	return d, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// firstDirError is the first broker or log dir that could not be read:
// sizes without it would be too small.
func (d *sizeData) firstDirError(op string) error {
	for _, dir := range d.dirs {
		if dir.Err != nil {
			e := *dir.Err
			e.Message += fmt.Sprintf(" (%s would be incomplete without it: broker_sizes shows each broker's error)", op)
			return &e
		}
	}
	return nil
}

// TopicSizes is the size on disk of topics: a row per topic (o.Per
// "topic"), sorted by bytes, largest first, then name, or per partition
// ("partition"), sorted by topic and partition. It fails when a broker or
// log dir cannot be read, since the sums would be short; broker_sizes
// shows which.
func (c *Client) TopicSizes(ctx context.Context, o SizesOptions) ([]TopicSize, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	d, err := c.lookSizes(ctx, o.Topics)
	if err != nil {
		return nil, err
	}
	if err := d.firstDirError("topic_sizes"); err != nil {
		return nil, err
	}
	perPartition := o.Per == "partition"
	type key struct {
		topic     string
		partition int32
	}
	keyOf := func(tp TopicPartition) key {
		if perPartition {
			return key{tp.Topic, tp.Partition}
		}
		return key{tp.Topic, -1}
	}
	by := map[key]*TopicSize{}
	for tp, leader := range d.leaders {
		k := keyOf(tp)
		t := by[k]
		if t == nil {
			t = &TopicSize{Topic: tp.Topic}
			if perPartition {
				p, l := tp.Partition, leader
				t.Partition, t.Leader = &p, &l
			}
			by[k] = t
		}
		t.Partitions++
	}
	for _, r := range d.replicas {
		t := by[keyOf(TopicPartition{Topic: r.Topic, Partition: r.Partition})]
		if t == nil {
			continue
		}
		t.Bytes += r.Bytes
		if !r.IsFuture {
			t.Replicas++
			t.LargestReplicaBytes = max(t.LargestReplicaBytes, r.Bytes)
		}
		if r.Leader {
			t.Leaders++
			t.LeaderBytes += r.Bytes
		}
	}
	out := make([]TopicSize, 0, len(by))
	for _, t := range by {
		out = append(out, *t)
	}
	slices.SortFunc(out, func(a, b TopicSize) int {
		if perPartition {
			return comparePartition(a.Topic, *a.Partition, b.Topic, *b.Partition)
		}
		return cmp.Or(cmp.Compare(b.Bytes, a.Bytes), cmp.Compare(a.Topic, b.Topic))
	})
	return out, nil
}

// BrokerSizes is the size on disk per broker (o.Per "broker") or per log
// dir ("dir"), of every topic or of o.Topics, sorted by broker then dir.
// A broker that could not be asked gets a row with its error and the
// replicas Metadata says it holds; bytes are then unknown (-1).
func (c *Client) BrokerSizes(ctx context.Context, o SizesOptions) ([]BrokerSize, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	d, err := c.lookSizes(ctx, o.Topics)
	if err != nil {
		return nil, err
	}
	return d.brokerSizes(o.Per == "dir"), nil
}

func (d *sizeData) brokerSizes(perDir bool) []BrokerSize {
	type key struct {
		broker int32
		dir    string
	}
	by := map[key]*BrokerSize{}
	row := func(b int32, dir string) *BrokerSize {
		if !perDir {
			dir = ""
		}
		k := key{b, dir}
		if by[k] == nil {
			by[k] = &BrokerSize{Broker: b, Rack: d.racks[b], Dir: dir, TotalBytes: -1, UsableBytes: -1}
		}
		return by[k]
	}
	addVolume := func(have, more int64) int64 {
		if more < 0 {
			return have
		}
		return max(have, 0) + more
	}
	for _, b := range d.brokers {
		if !perDir {
			row(b, "")
		}
	}
	for _, dir := range d.dirs {
		r := row(dir.Broker, dir.Dir)
		if dir.Err != nil {
			if r.Err == nil {
				r.Err = dir.Err
			}
			r.Bytes = -1
			continue
		}
		r.Dirs++
		r.TotalBytes, r.UsableBytes = addVolume(r.TotalBytes, dir.TotalBytes), addVolume(r.UsableBytes, dir.UsableBytes)
	}
	for _, rep := range d.replicas {
		r := row(rep.Broker, rep.Dir)
		if r.Bytes >= 0 {
			r.Bytes += rep.Bytes
		}
		if !rep.IsFuture {
			r.Replicas++
		}
		if rep.Leader {
			r.Leaders++
			r.LeaderBytes += rep.Bytes
		}
	}
	// A broker not read in full (down, its answer failed, a dir offline)
	// still holds the replicas Metadata gives it.
	for _, r := range by {
		if r.Err == nil || r.Dir != "" {
			continue
		}
		r.Replicas, r.Leaders, r.LeaderBytes = 0, 0, 0
		for tp, rs := range d.assigned {
			if slices.Contains(rs, r.Broker) {
				r.Replicas++
				if d.leaders[tp] == r.Broker {
					r.Leaders++
				}
			}
		}
	}
	out := make([]BrokerSize, 0, len(by))
	for _, r := range by {
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b BrokerSize) int { return cmp.Or(cmp.Compare(a.Broker, b.Broker), cmp.Compare(a.Dir, b.Dir)) })
	return out
}

// String is the progress line's part: "12.0 MiB of 40.0 MiB copied (30.0%)".
func (b ReassignBytes) String() string {
	return fmt.Sprintf("%s of %s copied (%.1f%%)", humanBytes(b.Copied), humanBytes(b.Total), b.Percent)
}

// HumanBytes is n in binary units: "1.2 GiB", "512 B".
func HumanBytes(n int64) string { return vocab.HumanBytes(n) }

func humanBytes(n int64) string { return vocab.HumanBytes(n) }
