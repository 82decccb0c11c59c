package luaapi

import (
	"fmt"
	"math"
	"net/http"
	"os"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/alerts"
	"github.com/kadmin-lua/kadmin-lua/internal/boundedfile"
)

func init() {
	register(&Func{Name: "kafka.notify", Area: "library", TableCall: true, Options: notifyOptions,
		Returns: "{sent=bool, reason=string, key=string?, posts=int, attempts=int, status_code=int?, error=error?, dry_run=bool?, url=string, alerts={{key=string, status=string, reason=string, sent=bool, runs=int?}...}}",
		Summary: "POST an alert to a webhook (Alertmanager, Slack or JSON), once when it opens, again after repeat_interval, once when it resolves, with the labels it opened with.",
		Doc: `Alerts without Prometheus: a JSON POST to url (or to the URL in the variable url_env, for webhooks whose URL is the secret, as Slack's are).
format "alertmanager" sends Alertmanager's v2 API (POST /api/v2/alerts, added to a URL given without a path): a list of {labels, annotations, startsAt, endsAt, generatorURL}; labels need an alertname. A firing alert's endsAt is two repeat intervals ahead, so Alertmanager keeps it firing between repeats and lets it lapse when the job that sends it stops; a resolved alert's endsAt is now. format "slack" sends {"text": ...} (with blocks=... when slack_blocks is true), which Slack, Mattermost and Rocket.Chat incoming webhooks read. format "json" (the default) sends {"version": "1", "source": "kadmin-lua", "status": "firing"|"resolved", "sentAt": ..., "alerts": [{key, status, state, reason, labels, annotations, startsAt, endsAt}]}.
status is "firing" (the default) or "resolved", or a verdict of lag_status: "OK" resolves; WARN, ERR, NOTFOUND, STALL, STOP and REWIND fire, and a change from one to another (WARN to ERR) is sent as a new opening. summary and description are the annotations of those names.
Identity: key (by default the labels, "alertname=KafkaConsumerLag,group=billing") is what kafka.notify remembers the alert by; its labels are what the webhook knows it by (Alertmanager identifies an alert by its whole label set). status_labels = {ERR = {severity = "critical"}, WARN = {severity = "warning"}} adds labels by status, over the alert's own. An alert is resolved with the labels it was opened with, whatever labels the resolving call gives; when the labels it fires with change while it is open (a status label, or the caller's labels), the open alert is resolved, with its labels, in the same POST as the new one opens, so nothing stays firing at the webhook. An alert opened by an earlier kadmin-lua (which did not record its labels) is taken to have been sent with the labels given now and the status labels of the status it opened with, and is resolved once with those.
De-duplication: what was sent is remembered per webhook and key: in the state file with --state (so across cron runs), else for the process's life (one run, or a loop). An alert is sent when it opens (reason "opened"), again once repeat_interval (seconds, default 14400: 4 hours, Alertmanager's own default) has passed while it stays open ("repeat"), and when it resolves ("resolved"); otherwise nothing is sent ("unchanged": the status is the one last sent, or nothing is open to resolve). Resolving an alert that is not open sends nothing.
Hysteresis: with after_runs = N, a new status (opening, escalating, resolving) is sent once N calls in a row have given it; until then the reason is "pending" (the alert's runs says how many calls have), and a call that gives the status last sent starts the count again. A flapping alert then sends nothing. While a change is pending an open alert is still repeated as it opened.
Several alerts go in one call with alerts={{labels=..., status=...}, ...} (labels and annotations given beside it are common to all; an alert's own win); only those that need sending are POSTed, and each has its outcome in the result's alerts. The result's reason is then the most telling of theirs: failed, opened, resolved, repeat, pending, unchanged. However many there are, none is dropped: a POST carries at most 1000 alerts (a Slack message 50), and posts says how many POSTs they took.
Delivery: each attempt is bounded by timeout (seconds, default 5); a refused or reset connection, a timeout, HTTP 5xx and 429 are retried (retries, default 2) with a short backoff; other answers are not. A failed delivery returns sent=false, reason="failed" and error, writes a WARN line on stderr (the webhook's answer escaped as every string from outside is), counts in --metrics-file's kadmin_lua_notify_failures and records nothing, so the next call tries again; it does not change the exit code unless fail=true, which raises the error (code NOTIFY_FAILED, exit 1 when not caught). Of several POSTs, those delivered are recorded; after one that fails as a webhook that is down does (refused, timed out, 5xx), the rest are not tried. Redirects are not followed.
Secrets: the token (from the variable token_env or the file token_file, sent as "Authorization: Bearer ...") and the URL's credentials (user:pass@, every query value, path segments that are not plain words, such as Slack's /services/T.../B.../...) never appear in results, errors or logs: url in the result is redacted.
Under --dry-run (or kafka.dry_run(true)) nothing is POSTed and nothing recorded: a "dry-run:" line on stderr shows what would be sent, and the result says dry_run=true with the reason a real run would have.`,
		Example: `kafka.dry_run(true)
local r = kafka.notify{url = "http://alertmanager:9093", format = "alertmanager",
  labels = {alertname = "KafkaConsumerLag", group = "billing"},
  status_labels = {ERR = {severity = "critical"}, WARN = {severity = "warning"}},
  status = "WARN", summary = "billing is 12000 records behind"}
kafka.dry_run(false)
return r.dry_run and r.reason == "opened" and not r.sent`,
		Native: (*Runtime).libNotify})
}

