package luaapi

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/alerts"
	"github.com/kadmin-lua/kadmin-lua/internal/testnet"
)

// notifyEnv is a one-broker kfake cluster and a runtime whose notices go
// to ledger, with the given environment.
func notifyEnv(t *testing.T, ledger alerts.Ledger, vars map[string]string, dryRun bool) *env {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return newEnvOn(t, c, Options{Config: engine.Config{Notices: ledger, DryRun: dryRun},
		Env: func(k string) string { return vars[k] }})
}

func TestNotifyFromLua(t *testing.T) {
	w := testnet.NewWebhook(t)
	ledger := alerts.NewMemoryLedger()
	e := notifyEnv(t, ledger, nil, false)
	call := `return kafka.notify{url = "` + w.URL + `", format = "alertmanager", status = %q,
		labels = {alertname = "KafkaConsumerLag", group = "billing", partitions = 3}, summary = "billing is behind"}`
	got := e.json(strings.Replace(call, "%q", `"WARN"`, 1))
	var res map[string]any
	require.NoError(t, json.Unmarshal([]byte(got), &res))
	assert.Equal(t, true, res["sent"])
	assert.Equal(t, "opened", res["reason"])
	assert.Equal(t, float64(1), res["attempts"])
	assert.Equal(t, float64(200), res["status_code"])
	assert.Equal(t, "alertname=KafkaConsumerLag,group=billing,partitions=3", res["key"])
	assert.Equal(t, w.URL+"/api/v2/alerts", res["url"])
	require.Len(t, w.Bodies(), 1)
	var sent []map[string]any
	require.NoError(t, json.Unmarshal([]byte(w.Bodies()[0]), &sent))
	require.Len(t, sent, 1)
	assert.Equal(t, map[string]any{"alertname": "KafkaConsumerLag", "group": "billing", "partitions": "3"}, sent[0]["labels"])
	assert.Equal(t, map[string]any{"summary": "billing is behind"}, sent[0]["annotations"])
	assert.Contains(t, sent[0], "startsAt")
	assert.Contains(t, sent[0], "endsAt")

	// The same status again: unchanged, nothing sent.
	assert.Equal(t, "unchanged", e.run(strings.Replace(call, "%q", `"WARN"`, 1)+".reason").String())
	assert.Len(t, w.Bodies(), 1)

	// Once the repeat interval has passed (the ledger says when it was
	// sent: a run of four hours ago), it is sent again.
	key := alerts.NoticeKey(w.URL, "alertname=KafkaConsumerLag,group=billing,partitions=3")
	n, ok := ledger.LastNotice(key)
	require.True(t, ok, "the notice was recorded in the configured ledger")
	n.SentMs -= (4*time.Hour + time.Second).Milliseconds()
	require.NoError(t, ledger.SaveNotice(key, n))
	assert.Equal(t, "repeat", e.run(strings.Replace(call, "%q", `"WARN"`, 1)+".reason").String())
	assert.Len(t, w.Bodies(), 2)

	// OK resolves it: endsAt is now, at most a second ago.
	assert.Equal(t, "resolved", e.run(strings.Replace(call, "%q", `"OK"`, 1)+".reason").String())
	require.Len(t, w.Bodies(), 3)
	require.NoError(t, json.Unmarshal([]byte(w.Bodies()[2]), &sent))
	ends, err := time.Parse(time.RFC3339, sent[0]["endsAt"].(string))
	require.NoError(t, err)
	assert.WithinDuration(t, time.Now(), ends, 5*time.Second)
	n, _ = ledger.LastNotice(key)
	assert.Equal(t, "resolved", n.Status)
	d, f := e.rt.NotifyCounts()
	assert.Equal(t, [2]int{3, 0}, [2]int{d, f})
}

func TestNotifyBatchFromLua(t *testing.T) {
	w := testnet.NewWebhook(t)
	e := notifyEnv(t, nil, nil, false)
	got := e.json(`return kafka.notify{url = "` + w.URL + `", format = "slack", slack_blocks = true,
		labels = {alertname = "KafkaConsumerLag"}, annotations = {runbook_url = "https://runbooks/lag"},
		alerts = {{labels = {group = "billing"}, status = "ERR"}, {key = "shipping", labels = {group = "shipping"}, status = "OK"}}}`)
	var res struct {
		Sent   bool
		Reason string
		Alerts []alerts.Outcome
	}
	require.NoError(t, json.Unmarshal([]byte(got), &res))
	assert.True(t, res.Sent)
	assert.Equal(t, "opened", res.Reason)
	assert.Equal(t, []alerts.Outcome{
		{Key: "alertname=KafkaConsumerLag,group=billing", Status: "ERR", Reason: "opened", Sent: true},
		{Key: "shipping", Status: "OK", Reason: "unchanged"},
	}, res.Alerts)
	require.Len(t, w.Bodies(), 1)
	var msg struct {
		Text   string
		Blocks []map[string]any
	}
	require.NoError(t, json.Unmarshal([]byte(w.Bodies()[0]), &msg))
	assert.Equal(t, ":red_circle: *ERR* KafkaConsumerLag\n`group=billing`", msg.Text, "common labels are merged in; the resolved one that never fired is left out")
	assert.Len(t, msg.Blocks, 1)
}

