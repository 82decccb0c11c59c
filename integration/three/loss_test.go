package three

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

// lossScript loops until the stop file exists: each iteration creates a
// new RF-3 topic, lists the end offsets of a topic with one single-replica
// partition per broker and describes it, and prints one JSON line per call
// saying what succeeded (per partition for list_offsets). At the end it
// raises the last Kafka error, if any, so the run exits 3.
const lossScript = `
local prefix, rf1, stopfile = arg[1], arg[2], arg[3]
local last_err
local function step(i, op, fn, ...)
  local ok, res = pcall(fn, ...)
  local line = {i = i, op = op, ok = ok}
  local rows = res
  if not ok then
    line.code = res.code
    line.error = tostring(res)
    rows = res.results
    last_err = res
  end
  if op == "create" and ok then line.topic = res[1].name end
  if op == "describe" and ok then
    line.leaders = {}
    for _, p in ipairs(res[1].partitions) do line.leaders[p.partition + 1] = p.leader end
  end
  if op == "offsets" and rows then
    line.offsets, line.failed = {}, {}
    for _, r in ipairs(rows) do
      if r.error then line.failed[#line.failed + 1] = r.partition
      else line.offsets[tostring(r.partition)] = r.offset end
    end
  end
  print(kafka.json.encode(line))
end
local i = 0
while i < 300 do
  local f = io.open(stopfile)
  if f then f:close(); break end
  i = i + 1
  step(i, "create", create_topics, {{name = prefix .. i, partitions = 1, replication_factor = 3}})
  step(i, "offsets", list_offsets, rf1)
  step(i, "describe", describe_topics, rf1)
  kafka.sleep(200)
end
print(kafka.json.encode({done = i}))
if last_err then error(last_err) end
`

type lossLine struct {
	I       int       `json:"i"`
	Op      string    `json:"op"`
	OK      bool      `json:"ok"`
	Topic   string    `json:"topic"`
	Leaders []int32   `json:"leaders"`
	Offsets offsetMap `json:"offsets"`
	Failed  []int32   `json:"failed"`
	Code    string    `json:"code"`
	Error   string    `json:"error"`
	Done    *int      `json:"done"`
}

