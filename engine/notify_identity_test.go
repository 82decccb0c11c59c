package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/internal/testnet"
)

// amNotifier is a notifier on a driven clock and a model of Alertmanager
// on the same clock.
func amNotifier(t *testing.T, ledger NoticeLedger) (*Notifier, *time.Time, *testnet.Alertmanager) {
	n, clock := testNotifier(ledger)
	am := testnet.NewAlertmanager(t)
	am.Now = func() time.Time { return *clock }
	return n, clock, am
}

func labels(kv ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

var severityByStatus = map[string]map[string]string{"WARN": {"severity": "warning"}, "ERR": {"severity": "critical"}}

// Across WARN -> ERR -> OK, every alert Alertmanager saw open is resolved
// with the labels it opened with, whether the severity comes from
// StatusLabels or the caller puts it in the labels itself (as check-lag
// did): Alertmanager fingerprints the label set, and a resolution under
// other labels resolves nothing.
func TestNotifyResolvesWithTheLabelsItOpenedWith(t *testing.T) {
	for _, viaStatusLabels := range []bool{true, false} {
		t.Run(fmt.Sprint("status_labels=", viaStatusLabels), func(t *testing.T) {
			n, clock, am := amNotifier(t, nil)
			send := func(status string) *NotifyResult {
				t.Helper()
				*clock = clock.Add(time.Minute)
				a := Alert{Key: "check-lag/billing", Status: status, Labels: labels("alertname", "KafkaConsumerGroupLag", "group", "billing")}
				req := NotifyRequest{URL: Secret(am.URL), Format: NotifyAlertmanager, Alerts: []Alert{a}}
				if viaStatusLabels {
					req.StatusLabels = severityByStatus
				} else if status != "OK" {
					a.Labels["severity"] = severityByStatus[status]["severity"]
				} else {
					a.Labels["severity"] = "warning" // what check-lag gave an OK verdict
				}
				res, err := n.Notify(context.Background(), req)
				require.NoError(t, err)
				require.Nil(t, res.Error)
				return res
			}
			warning := labels("alertname", "KafkaConsumerGroupLag", "group", "billing", "severity", "warning")
			critical := labels("alertname", "KafkaConsumerGroupLag", "group", "billing", "severity", "critical")

			assert.Equal(t, ReasonOpened, send("WARN").Reason)
			assert.Equal(t, []map[string]string{warning}, am.Firing())
			assert.Equal(t, ReasonOpened, send("ERR").Reason)
			assert.Equal(t, []map[string]string{critical}, am.Firing(), "the warning is resolved as the critical opens")
			assert.Equal(t, ReasonUnchanged, send("ERR").Reason)
			assert.Equal(t, ReasonResolved, send("OK").Reason)
			assert.Empty(t, am.Firing(), "nothing left firing")
			assert.ElementsMatch(t, am.Opened(), am.Resolved(), "every label set opened was resolved with the same labels")
			assert.Len(t, am.Opened(), 2)
			assert.Equal(t, 3, am.Posts())
			assert.Equal(t, ReasonUnchanged, send("OK").Reason)
			assert.Equal(t, 3, am.Posts())
		})
	}
}

// The JSON and Slack formats carry the resolution of the labels it
// replaces too, before the opening, in the same POST.
func TestNotifyReplacedIdentityInEveryFormat(t *testing.T) {
	h := newHook(t)
	n, _ := testNotifier(nil)
	send := func(format, status string) {
		a := Alert{Key: "k", Status: status, Labels: labels("alertname", "Lag")}
		_, err := n.Notify(context.Background(), NotifyRequest{URL: Secret(h.URL + "/" + format), Format: format,
			Alerts: []Alert{a}, StatusLabels: severityByStatus})
		require.NoError(t, err)
	}
	send(NotifyJSON, "WARN")
	send(NotifyJSON, "ERR")
	var doc jsonDoc
	require.NoError(t, json.Unmarshal([]byte(h.Bodies()[1]), &doc))
	require.Len(t, doc.Alerts, 2)
	assert.Equal(t, []string{"resolved", "firing"}, []string{doc.Alerts[0].Status, doc.Alerts[1].Status})
	assert.Equal(t, "warning", doc.Alerts[0].Labels["severity"])
	assert.Equal(t, "critical", doc.Alerts[1].Labels["severity"])
	send(NotifySlack, "WARN")
	send(NotifySlack, "ERR")
	assert.Contains(t, h.Bodies()[3], `*RESOLVED* Lag\n`+"`severity=warning`"+`\n\n:red_circle: *ERR* Lag\n`+"`severity=critical`")
}

// A notice written by a kadmin-lua that did not record labels (the state
// file in testdata, written by the version before) is resolved once, with
// the labels that version sent: the caller's, with its status's.
func TestNotifyResolvesAlertsOpenedBeforeLabelsWereRecorded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state")
	old, err := os.ReadFile("testdata/state-notices-before-labels")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, old, 0o600))
	store, err := OpenStateFile(path, StateOptions{})
	require.NoError(t, err)
	defer store.Close()
	const hook = "http://alertmanager:9093" // the URL the old run sent to
	ledger := store.Notices("prod")
	prev, ok := ledger.LastNotice(NoticeKey(hook, "check-lag/billing"))
	require.True(t, ok)
	assert.Equal(t, Notice{Status: "ERR", OpenedMs: 1_700_000_000_000, SentMs: 1_700_000_600_000}, prev, "labels unknown: nil")

	n, clock, am := amNotifier(t, ledger)
	*clock = time.UnixMilli(1_700_000_900_000)
	n.http.Transport = &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, am.Listener.Addr().String())
	}}
	critical := labels("alertname", "KafkaConsumerGroupLag", "group", "billing", "severity", "critical")
	// What the old version sent: firing for 8 h.
	am.Send(t, critical, time.UnixMilli(prev.OpenedMs), time.UnixMilli(prev.SentMs).Add(8*time.Hour))
	require.Equal(t, []map[string]string{critical}, am.Firing())

	req := NotifyRequest{URL: hook, Format: NotifyAlertmanager, StatusLabels: severityByStatus,
		Alerts: []Alert{{Key: "check-lag/billing", Status: "OK", Labels: labels("alertname", "KafkaConsumerGroupLag", "group", "billing")}}}
	res, err := n.Notify(context.Background(), req)
	require.NoError(t, err)
	require.Nil(t, res.Error)
	assert.Equal(t, ReasonResolved, res.Reason)
	assert.Empty(t, am.Firing(), "resolved with the labels the old version opened it with")
	assert.Equal(t, time.UnixMilli(prev.OpenedMs).UTC(), am.Alert(critical).StartsAt.UTC())
	res, err = n.Notify(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, ReasonUnchanged, res.Reason, "once")
	assert.Equal(t, 2, am.Posts())

	// A WARN the old version opened, now ERR: the warning is resolved as
	// the critical opens; then OK resolves the critical.
	mem := NewMemoryLedger()
	require.NoError(t, mem.SaveNotice(NoticeKey(am.URL, "check-lag/orders"), Notice{Status: "WARN", OpenedMs: clock.UnixMilli(), SentMs: clock.UnixMilli()}))
	warning := labels("alertname", "KafkaConsumerGroupLag", "group", "orders", "severity", "warning")
	am.Send(t, warning, *clock, clock.Add(8*time.Hour))
	n2, clock2, _ := amNotifier(t, mem)
	*clock2 = clock.Add(time.Minute)
	am.Now = func() time.Time { return *clock2 }
	for _, status := range []string{"ERR", "OK"} {
		_, err := n2.Notify(context.Background(), NotifyRequest{URL: Secret(am.URL), Format: NotifyAlertmanager, StatusLabels: severityByStatus,
			Alerts: []Alert{{Key: "check-lag/orders", Status: status, Labels: labels("alertname", "KafkaConsumerGroupLag", "group", "orders")}}})
		require.NoError(t, err)
		if status == "ERR" {
			assert.Equal(t, []map[string]string{labels("alertname", "KafkaConsumerGroupLag", "group", "orders", "severity", "critical")}, am.Firing())
		}
	}
	assert.Empty(t, am.Firing())
	assert.ElementsMatch(t, am.Opened(), am.Resolved())
}

