package alerts

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/kadmin-lua/kadmin-lua/engine/redact"
	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// The formats a notification is sent in.
const (
	// FormatAlertmanager is Prometheus Alertmanager's v2 API: POST
	// /api/v2/alerts with a list of {labels, annotations, startsAt, endsAt,
	// generatorURL}.
	FormatAlertmanager = "alertmanager"
	// FormatSlack is a Slack-compatible incoming webhook: {"text": ...},
	// with blocks when asked.
	FormatSlack = "slack"
	// FormatJSON is kadmin-lua's own document: {"version", "source",
	// "status", "alerts": [...]}.
	FormatJSON = "json"
)

// Formats lists the formats, in the order the docs give them.
var Formats = []string{FormatAlertmanager, FormatSlack, FormatJSON}

// Defaults of a notification.
const (
	// DefaultRepeatInterval is Alertmanager's own repeat_interval default:
	// an alert that stays open is sent again every four hours.
	DefaultRepeatInterval = 4 * time.Hour
	// DefaultTimeout bounds each attempt: connecting, sending and
	// reading the answer.
	DefaultTimeout = 5 * time.Second
	// DefaultAttempts: the first try and two retries.
	DefaultAttempts = 3
	// MaxAttempts and MaxTimeout bound what a caller may ask.
	MaxAttempts = 10
	MaxTimeout  = 2 * time.Minute
	// MaxAlertsPerPost bounds one POST's body: a call with more alerts to
	// send makes several POSTs (Slack's take at most slackBlocksMax).
	MaxAlertsPerPost = 1000
	// MaxAfterRuns bounds Request.AfterRuns.
	MaxAfterRuns = 1000
)

// CodeNotifyFailed is the code of a delivery that failed: every attempt
// refused, timed out or answered with an error status.
const CodeNotifyFailed = "NOTIFY_FAILED"

// The reasons a notification was sent, or not.
const (
	ReasonOpened   = "opened"
	ReasonResolved = "resolved"
	ReasonRepeat   = "repeat"
	// ReasonPending: the status changed, but fewer than AfterRuns calls in
	// a row have seen it; nothing sent.
	ReasonPending = "pending"
	// ReasonUnchanged: nothing to send; the status is the one last sent
	// (still open within its repeat interval, or nothing open).
	ReasonUnchanged = "unchanged"
	ReasonFailed    = "failed"
)

// Statuses are the status words an alert takes: "firing" and
// "resolved", and lag_status' verdicts. "OK" resolves; every other word
// fires, and is remembered as it is, so that a change from one firing word
// to another (WARN to ERR) is sent as a new opening.
var Statuses = []string{"firing", "resolved", "OK", "WARN", "ERR", "NOTFOUND", "STALL", "STOP", "REWIND"}

// StatusResolved is the status of a resolved alert, as a Notice records
// it.
const StatusResolved = "resolved"

// resolves reports whether a status word resolves an alert.
func resolves(word string) bool { return word == StatusResolved || word == "OK" }

// Alert is one alert to send.
type Alert struct {
	// Key identifies the alert in the ledger; "" derives it from Labels
	// (DefaultKey).
	Key string
	// Status is one of Statuses; "" is "firing".
	Status      string
	Labels      map[string]string
	Annotations map[string]string
}

// Request is one call's worth of alerts.
type Request struct {
	URL          vocab.Secret // the webhook; its credentials never leave this request (redact.URL)
	Format       string       // one of Formats
	Alerts       []Alert
	GeneratorURL string // Alertmanager's generatorURL: a link back to what raised the alert
	// StatusLabels are labels an alert fires with by its status word
	// ({"ERR": {"severity": "critical"}}), over its own. They are part of
	// its identity but not of its key: a change of status that changes
	// them resolves the open alert (with the labels it opened with) as the
	// new one opens.
	StatusLabels map[string]map[string]string
	// AfterRuns: a new status (opening, escalating or resolving) is sent
	// once this many calls in a row have seen it; 0 is 1, at once.
	AfterRuns int
	// RepeatInterval: how long an open alert stays quiet before it is sent
	// again; 0 is DefaultRepeatInterval.
	RepeatInterval time.Duration
	// Timeout bounds each attempt; 0 is DefaultTimeout.
	Timeout time.Duration
	// Attempts: how many times a retriable failure (connection refused or
	// reset, a timeout, HTTP 5xx or 429) is tried; 0 is
	// DefaultAttempts. Other 4xx answers are not retried.
	Attempts int
	Token    vocab.Secret            // sent as "Authorization: Bearer <token>" when set
	Headers  map[string]vocab.Secret // extra request headers; their values never printed
	// SlackBlocks adds Block Kit blocks (one section per alert) to the
	// Slack message; its text stays as the notification's fallback.
	SlackBlocks bool
	// DryRun: decide and build the bodies, POST nothing, record nothing.
	DryRun bool
}

