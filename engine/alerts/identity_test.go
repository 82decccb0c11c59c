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
	"github.com/kadmin-lua/kadmin-lua/internal/testnet"
)

// amNotifier is a notifier on a driven clock and a model of Alertmanager
// on the same clock.
func amNotifier(t *testing.T, ledger Ledger) (*Notifier, *time.Time, *testnet.Alertmanager) {
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
			send := func(status string) *Result {
				t.Helper()
				*clock = clock.Add(time.Minute)
				a := Alert{Key: "check-lag/billing", Status: status, Labels: labels("alertname", "KafkaConsumerGroupLag", "group", "billing")}
				req := Request{URL: vocab.Secret(am.URL), Format: FormatAlertmanager, Alerts: []Alert{a}}
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
		_, err := n.Notify(context.Background(), Request{URL: vocab.Secret(h.URL + "/" + format), Format: format,
			Alerts: []Alert{a}, StatusLabels: severityByStatus})
		require.NoError(t, err)
	}
	send(FormatJSON, "WARN")
	send(FormatJSON, "ERR")
	var doc jsonDoc
	require.NoError(t, json.Unmarshal([]byte(h.Bodies()[1]), &doc))
	require.Len(t, doc.Alerts, 2)
	assert.Equal(t, []string{"resolved", "firing"}, []string{doc.Alerts[0].Status, doc.Alerts[1].Status})
	assert.Equal(t, "warning", doc.Alerts[0].Labels["severity"])
	assert.Equal(t, "critical", doc.Alerts[1].Labels["severity"])
	send(FormatSlack, "WARN")
	send(FormatSlack, "ERR")
	assert.Contains(t, h.Bodies()[3], `*RESOLVED* Lag\n`+"`severity=warning`"+`\n\n:red_circle: *ERR* Lag\n`+"`severity=critical`")
}
