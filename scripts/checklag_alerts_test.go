package scripts_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kadmin-lua/kadmin-lua/engine/alerts"
	"github.com/kadmin-lua/kadmin-lua/engine/demo"
	"github.com/kadmin-lua/kadmin-lua/engine/state"
	"github.com/kadmin-lua/kadmin-lua/internal/testnet"
)

// alertEnv is a demo cluster whose runs share a state store, and a model
// of Alertmanager in $KADMIN_ALERT_URL. With trends, the store keeps a
// sample per run (Burrow's rules judge the window); without, it keeps one
// sample, which they cannot fail, so only the limits decide.
func alertEnv(t *testing.T, trends bool) (*env, *testnet.Alertmanager) {
	e := newEnv(t)
	opts := state.Options{MaxSamples: 1}
	if trends {
		// Each run is judged against the one before (the window is shorter
		// than the time between runs), as from cron.
		opts = state.Options{MinDistance: -1, Window: time.Millisecond}
	}
	e.state = state.New(opts)
	am := testnet.NewAlertmanager(t)
	t.Setenv("KADMIN_ALERT_URL", am.URL)
	return e, am
}

// advance produces n records to the audit topic (one partition) and
// commits group's offset there at committed.
func (e *env) advance(group string, n int, committed int64) {
	e.t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.c.Addrs...), kgo.DefaultProduceTopic(demo.TopicAudit))
	require.NoError(e.t, err)
	defer cl.Close()
	for i := range n {
		require.NoError(e.t, cl.ProduceSync(e.ctx(), &kgo.Record{Value: []byte(fmt.Sprint(i))}).FirstErr())
	}
	var os kadm.Offsets
	os.AddOffset(demo.TopicAudit, 0, committed, -1)
	_, err = e.adm.CommitOffsets(e.ctx(), group, os)
	require.NoError(e.t, err)
}

var (
	lagWarning  = map[string]string{"alertname": "KafkaConsumerGroupLag", "group": "lagger", "severity": "warning"}
	lagCritical = map[string]string{"alertname": "KafkaConsumerGroupLag", "group": "lagger", "severity": "critical"}
)

// A group that goes WARN (its lag keeps growing), then ERR (over --max),
// then OK (caught up): Alertmanager, which knows an alert by its label
// set, sees the warning resolved when the critical alert opens, and the
// critical one resolved with its own labels at OK. Nothing stays firing.
func TestCheckLagAlertsResolveInAlertmanager(t *testing.T) {
	e, am := alertEnv(t, true)
	const s = "check-lag.lua"
	check := func(max string) result {
		t.Helper()
		return e.ok(false, s, "lagger", "--max", max, "--min-complete", "0", "--alert", "alertmanager")
	}
	e.advance("lagger", 0, 50) // 60 records: 10 behind
	r := check("1000")
	assert.Equal(t, "OK", r.rows[0]["status"])
	assert.Contains(t, r.stderr, "alerts: unchanged (1 unchanged)", "nothing open: nothing to send")

	e.advance("lagger", 20, 55) // 25 behind: moving, but the lag grows
	r = check("1000")
	require.Equal(t, "WARN", r.rows[0]["status"], r.stderr)
	assert.Contains(t, r.stderr, "alerts: opened (1 opened)")
	assert.Equal(t, []map[string]string{lagWarning}, am.Firing())
	assert.Equal(t, "WARN", am.Alert(lagWarning).Annotations["verdict"])

	e.advance("lagger", 20, 60) // 40 behind, over --max 30
	r = check("30")
	assert.Equal(t, []string{"lagger: lags 40 records (max 30)"}, r.checks)
	assert.Equal(t, []map[string]string{lagCritical}, am.Firing(), "the warning resolved as the critical alert opened")

	e.advance("lagger", 0, 100) // caught up
	r = check("30")
	assert.Empty(t, r.checks)
	assert.Contains(t, r.stderr, "alerts: resolved (1 resolved)")
	assert.Empty(t, am.Firing(), "nothing left firing")
	assert.Equal(t, []map[string]string{lagWarning, lagCritical}, am.Opened())
	assert.ElementsMatch(t, am.Opened(), am.Resolved(), "each resolved with the labels it opened with")
	assert.Equal(t, 3, am.Posts())
}

