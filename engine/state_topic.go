package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kadmin-lua/kadmin-lua/engine/state"
)

// The state store kept in a compacted topic of the cluster it samples
// (--state kafka:TOPIC[/KEY]): engine/state's Remote, written here because
// only the core holds a Kafka client. A CronJob's pod has no disk that
// outlives it; the cluster does.
//
// One state (a store's encoding, as the file holds it) is a version made of
// parts of at most StatePartBytes, each a record keyed
// "kadmin-lua-state/v1/CLUSTER-ID/KEY/part-N", and a head record keyed
// "kadmin-lua-state/v1/CLUSTER-ID/KEY" saying how many parts there are,
// their size, a CRC-32 of the whole, and the offset of the first: all of
// a version go to one partition (a hash of the head's key) in one
// transaction, so that a reader with read_committed sees a whole version
// or none, and compaction keeps the newest record of each key (a version
// with fewer parts than the one before deletes the extra ones in the same
// transaction). The key carries the cluster id, so that a topic mirrored
// from another cluster (MirrorMaker) is never read as this one's.
//
// The only writer of a state is its run's transactional producer: its
// transactional.id is fixed per topic and key ("kadmin-lua-state/TOPIC/KEY"),
// so a run that takes the state (Take, before its first change) fences
// any older run still going, whose write then fails, and aborts the write
// a killed run left open. Take comes before Read: the state a run starts
// from is the newest any run committed.

// StatePartBytes is the largest part of a version: well within Kafka's
// default max.message.bytes (1 MiB) with room for the batch's framing.
const StatePartBytes = 512 << 10

// StateTopicConfigs are the configs a state topic is created with.
//   - cleanup.policy=compact: the newest record of each key is kept forever;
//     a version replaced is removed once compacted.
//   - segment.ms=1h: only closed segments are compacted, and the default
//     (7 days) would keep a week of versions (a run every minute writes
//     10,000 a week).
//   - min.compaction.lag.ms=10min: a version stays readable for 10 minutes
//     after it is replaced, so that a run that only reads (and takes
//     nothing), having found a head, still finds its parts; an operator can
//     read the version before a bad run for that long.
var StateTopicConfigs = map[string]string{
	"cleanup.policy":        "compact",
	"segment.ms":            "3600000",
	"min.compaction.lag.ms": "600000",
}

// stateTxnTimeout bounds a state's write: a killed run's open transaction
// blocks the readers of its partition (read_committed) at most this long.
const stateTxnTimeout = 60 * time.Second

// DefaultStableWait is how long Read waits for another writer's open
// transaction in the state's partition to end before it reads what is
// committed before it.
const DefaultStableWait = 10 * time.Second

// StateTopic is a state store's Remote in a topic of the cluster its
// config reaches (engine/state.OpenRemote). Its calls are bounded by the
// config's timeout.
type StateTopic struct {
	c     *Client // its own client: the run's config, the same cluster and credentials
	topic string
	key   string
	warn  func(string)
	// StableWait: how long Read waits for an open transaction in the
	// state's partition (DefaultStableWait).
	StableWait time.Duration

	mu        sync.Mutex
	clusterID string
	txn       *kgo.Client // the transactional producer, made by Take
	created   bool        // Take created the topic: the next Read finds nothing
	parts     int         // the parts of the version read (Write deletes those it no longer makes)
	dryWarned bool
}

// NewStateTopic keeps a state in topic under key (KEY of kafka:TOPIC/KEY),
// on the cluster cfg reaches with cfg's credentials: never another. The
// topic is created on first change (through the audited CreateTopics);
// under cfg.DryRun nothing is created, taken nor written. warn receives
// what the run should be told (nil: nothing).
func NewStateTopic(cfg Config, topic, key string, warn func(string)) (*StateTopic, error) {
	if topic == "" || key == "" || strings.Contains(key, "/") {
		return nil, Errorf(CodeInvalidArgument, "", "state topic %q, key %q: a topic and a key without /", topic, key)
	}
	cfg.State, cfg.Notices = nil, nil
	c, err := New(cfg)
	if err != nil {
		return nil, err
	}
	if warn == nil {
		warn = func(string) {}
	}
	return &StateTopic{c: c, topic: topic, key: key, warn: warn, StableWait: DefaultStableWait}, nil
}

func (st *StateTopic) String() string { return "kafka:" + st.topic + "/" + st.key }

// Cost is what the state's own client has cost since it was made, its
// phases (PhaseStateTake, PhaseStateRead, PhaseStateWrite) included: the
// requests of the runs that keep their state here.
func (st *StateTopic) Cost() Cost { return st.c.Cost() }

