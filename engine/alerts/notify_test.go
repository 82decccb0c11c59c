package alerts

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine/redact"
	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
	"github.com/kadmin-lua/kadmin-lua/internal/testnet"
)

func newHook(t *testing.T, statuses ...int) *testnet.Webhook {
	return testnet.NewWebhook(t, statuses...)
}

// testNotifier has a clock the test moves and retries without waiting.
func testNotifier(ledger Ledger) (*Notifier, *time.Time) {
	n := NewNotifier(ledger)
	clock := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	n.now = func() time.Time { return clock }
	n.wait = func(ctx context.Context, _ int, _ time.Duration) bool { return ctx.Err() == nil }
	return n, &clock
}

func lagAlert(status string) Alert {
	return Alert{Status: status, Labels: map[string]string{"alertname": "KafkaConsumerLag", "group": "billing"},
		Annotations: map[string]string{"summary": "billing is 12000 behind"}}
}

func TestNotifyAlertmanagerBody(t *testing.T) {
	h := newHook(t)
	n, clock := testNotifier(nil)
	req := Request{URL: vocab.Secret(h.URL), Format: FormatAlertmanager, Alerts: []Alert{lagAlert("WARN")},
		GeneratorURL: "https://runbooks.example/lag", RepeatInterval: time.Hour}
	res, err := n.Notify(context.Background(), req)
	require.NoError(t, err)
	assert.True(t, res.Sent)
	assert.Equal(t, ReasonOpened, res.Reason)
	assert.Equal(t, 1, res.Attempts)
	assert.Equal(t, 200, res.StatusCode)
	require.Len(t, h.Bodies(), 1)
	assert.Equal(t, "/api/v2/alerts", h.Requests()[0].URI, "a base URL gets Alertmanager's path")
	assert.Equal(t, "application/json", h.Requests()[0].Header.Get("Content-Type"))
	// Exactly Alertmanager's postableAlert: firing until two repeat
	// intervals from now.
	assert.JSONEq(t, `[{"labels":{"alertname":"KafkaConsumerLag","group":"billing"},
		"annotations":{"summary":"billing is 12000 behind"},
		"startsAt":"2026-12-01T10:00:00.000Z","endsAt":"2026-12-01T12:00:00.000Z",
		"generatorURL":"https://runbooks.example/lag"}]`, h.Bodies()[0])

	*clock = clock.Add(30 * time.Minute)
	req.Alerts = []Alert{lagAlert("OK")}
	res, err = n.Notify(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, ReasonResolved, res.Reason)
	// Resolved: endsAt is now, startsAt when it opened.
	assert.JSONEq(t, `[{"labels":{"alertname":"KafkaConsumerLag","group":"billing"},
		"annotations":{"summary":"billing is 12000 behind"},
		"startsAt":"2026-12-01T10:00:00.000Z","endsAt":"2026-12-01T10:30:00.000Z",
		"generatorURL":"https://runbooks.example/lag"}]`, h.Bodies()[1])

	// A URL with a path is used as it is; a batch is one POST.
	req.URL = vocab.Secret(h.URL + "/proxy/alerts")
	a2 := lagAlert("ERR")
	a2.Labels = map[string]string{"alertname": "KafkaConsumerLag", "group": "shipping"}
	a2.Annotations = nil
	req.Alerts = []Alert{lagAlert("ERR"), a2}
	res, err = n.Notify(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, "/proxy/alerts", h.Requests()[2].URI)
	var sent []map[string]any
	require.NoError(t, json.Unmarshal([]byte(h.Bodies()[2]), &sent))
	require.Len(t, sent, 2)
	assert.Equal(t, map[string]any{}, sent[1]["annotations"], "annotations are {} when none are given")
	assert.Len(t, res.Alerts, 2)
}

