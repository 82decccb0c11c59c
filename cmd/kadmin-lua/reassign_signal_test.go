package main

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/internal/movesim"
)

// Ctrl-C during reassign stops sending moves and asks whether to cancel
// those in flight: with --yes it does not ask and leaves them moving (with
// their throttles); on a terminal, "y" cancels them. Either way the exit
// is 130 and the run can be resumed.
func TestReassignInterrupted(t *testing.T) {
	for _, tc := range []struct {
		name     string
		terminal bool
		args     []string
		moving   int
		said     string
	}{
		{name: "yes leaves them", args: []string{"--yes"}, moving: 1, said: "interrupted: 0 done, 1 moving (left moving), 1 queued"},
		{name: "terminal cancels", terminal: true, moving: 0, said: "Cancel them, back to their replicas before? (no: they go on moving) [y/N]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Nothing copies until the sim's clock moves, and it never
			// does here: the first move stays in flight.
			sim := movesim.New(t, 4, 1000)
			sim.Topic("orders", [][]int32{{3, 0, 1}, {3, 1, 2}}, 1000)
			c := newCLI(t)
			c.terminal = tc.terminal
			c.stdin = strings.NewReader("y\n")
			args := append(tc.args, "-b", strings.Join(sim.Addrs, ","), "-e", `return reassign({
				{topic = "orders", partition = 0, replicas = {2, 0, 1}},
				{topic = "orders", partition = 1, replicas = {0, 1, 2}}},
				{max_moves_per_broker = 1, interval_ms = 5, throttle = 1048576})`)
			done := runAsync(c, args...)
			waitFor(t, "a move in flight", func() bool { return sim.Moving() == 1 })
			c.sigs <- os.Interrupt
			require.Equal(t, ExitInterrupted, waitCode(t, done), c.stderr.String())
			assert.Equal(t, tc.moving, sim.Moving())
			assert.Equal(t, []int32{3, 1, 2}, sim.Replicas("orders", 1), "the queued move was not sent")
			assert.Contains(t, c.stderr.String(), tc.said)
			if tc.moving > 0 {
				assert.Contains(t, c.stderr.String(), "the replication throttles stay while 1 move(s) go on")
			} else {
				assert.Contains(t, c.stderr.String(), "interrupted: 0 done, 1 moving (cancelled), 2 queued")
			}
		})
	}
}