// TransactionalID is the state's writer: fixed per topic and key.
func (st *StateTopic) TransactionalID() string { return "kadmin-lua-state/" + st.topic + "/" + st.key }

// StateHeadKey is the key of the state's head record on cluster id.
func StateHeadKey(clusterID, key string) string {
	return "kadmin-lua-state/v1/" + clusterID + "/" + key
}

func statePartKey(head string, i int) string { return fmt.Sprintf("%s/part-%d", head, i) }

// statePartition is where a state's records go: all of them in one.
func statePartition(head string, partitions int) int32 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(head))
	return int32(h.Sum32() % uint32(max(partitions, 1)))
}

// stateHead is the head record's value.
type stateHead struct {
	Format      int    `json:"format"`
	Generation  string `json:"generation"`
	Parts       int    `json:"parts"`
	PartBytes   int    `json:"part_bytes"`
	Bytes       int64  `json:"bytes"`
	CRC32       uint32 `json:"crc32"`
	FirstOffset int64  `json:"first_offset"`
	WrittenMs   int64  `json:"written_ms"`
	Writer      string `json:"writer"`
}

const stateHeadFormat = 1

// Header names on the state's records.
const (
	stateKindHeader = "kadmin-lua-state" // "head" or "part"
	stateGenHeader  = "generation"
)

func (st *StateTopic) ctx() (context.Context, context.CancelFunc) {
	return st.c.callCtx(context.Background())
}

// id is the cluster's id, asked once.
func (st *StateTopic) id(ctx context.Context) (string, error) {
	if st.clusterID == "" {
		id, err := st.c.ClusterID(ctx)
		if err != nil {
			return "", st.explain(err, "reaching the cluster")
		}
		st.clusterID = id
	}
	return st.clusterID, nil
}

// Take makes this run the state's only writer: it creates the topic when
// missing, then starts the transactional producer, which fences any older
// run's and aborts a write a killed run left open. Under dry-run it does
// nothing: a dry run must not stop a real run from writing.
func (st *StateTopic) Take() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.c.cfg.DryRun || st.txn != nil {
		return nil
	}
	defer st.c.phase(PhaseStateTake)()
	ctx, cancel := st.ctx()
	defer cancel()
	if err := st.ensureTopic(ctx); err != nil {
		return err
	}
	txn, err := st.c.producer(kgo.AllISRAcks(), true,
		kgo.TransactionalID(st.TransactionalID()),
		kgo.TransactionTimeout(stateTxnTimeout),
		kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		return err
	}
	if _, _, err := txn.ProducerID(ctx); err != nil {
		txn.Close()
		return st.explain(err, "taking the state (transactional id "+st.TransactionalID()+")")
	}
	st.txn = txn
	return nil
}

// ensureTopic creates the topic when it does not exist; one that exists
// is refused when it is not a state topic (refuseOtherTopic), and warned
// of when it is not compacted (its versions would be deleted by
// retention).
func (st *StateTopic) ensureTopic(ctx context.Context) error {
	exists, n, internal, err := st.topicMeta(ctx)
	if err != nil {
		return err
	}
	if exists {
		if err := st.refuseOtherTopic(ctx, n, internal); err != nil {
			return err
		}
	}
	if !exists {
		res, err := st.c.CreateTopics(ctx, []TopicSpec{{Name: st.topic, Partitions: 1, Configs: StateTopicConfigs}}, CreateTopicsOptions{IfNotExists: true})
		if err == nil && len(res) == 1 && res[0].Err != nil {
			err = res[0].Err
		}
		if err != nil {
			return st.explain(err, "creating the state topic")
		}
		st.created = !res[0].Existed
		return nil
	}
	cfgs, err := st.c.DescribeConfigs(ctx, []ConfigResource{{Type: ConfigTopic, Name: st.topic}}, DescribeConfigsOptions{})
	if err != nil || len(cfgs) != 1 || cfgs[0].Err != nil {
		return nil // not allowed to look: the records will say
	}
	if v := cfgs[0].Configs["cleanup.policy"].Value; v == nil || !strings.Contains(*v, "compact") {
		policy := "none"
		if v != nil {
			policy = *v
		}
		st.warn(fmt.Sprintf("state: topic %s has cleanup.policy=%s, not compact: retention will delete the state (alter it: cleanup.policy=compact)", st.topic, policy))
	}
	return nil
}

