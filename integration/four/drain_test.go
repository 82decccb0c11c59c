package four

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

// The done-when of issue 30's executor on a real cluster: a drain of
// broker 4 with a cap of 2 moves per broker never has more than that in
// flight at any sample of ListPartitionReassignments (every 200 ms); the
// process is killed with SIGKILL in the middle, and resuming finishes the
// run without sending any partition twice; the drained broker holds no
// replica and leadership is spread; undo puts every replica back.
func TestDrainPacedKillResumeUndo(t *testing.T) {
	c := need(t)
	const topic, partitions, perBroker = "drain", 6, 2
	before := map[int32][]int32{0: {4, 1}, 1: {4, 2}, 2: {4, 3}, 3: {1, 4}, 4: {2, 4}, 5: {3, 4}}
	var assign []string
	for p := int32(0); p < partitions; p++ {
		assign = append(assign, fmt.Sprintf("[%d] = {%d, %d}", p, before[p][0], before[p][1]))
	}
	res := runBinary(ctxFor(t, time.Minute), t, "--yes", "-e",
		fmt.Sprintf(`create_topics{{name = %q, assignment = {%s}}}`, topic, strings.Join(assign, ", ")))
	require.Equal(t, 0, res.Code, res.Stderr)
	waitLayout(t, topic, before)
	// 400 KiB a partition under a 100 KiB/s throttle: a few seconds a move,
	// so that three waves of two last long enough to kill the run between.
	const records, size = 400, 1024
	produce(t, topic, partitions, records, size)

	caps := sampleCaps(t)
	dir := t.TempDir()
	audit := filepath.Join(dir, "audit.jsonl")
	script := filepath.Join(dir, "drain.lua")
	require.NoError(t, os.WriteFile(script, []byte(fmt.Sprintf(`
local plan = plan_reassignment{topics = {%q}, brokers = {1, 2, 3}}
return reassign(plan, {max_moves_per_broker = %d, throttle = 100 * 1024, interval_ms = 200})
`, topic, perBroker)), 0o644))

	// The first run, killed once Kafka has answered its second batch: a
	// kill between a batch's intent line and its request (the request
	// never sent) is a resend the resume must make, so killing at the
	// intent line raced with the count below (engine/moves'
	// TestResumeAfterTheLogWasCutAtABatch covers that cut).
	cmd := exec.CommandContext(ctxFor(t, 2*time.Minute), binary, "-b", c.Bootstrap(), "--yes", "--audit-log", audit, "-o", "json", "run", script)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	var stderr kafkatest.SyncBuffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	kafkatest.WaitFor(t, "the run's second batch answered in the audit log", time.Minute, func() (bool, string) {
		n := readAudit(t, audit).answered
		return n >= 2, fmt.Sprintf("%d batch(es) answered", n)
	})
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	err := cmd.Wait()
	t.Logf("first run (killed):\n%s", stderr.String())
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	require.Equal(t, "killed", exit.ProcessState.Sys().(syscall.WaitStatus).Signal().String(), "killed before it finished")
	killed := readAudit(t, audit)
	require.NotEmpty(t, killed.runID)
	require.False(t, killed.ended, "the run has no outcome: it was killed mid-way")
	require.Less(t, len(killed.sent), partitions, "partitions were left to send when it was killed")

	// Resume: the run's own plan, from the log and the cluster.
	res = runBinary(ctxFor(t, 2*time.Minute), t, "--yes", "--audit-log", audit, "-o", "json", "-e",
		`return reassign(nil, {resume = true, interval_ms = 200})`)
	require.Equal(t, 0, res.Code, res.Stderr)
	var rows []struct {
		Partition int32   `json:"partition"`
		State     string  `json:"state"`
		Target    []int32 `json:"target"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.Stdout), &rows), res.Stdout)
	require.Len(t, rows, partitions)
	for _, r := range rows {
		assert.Equal(t, "done", r.State, "partition %d", r.Partition)
	}
	resumed := readAudit(t, audit)
	assert.Equal(t, killed.runID, resumed.runID, "the resumed run is the run killed, not a new one")
	assert.True(t, resumed.ended, "the resumed run wrote the run's outcome")
	for p := int32(0); p < partitions; p++ {
		assert.Equal(t, 1, resumed.sent[p], "partition %d sent exactly once over both processes", p)
	}

	// The cluster: nothing on broker 4, each partition at the run's
	// target, leadership spread over 1, 2 and 3, no record lost.
	after := layout(t, topic)
	leaders := map[int32]int{}
	for p, r := range after {
		assert.NotContains(t, r.replicas, int32(4), "partition %d", p)
		assert.Equal(t, resumed.targets[p], r.replicas, "partition %d at the run's target", p)
		assert.Equal(t, r.replicas[0], r.leader, "partition %d led by its preferred leader", p)
		leaders[r.leader]++
	}
	assert.Equal(t, map[int32]int{1: 2, 2: 2, 3: 2}, leaders, "leaders spread")
	assertRecords(t, topic, partitions, records)
	assert.Empty(t, throttles(t, topic), "the run lifted its throttles when its last move finished")

	// Undo: every partition back where it was, through the same caps.
	res = runBinary(ctxFor(t, 2*time.Minute), t, "undo", "--yes", audit)
	require.Equal(t, 0, res.Code, res.Stderr)
	waitLayout(t, topic, before)
	assertRecords(t, topic, partitions, records)
	assert.Empty(t, throttles(t, topic), "the undo lifted its throttles")

	peak := caps()
	t.Logf("caps: %d samples, peak %d moving, per broker %v", peak.samples, peak.cluster, peak.broker)
	assert.Positive(t, peak.cluster, "a sample saw moves in flight")
	for b, n := range peak.broker {
		assert.LessOrEqual(t, n, perBroker, "broker %d took part in more moves than the cap", b)
	}
}

// peaks are the most moves a sample saw in flight, in the cluster and per
// broker (joining or leaving).
type peaks struct {
	samples, cluster int
	broker           map[int32]int
}

// sampleCaps lists the reassignments in progress every 200 ms until the
// returned function is called, which returns the peaks seen.
func sampleCaps(t *testing.T) func() peaks {
	t.Helper()
	cl, err := need(t).Client(kgo.RetryTimeout(5 * time.Second))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	p := peaks{broker: map[int32]int{}}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			req := kmsg.NewPtrListPartitionReassignmentsRequest()
			req.TimeoutMillis = 5000
			if resp, err := req.RequestWith(ctx, cl); err == nil && resp.ErrorCode == 0 {
				moving, per := 0, map[int32]int{}
				for _, tp := range resp.Topics {
					for _, pt := range tp.Partitions {
						moving++
						for _, b := range slices.Concat(pt.AddingReplicas, pt.RemovingReplicas) {
							per[b]++
						}
					}
				}
				mu.Lock()
				p.samples++
				p.cluster = max(p.cluster, moving)
				for b, n := range per {
					p.broker[b] = max(p.broker[b], n)
				}
				mu.Unlock()
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	stop := func() peaks {
		cancel()
		wg.Wait()
		cl.Close()
		mu.Lock()
		defer mu.Unlock()
		return p
	}
	t.Cleanup(func() { stop() })
	return stop
}

// runLog is what the audit log says of the one reassign run in it.
// auditLine is what the test reads of an audit log line.
type auditLine struct {
	Type   string `json:"type"`
	ID     string `json:"id"`
	Op     string `json:"op"`
	Run    string `json:"run"`
	UndoOf string `json:"undo_of"`
	Args   struct {
		Moves      []auditTarget `json:"moves"`      // a run's plan
		Partitions []auditTarget `json:"partitions"` // a batch
	} `json:"args"`
}

type auditTarget struct {
	Partition int32   `json:"partition"`
	Replicas  []int32 `json:"replicas"`
}

type runLog struct {
	runID    string
	ended    bool
	targets  map[int32][]int32 // the run's plan
	batches  []string          // its batches' intent ids
	answered int               // its batches with an outcome line: Kafka answered them
	sent     map[int32]int     // per partition, the batches that sent it
}

func readAudit(t *testing.T, path string) runLog {
	t.Helper()
	r := runLog{targets: map[int32][]int32{}, sent: map[int32]int{}}
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return r
	}
	require.NoError(t, err)
	defer f.Close()
	var lines []auditLine
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l auditLine
		if json.Unmarshal(sc.Bytes(), &l) == nil { // a line torn by the kill is skipped
			lines = append(lines, l)
		}
	}
	for _, l := range lines {
		if l.Type == "intent" && l.Op == "reassign" && l.UndoOf == "" {
			r.runID = l.ID
			for _, m := range l.Args.Moves {
				r.targets[m.Partition] = m.Replicas
			}
		}
	}
	for _, l := range lines {
		switch {
		case r.runID == "":
		case l.Type == "outcome" && l.ID == r.runID:
			r.ended = true
		case l.Type == "outcome" && slices.Contains(r.batches, l.ID):
			r.answered++
		case l.Type == "intent" && l.Run == r.runID && l.Op == "alter_partition_reassignments":
			r.batches = append(r.batches, l.ID)
			for _, p := range l.Args.Partitions {
				r.sent[p.Partition]++
			}
		}
	}
	return r
}

type partitionLayout struct {
	replicas []int32 // in order: the first is the preferred leader
	leader   int32
}

// layout reads topic's replicas and leaders afresh.
func layout(t *testing.T, topic string) map[int32]partitionLayout {
	t.Helper()
	adm, err := need(t).AdminAs(kafkatest.MechPlain, kafkatest.AdminUser, kafkatest.AdminPassword)
	require.NoError(t, err)
	defer adm.Close()
	md, err := adm.Metadata(ctxFor(t, 30*time.Second), topic)
	require.NoError(t, err)
	out := map[int32]partitionLayout{}
	for _, p := range md.Topics[topic].Partitions {
		out[p.Partition] = partitionLayout{replicas: p.Replicas, leader: p.Leader}
	}
	return out
}

// waitLayout waits until topic's replicas are want (in order) and no
// reassignment of it is in progress.
func waitLayout(t *testing.T, topic string, want map[int32][]int32) {
	t.Helper()
	kafkatest.WaitFor(t, topic+" at its layout", time.Minute, func() (bool, string) {
		got := map[int32][]int32{}
		for p, l := range layout(t, topic) {
			got[p] = l.replicas
		}
		return fmt.Sprint(got) == fmt.Sprint(want), fmt.Sprint(got)
	})
}

// assertRecords checks every partition still ends at offset n.
func assertRecords(t *testing.T, topic string, partitions int32, n int64) {
	t.Helper()
	adm, err := need(t).AdminAs(kafkatest.MechPlain, kafkatest.AdminUser, kafkatest.AdminPassword)
	require.NoError(t, err)
	defer adm.Close()
	ends, err := adm.ListEndOffsets(ctxFor(t, 30*time.Second), topic)
	require.NoError(t, err)
	ends.Each(func(o kadm.ListedOffset) {
		assert.Equal(t, n, o.Offset, "partition %d", o.Partition)
	})
	assert.Len(t, ends[topic], int(partitions))
}

// throttles are the replication throttles set on the brokers (rates) and
// on topic (replica lists), as "broker 4: leader.replication.throttled.rate".
func throttles(t *testing.T, topic string) []string {
	t.Helper()
	adm, err := need(t).AdminAs(kafkatest.MechPlain, kafkatest.AdminUser, kafkatest.AdminPassword)
	require.NoError(t, err)
	defer adm.Close()
	ctx := ctxFor(t, 30*time.Second)
	brokers, err := adm.DescribeBrokerConfigs(ctx, need(t).NodeIDs()...)
	require.NoError(t, err)
	topics, err := adm.DescribeTopicConfigs(ctx, topic)
	require.NoError(t, err)
	var out []string
	for _, rc := range append(brokers, topics...) {
		require.NoError(t, rc.Err)
		for _, c := range rc.Configs {
			if strings.Contains(c.Key, "throttled") && c.Value != nil && *c.Value != "" &&
				(c.Source == kmsg.ConfigSourceDynamicBrokerConfig || c.Source == kmsg.ConfigSourceDynamicTopicConfig) {
				out = append(out, fmt.Sprintf("%s: %s=%s", rc.Name, c.Key, *c.Value))
			}
		}
	}
	return out
}