// annotationName is an annotation's name: a label name, as Alertmanager
// wants.
var annotationName = labelName.Sample("runbook_url")

// notifyAlertFields are an alert's own keys, in the single form (beside
// url) or as an item of alerts.
var notifyAlertFields = []Field{
	{Name: "key", Type: NonEmptyStr().MaxLen(1024), Doc: "the alert's identity for de-duplication (default: its labels, name=value joined by commas)"},
	{Name: "status", Type: Enum(alerts.Statuses...), Doc: `"firing" (default), "resolved", or a lag_status verdict ("OK" resolves; the others fire)`},
	{Name: "labels", Type: metricLabels, Doc: "what identifies the alert (Alertmanager needs alertname)"},
	{Name: "annotations", Type: MapOf[string, string](annotationName, Str().MaxLen(16384)).Described("{name = text, ...}"), Doc: "what describes it (runbook_url, ...)"},
	{Name: "summary", Type: Str().MaxLen(16384), Doc: "the summary annotation"},
	{Name: "description", Type: Str().MaxLen(16384), Doc: "the description annotation"},
}

// notifyAlerts is the batch form's list.
var notifyAlerts = List[alerts.Alert](Record(notifyAlertFields...).Then(func(rec Rec, at string) (any, error) {
	a := alertOf(rec, nil, nil)
	if err := alerts.CheckAlert(a, ""); err != nil {
		return nil, argErr(at, "%v", err)
	}
	return a, nil
})).Items("alert").NonEmpty().ArrayOnly()

var notifyOptions = append([]Field{
	{Name: "url", Type: NonEmptyStr().MaxLen(8192).Checked("http(s) URL", alerts.CheckWebhookURL).Sample("http://alertmanager:9093"),
		Doc: "the webhook (give url or url_env)"},
	{Name: "url_env", Type: envName, Doc: "a variable holding the webhook's URL, for URLs that are secrets (Slack's)"},
	{Name: "format", Type: Enum(alerts.Formats...), Doc: `"alertmanager", "slack" or "json" (default)`},
	{Name: "alerts", Type: notifyAlerts, Doc: "several alerts in one call, each {key=, status=, labels=, annotations=, summary=, description=}"},
	{Name: "generator_url", Type: Str().MaxLen(8192), Doc: "Alertmanager's generatorURL: a link back to what raised the alert"},
	{Name: "status_labels", Type: MapOf[string, map[string]string](Enum(firingStatuses()...), metricLabels).Described("{STATUS = {label = value, ...}, ...}"),
		Doc: `labels an alert fires with by its status, over its own ({ERR = {severity = "critical"}}); not part of its key`},
	{Name: "after_runs", Type: Count(1).Between(1, alerts.MaxAfterRuns), Doc: "send a new status only once this many calls in a row have given it (default 1: at once)"},
	{Name: "repeat_interval", Type: NumberBetween(1, 7*86400), Doc: "seconds an open alert stays quiet before it is sent again (default 14400, at most a week)"},
	{Name: "timeout", Type: NumberBetween(0.001, alerts.MaxTimeout.Seconds()), Doc: "seconds each attempt may take (default 5)"},
	{Name: "retries", Type: Count(0).Between(0, alerts.MaxAttempts-1), Doc: "retries after a refused connection, a timeout, HTTP 5xx or 429 (default 2)"},
	{Name: "token_env", Type: envName, Doc: `a variable holding a bearer token (sent as "Authorization: Bearer ...")`},
	{Name: "token_file", Type: NonEmptyStr(), Doc: "a file holding a bearer token (read at each call; surrounding space trimmed)"},
	{Name: "headers", Type: MapOf[string, string](headerName, Str().MaxLen(8192)).Described("{name = value, ...}"), Doc: "extra request headers (their values are never shown)"},
	{Name: "slack_blocks", Type: Bool(), Doc: "slack: add Block Kit blocks, one section per alert"},
	{Name: "fail", Type: Bool(), Doc: "raise the error (NOTIFY_FAILED) when delivery fails, rather than returning it"},
}, notifyAlertFields...)