func TestNotifySlackBody(t *testing.T) {
	h := newHook(t)
	n, _ := testNotifier(nil)
	a := lagAlert("ERR")
	a.Annotations["description"] = "consumer <stopped> & lagging"
	res, err := n.Notify(context.Background(), Request{URL: vocab.Secret(h.URL + "/services/T000/B000/XXXX"),
		Format: FormatSlack, Alerts: []Alert{a}, SlackBlocks: true})
	require.NoError(t, err)
	require.True(t, res.Sent)
	text := ":red_circle: *ERR* KafkaConsumerLag: billing is 12000 behind\nconsumer &lt;stopped&gt; &amp; lagging\n`group=billing`"
	assert.JSONEq(t, `{"text":`+jsonString(text)+`,"blocks":[{"type":"section","text":{"type":"mrkdwn","text":`+jsonString(text)+`}}]}`,
		h.Bodies()[0])

	res, err = n.Notify(context.Background(), Request{URL: vocab.Secret(h.URL + "/services/T000/B000/XXXX"),
		Format: FormatSlack, Alerts: []Alert{lagAlert("OK")}})
	require.NoError(t, err)
	require.True(t, res.Sent)
	assert.JSONEq(t, `{"text":":large_green_circle: *RESOLVED* KafkaConsumerLag: billing is 12000 behind\n`+"`group=billing`"+`"}`, h.Bodies()[1])
}

func jsonString(s string) string { b, _ := json.Marshal(s); return string(b) }

func TestNotifyJSONBody(t *testing.T) {
	h := newHook(t)
	n, clock := testNotifier(nil)
	req := Request{URL: vocab.Secret(h.URL), Format: FormatJSON,
		Alerts: []Alert{{Key: "lag/billing", Status: "STALL", Labels: map[string]string{"group": "billing"}}}}
	_, err := n.Notify(context.Background(), req)
	require.NoError(t, err)
	assert.JSONEq(t, `{"version":"1","source":"kadmin-lua","status":"firing","sentAt":"2026-12-01T10:00:00.000Z",
		"alerts":[{"key":"lag/billing","status":"firing","state":"STALL","reason":"opened","labels":{"group":"billing"},
		"annotations":{},"startsAt":"2026-12-01T10:00:00.000Z"}]}`, h.Bodies()[0])
	*clock = clock.Add(time.Minute)
	req.Alerts[0].Status = "resolved"
	_, err = n.Notify(context.Background(), req)
	require.NoError(t, err)
	assert.JSONEq(t, `{"version":"1","source":"kadmin-lua","status":"resolved","sentAt":"2026-12-01T10:01:00.000Z",
		"alerts":[{"key":"lag/billing","status":"resolved","state":"resolved","reason":"resolved","labels":{"group":"billing"},
		"annotations":{},"startsAt":"2026-12-01T10:00:00.000Z","endsAt":"2026-12-01T10:01:00.000Z"}]}`, h.Bodies()[1])
}

// The ledger is shared between notifiers (runs): what one sent, the next
// does not send again until the repeat interval passed or the status
// changed.
func TestNotifyDedupAcrossRuns(t *testing.T) {
	h := newHook(t)
	ledger := NewMemoryLedger()
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	run := func(at time.Duration, status string) *Result {
		t.Helper()
		n, clock := testNotifier(ledger)
		*clock = start.Add(at)
		res, err := n.Notify(context.Background(), Request{URL: vocab.Secret(h.URL), Format: FormatJSON,
			Alerts: []Alert{lagAlert(status)}, RepeatInterval: time.Hour})
		require.NoError(t, err)
		return res
	}
	steps := []struct {
		at     time.Duration
		status string
		reason string
		sent   bool
	}{
		{0, "OK", ReasonUnchanged, false}, // nothing open: nothing to resolve
		{time.Minute, "WARN", ReasonOpened, true},
		{10 * time.Minute, "WARN", ReasonUnchanged, false},
		{61 * time.Minute, "WARN", ReasonRepeat, true},
		{62 * time.Minute, "WARN", ReasonUnchanged, false},
		{63 * time.Minute, "ERR", ReasonOpened, true}, // WARN to ERR opens anew
		{64 * time.Minute, "OK", ReasonResolved, true},
		{65 * time.Minute, "resolved", ReasonUnchanged, false},
		{5 * time.Hour, "OK", ReasonUnchanged, false}, // resolved is never repeated
		{6 * time.Hour, "firing", ReasonOpened, true},
		{5 * time.Hour, "firing", ReasonRepeat, true}, // the clock went back an hour: counts as time passed
		{5*time.Hour + time.Minute, "firing", ReasonUnchanged, false},
	}
	sent := 0
	for i, s := range steps {
		res := run(s.at, s.status)
		assert.Equal(t, s.reason, res.Reason, "step %d (%s at %s)", i, s.status, s.at)
		assert.Equal(t, s.sent, res.Sent, "step %d", i)
		if s.sent {
			sent++
		}
		assert.Len(t, h.Bodies(), sent, "step %d: POSTs so far", i)
	}
	n, ok := ledger.LastNotice(NoticeKey(h.URL, "alertname=KafkaConsumerLag,group=billing"))
	require.True(t, ok, "the key is derived from the labels")
	assert.Equal(t, "firing", n.Status)

	// Another webhook keeps its own memory of the same alert.
	other := newHook(t)
	nf, _ := testNotifier(ledger)
	res, err := nf.Notify(context.Background(), Request{URL: vocab.Secret(other.URL), Format: FormatJSON, Alerts: []Alert{lagAlert("firing")}})
	require.NoError(t, err)
	assert.Equal(t, ReasonOpened, res.Reason)
}

