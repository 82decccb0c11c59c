package alerts_test

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine/alerts"
	"github.com/kadmin-lua/kadmin-lua/engine/state"
	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// A notice written by a kadmin-lua that did not record labels (the state
// file in testdata, written by the version before) is resolved once, with
// the labels that version sent: the caller's, with its status's.
func TestNotifyResolvesAlertsOpenedBeforeLabelsWereRecorded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state")
	old, err := os.ReadFile("testdata/state-notices-before-labels")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, old, 0o600))
	store, err := state.OpenFile(path, state.Options{})
	require.NoError(t, err)
	defer store.Close()
	const hook = "http://alertmanager:9093" // the URL the old run sent to
	ledger := store.Notices("prod")
	prev, ok := ledger.LastNotice(alerts.NoticeKey(hook, "check-lag/billing"))
	require.True(t, ok)
	assert.Equal(t, alerts.Notice{Status: "ERR", OpenedMs: 1_700_000_000_000, SentMs: 1_700_000_600_000}, prev, "labels unknown: nil")

	n, clock, am := alerts.AMNotifier(t, ledger)
	*clock = time.UnixMilli(1_700_000_900_000)
	n.SetTransport(&http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, am.Listener.Addr().String())
	}})
	critical := alerts.Labels("alertname", "KafkaConsumerGroupLag", "group", "billing", "severity", "critical")
	// What the old version sent: firing for 8 h.
	am.Send(t, critical, time.UnixMilli(prev.OpenedMs), time.UnixMilli(prev.SentMs).Add(8*time.Hour))
	require.Equal(t, []map[string]string{critical}, am.Firing())

	req := alerts.Request{URL: hook, Format: alerts.FormatAlertmanager, StatusLabels: alerts.SeverityByStatus,
		Alerts: []alerts.Alert{{Key: "check-lag/billing", Status: "OK", Labels: alerts.Labels("alertname", "KafkaConsumerGroupLag", "group", "billing")}}}
	res, err := n.Notify(context.Background(), req)
	require.NoError(t, err)
	require.Nil(t, res.Error)
	assert.Equal(t, alerts.ReasonResolved, res.Reason)
	assert.Empty(t, am.Firing(), "resolved with the labels the old version opened it with")
	assert.Equal(t, time.UnixMilli(prev.OpenedMs).UTC(), am.Alert(critical).StartsAt.UTC())
	res, err = n.Notify(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, alerts.ReasonUnchanged, res.Reason, "once")
	assert.Equal(t, 2, am.Posts())

	// A WARN the old version opened, now ERR: the warning is resolved as
	// the critical opens; then OK resolves the critical.
	mem := alerts.NewMemoryLedger()
	require.NoError(t, mem.SaveNotice(alerts.NoticeKey(am.URL, "check-lag/orders"), alerts.Notice{Status: "WARN", OpenedMs: clock.UnixMilli(), SentMs: clock.UnixMilli()}))
	warning := alerts.Labels("alertname", "KafkaConsumerGroupLag", "group", "orders", "severity", "warning")
	am.Send(t, warning, *clock, clock.Add(8*time.Hour))
	n2, clock2, _ := alerts.AMNotifier(t, mem)
	*clock2 = clock.Add(time.Minute)
	am.Now = func() time.Time { return *clock2 }
	for _, status := range []string{"ERR", "OK"} {
		_, err := n2.Notify(context.Background(), alerts.Request{URL: vocab.Secret(am.URL), Format: alerts.FormatAlertmanager, StatusLabels: alerts.SeverityByStatus,
			Alerts: []alerts.Alert{{Key: "check-lag/orders", Status: status, Labels: alerts.Labels("alertname", "KafkaConsumerGroupLag", "group", "orders")}}})
		require.NoError(t, err)
		if status == "ERR" {
			assert.Equal(t, []map[string]string{alerts.Labels("alertname", "KafkaConsumerGroupLag", "group", "orders", "severity", "critical")}, am.Firing())
		}
	}
	assert.Empty(t, am.Firing())
	assert.ElementsMatch(t, am.Opened(), am.Resolved())
}
