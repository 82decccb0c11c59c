// Package movesim models partition reassignments on a kfake cluster, for
// the tests of the paced executor (engine/moves) and what is built on it.
// kfake accepts AlterPartitionReassignments and moves nothing, so the sim
// answers Metadata, ListPartitionReassignments, AlterPartitionAssignments,
// DescribeLogDirs, ElectLeaders and DescribeCluster from a layout of its
// own: a move copies bytes as the test's clock advances (Clock), ends when
// every broker it joins has the partition's bytes, and the sim records the
// most moves ever in flight, per broker and in the cluster, and every
// partition ever sent. Brokers can die, be fenced, and a partition can
// stall or be changed by someone else, at any step.
package movesim

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TP is a partition of the sim.
type TP struct {
	Topic     string
	Partition int32
}

func (t TP) String() string { return fmt.Sprintf("%s[%d]", t.Topic, t.Partition) }

type part struct {
	replicas []int32
	leader   int32
	size     int64
}

type move struct {
	original, adding, removing []int32
	copied                     map[int32]int64
}

// Sim is a kfake cluster whose partitions move as a real cluster's do,
// slowly.
type Sim struct {
	C     *kfake.Cluster
	Addrs []string

	mu      sync.Mutex
	hosts   map[int32][2]string // node -> host, port
	nodes   []int32
	dead    map[int32]bool // not in Metadata, copies nothing
	fenced  map[int32]bool // registered, fenced (DescribeCluster says so)
	topics  map[string][16]byte
	parts   map[TP]*part
	moving  map[TP]*move
	stuck   map[TP]bool
	speed   int64 // bytes per second each joining replica copies
	refuse  map[TP]*kerr.Error
	peak    int
	peakPer map[int32]int
	sent    map[TP]int // times each partition was sent a target
	fail    map[kmsg.Key][]*kerr.Error
	onPoll  time.Duration // time that passes at each ListPartitionReassignments
	batches int
	elected []TP
}

// New starts a kfake cluster of brokers (node ids 0..brokers-1) modelled
// by a sim copying speed bytes per second to each joining replica, closed
// with the test.
func New(t testing.TB, brokers int, speed int64) *Sim {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(brokers), kfake.ClusterID("movesim"))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	s := &Sim{C: c, Addrs: c.ListenAddrs(), hosts: map[int32][2]string{}, dead: map[int32]bool{}, fenced: map[int32]bool{},
		topics: map[string][16]byte{}, parts: map[TP]*part{}, moving: map[TP]*move{}, stuck: map[TP]bool{},
		speed: speed, refuse: map[TP]*kerr.Error{}, peakPer: map[int32]int{}, sent: map[TP]int{},
		fail: map[kmsg.Key][]*kerr.Error{}}
	for i, a := range s.Addrs {
		h, p, err := net.SplitHostPort(a)
		require.NoError(t, err)
		s.hosts[int32(i)] = [2]string{h, p}
		s.nodes = append(s.nodes, int32(i))
	}
	keep := func(fn func(kmsg.Request) kmsg.Response) func(kmsg.Request) (kmsg.Response, error, bool) {
		return func(r kmsg.Request) (kmsg.Response, error, bool) {
			c.KeepControl()
			s.mu.Lock()
			defer s.mu.Unlock()
			if errs := s.fail[kmsg.Key(r.Key())]; len(errs) > 0 {
				s.fail[kmsg.Key(r.Key())] = errs[1:]
				return failed(r, errs[0]), nil, true
			}
			return fn(r), nil, true
		}
	}
	c.ControlKey(int16(kmsg.Metadata), keep(s.metadata))
	c.ControlKey(int16(kmsg.ListPartitionReassignments), keep(s.list))
	c.ControlKey(int16(kmsg.AlterPartitionAssignments), keep(s.alter))
	c.ControlKey(int16(kmsg.DescribeLogDirs), keep(s.logDirs))
	c.ControlKey(int16(kmsg.ElectLeaders), keep(s.elect))
	c.ControlKey(int16(kmsg.DescribeCluster), keep(s.describeCluster))
	return s
}