func TestNotifyFailureWarnsCountsAndKeepsTheExitCode(t *testing.T) {
	w := testnet.NewWebhook(t, 500, 500, 500, 500, 500)
	e := notifyEnv(t, nil, nil, false)
	got := e.json(`return kafka.notify{url = "` + w.URL + `", key = "k", retries = 1, timeout = 2}`)
	var res map[string]any
	require.NoError(t, json.Unmarshal([]byte(got), &res))
	assert.Equal(t, false, res["sent"])
	assert.Equal(t, "failed", res["reason"])
	assert.Equal(t, float64(2), res["attempts"])
	assert.Equal(t, float64(500), res["status_code"])
	errv, _ := res["error"].(map[string]any)
	require.NotNil(t, errv, "the result carries the error: %s", got)
	assert.Equal(t, "NOTIFY_FAILED", errv["code"])
	assert.Regexp(t, `WARN kafka.notify: delivery failed: POST http://127.0.0.1:\d+: HTTP 500 Internal Server Error: Internal Server Error for / \(2 attempts\)`, e.stderr.String())
	d, f := e.rt.NotifyCounts()
	assert.Equal(t, [2]int{0, 1}, [2]int{d, f}, "counted for --metrics-file")

	// fail = true raises it: exit 1, a script error, not a Kafka one.
	re := e.runErr(`kafka.notify{url = "` + w.URL + `", key = "k", retries = 1, fail = true}`)
	assert.Equal(t, alerts.CodeNotifyFailed, re.Code)
	assert.Equal(t, KindScript, re.Kind)
	assert.Contains(t, re.Message, "kafka.notify: NOTIFY_FAILED: POST http://127.0.0.1:")
	_, f = e.rt.NotifyCounts()
	assert.Equal(t, 2, f)
	// pcall sees a clear code.
	assert.Equal(t, "NOTIFY_FAILED", e.run(`local ok, err = pcall(kafka.notify, {url = "`+w.URL+`", key = "k", retries = 0, fail = true})
		return err.code`).String())
}

func TestNotifySecretsNeverShown(t *testing.T) {
	w := testnet.NewWebhook(t, 403, 403)
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	require.NoError(t, os.WriteFile(tokenFile, []byte("file-token-4242\n"), 0o600))
	hookURL := strings.Replace(w.URL, "http://", "http://ops:hunter22@", 1) + "/services/T0SECRET/B0SECRET/SlackHookSecret99?token=querytok77"
	e := notifyEnv(t, nil, map[string]string{"SLACK_URL": hookURL, "ALERT_TOKEN": "env-token-1337"}, false)
	out := e.json(`return kafka.notify{url_env = "SLACK_URL", format = "slack", key = "k", token_env = "ALERT_TOKEN", retries = 0}`)
	re := e.runErr(`kafka.notify{url_env = "SLACK_URL", format = "slack", key = "k2", token_file = "` + tokenFile + `", retries = 0, fail = true}`)
	var auth []string
	for _, r := range w.Requests() {
		auth = append(auth, r.Header.Get("Authorization"))
	}
	assert.Equal(t, []string{"Bearer env-token-1337", "Bearer file-token-4242"}, auth, "the tokens were sent")
	assert.Contains(t, out, `"url":"http://***@127.0.0.1:`)
	assert.Contains(t, out, `/services/***/***/***?token=***`)
	for _, shown := range []string{out, re.Message, e.stderr.String(), e.stdout.String()} {
		for _, secret := range []string{"hunter22", "ops:", "T0SECRET", "B0SECRET", "SlackHookSecret99", "querytok77", "env-token-1337", "file-token-4242"} {
			assert.NotContains(t, shown, secret)
		}
	}
	assert.Contains(t, re.Message, "HTTP 403 Forbidden: Forbidden for /services/***/***/***?token=***")
}

func TestNotifyDryRunSendsNothing(t *testing.T) {
	w := testnet.NewWebhook(t)
	ledger := alerts.NewMemoryLedger()
	for _, floor := range []bool{false, true} {
		e := notifyEnv(t, ledger, nil, floor)
		src := `return kafka.notify{url = "` + w.URL + `", format = "alertmanager", labels = {alertname = "Lag"}}`
		if !floor {
			src = "kafka.dry_run(true)\n" + src
		}
		got := e.json(src)
		assert.Contains(t, got, `"dry_run":true`)
		assert.Contains(t, got, `"reason":"opened"`)
		assert.Contains(t, got, `"sent":false`)
		assert.Contains(t, e.stderr.String(), `dry-run: kafka.notify: would POST 1 alert to `+w.URL+`/api/v2/alerts as alertmanager (opened): [{"labels":{"alertname":"Lag"},"annotations":{},"startsAt":`)
		d, f := e.rt.NotifyCounts()
		assert.Equal(t, [2]int{0, 0}, [2]int{d, f})
	}
	assert.Empty(t, w.Bodies(), "nothing POSTed")
	_, found := ledger.LastNotice(alerts.NoticeKey(w.URL, "alertname=Lag"))
	assert.False(t, found, "nothing recorded")
}

