package alerts

import (
	"bytes"
	"context"
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

	"github.com/kadmin-lua/kadmin-lua/engine/redact"
	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// Delivery: one POST of a notification, its retries, and the secrets of
// the request kept out of every message about it.

// retryWait is backoff (retry.go), or the server's Retry-After when it
// asked for longer, up to five seconds.
func retryWait(ctx context.Context, attempt int, retryAfter time.Duration) bool {
	if retryAfter <= 0 {
		return vocab.Backoff(ctx, attempt)
	}
	return vocab.SleepCtx(ctx, min(retryAfter, 5*time.Second))
}

// post sends body, retrying what may succeed later. It returns the
// attempts made, the last HTTP status and, when no attempt succeeded, why.
func (n *Notifier) post(ctx context.Context, req Request, body []byte, sec *webhookSecrets) (attempts, status int, _ *vocab.Error) {
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
		return attempts, status, &vocab.Error{Code: vocab.CodeCanceled, Message: "canceled while sending the notification"}
	}
	times := "1 attempt"
	if attempts != 1 {
		times = strconv.Itoa(attempts) + " attempts"
	}
	return attempts, status, &vocab.Error{Code: CodeNotifyFailed, Retriable: last.retriable,
		Message: fmt.Sprintf("POST %s: %s (%s)", redact.URL(webhookTarget(req)), sec.scrub(last.failure), times)}
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
func (n *Notifier) attempt(ctx context.Context, req Request, body []byte) tried {
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
func webhookTarget(req Request) string {
	raw := req.URL.Reveal()
	if req.Format != FormatAlertmanager {
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
	req  Request
	strs []string
}

func newWebhookSecrets(req Request) *webhookSecrets { return &webhookSecrets{req: req} }

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
		if redact.URL(u) != u {
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
			if seg != "" && !redact.PlainPathWord(seg) {
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
		s = strings.ReplaceAll(s, sec, redact.Redacted)
	}
	return s
}