// Topic adds a topic: each partition's replicas (the first its leader) and
// size in bytes. kfake holds it too, for its configs.
func (s *Sim) Topic(name string, replicas [][]int32, size int64) {
	if err := s.C.CreateTopic(name, int32(len(replicas)), nil); err != nil {
		panic(fmt.Sprintf("movesim: create %s: %v", name, err))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var id [16]byte
	copy(id[:], name)
	id[15] = byte(len(s.topics) + 1)
	s.topics[name] = id
	for p, r := range replicas {
		s.parts[TP{name, int32(p)}] = &part{replicas: slices.Clone(r), leader: r[0], size: size}
	}
}

// Replicas are a partition's replicas now (the union while it moves).
func (s *Sim) Replicas(topic string, p int32) []int32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.parts[TP{topic, p}].replicas)
}

// Leader is a partition's leader.
func (s *Sim) Leader(topic string, p int32) int32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.parts[TP{topic, p}].leader
}

// SetReplicas changes a partition behind the executor's back (someone
// else reassigned it).
func (s *Sim) SetReplicas(topic string, p int32, replicas []int32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	pt := s.parts[TP{topic, p}]
	pt.replicas, pt.leader = slices.Clone(replicas), replicas[0]
	delete(s.moving, TP{topic, p})
}

// StartMove starts a reassignment as another tool would.
func (s *Sim) StartMove(topic string, p int32, target []int32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.start(TP{topic, p}, target)
}

// CancelMove cancels a reassignment as another tool would.
func (s *Sim) CancelMove(topic string, p int32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cancel(TP{topic, p})
}

// Stuck stops (or restarts) copying to a partition's joining replicas.
func (s *Sim) Stuck(topic string, p int32, stuck bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stuck[TP{topic, p}] = stuck
}

// Kill stops broker b as KRaft sees a dead broker: out of the metadata,
// registered but fenced; it copies nothing until Revive.
func (s *Sim) Kill(b int32) { s.mu.Lock(); s.dead[b], s.fenced[b] = true, true; s.mu.Unlock() }

// Revive brings broker b back.
func (s *Sim) Revive(b int32) {
	s.mu.Lock()
	delete(s.dead, b)
	delete(s.fenced, b)
	s.mu.Unlock()
}

// FailNext answers the next n requests of key (ListPartitionReassignments
// or AlterPartitionAssignments) with e as a whole, as a controller that
// moved does (NOT_CONTROLLER).
func (s *Sim) FailNext(key kmsg.Key, e *kerr.Error, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.fail[key] = append(s.fail[key], e)
	}
}

func failed(r kmsg.Request, e *kerr.Error) kmsg.Response {
	switch r := r.(type) {
	case *kmsg.ListPartitionReassignmentsRequest:
		resp := r.ResponseKind().(*kmsg.ListPartitionReassignmentsResponse)
		resp.ErrorCode = e.Code
		return resp
	case *kmsg.AlterPartitionAssignmentsRequest:
		resp := r.ResponseKind().(*kmsg.AlterPartitionAssignmentsResponse)
		resp.ErrorCode = e.Code
		return resp
	}
	panic(fmt.Sprintf("movesim: FailNext of %T", r))
}

// Refuse makes the next targets sent for a partition fail with e.
func (s *Sim) Refuse(topic string, p int32, e *kerr.Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuse[TP{topic, p}] = e
}

// Peak is the most partitions moving at once, and per broker the most
// moves it took part in at once (joining or leaving).
func (s *Sim) Peak() (int, map[int32]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	per := map[int32]int{}
	for b, n := range s.peakPer {
		per[b] = n
	}
	return s.peak, per
}

// ResetPeak forgets the peaks so far: a test measures one phase.
func (s *Sim) ResetPeak() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.peak, s.peakPer = 0, map[int32]int{}
}

// Sent is how many times each partition was sent a target, and how many
// AlterPartitionAssignments requests moved something.
func (s *Sim) Sent() (map[TP]int, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[TP]int{}
	for k, v := range s.sent {
		out[k] = v
	}
	return out, s.batches
}

