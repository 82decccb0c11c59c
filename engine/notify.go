package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Notifications: kafka.notify POSTs alerts as JSON to a webhook, in one of
// NotifyFormats, and remembers what it sent in a NoticeLedger (the state
// store between runs, or memory) so that an alert is sent
//   - once when its status opens ("opened"; a change of firing word,
//     WARN to ERR, opens anew),
//   - again while it stays open, once per repeat interval ("repeat"),
//   - once when it resolves ("resolved"),
// and otherwise not at all ("duplicate"). A delivery that fails ("failed")
// records nothing, so the next call tries again. Nothing here is a Kafka
// mutation: no audit line, no operations row; under dry-run nothing is
// POSTed and nothing recorded.

// The formats a notification is sent in.
const (
	// NotifyAlertmanager is Prometheus Alertmanager's v2 API: POST
	// /api/v2/alerts with a list of {labels, annotations, startsAt, endsAt,
	// generatorURL}.
	NotifyAlertmanager = "alertmanager"
	// NotifySlack is a Slack-compatible incoming webhook: {"text": ...},
	// with blocks when asked.
	NotifySlack = "slack"
	// NotifyJSON is kadmin-lua's own document: {"version", "source",
	// "status", "alerts": [...]}.
	NotifyJSON = "json"
)

// NotifyFormats lists the formats, in the order the docs give them.
var NotifyFormats = []string{NotifyAlertmanager, NotifySlack, NotifyJSON}

// Defaults of a notification.
const (
	// DefaultRepeatInterval is Alertmanager's own repeat_interval default:
	// an alert that stays open is sent again every four hours.
	DefaultRepeatInterval = 4 * time.Hour
	// DefaultNotifyTimeout bounds each attempt: connecting, sending and
	// reading the answer.
	DefaultNotifyTimeout = 5 * time.Second
	// DefaultNotifyAttempts: the first try and two retries.
	DefaultNotifyAttempts = 3
	// MaxNotifyAttempts and MaxNotifyTimeout bound what a caller may ask.
	MaxNotifyAttempts = 10
	MaxNotifyTimeout  = 2 * time.Minute
	// MaxNotifyAlerts bounds one call's batch.
	MaxNotifyAlerts = 1000
)

// CodeNotifyFailed is the code of a delivery that failed: every attempt
// refused, timed out or answered with an error status.
const CodeNotifyFailed = "NOTIFY_FAILED"

// The reasons a notification was sent, or not.
const (
	ReasonOpened    = "opened"
	ReasonResolved  = "resolved"
	ReasonRepeat    = "repeat"
	ReasonDuplicate = "duplicate"
	ReasonFailed    = "failed"
)

// NotifyStatuses are the status words an alert takes: "firing" and
// "resolved", and lag_status' verdicts. "OK" resolves; every other word
// fires, and is remembered as it is, so that a change from one firing word
// to another (WARN to ERR) is sent as a new opening.
var NotifyStatuses = []string{"firing", "resolved", "OK", "WARN", "ERR", "NOTFOUND", "STALL", "STOP", "REWIND"}

const statusResolved = "resolved"

// resolves reports whether a status word resolves an alert.
func resolves(word string) bool { return word == statusResolved || word == "OK" }

// Alert is one alert to send.
type Alert struct {
	// Key identifies the alert in the ledger; "" derives it from Labels
	// (DefaultAlertKey).
	Key string
	// Status is one of NotifyStatuses; "" is "firing".
	Status      string
	Labels      map[string]string
	Annotations map[string]string
}

// NotifyRequest is one POST's worth of alerts.
type NotifyRequest struct {
	URL          Secret // the webhook; its credentials never leave this request (RedactURL)
	Format       string // one of NotifyFormats
	Alerts       []Alert
	GeneratorURL string // Alertmanager's generatorURL: a link back to what raised the alert
	// RepeatInterval: how long an open alert stays quiet before it is sent
	// again; 0 is DefaultRepeatInterval.
	RepeatInterval time.Duration
	// Timeout bounds each attempt; 0 is DefaultNotifyTimeout.
	Timeout time.Duration
	// Attempts: how many times a retriable failure (connection refused or
	// reset, a timeout, HTTP 5xx or 429) is tried; 0 is
	// DefaultNotifyAttempts. Other 4xx answers are not retried.
	Attempts int
	Token    Secret            // sent as "Authorization: Bearer <token>" when set
	Headers  map[string]Secret // extra request headers; their values never printed
	// SlackBlocks adds Block Kit blocks (one section per alert) to the
	// Slack message; its text stays as the notification's fallback.
	SlackBlocks bool
	// DryRun: decide and build the body, POST nothing, record nothing.
	DryRun bool
}

