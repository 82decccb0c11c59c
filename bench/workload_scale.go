package bench

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"
)

// The workloads of issue 32 (whole-cluster reads at scale): lag and
// lag_status summaries of GGroups groups, and describe_topics of
// DTopics x DPartitions partitions, each streamed (iterate = true).

// seedLG: GGroups groups, group g committed on every partition of topic
// g mod GTopics (GPartitions partitions holding 1 to 5 records each), so
// that each group has GPartitions partitions. Both programs print the lag
// summed over the groups.
func seedLG(ctx context.Context, s *seeded, sc Scale) (func(int) ([]string, []string), string, error) {
	total, err := seedGroupsAtScale(ctx, s, sc)
	if err != nil {
		return nil, "", err
	}
	return func(int) ([]string, []string) {
		return kadminArgs("LG.lua"), plainArgs("L")
	}, strconv.FormatInt(total, 10), nil
}

// seedLGS: LG's cluster and a state file holding 10 samples of every
// group's partitions; lag_status's summary beside LG's lag summary.
func seedLGS(ctx context.Context, s *seeded, sc Scale) (func(int) ([]string, []string), string, error) {
	total, err := seedGroupsAtScale(ctx, s, sc)
	if err != nil {
		return nil, "", err
	}
	stateFile, err := stateWithSamples(ctx, s, "lgs.state")
	if err != nil {
		return nil, "", err
	}
	return func(int) ([]string, []string) {
		return []string{"{kadmin}", "-b", "{brokers}", "--state", stateFile, "--state-max-partitions", strconv.Itoa(statePartitions),
			"run", "{scripts}/LGS.lua"}, kadminArgs("LG.lua")
	}, strconv.FormatInt(total, 10), nil
}

func seedGroupsAtScale(ctx context.Context, s *seeded, sc Scale) (int64, error) {
	topics, err := s.topics(ctx, "lg-", sc.GTopics, sc.GPartitions)
	if err != nil {
		return 0, err
	}
	ends, err := s.produce(ctx, topics, sc.GPartitions, func(t, p int) int { return 1 + (t+p)%5 })
	if err != nil {
		return 0, err
	}
	// Committed by a few clients at once: 65,000 commits one after the
	// other would take most of the benchmark's time.
	var (
		mu    sync.Mutex
		total int64
		first error
		wg    sync.WaitGroup
		next  = make(chan int)
	)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for g := range next {
				t := g % len(topics)
				lag, err := s.commit(ctx, fmt.Sprintf("lg-%05d", g), topics[t:t+1], map[string][]int64{topics[t]: ends[topics[t]]},
					func(_, p int) int64 { return int64((g + p) % 4) })
				mu.Lock()
				total += lag
				if first == nil {
					first = err
				}
				mu.Unlock()
			}
		}()
	}
	for g := range sc.GGroups {
		next <- g
	}
	close(next)
	wg.Wait()
	return total, first
}

// seedDT: DTopics topics of DPartitions partitions (no records); both
// programs print how many partitions they were told of.
func seedDT(ctx context.Context, s *seeded, sc Scale) (func(int) ([]string, []string), string, error) {
	if _, err := s.topics(ctx, "d-", sc.DTopics, sc.DPartitions); err != nil {
		return nil, "", err
	}
	return func(int) ([]string, []string) {
		return kadminArgs("DT.lua"), plainArgs("DT")
	}, strconv.Itoa(sc.DTopics * sc.DPartitions), nil
}

// requestsOf runs kadmin-lua's side of a workload once more under
// --verbose and returns the cost lines it says after the run: the phases,
// then the requests by Kafka API (what docs/benchmarks.md lists as the
// request count per run).
func requestsOf(ctx context.Context, argv []string) (string, error) {
	args := append([]string{"--verbose"}, argv[1:]...)
	cmd := exec.CommandContext(ctx, argv[0], args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cmd.Env = cleanEnv()
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s: %v: %s", strings.Join(argv, " "), err, truncate(stderr.String()))
	}
	var lines []string
	for _, l := range strings.Split(stderr.String(), "\n") {
		if _, cost, ok := strings.Cut(l, "verbose: cost: "); ok {
			lines = append(lines, cost)
		}
	}
	return strings.Join(lines, "\n"), nil
}