func TestNotifyBatchSendsOnlyWhatChanged(t *testing.T) {
	h := newHook(t)
	n, _ := testNotifier(nil)
	a := Alert{Key: "a", Labels: map[string]string{"alertname": "A"}}
	b := Alert{Key: "b", Labels: map[string]string{"alertname": "B"}}
	req := Request{URL: vocab.Secret(h.URL), Format: FormatAlertmanager, Alerts: []Alert{a}}
	_, err := n.Notify(context.Background(), req)
	require.NoError(t, err)
	req.Alerts = []Alert{a, b}
	res, err := n.Notify(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, []Outcome{{Key: "a", Status: "firing", Reason: ReasonUnchanged}, {Key: "b", Status: "firing", Reason: ReasonOpened, Sent: true}}, res.Alerts)
	var sent []amAlert
	require.NoError(t, json.Unmarshal([]byte(h.Bodies()[1]), &sent))
	require.Len(t, sent, 1, "the unchanged one is left out of the POST")
	assert.Equal(t, "B", sent[0].Labels["alertname"])
}

func TestNotifyRetriesOn500ThenSucceeds(t *testing.T) {
	h := newHook(t, 500, 503)
	n := NewNotifier(nil) // the real backoff: 100 ms doubling
	res, err := n.Notify(context.Background(), Request{URL: vocab.Secret(h.URL), Format: FormatJSON, Alerts: []Alert{lagAlert("firing")}})
	require.NoError(t, err)
	assert.True(t, res.Sent)
	assert.Equal(t, 3, res.Attempts)
	assert.Equal(t, 200, res.StatusCode)
	assert.Nil(t, res.Error)
	assert.Len(t, h.Bodies(), 3)
}

func TestNotifyGivesUpAfterItsAttempts(t *testing.T) {
	h := newHook(t, 500, 500, 500, 500)
	ledger := NewMemoryLedger()
	n, _ := testNotifier(ledger)
	req := Request{URL: vocab.Secret(h.URL), Format: FormatJSON, Alerts: []Alert{lagAlert("firing")}, Attempts: 2}
	res, err := n.Notify(context.Background(), req)
	require.NoError(t, err, "a failed delivery is in the result")
	assert.False(t, res.Sent)
	assert.Equal(t, ReasonFailed, res.Reason)
	assert.Equal(t, ReasonFailed, res.Alerts[0].Reason)
	assert.Equal(t, 2, res.Attempts)
	assert.Equal(t, 500, res.StatusCode)
	require.NotNil(t, res.Error)
	assert.Equal(t, CodeNotifyFailed, res.Error.Code)
	assert.True(t, res.Error.Retriable)
	assert.Contains(t, res.Error.Message, "HTTP 500 Internal Server Error")
	assert.Contains(t, res.Error.Message, "(2 attempts)")
	// Nothing was recorded: the next call tries again, and is an opening.
	res, err = n.Notify(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, ReasonFailed, res.Reason)
	res, err = n.Notify(context.Background(), req)
	require.NoError(t, err)
	assert.True(t, res.Sent)
	assert.Equal(t, ReasonOpened, res.Reason)
}