// Elected are the partitions a preferred election moved the leader of.
func (s *Sim) Elected() []TP {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.elected)
}

// Moving is the number of partitions moving.
func (s *Sim) Moving() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.moving)
}

// AdvanceOnPoll lets d pass at each ListPartitionReassignments answer:
// for a caller that sleeps on the real clock (a Lua script).
func (s *Sim) AdvanceOnPoll(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onPoll = d
}

// Advance lets d pass: each move's joining replicas on live brokers copy
// speed*d bytes; a move whose every joining replica has the partition's
// bytes ends.
func (s *Sim) Advance(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advance(d)
}

func (s *Sim) advance(d time.Duration) {
	n := int64(float64(s.speed) * d.Seconds())
	for _, tp := range sortedKeys(s.moving) {
		m, pt := s.moving[tp], s.parts[tp]
		done := true
		for _, b := range m.adding {
			if !s.dead[b] && !s.stuck[tp] {
				m.copied[b] = min(m.copied[b]+n, pt.size)
			}
			if m.copied[b] < pt.size || s.dead[b] {
				done = false
			}
		}
		if done {
			s.finish(tp)
		}
	}
}

// start begins moving tp to target (s.mu held).
func (s *Sim) start(tp TP, target []int32) {
	pt := s.parts[tp]
	cur := pt.replicas
	if m, ok := s.moving[tp]; ok {
		cur = m.original
	}
	adding, removing := minus(target, cur), minus(cur, target)
	if len(adding) == 0 && len(removing) == 0 { // a new order: at once
		pt.replicas = slices.Clone(target)
		delete(s.moving, tp)
		return
	}
	pt.replicas = append(slices.Clone(target), removing...)
	m := &move{original: slices.Clone(cur), adding: adding, removing: removing, copied: map[int32]int64{}}
	s.moving[tp] = m
	if len(adding) == 0 {
		s.finish(tp)
	}
	s.notePeak()
}

// finish completes tp's move: the replicas are the target; a leader that
// left gives way to the target's first live replica.
func (s *Sim) finish(tp TP) {
	pt, m := s.parts[tp], s.moving[tp]
	pt.replicas = minus(pt.replicas, m.removing)
	if !slices.Contains(pt.replicas, pt.leader) {
		for _, b := range pt.replicas {
			if !s.dead[b] {
				pt.leader = b
				break
			}
		}
	}
	delete(s.moving, tp)
}

func (s *Sim) cancel(tp TP) bool {
	m, ok := s.moving[tp]
	if !ok {
		return false
	}
	pt := s.parts[tp]
	pt.replicas = m.original // Kafka puts the replicas back as they were, in order
	delete(s.moving, tp)
	return true
}

func (s *Sim) notePeak() {
	s.peak = max(s.peak, len(s.moving))
	per := map[int32]int{}
	for _, m := range s.moving {
		for _, b := range m.adding {
			per[b]++
		}
		for _, b := range m.removing {
			per[b]++
		}
	}
	for b, n := range per {
		s.peakPer[b] = max(s.peakPer[b], n)
	}
}

func minus(a, b []int32) []int32 {
	out := []int32{}
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// Clock is a test clock for the executor whose Sleep lets the sim's time
// pass at once.
type Clock struct {
	Sim *Sim
	mu  sync.Mutex
	now time.Time
	// OnSleep, when set, runs at each sleep (after the time passed) with
	// the number of sleeps so far: a test injects faults there.
	OnSleep func(n int)
	sleeps  int
}

// NewClock is a clock at a fixed time driving sim.
func NewClock(sim *Sim) *Clock {
	return &Clock{Sim: sim, now: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)}
}

func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.sleeps++
	n := c.sleeps
	c.mu.Unlock()
	if c.Sim != nil {
		c.Sim.Advance(d)
	}
	if c.OnSleep != nil {
		c.OnSleep(n)
	}
	return ctx.Err()
}

func port(s string) int32 {
	p, _ := strconv.Atoi(s)
	return int32(p)
}