// Write replaces the state with data: its parts, the deletion of the parts
// the version before had beyond them, and the head, in one transaction. A
// run fenced by a newer one writes nothing. Under dry-run nothing is
// written, and the run is told once.
func (st *StateTopic) Write(data []byte) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.c.cfg.DryRun {
		if !st.dryWarned {
			st.dryWarned = true
			st.warn(fmt.Sprintf("dry-run: the state is read from %s, not written", st))
		}
		return nil
	}
	if st.txn == nil {
		return Errorf(CodeInternal, "", "writing %s before taking it", st)
	}
	defer st.c.phase(PhaseStateWrite)()
	ctx, cancel := st.ctx()
	defer cancel()
	id, err := st.id(ctx)
	if err != nil {
		return err
	}
	_, n, err := st.partitions(ctx)
	if err != nil {
		return err
	}
	head := StateHeadKey(id, st.key)
	p := statePartition(head, n)
	gen := newGeneration()
	record := func(key string, value []byte, kind string) *kgo.Record {
		r := &kgo.Record{Topic: st.topic, Partition: p, Key: []byte(key), Value: value}
		if kind != "" {
			r.Headers = []kgo.RecordHeader{{Key: stateKindHeader, Value: []byte(kind)}, {Key: stateGenHeader, Value: []byte(gen)}}
		}
		return r
	}
	var parts []*kgo.Record
	for i := 0; i*StatePartBytes < len(data); i++ {
		parts = append(parts, record(statePartKey(head, i), data[i*StatePartBytes:min((i+1)*StatePartBytes, len(data))], "part"))
	}
	if err := st.txn.BeginTransaction(); err != nil {
		return st.letGo(ctx, err)
	}
	abort := func(err error) error { return st.letGo(ctx, err) }
	if err := st.txn.ProduceSync(ctx, parts...).FirstErr(); err != nil {
		return abort(err)
	}
	h := stateHead{Format: stateHeadFormat, Generation: gen, Parts: len(parts), PartBytes: StatePartBytes, Bytes: int64(len(data)),
		CRC32: crc32.ChecksumIEEE(data), FirstOffset: parts[0].Offset, WrittenMs: time.Now().UnixMilli(), Writer: writerName()}
	hv, _ := json.Marshal(h)
	var rest []*kgo.Record
	for i := len(parts); i < st.parts; i++ {
		rest = append(rest, record(statePartKey(head, i), nil, "")) // a tombstone: compaction drops the key
	}
	rest = append(rest, record(head, hv, "head"))
	if err := st.txn.ProduceSync(ctx, rest...).FirstErr(); err != nil {
		return abort(err)
	}
	if err := st.txn.EndTransaction(ctx, kgo.TryCommit); err != nil {
		return abort(err)
	}
	st.parts = len(parts)
	return nil
}

// letGo ends a write that failed: its transaction is aborted and the
// producer closed, since a fenced one (or one whose transaction could not
// end) can never write again. The state is no longer this run's: the
// store's next change takes it anew (Take: a new producer, which also
// aborts what this one left open) and reads the newest version first.
func (st *StateTopic) letGo(ctx context.Context, err error) error {
	_ = st.txn.EndTransaction(ctx, kgo.TryAbort)
	st.txn.Close()
	st.txn = nil
	return st.explain(err, "writing the state")
}

// Close closes the producer (a write not committed is aborted by the
// broker) and the client.
func (st *StateTopic) Close() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.txn != nil {
		st.txn.Close()
		st.txn = nil
	}
	st.c.Close()
}

// explain says what failed, on which state, and for a refusal what the
// run's principal needs.
func (st *StateTopic) explain(err error, doing string) error {
	e := AsError(err, "")
	out := *e
	out.Message = fmt.Sprintf("state %s: %s: %s", st, doing, e.Message)
	switch {
	case errors.Is(err, kerr.ProducerFenced), errors.Is(err, kerr.InvalidProducerEpoch), errors.Is(err, kerr.TransactionalIDNotFound):
		out.Message = fmt.Sprintf("state %s: another run took the state since this run started (its producer fenced this one's): this run's samples are not written", st)
	case IsDenied(e):
		out.Message += fmt.Sprintf(" (the state needs, for this run's principal: DESCRIBE, READ and WRITE on topic %s, and CREATE for the first run unless the topic is made beforehand; DESCRIBE and WRITE on transactional id %s)", st.topic, st.TransactionalID())
	}
	return &out
}

func newGeneration() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// writerName says which process wrote a version, for an operator reading
// the topic after overlapping runs.
func writerName() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("kadmin-lua pid %d on %s", os.Getpid(), host)
}

var _ state.Remote = (*StateTopic)(nil)