// Outcome is what became of one alert of a request.
type Outcome struct {
	Key    string `json:"key"`
	Status string `json:"status"` // the word given ("firing", "WARN", "OK", ...)
	Reason string `json:"reason"` // opened, resolved, repeat, pending, unchanged or failed
	Sent   bool   `json:"sent"`
	// Runs: pending, how many calls in a row have seen the new status.
	Runs int `json:"runs,omitempty"`
}

// Result is what a notification did.
type Result struct {
	// Sent: the webhook accepted a POST (2xx) during this call.
	Sent bool `json:"sent"`
	// Reason is the most telling of the alerts' reasons: failed, opened,
	// resolved, repeat, pending, then unchanged (nothing to send).
	Reason     string       `json:"reason"`
	Posts      int          `json:"posts"`                 // POST bodies the alerts to send took (0: nothing to send)
	Attempts   int          `json:"attempts"`              // POSTs tried, retries included (0: nothing to send, or a dry run)
	StatusCode int          `json:"status_code,omitempty"` // the last HTTP status received
	Error      *vocab.Error `json:"error,omitempty"`       // why a delivery failed (CodeNotifyFailed): the first that did
	DryRun     bool         `json:"dry_run,omitempty"`
	URL        string       `json:"url"` // the webhook, redacted (redact.URL)
	// Alerts: each alert's outcome, in the request's order.
	Alerts []Outcome `json:"alerts"`
	// Payloads are the bodies sent, or under dry-run those that would be;
	// nil when nothing needed sending.
	Payloads [][]byte `json:"-"`
	// SaveErr: the POST went through but the ledger could not record it,
	// so the alert may be sent again next time.
	SaveErr error `json:"-"`
}

// Notifier sends notifications and keeps their ledger. It is safe for
// concurrent use.
type Notifier struct {
	ledger Ledger
	http   *http.Client
	now    func() time.Time
	// wait sleeps before a retry; false when ctx ended first.
	wait func(ctx context.Context, attempt int, retryAfter time.Duration) bool
}

// NewNotifier returns a notifier remembering in ledger (nil: memory).
// Redirects are not followed: a webhook that answers 3xx has failed, and
// its token is not forwarded anywhere. Proxies come from the environment
// (HTTPS_PROXY, NO_PROXY), as for every Go program.
func NewNotifier(ledger Ledger) *Notifier {
	if ledger == nil {
		ledger = NewMemoryLedger()
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	return &Notifier{
		ledger: ledger,
		http: &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		}},
		now:  time.Now,
		wait: retryWait,
	}
}

// DefaultKey is an alert's key when none is given: its labels,
// "name=value" sorted by name and joined with ",".
func DefaultKey(labels map[string]string) string {
	parts := make([]string, 0, len(labels))
	for _, k := range vocab.SortedKeys(labels) {
		parts = append(parts, k+"="+labels[k])
	}
	return strings.Join(parts, ",")
}

// CheckAlert says what is wrong with an alert sent in format, or nil.
func CheckAlert(a Alert, format string) error {
	switch {
	case a.Status != "" && !slices.Contains(Statuses, a.Status):
		return fmt.Errorf("status must be one of %s, got %q", strings.Join(Statuses, ", "), a.Status)
	case a.Key == "" && len(a.Labels) == 0:
		return errors.New("an alert needs a key or labels (its identity)")
	case format == FormatAlertmanager && a.Labels["alertname"] == "":
		return errors.New("labels: an Alertmanager alert needs an alertname label")
	}
	return nil
}

// CheckStatusLabels says what is wrong with StatusLabels, or nil: they
// are for the words that fire (a resolution carries the labels its alert
// opened with).
func CheckStatusLabels(m map[string]map[string]string) error {
	for _, word := range vocab.SortedKeys(m) {
		switch {
		case !slices.Contains(Statuses, word):
			return fmt.Errorf("%q is not a status (%s)", word, strings.Join(Statuses, ", "))
		case resolves(word):
			return fmt.Errorf("%s resolves: a resolved alert is sent with the labels it was opened with", word)
		}
	}
	return nil
}

// CheckWebhookURL says what is wrong with a webhook URL, or nil. The
// message never contains the URL.
func CheckWebhookURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return errors.New("is not a URL")
	case u.Scheme != "http" && u.Scheme != "https":
		return errors.New("must be an http:// or https:// URL")
	case u.Host == "":
		return errors.New("has no host")
	}
	return nil
}

func (req *Request) check() error {
	bad := func(format string, args ...any) error {
		return vocab.Errorf(vocab.CodeInvalidArgument, "", format, args...)
	}
	if err := CheckWebhookURL(req.URL.Reveal()); err != nil {
		return bad("url %v", err)
	}
	if !slices.Contains(Formats, req.Format) {
		return bad("format must be one of %s, got %q", strings.Join(Formats, ", "), req.Format)
	}
	if len(req.Alerts) == 0 {
		return bad("at least 1 alert is sent, got none")
	}
	for i, a := range req.Alerts {
		if err := CheckAlert(a, req.Format); err != nil {
			return bad("alert %d: %v", i+1, err)
		}
	}
	if err := CheckStatusLabels(req.StatusLabels); err != nil {
		return bad("status labels: %v", err)
	}
	switch {
	case req.Attempts < 0 || req.Attempts > MaxAttempts:
		return bad("attempts must be between 1 and %d, got %d", MaxAttempts, req.Attempts)
	case req.Timeout < 0 || req.Timeout > MaxTimeout:
		return bad("timeout must be at most %s, got %s", MaxTimeout, req.Timeout)
	case req.RepeatInterval < 0:
		return bad("repeat interval must not be negative, got %s", req.RepeatInterval)
	case req.AfterRuns < 0 || req.AfterRuns > MaxAfterRuns:
		return bad("after runs must be between 1 and %d, got %d", MaxAfterRuns, req.AfterRuns)
	}
	return nil
}