// The labels an alert opened with and a pending status survive the state
// file; a store without notices writes nothing an older kadmin-lua cannot
// read.
func TestStateFileKeepsNoticeLabelsAndPending(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state")
	s, err := OpenStateFile(path, StateOptions{})
	require.NoError(t, err)
	want := map[string]Notice{
		"open":    {Status: "ERR", OpenedMs: 1, SentMs: 2, Labels: labels("alertname", "A", "severity", "critical")},
		"keyonly": {Status: "firing", OpenedMs: 1, SentMs: 2, Labels: map[string]string{}},
		"legacy":  {Status: "WARN", OpenedMs: 1, SentMs: 2},
		"pending": {Status: statusResolved, Pending: "WARN", PendingRuns: 2, PendingMs: 3},
	}
	for k, v := range want {
		require.NoError(t, s.Notices("prod").SaveNotice(k, v))
	}
	require.NoError(t, s.Save())
	s.Close()
	again, err := OpenStateFile(path, StateOptions{})
	require.NoError(t, err)
	defer again.Close()
	for k, v := range want {
		got, ok := again.Notices("prod").LastNotice(k)
		require.True(t, ok, k)
		assert.Equal(t, v, got, k)
	}
	assert.Equal(t, []byte{0}, encodeNotices(nil, nil), "no notices: the layout every version reads")
}
