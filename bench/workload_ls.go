package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/state"
)

// seedLS: SGroups groups committed on every partition of STopics x
// SPartitions, and a state file that already holds 10 samples of each
// partition (a minute apart, ending a minute ago): lag_status's cost is
// then the sampling (lag()) plus the store's load, record, judgment and
// save, which is what issue 19 bounds at 20% over lag() alone.
func seedLS(ctx context.Context, s *seeded, sc Scale) (func(int) ([]string, []string), string, error) {
	topics, err := s.topics(ctx, "s-", sc.STopics, sc.SPartitions)
	if err != nil {
		return nil, "", err
	}
	ends, err := s.produce(ctx, topics, sc.SPartitions, func(t, p int) int { return 1 + (t+p)%5 })
	if err != nil {
		return nil, "", err
	}
	var total int64
	for g := range sc.SGroups {
		lag, err := s.commit(ctx, fmt.Sprintf("s-%05d", g), topics, ends, func(t, p int) int64 { return int64((g + t + p) % 4) })
		if err != nil {
			return nil, "", err
		}
		total += lag
	}
	stateFile, err := stateWithSamples(ctx, s, "ls.state")
	if err != nil {
		return nil, "", err
	}
	return func(int) ([]string, []string) {
		return []string{"{kadmin}", "-b", "{brokers}", "--state", stateFile, "run", "{scripts}/LS.lua"}, kadminArgs("L.lua")
	}, strconv.FormatInt(total, 10), nil
}

// stateWithSamples makes a state file named name, in a directory the
// cluster's close removes, holding 10 samples of every group's partitions.
func stateWithSamples(ctx context.Context, s *seeded, name string) (string, error) {
	dir, err := os.MkdirTemp("", "kadmin-bench-state-")
	if err != nil {
		return "", err
	}
	s.temps = append(s.temps, dir)
	path := filepath.Join(dir, name)
	return path, fillState(ctx, s, path)
}

// statePartitions is the --state-max-partitions of the workloads with a
// state file: every partition of LGS's cluster.
const statePartitions = 3_000_000

// fillState writes 10 samples of every group's partitions into path.
func fillState(ctx context.Context, s *seeded, path string) error {
	cl, err := engine.New(engine.Config{Brokers: s.addrs})
	if err != nil {
		return err
	}
	defer cl.Close()
	id, err := cl.ClusterID(ctx)
	if err != nil {
		return err
	}
	lags, err := cl.Lag(ctx, nil)
	if err != nil {
		return err
	}
	// Room for LGS's 2.6 million partitions (the default keeps 1 million
	// and drops the groups sampled longest ago); the run is told the same
	// (--state-max-partitions).
	store, err := state.OpenFile(path, state.Options{MaxEntries: statePartitions})
	if err != nil {
		return err
	}
	defer store.Close()
	start := time.Now().Add(-11 * time.Minute)
	for k := range 10 {
		if err := engine.RecordLag(store, id, "", start.Add(time.Duration(k)*time.Minute), lags); err != nil {
			return err
		}
	}
	return store.Save()
}
