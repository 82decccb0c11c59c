package alerts

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// With AfterRuns 3, a flapping alert sends nothing; a status is sent once
// three calls in a row saw it, opening and resolving alike; a status that
// comes back before then clears the count.
func TestNotifyAfterRunsHoldsFlapping(t *testing.T) {
	n, clock, am := amNotifier(t, NewMemoryLedger())
	send := func(status string) Outcome {
		t.Helper()
		*clock = clock.Add(time.Minute)
		res, err := n.Notify(context.Background(), Request{URL: vocab.Secret(am.URL), Format: FormatAlertmanager, AfterRuns: 3,
			StatusLabels: severityByStatus, Alerts: []Alert{{Key: "lag/p0", Status: status, Labels: labels("alertname", "Lag", "partition", "0")}}})
		require.NoError(t, err)
		require.Len(t, res.Alerts, 1)
		return res.Alerts[0]
	}
	// The flapping partition of issue 27: 12 notifications in 9 minutes.
	for i := range 6 {
		assert.Equal(t, Outcome{Key: "lag/p0", Status: "WARN", Reason: ReasonPending, Runs: 1}, send("WARN"), "flap %d", i)
		assert.Equal(t, ReasonUnchanged, send("OK").Reason)
	}
	assert.Zero(t, am.Posts(), "nothing sent while flapping")

	assert.Equal(t, 1, send("WARN").Runs)
	assert.Equal(t, 2, send("WARN").Runs)
	assert.Equal(t, Outcome{Key: "lag/p0", Status: "WARN", Reason: ReasonOpened, Sent: true}, send("WARN"), "opens at the 3rd WARN in a row")
	warning := labels("alertname", "Lag", "partition", "0", "severity", "warning")
	assert.Equal(t, []map[string]string{warning}, am.Firing())
	a := am.Alert(warning)
	assert.Equal(t, clock.Add(-2*time.Minute), a.StartsAt, "startsAt: the first call that saw it")

	// Escalation is held too; a WARN in between starts the count again.
	assert.Equal(t, ReasonPending, send("ERR").Reason)
	assert.Equal(t, ReasonUnchanged, send("WARN").Reason)
	assert.Equal(t, 1, send("ERR").Runs)
	assert.Equal(t, 2, send("ERR").Runs)
	assert.Equal(t, ReasonOpened, send("ERR").Reason)
	assert.Equal(t, []map[string]string{labels("alertname", "Lag", "partition", "0", "severity", "critical")}, am.Firing())

	// Resolving is held as well.
	assert.Equal(t, ReasonPending, send("OK").Reason)
	assert.Equal(t, ReasonPending, send("OK").Reason)
	assert.Equal(t, ReasonResolved, send("OK").Reason)
	assert.Empty(t, am.Firing())
	assert.ElementsMatch(t, am.Opened(), am.Resolved())
	assert.Equal(t, 3, am.Posts())
}

// An open alert whose new status is still pending is repeated as it
// opened when its repeat interval passes, so Alertmanager does not let it
// lapse meanwhile.
func TestNotifyRepeatsAnOpenAlertWhileAChangeIsPending(t *testing.T) {
	n, clock, am := amNotifier(t, nil)
	send := func(after time.Duration, status string) string {
		t.Helper()
		*clock = clock.Add(after)
		res, err := n.Notify(context.Background(), Request{URL: vocab.Secret(am.URL), Format: FormatAlertmanager, AfterRuns: 2,
			RepeatInterval: time.Hour, StatusLabels: severityByStatus, Alerts: []Alert{{Key: "k", Status: status, Labels: labels("alertname", "Lag")}}})
		require.NoError(t, err)
		return res.Reason
	}
	send(0, "WARN")
	assert.Equal(t, ReasonOpened, send(time.Minute, "WARN"))
	assert.Equal(t, ReasonRepeat, send(2*time.Hour, "OK"), "pending OK, but the warning is due again")
	assert.Equal(t, []map[string]string{labels("alertname", "Lag", "severity", "warning")}, am.Firing())
	assert.Equal(t, ReasonResolved, send(time.Minute, "OK"))
	assert.Empty(t, am.Firing())
}

// More alerts than one POST takes are sent in several, none dropped:
// 1,000 a POST for Alertmanager and JSON, 50 a message for Slack.
func TestNotifySplitsManyAlertsIntoPosts(t *testing.T) {
	n, _, am := amNotifier(t, nil)
	many := func(k int) []Alert {
		out := make([]Alert, k)
		for i := range out {
			out[i] = Alert{Status: "ERR", Labels: labels("alertname", "Lag", "group", fmt.Sprintf("g%04d", i))}
		}
		return out
	}
	res, err := n.Notify(context.Background(), Request{URL: vocab.Secret(am.URL), Format: FormatAlertmanager, Alerts: many(2500)})
	require.NoError(t, err)
	assert.True(t, res.Sent)
	assert.Equal(t, 3, res.Posts)
	assert.Equal(t, 3, am.Posts())
	assert.Len(t, am.Firing(), 2500)
	for _, a := range res.Alerts {
		require.True(t, a.Sent, a.Key)
	}

	h := newHook(t)
	res, err = n.Notify(context.Background(), Request{URL: vocab.Secret(h.URL), Format: FormatSlack, SlackBlocks: true, Alerts: many(120)})
	require.NoError(t, err)
	assert.Equal(t, 3, res.Posts)
	seen := 0
	for _, b := range h.Bodies() {
		var msg slackMessage
		require.NoError(t, json.Unmarshal([]byte(b), &msg))
		assert.LessOrEqual(t, len(msg.Blocks), slackBlocksMax)
		assert.NotContains(t, msg.Text, "…")
		seen += len(msg.Blocks)
	}
	assert.Equal(t, 120, seen, "every alert in some message")
}

// A POST that fails leaves its alerts unrecorded (tried again next call);
// the POSTs before it stay delivered; a webhook that is down is not tried
// for the rest.
func TestNotifySplitPostsFailIndependently(t *testing.T) {
	h := newHook(t, 200, 503, 503)
	ledger := NewMemoryLedger()
	n, _ := testNotifier(ledger)
	alerts := make([]Alert, 2500)
	for i := range alerts {
		alerts[i] = Alert{Key: fmt.Sprint(i), Labels: labels("alertname", "Lag")}
	}
	res, err := n.Notify(context.Background(), Request{URL: vocab.Secret(h.URL), Format: FormatJSON, Alerts: alerts, Attempts: 2})
	require.NoError(t, err)
	assert.True(t, res.Sent, "the first POST went through")
	assert.Equal(t, ReasonFailed, res.Reason)
	require.NotNil(t, res.Error)
	assert.Equal(t, 3, res.Attempts, "the third POST is not tried: the webhook is down")
	assert.True(t, res.Alerts[999].Sent)
	assert.Equal(t, ReasonFailed, res.Alerts[1000].Reason)
	assert.Equal(t, ReasonFailed, res.Alerts[2499].Reason)
	_, found := ledger.LastNotice(NoticeKey(h.URL, "1000"))
	assert.False(t, found)

	res, err = n.Notify(context.Background(), Request{URL: vocab.Secret(h.URL), Format: FormatJSON, Alerts: alerts})
	require.NoError(t, err)
	assert.Equal(t, ReasonOpened, res.Reason)
	assert.Equal(t, 2, res.Posts, "only the 1,500 not delivered")
}