// AlertOutcome is what became of one alert of a request.
type AlertOutcome struct {
	Key    string `json:"key"`
	Status string `json:"status"` // the word given ("firing", "WARN", "OK", ...)
	Reason string `json:"reason"` // opened, resolved, repeat, duplicate or failed
	Sent   bool   `json:"sent"`
}

// NotifyResult is what a notification did.
type NotifyResult struct {
	// Sent: the webhook accepted a POST (2xx) during this call.
	Sent bool `json:"sent"`
	// Reason is the most telling of the alerts' reasons: failed, opened,
	// resolved, repeat, then duplicate (nothing needed sending).
	Reason     string         `json:"reason"`
	Attempts   int            `json:"attempts"`              // POSTs tried (0: nothing to send, or a dry run)
	StatusCode int            `json:"status_code,omitempty"` // the last HTTP status received
	Error      *Error         `json:"error,omitempty"`       // why delivery failed (CodeNotifyFailed)
	DryRun     bool           `json:"dry_run,omitempty"`
	URL        string         `json:"url"` // the webhook, redacted (RedactURL)
	Alerts     []AlertOutcome `json:"alerts"`
	// Payload is the body sent, or under dry-run the one that would be;
	// nil when nothing needed sending.
	Payload []byte `json:"-"`
	// SaveErr: the POST went through but the ledger could not record it,
	// so the alert may be sent again next time.
	SaveErr error `json:"-"`
}

// Notifier sends notifications and keeps their ledger. It is safe for
// concurrent use.
type Notifier struct {
	ledger NoticeLedger
	http   *http.Client
	now    func() time.Time
	// wait sleeps before a retry; false when ctx ended first.
	wait func(ctx context.Context, attempt int, retryAfter time.Duration) bool
}

