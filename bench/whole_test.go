package bench

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWholeProcessTiny runs every whole-process workload once at a toy
// size: the harness builds the programs, seeds the clusters, and both
// programs print the same answer. It checks no timing (benchmarks are not
// timed tests); `make bench` runs the real sizes.
func TestWholeProcessTiny(t *testing.T) {
	if testing.Short() {
		t.Skip("builds kadmin-lua and the yardsticks")
	}
	results, err := Run(context.Background(), Options{Scale: Tiny})
	require.NoError(t, err)
	require.Len(t, results, len(workloads())+2) // and J, T in process
	for _, r := range results {
		require.Len(t, r.A, 1, r.Name)
		require.Len(t, r.B, 1, r.Name)
		require.Positive(t, r.A[0].Wall, r.Name)
		if r.Name != "J" && r.Name != "T" {
			require.Positive(t, r.A[0].PeakKB, r.Name)
		}
	}
	require.Contains(t, Table(results), "| L | lag() of 2 groups x 6 partitions")
}
