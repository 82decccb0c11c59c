package luaapi

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A consumer that keeps up with 50 records/s and commits every 5 s lags
// 0 to 250 records, up and down with its commits. Its ETA was noise,
// "never" while the lag rose between two commits and a duration when it
// fell; it is "keeps up" (what it lags it read in the window, and that
// much was produced), "0s" when caught up, "-" while the first window
// fills. A consumer that stopped reads "never" once its window is full.
func TestWatchETAOfAConsumerThatKeepsUp(t *testing.T) {
	w := newWatchLag(5)
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	var etas, stoppedETAs []string
	for s := int64(0); s <= 30; s += 2 {
		end := 1000 + 50*s
		committed := 1000 + 50*(s-s%5) // what it had read at its last commit
		stopped := int64(1000)
		groups := []lagGroup{
			{Group: "keeps", Partitions: []lagPartition{{Topic: "orders", Committed: committed, EndOffset: end, Lag: end - committed}}, TotalLag: end - committed},
			{Group: "stopped", Partitions: []lagPartition{{Topic: "orders", Committed: stopped, EndOffset: end, Lag: end - stopped}}, TotalLag: end - stopped},
		}
		lines := w.render(groups, t0.Add(time.Duration(s)*time.Second), 0, false)
		require.Len(t, lines, 6)
		etas = append(etas, strings.Fields(lines[2])[3])
		stoppedETAs = append(stoppedETAs, strings.Fields(lines[5])[3])
		assert.Contains(t, lines[0], "ETA "+strings.Fields(lines[2])[3], "the group's ETA: its partition's")
	}
	assert.Equal(t, []string{"0s", "-", "-", "keeps", "keeps", "0s", "keeps", "keeps", "keeps", "keeps", "0s", "keeps", "keeps", "keeps", "keeps", "0s"}, etas,
		"(the ETA column reads \"keeps up\")")
	assert.Equal(t, []string{"0s", "-", "-", "-", "never", "never", "never", "never", "never", "never", "never", "never", "never", "never", "never", "never"}, stoppedETAs)
}

// On an 80-column terminal the ETA is right after the lag, and a long
// topic name is cut (with …) before the figures are: the ETA was the
// first column the edge cut.
func TestWatchETAFitsEightyColumns(t *testing.T) {
	w := newWatchLag(5)
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	topic := "payments-eu-west-1-reconciliation-retries-v2"
	g := func(committed, end int64) []lagGroup {
		return []lagGroup{{Group: "reconciler", State: "Stable", TotalLag: end - committed,
			Partitions: []lagPartition{{Topic: topic, Partition: 11, Committed: committed, EndOffset: end, Lag: end - committed}}}}
	}
	w.render(g(0, 100_000), t0, 80, true)
	lines := fitBlock(w.render(g(10_000, 100_500), t0.Add(2*time.Second), 80, true), 80, 0)
	assert.Equal(t, "reconciler  Stable  total lag 90500  ETA 20s  change -9500  consume 5000.0/s  pr", lines[0])
	row := lines[2]
	assert.LessOrEqual(t, utf8.RuneCountInString(row), 80)
	assert.True(t, strings.HasPrefix(row, "  payments-eu-west-1-rec…  11         90500  20s  -9500   5000.0     250.0"), row)
}