// NewNotifier returns a notifier remembering in ledger (nil: memory).
// Redirects are not followed: a webhook that answers 3xx has failed, and
// its token is not forwarded anywhere. Proxies come from the environment
// (HTTPS_PROXY, NO_PROXY), as for every Go program.
func NewNotifier(ledger NoticeLedger) *Notifier {
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

// Notifier returns the client's notifier, remembering in Config.Notices
// (memory when nil): made once, kept for the client's life.
func (c *Client) Notifier() *Notifier {
	c.notifyOnce.Do(func() {
		ledger := c.cfg.Notices
		if ledger == nil && c.cfg.State != nil {
			ledger = c.cfg.State.Notices(stateName(c.cfg))
		}
		c.notifier = NewNotifier(ledger)
	})
	return c.notifier
}

// Notify sends req through the client's notifier; the client's dry-run
// (its configuration's, or ctx's) holds.
func (c *Client) Notify(ctx context.Context, req NotifyRequest) (*NotifyResult, error) {
	req.DryRun = req.DryRun || c.DryRun(ctx)
	return c.Notifier().Notify(ctx, req)
}

// retryWait is backoff (retry.go), or the server's Retry-After when it
// asked for longer, up to five seconds.
func retryWait(ctx context.Context, attempt int, retryAfter time.Duration) bool {
	if retryAfter <= 0 {
		return backoff(ctx, attempt)
	}
	return sleepCtx(ctx, min(retryAfter, 5*time.Second))
}

// DefaultAlertKey is an alert's key when none is given: its labels,
// "name=value" sorted by name and joined with ",".
func DefaultAlertKey(labels map[string]string) string {
	parts := make([]string, 0, len(labels))
	for _, k := range sortedKeys(labels) {
		parts = append(parts, k+"="+labels[k])
	}
	return strings.Join(parts, ",")
}

// CheckAlert says what is wrong with an alert sent in format, or nil.
func CheckAlert(a Alert, format string) error {
	switch {
	case a.Status != "" && !slices.Contains(NotifyStatuses, a.Status):
		return fmt.Errorf("status must be one of %s, got %q", strings.Join(NotifyStatuses, ", "), a.Status)
	case a.Key == "" && len(a.Labels) == 0:
		return errors.New("an alert needs a key or labels (its identity)")
	case format == NotifyAlertmanager && a.Labels["alertname"] == "":
		return errors.New("labels: an Alertmanager alert needs an alertname label")
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

func (req *NotifyRequest) check() error {
	bad := func(format string, args ...any) error {
		return Errorf(CodeInvalidArgument, "", format, args...)
	}
	if err := CheckWebhookURL(req.URL.Reveal()); err != nil {
		return bad("url %v", err)
	}
	if !slices.Contains(NotifyFormats, req.Format) {
		return bad("format must be one of %s, got %q", strings.Join(NotifyFormats, ", "), req.Format)
	}
	if len(req.Alerts) == 0 || len(req.Alerts) > MaxNotifyAlerts {
		return bad("between 1 and %d alerts are sent at once, got %d", MaxNotifyAlerts, len(req.Alerts))
	}
	for i, a := range req.Alerts {
		if err := CheckAlert(a, req.Format); err != nil {
			return bad("alert %d: %v", i+1, err)
		}
	}
	switch {
	case req.Attempts < 0 || req.Attempts > MaxNotifyAttempts:
		return bad("attempts must be between 1 and %d, got %d", MaxNotifyAttempts, req.Attempts)
	case req.Timeout < 0 || req.Timeout > MaxNotifyTimeout:
		return bad("timeout must be at most %s, got %s", MaxNotifyTimeout, req.Timeout)
	case req.RepeatInterval < 0:
		return bad("repeat interval must not be negative, got %s", req.RepeatInterval)
	}
	return nil
}

// outgoing is one alert as decided: what to send and what to remember.
type outgoing struct {
	Alert
	key      string // the ledger's key
	reason   string
	firing   bool
	startsMs int64
	endsMs   int64 // firing: when Alertmanager lets it lapse unless sent again
	next     Notice
	send     bool
}

// NoticeKey is the ledger's key of an alert sent to a webhook. It keeps
// one webhook's alerts apart from another's: the same alert sent to Slack
// and to Alertmanager is remembered twice. The URL is hashed, so the state
// file holds no credential.
func NoticeKey(rawURL, key string) string {
	sum := sha256.Sum256([]byte(rawURL))
	return "notify/" + hex.EncodeToString(sum[:6]) + "/" + key
}

// decide compares an alert with what was last sent for it.
func decide(prev Notice, found bool, word string, now int64, repeat time.Duration) (reason string, next Notice, send bool) {
	open := found && prev.Status != statusResolved
	switch {
	case resolves(word) && !open:
		// Nothing is open: nothing to resolve, and nothing remembered (a
		// healthy group costs the ledger nothing).
		return ReasonDuplicate, prev, false
	case resolves(word):
		return ReasonResolved, Notice{Status: statusResolved, OpenedMs: now, SentMs: now}, true
	case !open || prev.Status != word:
		return ReasonOpened, Notice{Status: word, OpenedMs: now, SentMs: now}, true
	}
	// Still open with the same word. A clock that went backwards counts as
	// time passed: the notice is repeated at most once, then dated anew.
	elapsed := now - prev.SentMs
	if elapsed < 0 {
		elapsed = -elapsed
	}
	if time.Duration(elapsed)*time.Millisecond >= repeat {
		return ReasonRepeat, Notice{Status: word, OpenedMs: prev.OpenedMs, SentMs: now}, true
	}
	return ReasonDuplicate, prev, false
}

// Notify decides which of req's alerts need sending, POSTs them in one
// request, and records what was sent. A delivery that fails is in the
// result (Reason failed, Error), not returned: the error is for a request
// that is wrong (INVALID_ARGUMENT, nothing sent) or a call canceled.
func (n *Notifier) Notify(ctx context.Context, req NotifyRequest) (*NotifyResult, error) {
	if err := req.check(); err != nil {
		return nil, err
	}
	if req.RepeatInterval == 0 {
		req.RepeatInterval = DefaultRepeatInterval
	}
	if req.Timeout == 0 {
		req.Timeout = DefaultNotifyTimeout
	}
	if req.Attempts == 0 {
		req.Attempts = DefaultNotifyAttempts
	}
	raw := req.URL.Reveal()
	res := &NotifyResult{URL: RedactURL(webhookTarget(req)), DryRun: req.DryRun, Alerts: make([]AlertOutcome, len(req.Alerts))}
	if r, ok := n.ledger.(readyLedger); ok && !req.DryRun {
		if err := r.Ready(); err != nil {
			return nil, err
		}
	}
	now := n.now().UnixMilli()
	outs := make([]outgoing, len(req.Alerts))
	var toSend []outgoing
	for i, a := range req.Alerts {
		if a.Status == "" {
			a.Status = "firing"
		}
		if a.Key == "" {
			a.Key = DefaultAlertKey(a.Labels)
		}
		o := outgoing{Alert: a, key: NoticeKey(raw, a.Key), firing: !resolves(a.Status)}
		prev, found := n.ledger.LastNotice(o.key)
		o.reason, o.next, o.send = decide(prev, found, a.Status, now, req.RepeatInterval)
		o.startsMs = o.next.OpenedMs
		if o.reason == ReasonResolved || o.reason == ReasonRepeat {
			o.startsMs = prev.OpenedMs
		}
		o.endsMs = now
		if o.firing {
			// Alertmanager resolves an alert nobody re-sends by endsAt: it
			// stays firing through the next repeat, and lapses when the job
			// that sends it stopped.
			o.endsMs = now + 2*req.RepeatInterval.Milliseconds()
		}
		outs[i] = o
		if o.send {
			toSend = append(toSend, o)
		}
		res.Alerts[i] = AlertOutcome{Key: a.Key, Status: a.Status, Reason: o.reason}
	}
	res.Reason = ReasonDuplicate
	if len(toSend) == 0 {
		return res, nil
	}
	body, err := formatBody(req, toSend, now)
	if err != nil {
		return nil, err
	}
	res.Payload = body
	res.Reason = mostTelling(outs)
	if req.DryRun {
		return res, nil
	}
	sec := newWebhookSecrets(req)
	res.Attempts, res.StatusCode, res.Error = n.post(ctx, req, body, sec)
	if res.Error != nil {
		if res.Error.Code == CodeCanceled {
			return nil, res.Error
		}
		res.Reason = ReasonFailed
		for i, o := range outs {
			if o.send {
				res.Alerts[i].Reason = ReasonFailed
			}
		}
		return res, nil
	}
	res.Sent = true
	for i, o := range outs {
		if !o.send {
			continue
		}
		res.Alerts[i].Sent = true
		if err := n.ledger.SaveNotice(o.key, o.next); err != nil && res.SaveErr == nil {
			res.SaveErr = fmt.Errorf("recording what was sent: %s", sec.scrub(err.Error()))
		}
	}
	return res, nil
}

// mostTelling is the result's reason: opened, then resolved, then repeat.
func mostTelling(outs []outgoing) string {
	for _, r := range []string{ReasonOpened, ReasonResolved, ReasonRepeat} {
		for _, o := range outs {
			if o.send && o.reason == r {
				return r
			}
		}
	}
	return ReasonDuplicate
}

// post sends body, retrying what may succeed later. It returns the
// attempts made, the last HTTP status and, when no attempt succeeded, why.
func (n *Notifier) post(ctx context.Context, req NotifyRequest, body []byte, sec *webhookSecrets) (attempts, status int, _ *Error) {
	var last tried
	for attempts < req.Attempts {
		if attempts > 0 && !n.wait(ctx, attempts-1, last.retryAfter) {
			break
		}
		attempts++
		last = n.attempt(ctx, req, body)
		status = last.status
		if last.failure == "" {
			return attempts, status, nil
		}
		if !last.retriable || ctx.Err() != nil {
			break
		}
	}
	if ctx.Err() != nil {
		return attempts, status, &Error{Code: CodeCanceled, Message: "canceled while sending the notification"}
	}
	times := "1 attempt"
	if attempts != 1 {
		times = strconv.Itoa(attempts) + " attempts"
	}
	return attempts, status, &Error{Code: CodeNotifyFailed, Retriable: last.retriable,
		Message: fmt.Sprintf("POST %s: %s (%s)", RedactURL(webhookTarget(req)), sec.scrub(last.failure), times)}
}

// tried is one attempt's outcome: failure is "" on a 2xx answer, else what
// went wrong; retryAfter is the server's Retry-After.
type tried struct {
	status     int
	failure    string
	retriable  bool
	retryAfter time.Duration
}

// attempt POSTs once.
func (n *Notifier) attempt(ctx context.Context, req NotifyRequest, body []byte) tried {
	actx, cancel := context.WithTimeout(ctx, req.Timeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(actx, http.MethodPost, webhookTarget(req), bytes.NewReader(body))
	if err != nil {
		return tried{failure: "the request could not be built"}
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("User-Agent", "kadmin-lua")
	for k, v := range req.Headers {
		hreq.Header.Set(k, v.Reveal())
	}
	if req.Token != "" {
		hreq.Header.Set("Authorization", "Bearer "+req.Token.Reveal())
	}
	resp, err := n.http.Do(hreq)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) { // its text holds the whole URL
			err = ue.Err
		}
		if errors.Is(err, context.DeadlineExceeded) || actx.Err() != nil {
			return tried{failure: fmt.Sprintf("no answer within %s", req.Timeout), retriable: true}
		}
		return tried{failure: err.Error(), retriable: true}
	}
	defer resp.Body.Close()
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20)) // lets the connection be reused
	t := tried{status: resp.StatusCode}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return t
	}
	t.failure = "HTTP " + resp.Status
	if s := oneLine(string(snippet), 200); s != "" {
		t.failure += ": " + s
	}
	t.retriable = resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests
	if secs, err := strconv.Atoi(strings.TrimSpace(resp.Header.Get("Retry-After"))); err == nil && secs > 0 {
		t.retryAfter = time.Duration(secs) * time.Second
	}
	return t
}

