package moves

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/internal/movesim"
)

// env is a sim cluster, an audited engine client on it, a separate kadm
// client, and the clock the executor sleeps on.
type env struct {
	sim   *movesim.Sim
	cl    *engine.Client
	adm   *kadm.Client
	clock *movesim.Clock
	audit string
	logs  *lines
}

// lines collects what the executor says.
type lines struct {
	mu  sync.Mutex
	all []string
}

func (l *lines) add(level, msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.all = append(l.all, level+" "+msg)
}

func (l *lines) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.all...)
}

func newEnv(t *testing.T, brokers int, speed int64) *env {
	t.Helper()
	sim := movesim.New(t, brokers, speed)
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	log, err := auditlog.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { _ = log.Close() })
	cl, err := engine.New(engine.Config{Brokers: sim.Addrs, Timeout: 5 * time.Second, Audit: log})
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	kc, err := kgo.NewClient(kgo.SeedBrokers(sim.Addrs...))
	require.NoError(t, err)
	t.Cleanup(kc.Close)
	e := &env{sim: sim, cl: cl, adm: kadm.NewClient(kc), clock: movesim.NewClock(sim), audit: path, logs: &lines{}}
	t.Cleanup(func() {
		if t.Failed() {
			for _, l := range e.logs.get() {
				t.Log(l)
			}
		}
	})
	return e
}

// opts are o with the env's clock and log.
func (e *env) opts(o Options) Options {
	o.Clock, o.Log = e.clock, e.logs.add
	return o
}

func (e *env) changes(t *testing.T) []auditlog.Change {
	t.Helper()
	changes, problems, err := auditlog.ReadFile(e.audit, auditlog.Options{})
	require.NoError(t, err)
	require.Empty(t, problems)
	return changes
}

// drainPlan moves every replica off broker 3 of a topic of n partitions
// on brokers {0,1,3} and {1,2,3}...: each partition's replica on 3 goes to
// the broker of 0..2 it does not have.
func drainPlan(e *env, topic string, n int, size int64) []Move {
	var replicas [][]int32
	var plan []Move
	for p := 0; p < n; p++ {
		a, b := int32(p%3), int32((p+1)%3)
		c := int32((p + 2) % 3)
		cur := []int32{3, a, b}
		if p%2 == 1 {
			cur = []int32{a, 3, b}
		}
		replicas = append(replicas, cur)
		target := []int32{c, a, b}
		if p%2 == 1 {
			target = []int32{a, c, b}
		}
		plan = append(plan, Move{Topic: topic, Partition: int32(p), Current: cur, Target: target})
	}
	e.sim.Topic(topic, replicas, size)
	return plan
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}