func TestNotifyNoRetryOn400(t *testing.T) {
	h := newHook(t, 400)
	n, _ := testNotifier(nil)
	res, err := n.Notify(context.Background(), Request{URL: vocab.Secret(h.URL), Format: FormatJSON, Alerts: []Alert{lagAlert("firing")}})
	require.NoError(t, err)
	assert.Equal(t, 1, res.Attempts)
	assert.Equal(t, 400, res.StatusCode)
	require.NotNil(t, res.Error)
	assert.False(t, res.Error.Retriable)
	assert.Contains(t, res.Error.Message, "HTTP 400 Bad Request: Bad Request for /")
	assert.Len(t, h.Bodies(), 1)
}

func TestNotifyRetriesOn429(t *testing.T) {
	h := newHook(t, 429)
	n, _ := testNotifier(nil)
	res, err := n.Notify(context.Background(), Request{URL: vocab.Secret(h.URL), Format: FormatJSON, Alerts: []Alert{lagAlert("firing")}})
	require.NoError(t, err)
	assert.True(t, res.Sent)
	assert.Equal(t, 2, res.Attempts)
}

func TestNotifyTimeoutCutsAHangingServer(t *testing.T) {
	h := newHook(t)
	h.Hang(time.Minute)
	n, _ := testNotifier(nil)
	start := time.Now()
	res, err := n.Notify(context.Background(), Request{URL: vocab.Secret(h.URL), Format: FormatJSON,
		Alerts: []Alert{lagAlert("firing")}, Timeout: 200 * time.Millisecond, Attempts: 2})
	require.NoError(t, err)
	took := time.Since(start)
	assert.Less(t, took, 5*time.Second, "two attempts of 200 ms")
	assert.GreaterOrEqual(t, took, 400*time.Millisecond)
	assert.Equal(t, ReasonFailed, res.Reason)
	assert.Equal(t, 2, res.Attempts)
	require.NotNil(t, res.Error)
	assert.Contains(t, res.Error.Message, "no answer within 200ms")
}

func TestNotifyConnectionRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close()) // nothing listens there now
	n, _ := testNotifier(nil)
	res, err := n.Notify(context.Background(), Request{URL: vocab.Secret("http://" + addr + "/hook"), Format: FormatJSON, Alerts: []Alert{lagAlert("firing")}})
	require.NoError(t, err)
	assert.Equal(t, ReasonFailed, res.Reason)
	assert.Equal(t, DefaultAttempts, res.Attempts, "a refused connection is retried")
	require.NotNil(t, res.Error)
	assert.Contains(t, res.Error.Message, "connection refused")
}

func TestNotifyCanceled(t *testing.T) {
	h := newHook(t)
	h.Hang(time.Minute)
	n, _ := testNotifier(nil)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := n.Notify(ctx, Request{URL: vocab.Secret(h.URL), Format: FormatJSON, Alerts: []Alert{lagAlert("firing")}})
	var e *vocab.Error
	require.True(t, errors.As(err, &e))
	assert.Equal(t, vocab.CodeCanceled, e.Code)
}

