package testnet

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// Alertmanager is an HTTP server that keeps the alerts POSTed to it as
// Prometheus Alertmanager does (api/v2 postAlertsHandler, provider/mem,
// alert.Merge): an alert is its label set, labels with an empty value
// dropped (its fingerprint); a POST of an alert merges into the one with
// its labels (the earliest startsAt, the latest endsAt unless the new one
// is resolved); an alert fires while its endsAt is after now. A body
// Alertmanager refuses (no labels, no startsAt, endsAt before startsAt)
// is answered 400 and its valid alerts are kept, as Alertmanager does. It
// closes with the test.
type Alertmanager struct {
	*httptest.Server
	// Now is Alertmanager's clock (time.Now when nil): set it to the
	// clock the sender is driven by.
	Now func() time.Time

	mu       sync.Mutex
	alerts   map[string]*AlertmanagerAlert
	opened   []map[string]string // label sets received firing, in order, once each
	resolved []map[string]string // label sets received resolved, in order, once each
	seen     map[string]bool     // fingerprints in opened ("+") and resolved ("-")
	posts    int
}

// AlertmanagerAlert is an alert as kept.
type AlertmanagerAlert struct {
	Labels           map[string]string
	Annotations      map[string]string
	StartsAt, EndsAt time.Time
}

// NewAlertmanager starts a model of Alertmanager's alert store.
func NewAlertmanager(t testing.TB) *Alertmanager {
	a := &Alertmanager{alerts: map[string]*AlertmanagerAlert{}, seen: map[string]bool{}}
	a.Server = httptest.NewServer(http.HandlerFunc(a.serve))
	t.Cleanup(a.Close)
	return a
}

func (a *Alertmanager) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

// fingerprint is a label set's identity: its non-empty labels, sorted.
func fingerprint(labels map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		if labels[k] != "" {
			parts = append(parts, k+"="+labels[k])
		}
	}
	return strings.Join(parts, "\xff")
}

func (a *Alertmanager) serve(rw http.ResponseWriter, r *http.Request) {
	var posted []struct {
		Labels      map[string]string `json:"labels"`
		Annotations map[string]string `json:"annotations"`
		StartsAt    time.Time         `json:"startsAt"`
		EndsAt      time.Time         `json:"endsAt"`
	}
	b, _ := io.ReadAll(r.Body)
	if r.Method != http.MethodPost || r.URL.Path != "/api/v2/alerts" {
		http.Error(rw, "not Alertmanager's alerts API", http.StatusNotFound)
		return
	}
	if err := json.Unmarshal(b, &posted); err != nil {
		http.Error(rw, err.Error(), http.StatusBadRequest)
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.posts++
	now := a.now()
	var invalid []string
	for _, p := range posted {
		switch {
		case len(p.Labels) == 0 || fingerprint(p.Labels) == "":
			invalid = append(invalid, "at least one label pair required")
			continue
		case p.StartsAt.IsZero():
			invalid = append(invalid, "start time missing")
			continue
		case !p.EndsAt.IsZero() && p.EndsAt.Before(p.StartsAt):
			invalid = append(invalid, "start time must be before end time")
			continue
		}
		if p.EndsAt.IsZero() { // resolve_timeout's default
			p.EndsAt = now.Add(5 * time.Minute)
		}
		fp := fingerprint(p.Labels)
		in := &AlertmanagerAlert{Labels: p.Labels, Annotations: p.Annotations, StartsAt: p.StartsAt, EndsAt: p.EndsAt}
		resolved := !in.EndsAt.After(now)
		if old, ok := a.alerts[fp]; ok && ((in.EndsAt.After(old.StartsAt) && in.EndsAt.Before(old.EndsAt)) ||
			(in.StartsAt.After(old.StartsAt) && in.StartsAt.Before(old.EndsAt))) {
			merged := *in
			if old.StartsAt.Before(in.StartsAt) {
				merged.StartsAt = old.StartsAt
			}
			oldResolved := !old.EndsAt.After(now)
			if (resolved && oldResolved && old.EndsAt.After(in.EndsAt)) || (!resolved && old.EndsAt.After(in.EndsAt)) {
				merged.EndsAt = old.EndsAt
			}
			in = &merged
		}
		a.alerts[fp] = in
		list, mark := &a.opened, "+"+fp
		if resolved {
			list, mark = &a.resolved, "-"+fp
		}
		if !a.seen[mark] {
			a.seen[mark] = true
			*list = append(*list, p.Labels)
		}
	}
	if len(invalid) > 0 {
		http.Error(rw, strings.Join(invalid, "; "), http.StatusBadRequest)
		return
	}
	_, _ = fmt.Fprint(rw, "ok")
}

// Firing is the label sets of the alerts firing now, by fingerprint.
func (a *Alertmanager) Firing() []map[string]string {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	var out []map[string]string
	for _, fp := range slices.Sorted(maps.Keys(a.alerts)) {
		if al := a.alerts[fp]; al.EndsAt.After(now) {
			out = append(out, al.Labels)
		}
	}
	return out
}

// Alert is the alert kept under labels' fingerprint, or nil.
func (a *Alertmanager) Alert(labels map[string]string) *AlertmanagerAlert {
	a.mu.Lock()
	defer a.mu.Unlock()
	if al, ok := a.alerts[fingerprint(labels)]; ok {
		c := *al
		return &c
	}
	return nil
}

// Opened is every label set received firing, in order, once each.
func (a *Alertmanager) Opened() []map[string]string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.opened)
}

// Resolved is every label set received resolved, in order, once each.
func (a *Alertmanager) Resolved() []map[string]string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.resolved)
}

// Posts is how many POSTs were received.
func (a *Alertmanager) Posts() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.posts
}

// Send POSTs one alert to a as another sender would (an earlier version
// of kadmin-lua, say), and fails the test unless it is taken.
func (a *Alertmanager) Send(t testing.TB, labels map[string]string, startsAt, endsAt time.Time) {
	t.Helper()
	body, err := json.Marshal([]map[string]any{{"labels": labels, "annotations": map[string]string{},
		"startsAt": startsAt.UTC().Format(time.RFC3339Nano), "endsAt": endsAt.UTC().Format(time.RFC3339Nano)}})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(a.URL+"/api/v2/alerts", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("Alertmanager answered %s", resp.Status)
	}
}