// An alert the previous check-lag opened (its ledger entry has no labels)
// is resolved once with the labels that version sent: severity critical
// for an ERR.
func TestCheckLagResolvesAnAlertOpenedByTheVersionBefore(t *testing.T) {
	e, am := alertEnv(t, false)
	opened := time.Now().Add(-time.Hour)
	name := strings.Join(slices.Sorted(slices.Values(e.c.Addrs)), ",")
	require.NoError(t, e.state.Notices(name).SaveNotice(alerts.NoticeKey(am.URL, "check-lag/orders-processor"),
		alerts.Notice{Status: "ERR", OpenedMs: opened.UnixMilli(), SentMs: opened.UnixMilli()}))
	critical := map[string]string{"alertname": "KafkaConsumerGroupLag", "group": "orders-processor", "severity": "critical"}
	am.Send(t, critical, opened, opened.Add(8*time.Hour)) // what the previous version sent
	require.Equal(t, []map[string]string{critical}, am.Firing())

	r := e.ok(false, "check-lag.lua", "orders-processor", "--max", "100", "--alert", "alertmanager")
	assert.Contains(t, r.stderr, "alerts: resolved (1 resolved)")
	assert.Empty(t, am.Firing())
	assert.Equal(t, []map[string]string{critical}, am.Resolved())
	r = e.ok(false, "check-lag.lua", "orders-processor", "--max", "100", "--alert", "alertmanager")
	assert.Contains(t, r.stderr, "alerts: unchanged (1 unchanged)", "resolved once")
	assert.Equal(t, 2, am.Posts())
}

// --alert-after 2: a verdict is sent once two runs in a row gave it.
func TestCheckLagAlertAfter(t *testing.T) {
	e, am := alertEnv(t, false)
	const s = "check-lag.lua"
	run := func(max string) string {
		t.Helper()
		return e.ok(false, s, "orders-processor", "--max", max, "--alert", "alertmanager", "--alert-after", "2").stderr
	}
	assert.Contains(t, run("20"), "alerts: pending (1 pending)")
	assert.Contains(t, run("100"), "alerts: unchanged (1 unchanged)")
	assert.Contains(t, run("20"), "alerts: pending (1 pending)")
	assert.Zero(t, am.Posts(), "a flapping group sends nothing")
	assert.Contains(t, run("20"), "alerts: opened (1 opened)")
	assert.Len(t, am.Firing(), 1)
	assert.Contains(t, run("100"), "alerts: pending (1 pending)")
	assert.Contains(t, run("100"), "alerts: resolved (1 resolved)")
	assert.Empty(t, am.Firing())

	e.usage(s, "--alert-after goes with --alert", "--alert-after", "2")
	e.usage(s, `--alert-after must be a positive integer, got "0"`, "--alert", "json", "--alert-after", "0")
}

// On a cluster of more than 1,000 groups, every group's alert is sent:
// in two POSTs, none dropped (the run used to fail with INVALID_ARGUMENT).
func TestCheckLagAlertsPastAThousandGroups(t *testing.T) {
	e, am := alertEnv(t, false)
	var os kadm.Offsets
	os.AddOffset(demo.TopicAudit, 0, 0, -1)
	var wg sync.WaitGroup
	errs := make(chan error, 1001)
	for i := range 1001 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := e.adm.CommitOffsets(e.ctx(), fmt.Sprintf("many-%04d", i), os)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	r := e.ok(false, "check-lag.lua", "--max", "0", "--alert", "alertmanager")
	require.Len(t, r.rows, 1003)
	assert.Contains(t, r.stderr, "alerts: opened (1003 opened)")
	assert.Equal(t, 2, am.Posts())
	assert.Len(t, am.Firing(), 1003)
}

// A group within its limits whose window is filling (INCOMPLETE, with
// samples kept from the run before) has no verdict yet: its open alert is
// left as it is, not resolved on a guess, until the window is judged.
// (Without a state file, limits are the only verdict: TestCheckLagAlerts.)
func TestCheckLagKeepsAnAlertOpenWhileTheWindowFills(t *testing.T) {
	e := newEnv(t)
	var err error
	e.state, err = state.OpenFile(filepath.Join(t.TempDir(), "lag.state"), state.Options{MinDistance: -1, Window: time.Hour})
	require.NoError(t, err)
	t.Cleanup(e.state.Close)
	am := testnet.NewAlertmanager(t)
	t.Setenv("KADMIN_ALERT_URL", am.URL)
	run := func(max string, more ...string) result {
		t.Helper()
		return e.ok(false, "check-lag.lua", append([]string{"lagger", "--max", max, "--alert", "alertmanager"}, more...)...)
	}
	e.advance("lagger", 0, 50) // 10 behind
	r := run("5")
	require.Equal(t, []string{"lagger: lags 10 records (max 5)"}, r.checks)
	require.Equal(t, []map[string]string{lagCritical}, am.Firing())

	e.advance("lagger", 0, 55) // 5 behind: within --max, the hour's window not complete
	r = run("5")
	assert.Equal(t, "INCOMPLETE", r.rows[0]["status"], r.stderr)
	assert.Equal(t, []map[string]string{lagCritical}, am.Firing(), "no verdict yet: the alert stays open")
	assert.NotContains(t, r.stderr, "resolved")

	r = run("5", "--min-complete", "0") // judged now: OK
	assert.Contains(t, r.stderr, "alerts: resolved (1 resolved)")
	assert.Empty(t, am.Firing())
}