// firingStatuses are the status words that fire: those status_labels
// takes.
func firingStatuses() []string {
	var out []string
	for _, w := range alerts.Statuses {
		if w != "OK" && w != "resolved" {
			out = append(out, w)
		}
	}
	return out
}

var envName = NonEmptyStr().MaxLen(256).Checked("variable name", nil).Sample("ALERT_TOKEN")

// headerName is an HTTP header's name; those the request itself sets are
// refused.
var headerName = NonEmptyStr().MaxLen(256).Checked("header name", func(s string) error {
	for _, r := range s {
		if r <= ' ' || r >= 0x7f || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) {
			return fmt.Errorf("must be an HTTP header name, got %q", s)
		}
	}
	switch http.CanonicalHeaderKey(s) {
	case "Host", "Content-Length", "Transfer-Encoding", "Connection":
		return fmt.Errorf("%s is set by the request itself", http.CanonicalHeaderKey(s))
	}
	return nil
}).Sample("X-Scope-OrgID")

// alertOf builds an alert from its keys, under the common labels and
// annotations (the alert's own win).
func alertOf(rec Rec, labels, annotations map[string]string) alerts.Alert {
	a := alerts.Alert{Key: get[string](rec, "key"), Status: get[string](rec, "status"),
		Labels: merged(labels, get[map[string]string](rec, "labels")), Annotations: merged(annotations, get[map[string]string](rec, "annotations"))}
	for _, k := range []string{"summary", "description"} {
		if rec.Has(k) {
			if a.Annotations == nil {
				a.Annotations = map[string]string{}
			}
			a.Annotations[k] = get[string](rec, k)
		}
	}
	return a
}

func merged(common, own map[string]string) map[string]string {
	if len(common) == 0 {
		return own
	}
	out := make(map[string]string, len(common)+len(own))
	for k, v := range common {
		out[k] = v
	}
	for k, v := range own {
		out[k] = v
	}
	return out
}

// notifyRequest checks kafka.notify's arguments across keys and reads its
// secrets; nothing is sent when it fails.
func (r *Runtime) notifyRequest(c *Call) (alerts.Request, error) {
	given := c.Given
	req := alerts.Request{Format: alerts.FormatJSON, GeneratorURL: param[string](c, "generator_url"),
		SlackBlocks: param[bool](c, "slack_blocks"), StatusLabels: param[map[string]map[string]string](c, "status_labels"),
		AfterRuns: param[int](c, "after_runs")}
	if given("format") {
		req.Format = param[string](c, "format")
	}
	switch {
	case given("url") == given("url_env"):
		return req, argErr("url", "give url or url_env (one of them)")
	case given("token_env") && given("token_file"):
		return req, argErr("token_env", "give token_env or token_file, not both")
	case req.SlackBlocks && req.Format != alerts.FormatSlack:
		return req, argErr("slack_blocks", "is for format \"slack\"")
	case req.GeneratorURL != "" && req.Format != alerts.FormatAlertmanager:
		return req, argErr("generator_url", "is for format \"alertmanager\"")
	}
	if given("url") {
		req.URL = engine.Secret(param[string](c, "url"))
	} else {
		name := param[string](c, "url_env")
		u := r.opts.Env(name)
		if u == "" {
			return req, argErr("url_env", "variable %s is unset or empty", name)
		}
		if err := alerts.CheckWebhookURL(u); err != nil {
			return req, argErr("url_env", "variable %s %v", name, err)
		}
		req.URL = engine.Secret(u)
	}
	labels, annotations := param[map[string]string](c, "labels"), param[map[string]string](c, "annotations")
	if given("alerts") {
		for _, k := range []string{"key", "status", "summary", "description"} {
			if given(k) {
				return req, argErr(k, "goes in each of alerts, not beside it")
			}
		}
		for _, a := range param[[]alerts.Alert](c, "alerts") {
			a.Labels, a.Annotations = merged(labels, a.Labels), merged(annotations, a.Annotations)
			req.Alerts = append(req.Alerts, a)
		}
	} else {
		req.Alerts = []alerts.Alert{alertOf(c.args.opts, nil, nil)}
	}
	for i, a := range req.Alerts {
		if err := alerts.CheckAlert(a, req.Format); err != nil {
			at := ""
			if given("alerts") {
				at = fmt.Sprintf("alert #%d", i+1)
			}
			return req, argErr(at, "%v", err)
		}
	}
	if given("repeat_interval") {
		req.RepeatInterval = seconds(param[float64](c, "repeat_interval"))
	}
	if given("timeout") {
		req.Timeout = seconds(param[float64](c, "timeout"))
	}
	if given("retries") {
		req.Attempts = param[int](c, "retries") + 1
	}
	switch {
	case given("token_env"):
		name := param[string](c, "token_env")
		if req.Token = engine.Secret(r.opts.Env(name)); req.Token == "" {
			return req, argErr("token_env", "variable %s is unset or empty", name)
		}
	case given("token_file"):
		path := param[string](c, "token_file")
		b, err := boundedfile.Read(path, boundedfile.Token)
		if err != nil {
			return req, argErr("token_file", "cannot read %s: %v", path, pathErrCause(err))
		}
		if req.Token = engine.Secret(strings.TrimSpace(string(b))); req.Token == "" {
			return req, argErr("token_file", "%s is empty", path)
		}
	}
	if hs := param[map[string]string](c, "headers"); len(hs) > 0 {
		req.Headers = make(map[string]engine.Secret, len(hs))
		for k, v := range hs {
			if req.Token != "" && http.CanonicalHeaderKey(k) == "Authorization" {
				return req, argErr("headers", "Authorization is set from the token; give one or the other")
			}
			req.Headers[k] = engine.Secret(v)
		}
	}
	return req, nil
}