func TestNotifyRedactsCredentials(t *testing.T) {
	h := newHook(t, 401) // answers quoting the path and query it was sent
	n, _ := testNotifier(nil)
	u := strings.Replace(h.URL, "http://", "http://alice:s3cretpw@", 1) + "/services/T0ABC/B0DEF/xoxbHOOKSECRET?token=qtoken123&x=1"
	res, err := n.Notify(context.Background(), Request{URL: vocab.Secret(u), Format: FormatSlack, Alerts: []Alert{lagAlert("firing")},
		Token: "bearer-tok-999", Headers: map[string]vocab.Secret{"X-Api-Key": "hdr-secret-777"}})
	require.NoError(t, err)
	require.NotNil(t, res.Error)
	assert.Equal(t, "Bearer bearer-tok-999", h.Requests()[0].Header.Get("Authorization"))
	assert.Equal(t, "hdr-secret-777", h.Requests()[0].Header.Get("X-Api-Key"))
	got, _ := json.Marshal(res)
	for _, s := range []string{res.Error.Message, res.URL, string(got)} {
		for _, secret := range []string{"alice", "s3cretpw", "T0ABC", "B0DEF", "xoxbHOOKSECRET", "qtoken123", "bearer-tok-999", "hdr-secret-777"} {
			assert.NotContains(t, s, secret)
		}
	}
	assert.Contains(t, res.Error.Message, "HTTP 401 Unauthorized")
	assert.Contains(t, res.URL, "/services/***/***/***?token=***&x=***")
}

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://hooks.slack.com/services/T000/B000/XXXXXXXX":   "https://hooks.slack.com/services/***/***/***",
		"http://alertmanager:9093/api/v2/alerts":                "http://alertmanager:9093/api/v2/alerts",
		"https://u:p@am.example/api/v2/alerts?token=abc#frag":   "https://***@am.example/api/v2/alerts?token=***",
		"https://discord.com/api/webhooks/123456789/abcDEF-xyz": "https://discord.com/api/webhooks/***/***",
		"http://host": "http://host",
		"not a url":   redact.Redacted,
	} {
		assert.Equal(t, want, redact.URL(in), in)
	}
}

func TestNotifyDryRunSendsNothing(t *testing.T) {
	h := newHook(t)
	ledger := NewMemoryLedger()
	n, _ := testNotifier(ledger)
	res, err := n.Notify(context.Background(), Request{URL: vocab.Secret(h.URL), Format: FormatAlertmanager,
		Alerts: []Alert{lagAlert("WARN")}, DryRun: true})
	require.NoError(t, err)
	assert.False(t, res.Sent)
	assert.True(t, res.DryRun)
	assert.Equal(t, ReasonOpened, res.Reason, "what a real run would do")
	assert.Contains(t, string(res.Payloads[0]), `"alertname":"KafkaConsumerLag"`)
	assert.Equal(t, 0, res.Attempts)
	assert.Empty(t, h.Bodies())
	_, found := ledger.LastNotice(NoticeKey(h.URL, "alertname=KafkaConsumerLag,group=billing"))
	assert.False(t, found, "a dry run records nothing")
}

func TestNotifyRefusesBadRequests(t *testing.T) {
	n, _ := testNotifier(nil)
	for _, tc := range []struct {
		req  Request
		want string
	}{
		{Request{URL: "ftp://x/y", Format: FormatJSON, Alerts: []Alert{lagAlert("")}}, "url must be an http:// or https:// URL"},
		{Request{URL: "http://h", Format: "xml", Alerts: []Alert{lagAlert("")}}, `format must be one of alertmanager, slack, json, got "xml"`},
		{Request{URL: "http://h", Format: FormatJSON}, "at least 1 alert"},
		{Request{URL: "http://h", Format: FormatJSON, Alerts: []Alert{lagAlert("bad")}}, "alert 1: status must be one of"},
		{Request{URL: "http://h", Format: FormatJSON, Alerts: []Alert{{}}}, "alert 1: an alert needs a key or labels"},
		{Request{URL: "http://h", Format: FormatAlertmanager, Alerts: []Alert{{Key: "k"}}}, "alertname label"},
		{Request{URL: "http://h", Format: FormatJSON, Alerts: []Alert{lagAlert("")}, StatusLabels: map[string]map[string]string{"OK": {"s": "x"}}},
			"status labels: OK resolves"},
		{Request{URL: "http://h", Format: FormatJSON, Alerts: []Alert{lagAlert("")}, AfterRuns: MaxAfterRuns + 1}, "after runs must be between 1 and 1000"},
	} {
		_, err := n.Notify(context.Background(), tc.req)
		var e *vocab.Error
		require.True(t, errors.As(err, &e), tc.want)
		assert.Equal(t, vocab.CodeInvalidArgument, e.Code)
		assert.Contains(t, e.Message, tc.want)
	}
}