// Broker loss: a script runs calls through the real binary while one of
// the three brokers is killed (SIGKILL) and later restarted. Each call
// succeeds or fails per item, nothing hangs, the run exits 3, every topic
// the script says it created exists, every offset it reports is the real
// one and every partition it says failed really had no live leader.
func TestBrokerLoss(t *testing.T) {
	c := need(t)
	e := newEnv(t)
	const rf1, prefix, victim = "it3-loss-rf1", "it3-loss-", int32(2)
	const records = 7
	// One single-replica partition per broker: partition 1 lives on broker 2 only.
	e.run(fmt.Sprintf(`create_topics{{name = %q, assignment = {[0] = {1}, [1] = {2}, [2] = {3}}}}`, rf1))
	waitISR(t, rf1, time.Minute)
	produce(t, rf1, 3, records, 100)

	dir := t.TempDir()
	script := filepath.Join(dir, "loss.lua")
	stop := filepath.Join(dir, "stop")
	require.NoError(t, os.WriteFile(script, []byte(lossScript), 0o644))
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "-b", c.Bootstrap(), "--timeout", "5s", "run", script, prefix, rf1, stop)
	cmd.Env = append(os.Environ(), "HOME="+dir)
	var stderr kafkatest.SyncBuffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	lines := make(chan lossLine)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var l lossLine
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				l = lossLine{Op: "garbage", Error: sc.Text()}
			}
			lines <- l
		}
	}()
	var all []lossLine
	// next reads lines until cond holds for one; the script must keep
	// making progress, so a stall is a failure.
	next := func(what string, cond func(l lossLine) bool) lossLine {
		t.Helper()
		for {
			select {
			case l, ok := <-lines:
				require.True(t, ok, "script ended while waiting for %s; stderr:\n%s", what, stderr.String())
				all = append(all, l)
				if l.Op == "garbage" {
					t.Errorf("script printed a non-JSON line: %s", l.Error)
				}
				if !l.OK && l.Done == nil {
					t.Logf("script: %+v", l)
				}
				if cond(l) {
					return l
				}
			case <-time.After(90 * time.Second):
				t.Fatalf("script made no progress for 90s while waiting for %s; stderr:\n%s", what, stderr.String())
			}
		}
	}

	next("3 iterations", func(l lossLine) bool { return l.I == 3 && l.Op == "describe" })
	began := time.Now()
	require.NoError(t, c.KillNode(victim))
	t.Logf("killed broker %d", victim)
	killedAt := len(all)

	failed := next("list_offsets to fail for partition 1", func(l lossLine) bool { return l.Op == "offsets" && !l.OK })
	t.Logf("first failed list_offsets after %s: %s", time.Since(began).Round(time.Millisecond), failed.Error)
	next("describe to show partition 1 leaderless", func(l lossLine) bool {
		return l.Op == "describe" && l.OK && len(l.Leaders) == 3 && l.Leaders[1] == -1
	})
	next("an RF-3 create to succeed with the broker down", func(l lossLine) bool {
		return l.Op == "create" && l.OK && l.I > failed.I
	})

	// The same through -e while the broker is down: without partial the run
	// exits 3 naming the partition; with partial=true the two live
	// partitions are listed and the dead one carries its error.
	res := runBinary(ctxFor(t, 2*time.Minute), t, "--timeout", "3s", "-e",
		fmt.Sprintf(`list_offsets(%q)`, rf1))
	assert.Equal(t, 3, res.Code, "stdout:\n%s\nstderr:\n%s", res.Stdout, res.Stderr)
	assert.Contains(t, res.Stderr, rf1)
	res = runBinary(ctxFor(t, 2*time.Minute), t, "--timeout", "3s", "-o", "json", "-e",
		fmt.Sprintf(`list_offsets(%q, "latest", {partial = true})`, rf1))
	require.Equal(t, 0, res.Code, "stderr:\n%s", res.Stderr)
	var rows []struct {
		Partition int32 `json:"partition"`
		Offset    int64 `json:"offset"`
		Error     *struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.Stdout), &rows), res.Stdout)
	require.Len(t, rows, 3, res.Stdout)
	assert.Nil(t, rows[0].Error)
	assert.Equal(t, int64(records), rows[0].Offset)
	assert.NotNil(t, rows[1].Error, "partition 1 has no live replica")
	assert.Nil(t, rows[2].Error)
	assert.Equal(t, int64(records), rows[2].Offset)

	require.NoError(t, c.StartNode(ctxFor(t, 2*time.Minute), victim))
	t.Logf("restarted broker %d after %s", victim, time.Since(began).Round(time.Millisecond))
	back := next("list_offsets to succeed again", func(l lossLine) bool { return l.Op == "offsets" && l.OK && l.I > failed.I })
	next("one more iteration", func(l lossLine) bool { return l.Op == "describe" && l.I > back.I })
	require.NoError(t, os.WriteFile(stop, nil, 0o644))
	for l := range lines {
		all = append(all, l)
	}
	err = cmd.Wait()
	require.NoError(t, ctx.Err(), "the script hung; stderr:\n%s", stderr.String())
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "the script must fail: some calls failed")
	assert.Equal(t, 3, ee.ExitCode(), "a Kafka error exits 3; stderr:\n%s", stderr.String())
	assert.Contains(t, stderr.String(), "list_offsets")
	require.NotNil(t, all[len(all)-1].Done, "the loop ended by itself: %+v", all[len(all)-1])

	// Every claim checked against the cluster through a separate client,
	// once the broker it asks lists every topic the script says it created
	// (a broker applies creates from the metadata log on its own time; one
	// just restarted may still be catching up).
	var td kadm.TopicDetails
	adm := admin(t)
	kafkatest.WaitFor(t, "the topics the script created listed", time.Minute, func() (bool, string) {
		var err error
		if td, err = adm.ListTopics(ctxFor(t, time.Minute)); err != nil {
			return false, err.Error()
		}
		var missing []string
		n := 0
		for _, l := range all {
			if l.Op == "create" && l.OK {
				n++
				if !td.Has(l.Topic) {
					missing = append(missing, l.Topic)
				}
			}
		}
		if len(missing) > 0 {
			return false, fmt.Sprintf("not yet listed: %v", missing)
		}
		return true, fmt.Sprintf("all %d listed", n)
	})
	var created, createFailed, offsetsOK, offsetsFailed int
	for i, l := range all {
		switch {
		case l.Op == "create" && l.OK:
			created++
			if assert.True(t, td.Has(l.Topic), "script said it created %s", l.Topic) {
				assert.Len(t, td[l.Topic].Partitions[0].Replicas, 3, l.Topic)
			}
		case l.Op == "create":
			createFailed++
			name := fmt.Sprintf("%s%d", prefix, l.I)
			assert.False(t, td.Has(name), "script said creating %s failed (%s) but it exists", name, l.Error)
		case l.Op == "offsets":
			// Offsets reported are the real ones; only partition 1 (on the
			// dead broker) may fail, and only after the kill.
			for p, off := range l.Offsets {
				assert.Equal(t, int64(records), off, "partition %s in %+v", p, l)
			}
			if l.OK {
				offsetsOK++
				assert.Len(t, l.Offsets, 3, "%+v", l)
			} else {
				offsetsFailed++
				assert.Greater(t, i, killedAt, "only calls after the kill may fail: %+v", l)
				assert.Equal(t, []int32{1}, l.Failed, "%+v", l)
				assert.Len(t, l.Offsets, 2, "%+v", l)
			}
		case l.Op == "describe":
			assert.True(t, l.OK, "describe_topics works with a broker down: %+v", l)
		}
	}
	// No topic of ours exists that the script did not report.
	for _, name := range td.Names() {
		if strings.HasPrefix(name, prefix) && name != rf1 {
			found := false
			for _, l := range all {
				found = found || (l.Op == "create" && l.OK && l.Topic == name)
			}
			assert.True(t, found, "topic %s exists but the script did not report creating it", name)
		}
	}
	t.Logf("%d iterations: creates %d ok, %d failed; list_offsets %d ok, %d failed (partition 1)",
		*all[len(all)-1].Done, created, createFailed, offsetsOK, offsetsFailed)
	assert.Positive(t, offsetsFailed)
	assert.Zero(t, createFailed, "RF-3 creates go on: Kafka places followers on a fenced broker when it must")

	waitWhole(t, rf1)
}

// offsetMap is partition -> offset; an empty Lua table encodes as [].
type offsetMap map[string]int64

func (m *offsetMap) UnmarshalJSON(b []byte) error {
	if string(b) == "[]" {
		*m = offsetMap{}
		return nil
	}
	return json.Unmarshal(b, (*map[string]int64)(m))
}