// NoticeKey is the ledger's key of an alert sent to a webhook. It keeps
// one webhook's alerts apart from another's: the same alert sent to Slack
// and to Alertmanager is remembered twice. The URL is hashed, so the state
// file holds no credential.
func NoticeKey(rawURL, key string) string {
	sum := sha256.Sum256([]byte(rawURL))
	return "notify/" + hex.EncodeToString(sum[:6]) + "/" + key
}

// Notify decides which of req's alerts need sending, POSTs them (in as
// many POSTs as their number takes), and records what was sent. A
// delivery that fails is in the result (Reason failed, Error), not
// returned: the error is for a request that is wrong (INVALID_ARGUMENT,
// nothing sent) or a call canceled.
func (n *Notifier) Notify(ctx context.Context, req Request) (*Result, error) {
	if err := req.check(); err != nil {
		return nil, err
	}
	if req.RepeatInterval == 0 {
		req.RepeatInterval = DefaultRepeatInterval
	}
	if req.Timeout == 0 {
		req.Timeout = DefaultTimeout
	}
	if req.Attempts == 0 {
		req.Attempts = DefaultAttempts
	}
	req.AfterRuns = max(req.AfterRuns, 1)
	raw := req.URL.Reveal()
	res := &Result{URL: redact.URL(webhookTarget(req)), DryRun: req.DryRun, Alerts: make([]Outcome, len(req.Alerts))}
	if r, ok := n.ledger.(readyLedger); ok && !req.DryRun {
		if err := r.Ready(); err != nil {
			return nil, err
		}
	}
	now := n.now().UnixMilli()
	steps := make([]step, len(req.Alerts))
	for i, a := range req.Alerts {
		if a.Status == "" {
			a.Status = "firing"
		}
		if a.Key == "" {
			a.Key = DefaultKey(a.Labels)
		}
		key := NoticeKey(raw, a.Key)
		prev, found := n.ledger.LastNotice(key)
		steps[i] = decide(&req, a, prev, found, now)
		steps[i].ledgerKey = key
		res.Alerts[i] = Outcome{Key: a.Key, Status: a.Status, Reason: steps[i].reason, Runs: steps[i].runs}
	}
	res.Reason = mostTelling(res.Alerts)
	posts, err := formatPosts(&req, steps, now)
	if err != nil {
		return nil, err
	}
	res.Posts = len(posts)
	for _, p := range posts {
		res.Payloads = append(res.Payloads, p.body)
	}
	if req.DryRun {
		return res, nil
	}
	sec := newWebhookSecrets(req)
	save := func(i int) {
		if err := n.ledger.SaveNotice(steps[i].ledgerKey, steps[i].next); err != nil && res.SaveErr == nil {
			res.SaveErr = fmt.Errorf("recording what was sent: %s", sec.scrub(err.Error()))
		}
	}
	// What sends nothing (a pending status counted, or cleared) is
	// recorded whatever becomes of the POSTs.
	for i, s := range steps {
		if s.save && len(s.sends) == 0 {
			save(i)
		}
	}
	down := false // a POST failed in a way that the next would too
	for _, p := range posts {
		if down {
			markFailed(res, p)
			continue
		}
		attempts, status, perr := n.post(ctx, req, p.body, sec)
		res.Attempts += attempts
		res.StatusCode = status
		if perr != nil {
			if perr.Code == vocab.CodeCanceled {
				return nil, perr
			}
			if res.Error == nil {
				res.Error = perr
			}
			// Unreachable, or answering 5xx: the other POSTs would wait out
			// their attempts too. A 4xx is this body's fault.
			down = perr.Retriable
			markFailed(res, p)
			continue
		}
		res.Sent = true
		for _, i := range p.steps {
			res.Alerts[i].Sent = true
			save(i)
		}
	}
	if res.Error != nil {
		res.Reason = ReasonFailed
	}
	return res, nil
}

// markFailed marks the alerts of a POST that was not delivered.
func markFailed(res *Result, p webhookPost) {
	for _, i := range p.steps {
		res.Alerts[i].Reason = ReasonFailed
	}
}

// mostTelling is the result's reason: opened, then resolved, repeat,
// pending, unchanged.
func mostTelling(outs []Outcome) string {
	for _, r := range []string{ReasonOpened, ReasonResolved, ReasonRepeat, ReasonPending} {
		for _, o := range outs {
			if o.Reason == r {
				return r
			}
		}
	}
	return ReasonUnchanged
}