// webhookTarget is where the POST goes: an Alertmanager URL given without
// a path gets /api/v2/alerts.
func webhookTarget(req NotifyRequest) string {
	raw := req.URL.Reveal()
	if req.Format != NotifyAlertmanager {
		return raw
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Path != "" && u.Path != "/") {
		return raw
	}
	u.Path = "/api/v2/alerts"
	return u.String()
}

// oneLine keeps at most n bytes of s on one line, control characters
// replaced.
func oneLine(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		s = s[:n] + "..."
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}

// webhookSecrets are the strings of a request that must not be shown: the
// token, header values, and the URL's credentials, query values and
// hidden path segments. scrub replaces them in a message (a webhook's
// answer may quote what it was sent).
type webhookSecrets struct {
	once sync.Once
	req  NotifyRequest
	strs []string
}

func newWebhookSecrets(req NotifyRequest) *webhookSecrets { return &webhookSecrets{req: req} }

func (w *webhookSecrets) collect() {
	add := func(s string) {
		if len(s) >= 4 {
			w.strs = append(w.strs, s)
			if esc := url.QueryEscape(s); esc != s {
				w.strs = append(w.strs, esc)
			}
		}
	}
	raw := w.req.URL.Reveal()
	for _, u := range []string{raw, webhookTarget(w.req)} {
		if RedactURL(u) != u {
			add(u)
		}
	}
	add(w.req.Token.Reveal())
	for _, v := range w.req.Headers {
		add(v.Reveal())
	}
	if u, err := url.Parse(raw); err == nil {
		if u.User != nil {
			add(u.User.String())
			add(u.User.Username())
			if p, ok := u.User.Password(); ok {
				add(p)
			}
		}
		for _, vs := range u.Query() {
			for _, v := range vs {
				add(v)
			}
		}
		for _, seg := range strings.Split(u.EscapedPath(), "/") {
			if seg != "" && !plainPathWord(seg) {
				add(seg)
			}
		}
	}
	// The longest first: a token inside the URL is replaced with the URL.
	slices.SortFunc(w.strs, func(a, b string) int { return len(b) - len(a) })
}

func (w *webhookSecrets) scrub(s string) string {
	w.once.Do(w.collect)
	for _, sec := range w.strs {
		s = strings.ReplaceAll(s, sec, Redacted)
	}
	return s
}
