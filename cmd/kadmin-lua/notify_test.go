package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
)

// A webhook that fails does not fail the run; --metrics-file counts the
// deliveries and the failures; a loop remembers what it sent from one run
// to the next, so an alert that stays open is POSTed once.
func TestNotifyInRunsAndLoops(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, "orders"))
	var good, bad atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if r.URL.Path == "/broken" {
			bad.Add(1)
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		good.Add(1)
	}))
	t.Cleanup(srv.Close)
	prom := filepath.Join(t.TempDir(), "alerts.prom")
	script := writeFile(t, "alerts.lua", `
local n = #list_topics()
local ok = kafka.notify{url = "`+srv.URL+`/hook", key = "topics", status = n > 0 and "WARN" or "OK"}
local broken = kafka.notify{url = "`+srv.URL+`/broken", key = "topics", retries = 0}
return ok.reason .. " " .. broken.reason`)

	cli := newCLI(t)
	require.Equal(t, ExitOK, cli.run("-b", c.addrs, "run", "--metrics-file", prom, script), cli.stderr.String())
	assert.Equal(t, "opened failed\n", cli.stdout.String())
	assert.Regexp(t, `WARN kafka.notify: delivery failed: POST http://127.0.0.1:\d+/broken: HTTP 502 Bad Gateway \(1 attempt\)`, cli.stderr.String())
	samples, help := parseOpenMetrics(t, prom)
	assert.Equal(t, []string{"script=alerts.lua 1"}, samples["kadmin_lua_notify_deliveries"])
	assert.Equal(t, []string{"script=alerts.lua 1"}, samples["kadmin_lua_notify_failures"])
	assert.NotEmpty(t, help["kadmin_lua_notify_failures"])

	// Loop mode: one client, one ledger for the process: the open alert is
	// sent by the first run only; the broken webhook is tried every run.
	good.Store(0)
	bad.Store(0)
	cli = newCLI(t)
	require.Equal(t, ExitOK, cli.run("-b", c.addrs, "run", "--every", "10ms", "--max-runs", "3", "--metrics-file", prom, script), cli.stderr.String())
	assert.Equal(t, int32(1), good.Load())
	assert.Equal(t, int32(3), bad.Load())
	samples, _ = parseOpenMetrics(t, prom)
	assert.Equal(t, []string{"script=alerts.lua 0"}, samples["kadmin_lua_notify_deliveries"], "the last run sent nothing new")
	assert.Equal(t, []string{"script=alerts.lua 1"}, samples["kadmin_lua_notify_failures"])
}

// With --state, separate processes (cron) remember what they sent: an
// alert that stays open is POSTed by the first run only, and its
// resolution once; the state file holds no URL.
func TestNotifyDedupAcrossRunsWithAStateFile(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, "orders"))
	var posts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		posts.Add(1)
	}))
	t.Cleanup(srv.Close)
	state := filepath.Join(t.TempDir(), "kadmin.state")
	notify := func(status string) string {
		t.Helper()
		cli := newCLI(t)
		require.Equal(t, ExitOK, cli.run("-b", c.addrs, "--state", state, "-e",
			`kafka.notify{url = "`+srv.URL+`/hook?token=s3cret", key = "orders-lag", status = "`+status+`"}.reason`), cli.stderr.String())
		return strings.TrimSpace(cli.stdout.String())
	}
	assert.Equal(t, "opened", notify("ERR"))
	assert.Equal(t, "unchanged", notify("ERR"))
	assert.Equal(t, "resolved", notify("OK"))
	assert.Equal(t, "unchanged", notify("OK"))
	assert.Equal(t, int32(2), posts.Load())
	raw, err := os.ReadFile(state)
	require.NoError(t, err)
	assert.NotContains(t, string(raw), "s3cret")
	assert.NotContains(t, string(raw), strings.TrimPrefix(srv.URL, "http://"), "the webhook is named by a hash")
}