func TestNotifyBadArgumentsSendNothing(t *testing.T) {
	w := testnet.NewWebhook(t)
	dir := t.TempDir()
	e := notifyEnv(t, nil, map[string]string{"NOT_A_URL": "mailto:x@y"}, false)
	u := `url = "` + w.URL + `"`
	for src, want := range map[string]string{
		`kafka.notify{key = "k"}`:                                                                                         "kafka.notify: url: give url or url_env (one of them)",
		`kafka.notify{` + u + `, url_env = "X", key = "k"}`:                                                               "kafka.notify: url: give url or url_env (one of them)",
		`kafka.notify{url = "ftp://h/x", key = "k"}`:                                                                      "kafka.notify: url: must be an http:// or https:// URL",
		`kafka.notify{url = 42, key = "k"}`:                                                                               "kafka.notify: url: must be a http(s) URL, got 42",
		`kafka.notify{url_env = "UNSET", key = "k"}`:                                                                      "kafka.notify: url_env: variable UNSET is unset or empty",
		`kafka.notify{url_env = "NOT_A_URL", key = "k"}`:                                                                  "kafka.notify: url_env: variable NOT_A_URL must be an http:// or https:// URL",
		`kafka.notify{` + u + `}`:                                                                                         "kafka.notify: an alert needs a key or labels",
		`kafka.notify{` + u + `, key = "k", format = "xml"}`:                                                              `kafka.notify: format: must be "alertmanager", "slack" or "json", got "xml"`,
		`kafka.notify{` + u + `, key = "k", status = "bad"}`:                                                              `kafka.notify: status: must be "firing", "resolved", "OK"`,
		`kafka.notify{` + u + `, key = "k", format = "alertmanager"}`:                                                     "kafka.notify: labels: an Alertmanager alert needs an alertname label",
		`kafka.notify{` + u + `, key = "k", repeat_interval = 0}`:                                                         "kafka.notify: repeat_interval: must be",
		`kafka.notify{` + u + `, key = "k", timeout = -1}`:                                                                "kafka.notify: timeout: must be",
		`kafka.notify{` + u + `, key = "k", retries = 10}`:                                                                "kafka.notify: retries: must be",
		`kafka.notify{` + u + `, key = "k", retry = 1}`:                                                                   `kafka.notify: unknown key "retry"`,
		`kafka.notify{` + u + `, labels = {["bad-name"] = "x"}}`:                                                          "kafka.notify: labels: ",
		`kafka.notify{` + u + `, key = "k", token_env = "NOPE"}`:                                                          "kafka.notify: token_env: variable NOPE is unset or empty",
		`kafka.notify{` + u + `, key = "k", token_file = "` + filepath.Join(dir, "none") + `"}`:                           "kafka.notify: token_file: cannot read",
		`kafka.notify{` + u + `, key = "k", token_env = "A", token_file = "f"}`:                                           "kafka.notify: token_env: give token_env or token_file, not both",
		`kafka.notify{` + u + `, key = "k", headers = {Host = "x"}}`:                                                      "kafka.notify: headers: ",
		`kafka.notify{` + u + `, key = "k", slack_blocks = true}`:                                                         `kafka.notify: slack_blocks: is for format "slack"`,
		`kafka.notify{` + u + `, alerts = {{key = "a"}}, key = "k"}`:                                                      "kafka.notify: key: goes in each of alerts, not beside it",
		`kafka.notify{` + u + `, alerts = {{key = "a"}, {status = "OK"}}}`:                                                "kafka.notify: alert #2: an alert needs a key or labels",
		`kafka.notify{` + u + `, format = "alertmanager", alerts = {{labels = {alertname = "A"}}, {labels = {x = "y"}}}}`: "kafka.notify: alert #2: labels: an Alertmanager alert needs an alertname label",
		`kafka.notify{` + u + `, alerts = {}}`:                                                                            "kafka.notify: alerts: ",
		`kafka.notify("http://h")`:                                                                                        "kafka.notify: ",
	} {
		re := e.runErr(src)
		assert.Equal(t, "INVALID_ARGUMENT", re.Code, src)
		assert.Contains(t, re.Message, want, src)
	}
	assert.Empty(t, w.Bodies(), "a refused call sends nothing")
}
