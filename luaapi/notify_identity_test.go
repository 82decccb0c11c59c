package luaapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine/alerts"
	"github.com/kadmin-lua/kadmin-lua/internal/testnet"
)

// Through kafka.notify, across WARN -> ERR -> OK, Alertmanager (a model
// of how it keeps alerts: by label set) sees every alert that opened
// resolved with its own labels: with the severity from status_labels, and
// with a severity the script puts in the labels itself.
func TestNotifyFromLuaResolvesWithTheLabelsItOpenedWith(t *testing.T) {
	am := testnet.NewAlertmanager(t)
	e := notifyEnv(t, nil, nil, false)
	for _, status := range []string{"WARN", "ERR", "ERR", "OK", "OK"} {
		e.run(`kafka.notify{url = "` + am.URL + `", format = "alertmanager", key = "lag/billing", status = "` + status + `",
			labels = {alertname = "KafkaConsumerLag", group = "billing"},
			status_labels = {WARN = {severity = "warning"}, ERR = {severity = "critical"}}}`)
		if status == "ERR" {
			assert.Equal(t, []map[string]string{{"alertname": "KafkaConsumerLag", "group": "billing", "severity": "critical"}}, am.Firing())
		}
	}
	for _, status := range []string{"WARN", "ERR", "OK"} {
		e.run(`local status = "` + status + `"
			kafka.notify{url = "` + am.URL + `", format = "alertmanager", key = "lag/shipping", status = status,
			labels = {alertname = "KafkaConsumerLag", group = "shipping", severity = status == "ERR" and "critical" or "warning"}}`)
	}
	assert.Empty(t, am.Firing(), "nothing left firing")
	assert.Len(t, am.Opened(), 4)
	assert.ElementsMatch(t, am.Opened(), am.Resolved())
	assert.Equal(t, 6, am.Posts(), "the second ERR and OK send nothing")
}

// after_runs: a status is sent once that many calls in a row gave it.
func TestNotifyAfterRunsFromLua(t *testing.T) {
	am := testnet.NewAlertmanager(t)
	e := notifyEnv(t, nil, nil, false)
	notify := func(status string) string {
		t.Helper()
		return e.json(`local r = kafka.notify{url = "` + am.URL + `", format = "alertmanager", after_runs = 2, status = "` + status + `",
			labels = {alertname = "Lag", partition = "3"}}
			return {r.reason, r.alerts[1].runs or 0}`)
	}
	assert.Equal(t, `["pending",1]`, notify("WARN"))
	assert.Equal(t, `["unchanged",0]`, notify("OK"), "flapped back: nothing sent, the count starts again")
	assert.Equal(t, `["pending",1]`, notify("WARN"))
	assert.Equal(t, `["opened",0]`, notify("WARN"))
	assert.Equal(t, `["pending",1]`, notify("OK"))
	assert.Equal(t, `["resolved",0]`, notify("OK"))
	assert.Equal(t, 2, am.Posts())
	assert.Empty(t, am.Firing())
}

// More than 1,000 alerts in one call are all sent, in several POSTs.
func TestNotifyFromLuaSendsManyAlerts(t *testing.T) {
	am := testnet.NewAlertmanager(t)
	e := notifyEnv(t, nil, nil, false)
	got := e.json(`local alerts = {}
		for i = 1, 1500 do alerts[i] = {labels = {group = "g" .. i}, status = "ERR"} end
		local r = kafka.notify{url = "` + am.URL + `", format = "alertmanager", labels = {alertname = "Lag"}, alerts = alerts}
		local sent = 0
		for _, a in ipairs(r.alerts) do if a.sent then sent = sent + 1 end end
		return {r.reason, r.posts, sent}`)
	assert.Equal(t, `["opened",2,1500]`, got)
	assert.Len(t, am.Firing(), 1500)

	// Under dry-run, each POST that would be made is shown.
	e.run(`kafka.dry_run(true)
		local alerts = {}
		for i = 1, 1200 do alerts[i] = {labels = {group = "h" .. i}, status = "WARN"} end
		kafka.notify{url = "` + am.URL + `", format = "alertmanager", labels = {alertname = "Lag"}, alerts = alerts}`)
	assert.Contains(t, e.stderr.String(), "dry-run: kafka.notify: would POST 1200 alerts to "+am.URL+"/api/v2/alerts as alertmanager (opened) in 2 POSTs: [{")
	assert.Contains(t, e.stderr.String(), "dry-run: kafka.notify: POST 2 of 2: [{")
	assert.Equal(t, 2, am.Posts(), "nothing more POSTed")
}

// The WARN line of a failed delivery quotes the webhook's answer escaped
// as strings from a cluster are: no bidi override or C1 control reaches
// the terminal raw.
func TestNotifyWarnLineEscapesTheWebhooksAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, "bad \u202egnirts\u202c \u009b31m red \u0085 next")
	}))
	t.Cleanup(srv.Close)
	e := notifyEnv(t, nil, nil, false)
	got := e.json(`return kafka.notify{url = "` + srv.URL + `", key = "k"}.error.message`)
	var msg string
	require.NoError(t, json.Unmarshal([]byte(got), &msg))
	assert.Contains(t, msg, "\u202e", "the result keeps the answer as it was (JSON and Lua are exact)")
	stderr := e.stderr.String()
	assert.Contains(t, stderr, `WARN kafka.notify: delivery failed: POST `+srv.URL+`: HTTP 400 Bad Request: bad \u202egnirts\u202c \u009b31m red \u0085 next (1 attempt)`)
	for _, raw := range []string{"\u202e", "\u202c", "\u009b", "\u0085"} {
		assert.NotContains(t, stderr, raw)
	}
}

func TestNotifyRefusesBadStatusLabelsAndAfterRuns(t *testing.T) {
	w := testnet.NewWebhook(t)
	e := notifyEnv(t, nil, nil, false)
	u := `url = "` + w.URL + `", key = "k"`
	for src, want := range map[string]string{
		`kafka.notify{` + u + `, status_labels = {OK = {severity = "none"}}}`:             `kafka.notify: status_labels: key OK: must be "firing", "WARN"`,
		`kafka.notify{` + u + `, status_labels = {ERR = {["bad-name"] = "x"}}}`:           `kafka.notify: status_labels: ERR: key bad-name: must be a label name`,
		`kafka.notify{` + u + `, status_labels = {ERR = "critical"}}`:                     `kafka.notify: status_labels: ERR: must be {label = value, ...}`,
		`kafka.notify{` + u + `, after_runs = 0}`:                                         `kafka.notify: after_runs: must be`,
		`kafka.notify{` + u + `, after_runs = ` + fmt.Sprint(alerts.MaxAfterRuns+1) + `}`: `kafka.notify: after_runs: must be`,
	} {
		re := e.runErr(src)
		assert.Equal(t, "INVALID_ARGUMENT", re.Code, src)
		assert.Contains(t, re.Message, want, src)
	}
	assert.Empty(t, w.Bodies())
	assert.False(t, strings.Contains(e.stderr.String(), "WARN"))
}
