package scripts_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/kadmin-lua/kadmin-lua/engine/state"
)

// check-lag judges a group by Burrow's rules once its window is whole
// (--min-complete, 1 by default): before that it is INCOMPLETE, never OK,
// and the WARN line says why. A first run with --state says the state
// file keeps the samples (it used to say --state was missing).
func TestCheckLagJudgesWholeWindows(t *testing.T) {
	e := newEnv(t)
	// A window of a millisecond, with no minimum distance between samples:
	// the second run's is whole without waiting 45 s.
	store, err := state.OpenFile(filepath.Join(t.TempDir(), "lag.state"), state.Options{Window: time.Millisecond, MinDistance: -1})
	require.NoError(t, err)
	defer store.Close()
	e.state = store
	const s = "check-lag.lua"

	r := e.ok(false, s, "billing")
	assert.Empty(t, r.checks)
	assert.Equal(t, "INCOMPLETE", r.rows[0]["status"])
	assert.Equal(t, 0.0, r.rows[0]["complete"])
	assert.Contains(t, r.stderr, "1 group not judged by Burrow's rules yet: the least complete window covers 0% of --state-window (--min-complete 1); the state store (--state) keeps the samples for the next runs; no limit is given: nothing but a missing group can fail them")
	assert.NotContains(t, r.stderr, "no --state FILE")
	assert.NotContains(t, r.metrics, "kafka_consumergroup_status{group=billing}", "no verdict to give")

	// The next run's window is whole: billing has no member and its
	// offsets stood still, STOP.
	r = e.ok(false, s, "billing")
	require.Len(t, r.checks, 1)
	assert.Regexp(t, `^billing: ERR: payments\[\d\] is STOP \(stopped\)$`, r.checks[0])
	assert.Equal(t, "ERR", r.rows[0]["status"])
	assert.Equal(t, 1.0, r.rows[0]["complete"])
	assert.Equal(t, 3.0, r.metrics["kafka_consumergroup_status{group=billing}"])
	assert.Equal(t, 1.0, r.metrics["kafka_consumergroup_window_complete{group=billing}"])
	assert.NotContains(t, r.stderr, "not judged")

	e.usage(s, `--min-complete must be a number from 0 to 1, got "2"`, "--min-complete", "2")
	e.usage(s, `--min-complete must be a number from 0 to 1, got "nan"`, "--min-complete", "nan")
}

// Records deleted before a group read them fail --max-seconds: its lag in
// time is at least the oldest record left, and how much more is unknown.
// (Its max_lag_ms was 0 and it passed any --max-seconds.)
func TestCheckLagMaxSecondsFailsLostRecords(t *testing.T) {
	e := newEnv(t)
	_, err := e.adm.DeleteRecords(e.ctx(), kadm.Offsets{"payments": {0: {Topic: "payments", Partition: 0, At: 30}}})
	require.NoError(t, err)
	r := e.ok(false, "check-lag.lua", "billing", "--max-seconds", "86400")
	require.Len(t, r.checks, 1)
	assert.Regexp(t, `^billing: lost 2 records unread: lags at least \d+ seconds, how much more is not known \(max 86400\)$`, r.checks[0])
	assert.Positive(t, r.rows[0]["max_lag_seconds"], "the floor, not 0")
}
