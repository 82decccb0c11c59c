package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

// A run that accounts for itself: what its calls cost, by phase of the
// whole-cluster reads and by Kafka API (engine.Cost, counted by the
// clients' kgo hooks), after each run on stderr under --verbose and in
// --metrics-file, so that a slow job says which phase is slow and users see
// that the requests do not grow with the groups beyond the pages.

// The figures of a run's cost in the metrics file (docs/scheduling.md).
const (
	metricPhaseSeconds = luaapi.ReservedMetricPrefix + "phase_seconds"
	metricPhaseCount   = luaapi.ReservedMetricPrefix + "phase_count"
	metricRequests     = luaapi.ReservedMetricPrefix + "requests"
	metricReqWritten   = luaapi.ReservedMetricPrefix + "request_bytes_written"
	metricReqRead      = luaapi.ReservedMetricPrefix + "request_bytes_read"
	metricReqSeconds   = luaapi.ReservedMetricPrefix + "request_seconds"
	metricReqErrors    = luaapi.ReservedMetricPrefix + "request_errors"
)

var costHelp = map[string]string{
	metricPhaseSeconds: "Time the last run spent in each phase of its whole-cluster reads (list_groups, describe_groups, fetch_offsets, list_offsets, first_records, retention, judge, describe_topics) and of its state kept in a topic (state_take, state_read, state_write), in seconds; phases that run at once overlap.",
	metricPhaseCount:   "How often the last run went through each phase (once a page of groups).",
	metricRequests:     "Requests the last run sent, by Kafka API.",
	metricReqWritten:   "Bytes of requests the last run sent, by Kafka API.",
	metricReqRead:      "Bytes of responses the last run read, by Kafka API.",
	metricReqSeconds:   "Round-trip time of the last run's requests, summed by Kafka API, in seconds (requests in flight at once overlap).",
	metricReqErrors:    "Requests of the last run whose write or read failed (a connection, not a Kafka error code), by Kafka API.",
}

// addCost adds a run's cost to the metrics file's families: series labeled
// with the run's own labels and the phase or the api.
func addCost(add func(name, help string, labels map[string]string, v float64), own map[string]string, c engine.Cost) {
	with := func(k, v string) map[string]string {
		l := make(map[string]string, len(own)+1)
		for a, b := range own {
			l[a] = b
		}
		l[k] = v
		return l
	}
	for _, name := range c.PhaseNames() {
		p := c.Phases[name]
		add(metricPhaseSeconds, costHelp[metricPhaseSeconds], with("phase", name), p.Time.Seconds())
		add(metricPhaseCount, costHelp[metricPhaseCount], with("phase", name), float64(p.Times))
	}
	for _, name := range c.APINames() {
		a := c.APIs[name]
		labels := with("api", name)
		add(metricRequests, costHelp[metricRequests], labels, float64(a.Requests))
		add(metricReqWritten, costHelp[metricReqWritten], labels, float64(a.BytesWritten))
		add(metricReqRead, costHelp[metricReqRead], labels, float64(a.BytesRead))
		add(metricReqSeconds, costHelp[metricReqSeconds], labels, a.Time.Seconds())
		if a.Errors > 0 {
			add(metricReqErrors, costHelp[metricReqErrors], labels, float64(a.Errors))
		}
	}
}

// writeCost writes a run's cost as --verbose lines: one for the phases,
// one per Kafka API, the busiest first.
//
//	kadmin-lua: verbose: cost: phases: describe_groups 1.1s (33 times), fetch_offsets 1.4s (33 times), ...
//	kadmin-lua: verbose: cost: 412 requests, 1.3 MB written, 51 MB read
//	kadmin-lua: verbose: cost: OffsetFetch: 99 requests, 1.2 MB written, 40 MB read, 1.3s round trips
func writeCost(w io.Writer, c engine.Cost) {
	if w == nil || (len(c.APIs) == 0 && len(c.Phases) == 0) {
		return
	}
	var b strings.Builder
	if names := c.PhaseNames(); len(names) > 0 {
		parts := make([]string, len(names))
		for i, n := range names {
			p := c.Phases[n]
			parts[i] = fmt.Sprintf("%s %s (%d times)", n, roundDur(p.Time), p.Times)
		}
		fmt.Fprintf(&b, "kadmin-lua: verbose: cost: phases: %s\n", strings.Join(parts, ", "))
	}
	var written, read int64
	for _, a := range c.APIs {
		written += a.BytesWritten
		read += a.BytesRead
	}
	fmt.Fprintf(&b, "kadmin-lua: verbose: cost: %d requests, %s written, %s read\n", c.Requests(),
		luaapi.FormatBytes(written), luaapi.FormatBytes(read))
	names := c.APINames()
	// The busiest first: what to look at when a run is slow.
	for i := 1; i < len(names); i++ {
		for j := i; j > 0 && c.APIs[names[j]].Time > c.APIs[names[j-1]].Time; j-- {
			names[j], names[j-1] = names[j-1], names[j]
		}
	}
	for _, n := range names {
		a := c.APIs[n]
		fmt.Fprintf(&b, "kadmin-lua: verbose: cost: %s: %d requests, %s written, %s read, %s round trips", n, a.Requests,
			luaapi.FormatBytes(a.BytesWritten), luaapi.FormatBytes(a.BytesRead), roundDur(a.Time))
		if a.Errors > 0 {
			fmt.Fprintf(&b, ", %d failed", a.Errors)
		}
		b.WriteByte('\n')
	}
	_, _ = io.WriteString(w, b.String())
}
