package engine

import (
	"cmp"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/kadmin-lua/kadmin-lua/engine/state"
	"github.com/kadmin-lua/kadmin-lua/engine/verdicts"
)

// Burrow and lag_status side by side on one scripted timeline (the table in
// docs/decisions.md, "Lag verdicts: Burrow and kadmin-lua at cron
// cadences", is this test's output). A producer writes 10 records a
// second. A Java consumer reads as they come and commits every 5 s
// (auto-commit), until, 30 minutes in (at E), it either dies (leaves its
// group and commits no more), stalls (stays in its group and commits the
// same offset every 5 s), slows down (reads 8 records a second from then
// on, committing every 5 s), or goes on keeping up.
//
// Burrow is run as Burrow runs: its storage keeps the last 10 commits
// (intervals), each with its lag against the end offset it refreshed last
// (offset-refresh, 10 s), and the last 10 end offsets; its evaluator is
// verdicts.EvaluateLag with Committing (Burrow's calculatePartitionStatus, its own
// test cases ported in TestEvaluateLagBurrowCases), asked every second.
// lag_status is run as cron runs it: one sample a minute, or every five
// minutes, a second past the minute, through the state store and the
// judgment LagStatus makes (the consumer is a live member until it dies).
//
// Each cell is the verdict's first time after E, in seconds, and "-" when
// it never came within an hour.
func TestBurrowAndLagStatusSideBySide(t *testing.T) {
	const (
		rate  = 10            // records a second
		every = 5_000         // auto-commit, ms
		e     = 1_800_500     // the event, ms
		until = e + 3_600_000 // an hour after
	)
	produced := func(ms int64) int64 { return rate * ms / 1000 }
	type consumer struct {
		name   string
		want   string // the verdict that should come ("": any but OK)
		pos    func(ms int64) int64
		alive  func(ms int64) bool // a live member
		commit func(ms int64) bool // commits at ms (a multiple of 5 s)
	}
	always := func(int64) bool { return true }
	before := func(ms int64) bool { return ms < e }
	keepsUp := func(ms int64) int64 { return produced(ms) }
	consumers := []consumer{
		{"dies caught up", verdicts.LagStatusStop, keepsUp, before, before},
		{"stalls", verdicts.LagStatusStall, func(ms int64) int64 { return produced(min(ms, e)) }, always, always},
		{"slows to 80%", verdicts.LagStatusWarn, func(ms int64) int64 {
			if ms < e {
				return produced(ms)
			}
			return produced(e) + 8*(ms-e)/1000
		}, always, always},
		{"keeps up", "", keepsUp, always, always}, // any verdict but OK
	}

	burrow := func(c consumer) string {
		var commits []verdicts.LagSample
		var ends []int64
		var lastEnd int64
		first := map[string]int64{}
		for ms := int64(0); ms <= until; ms += 1000 {
			if ms%10_000 == 0 {
				lastEnd = produced(ms)
				ends = append(ends, lastEnd)
				ends = ends[max(len(ends)-10, 0):]
			}
			if ms > 0 && ms%every == 0 && c.commit(ms) {
				off := c.pos(ms)
				lag := max(lastEnd-off, 0)
				commits = append(commits, verdicts.LagSample{Offset: off, TimeMs: ms, Lag: &lag})
				commits = commits[max(len(commits)-10, 0):]
			}
			if ms < e || len(commits) == 0 {
				continue
			}
			current := max(lastEnd-commits[len(commits)-1].Offset, 0)
			v := verdicts.EvaluateLag(commits, verdicts.EvaluateOptions{NowMs: ms, EndOffsets: ends, CurrentLag: &current, Committing: true})
			if _, ok := first[v.Status]; !ok {
				first[v.Status] = ms - e
			}
		}
		return firstOf(first, c.want)
	}

	ours := func(c consumer, cadence int64) string {
		s := state.New(state.Options{})
		var j judge
		j.windowMs = s.Options().Window.Milliseconds()
		first := map[string]int64{}
		for ms := int64(1_000); ms <= until; ms += cadence {
			committed := int64(0)
			for at := ms - ms%every; at > 0; at -= every {
				if c.commit(at) {
					committed = c.pos(at)
					break
				}
			}
			p := PartitionLag{Topic: "t", Committed: committed, EndOffset: produced(ms), Lag: produced(ms) - committed}
			if c.alive(ms) {
				p.MemberID = "m"
			}
			j.nowMs = ms
			var v PartitionLagStatus
			err := state.Record(s, "c", "n", ms, []lagGroup{{Name: "g", Parts: []PartitionLag{p}}}, lagReading, func(_, _ int, w state.PartitionWindow) {
				v = j.partition(p, w)
			})
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := first[v.Status]; !ok && ms >= e {
				first[v.Status] = ms - e
			}
		}
		return firstOf(first, c.want)
	}

	got := map[string][3]string{}
	var table strings.Builder
	fmt.Fprintf(&table, "| consumer | verdict | Burrow | lag_status, cron every minute | every 5 minutes |\n|---|---|---|---|---|\n")
	for _, c := range consumers {
		row := [3]string{burrow(c), ours(c, int64(time.Minute/time.Millisecond)), ours(c, int64(5*time.Minute/time.Millisecond))}
		got[c.name] = row
		fmt.Fprintf(&table, "| %s | %s | %s | %s | %s |\n", c.name, cmp.Or(c.want, "not OK"), row[0], row[1], row[2])
	}
	t.Log("\n" + table.String())
	assert.Equal(t, map[string][3]string{
		"dies caught up": {"+100 s", "+121 s", "+601 s"},
		"stalls":         {"+55 s", "+121 s", "+601 s"},
		"slows to 80%":   {"-", "+301 s", "+1501 s"},
		"keeps up":       {"-", "-", "-"},
	}, got)
}

// firstOf says when a verdict first came, in seconds after the event;
// for "", the first verdict but OK, and which.
func firstOf(first map[string]int64, status string) string {
	if status == "" {
		for _, s := range []string{verdicts.LagStatusWarn, verdicts.LagStatusStall, verdicts.LagStatusStop, verdicts.LagStatusRewind} {
			if _, ok := first[s]; ok {
				return s + " " + firstOf(first, s)
			}
		}
		return "-"
	}
	ms, ok := first[status]
	if !ok {
		return "-"
	}
	return fmt.Sprintf("+%d s", (ms+999)/1000)
}
