package testnet

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// Webhook is an HTTP server that records every request it receives and
// answers with the statuses it was given, in turn, then 200. Its answer's
// body quotes the request's URI, as some webhooks' error answers do, so a
// test can check that what it echoes is redacted. It closes with the test.
type Webhook struct {
	*httptest.Server

	mu       sync.Mutex
	requests []Received
	statuses []int
	hang     time.Duration
}

// Received is one request a Webhook got.
type Received struct {
	URI    string // path and query
	Header http.Header
	Body   string
}

// NewWebhook starts a webhook answering statuses in turn, then 200.
func NewWebhook(t testing.TB, statuses ...int) *Webhook {
	w := &Webhook{statuses: statuses}
	w.Server = httptest.NewServer(http.HandlerFunc(w.serve))
	t.Cleanup(w.Close)
	return w
}

func (w *Webhook) serve(rw http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	w.mu.Lock()
	w.requests = append(w.requests, Received{URI: r.URL.RequestURI(), Header: r.Header.Clone(), Body: string(b)})
	st := http.StatusOK
	if len(w.statuses) > 0 {
		st, w.statuses = w.statuses[0], w.statuses[1:]
	}
	hang := w.hang
	w.mu.Unlock()
	if hang > 0 {
		select {
		case <-time.After(hang):
		case <-r.Context().Done():
			return
		}
	}
	rw.WriteHeader(st)
	_, _ = io.WriteString(rw, http.StatusText(st)+" for "+r.URL.RequestURI())
}

// Hang makes every later request wait d (or until the client gives up)
// before it is answered.
func (w *Webhook) Hang(d time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.hang = d
}

// Requests returns what was received so far.
func (w *Webhook) Requests() []Received {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]Received(nil), w.requests...)
}

// Bodies returns the bodies received so far.
func (w *Webhook) Bodies() []string {
	var out []string
	for _, r := range w.Requests() {
		out = append(out, r.Body)
	}
	return out
}