// pathErrCause is a file error without the path it repeats.
func pathErrCause(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

func seconds(s float64) time.Duration {
	return time.Duration(math.Round(s * float64(time.Second)))
}

func (r *Runtime) libNotify(c *Call) int {
	const name = "kafka.notify"
	L := c.L
	req, err := r.notifyRequest(c)
	if err != nil {
		return libError(L, name, err)
	}
	cl, err := r.dflt.get()
	if err != nil {
		return libError(L, name, err)
	}
	req.DryRun = c.DryRun()
	res, err := cl.Notify(c.Ctx(), req)
	if err != nil {
		return libError(L, name, err)
	}
	switch {
	case res.DryRun && len(res.Payloads) > 0:
		in := ""
		if len(res.Payloads) > 1 {
			in = fmt.Sprintf(" in %d POSTs", len(res.Payloads))
		}
		fmt.Fprintf(r.opts.Stderr, "dry-run: %s: would POST %s to %s as %s (%s)%s: %s\n", name, alertCount(sending(res)),
			res.URL, req.Format, res.Reason, in, TerminalText(string(res.Payloads[0])))
		for i, p := range res.Payloads[1:] {
			fmt.Fprintf(r.opts.Stderr, "dry-run: %s: POST %d of %d: %s\n", name, i+2, len(res.Payloads), TerminalText(string(p)))
		}
	case res.DryRun:
		fmt.Fprintf(r.opts.Stderr, "dry-run: %s: nothing to send to %s (%s)\n", name, res.URL, res.Reason)
	case res.Error != nil:
		r.notifyFailures++
		// The message quotes the webhook's answer: escaped as a cluster's
		// strings are (bidi and C1 controls included).
		c.logLine("warn", TerminalText(fmt.Sprintf("%s: delivery failed: %s", name, res.Error.Message)))
	case res.Sent:
		r.notifyDeliveries++
	}
	if res.SaveErr != nil {
		c.logLine("warn", TerminalText(fmt.Sprintf("%s: %v: the alert may be sent again", name, res.SaveErr)))
	}
	if res.Error != nil && param[bool](c, "fail") {
		return libError(L, name, res.Error)
	}
	out := r.conv.toLua(res).(*lua.LTable)
	if !c.Given("alerts") {
		out.RawSetString("key", lua.LString(res.Alerts[0].Key))
	}
	L.Push(out)
	return 1
}

// sending is how many alerts are (or would be) in the POSTs.
func sending(res *alerts.Result) int {
	n := 0
	for _, a := range res.Alerts {
		switch a.Reason {
		case alerts.ReasonOpened, alerts.ReasonResolved, alerts.ReasonRepeat:
			n++
		}
	}
	return n
}

func alertCount(n int) string {
	if n == 1 {
		return "1 alert"
	}
	return fmt.Sprintf("%d alerts", n)
}

// NotifyCounts is how many kafka.notify calls of the run delivered their
// POST, and how many failed to (--metrics-file writes both).
func (r *Runtime) NotifyCounts() (deliveries, failures int) {
	return r.notifyDeliveries, r.notifyFailures
}
