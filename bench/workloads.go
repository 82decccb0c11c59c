package bench

import (
	"context"
	"fmt"
	"strconv"
)

// Each seed function prepares its cluster and says how to run both
// programs. {kadmin}, {plain}, {hello}, {scripts} and {brokers} are
// replaced by the built programs, the scripts' directory and the
// cluster's addresses.

func kadminArgs(script string, args ...string) []string {
	return append([]string{"{kadmin}", "-b", "{brokers}", "run", "{scripts}/" + script}, args...)
}

func plainArgs(workload string, args ...string) []string {
	return append([]string{"{plain}", "{brokers}", workload}, args...)
}

// seedL: LGroups groups, each committed on every partition of LTopics
// topics of LPartitions partitions, which hold 1 to 5 records each.
func seedL(ctx context.Context, s *seeded, sc Scale) (func(int) ([]string, []string), string, error) {
	topics, err := s.topics(ctx, "l-", sc.LTopics, sc.LPartitions)
	if err != nil {
		return nil, "", err
	}
	ends, err := s.produce(ctx, topics, sc.LPartitions, func(t, p int) int { return 1 + (t+p)%5 })
	if err != nil {
		return nil, "", err
	}
	var total int64
	for g := range sc.LGroups {
		lag, err := s.commit(ctx, fmt.Sprintf("g-%03d", g), topics, ends, func(t, p int) int64 { return int64((g + t + p) % 4) })
		if err != nil {
			return nil, "", err
		}
		total += lag
	}
	return func(int) ([]string, []string) {
		return kadminArgs("L.lua"), plainArgs("L")
	}, strconv.FormatInt(total, 10), nil
}

// seedX: one group committed at 0 on XTopics x XPartitions partitions;
// every tenth partition holds a record.
func seedX(ctx context.Context, s *seeded, sc Scale) (func(int) ([]string, []string), string, error) {
	topics, err := s.topics(ctx, "x-", sc.XTopics, sc.XPartitions)
	if err != nil {
		return nil, "", err
	}
	ends, err := s.produce(ctx, topics, sc.XPartitions, func(t, p int) int {
		if p%10 == 0 {
			return 1
		}
		return 0
	})
	if err != nil {
		return nil, "", err
	}
	lag, err := s.commit(ctx, "x", topics, ends, func(int, int) int64 { return 0 })
	if err != nil {
		return nil, "", err
	}
	return func(int) ([]string, []string) {
		return kadminArgs("X.lua", "x"), plainArgs("X", "x")
	}, strconv.FormatInt(lag, 10), nil
}

// seedXJ is X printed as JSON by both programs.
func seedXJ(ctx context.Context, s *seeded, sc Scale) (func(int) ([]string, []string), string, error) {
	if _, _, err := seedX(ctx, s, sc); err != nil {
		return nil, "", err
	}
	return func(int) ([]string, []string) {
		a := append([]string{"{kadmin}", "-o", "json"}, kadminArgs("XJ.lua", "x")[1:]...)
		return a, plainArgs("XJ", "x")
	}, "", nil
}

// seedC: nothing to seed; each run creates and deletes its own topics.
func seedC(_ context.Context, _ *seeded, sc Scale) (func(int) ([]string, []string), string, error) {
	n := strconv.Itoa(sc.CTopics)
	return func(int) ([]string, []string) {
		return kadminArgs("C.lua", "c-", n), plainArgs("C", "c-", n)
	}, n + " " + n, nil
}

// seedR: RTopics topics of one partition; round r sets retention.ms to a
// value of its own.
func seedR(ctx context.Context, s *seeded, sc Scale) (func(int) ([]string, []string), string, error) {
	if _, err := s.topics(ctx, "r-", sc.RTopics, 1); err != nil {
		return nil, "", err
	}
	n := strconv.Itoa(sc.RTopics)
	return func(r int) ([]string, []string) {
		v := strconv.Itoa(86_400_000 + r)
		return kadminArgs("R.lua", "r-", n, v), plainArgs("R", "r-", n, v)
	}, n, nil
}

// seedS: no cluster; kadmin-lua -e 'return 1' beside a hello world.
func seedS(context.Context, *seeded, Scale) (func(int) ([]string, []string), string, error) {
	return func(int) ([]string, []string) {
		return []string{"{kadmin}", "-e", "return 1"}, []string{"{hello}"}
	}, "1", nil
}
