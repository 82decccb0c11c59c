package bench

import (
	"context"
	"fmt"
	"strconv"
)

// workload is one row of the table: how to seed its cluster and the two
// command lines to compare.
type workload struct {
	name, work, yardstick, target      string
	limit, limitMS, limitMB, limitPeak float64
	cluster                            bool
	rounds                             func(Scale) int // nil: Scale.Rounds (StartRounds without a cluster)
	costs                              bool            // run kadmin-lua once more under --verbose for its requests
	// seed prepares the cluster and returns the two programs' arguments
	// (after the binary) for round r, and the stdout both must print ("":
	// not compared; "a|b" when they print different things).
	seed func(ctx context.Context, s *seeded, sc Scale) (func(r int) (a, b []string), string, error)
}

func workloads() []workload {
	return []workload{
		{name: "L", work: "lag() of G groups x P partitions, summed in Lua", yardstick: "kadm Lag", target: "<= 1.5x",
			limit: 1.5, cluster: true, seed: seedL},
		{name: "LT", work: "lag{time=true} of L's groups: the first unread record of each lagging partition", yardstick: "kadm Lag + a kgo consumer",
			target: "<= 1.5x (and <= 2x L)", limit: 1.5, cluster: true, seed: seedLT},
		{name: "LS", work: "lag_status() of H groups x Q partitions with a 10-sample --state file, totals summed in Lua", yardstick: "kadmin-lua lag() of the same (L.lua)",
			target: "<= 1.2x", limit: 1.2, cluster: true, seed: seedLS},
		{name: "LG", work: "lag{summary=true, iterate=true} of K groups x J partitions each, summed in Lua", yardstick: "kadm Lag of all groups, summed",
			target: "<= 1.2x, < 1 GB", limit: 1.2, limitMB: 1024, cluster: true, seed: seedLG, rounds: fewRounds, costs: true},
		{name: "LGS", work: "lag_status{summary=true, iterate=true} of LG's groups with a 10-sample --state file", yardstick: "kadmin-lua LG (LG.lua)",
			target: "<= 1.3x", limit: 1.3, cluster: true, seed: seedLGS, rounds: fewRounds, costs: true},
		{name: "DT", work: "describe_topics{iterate=true} of D partitions (E topics), counted in Lua", yardstick: "kadm TopicDetails, paged by hand (DescribeTopicPartitions), counted",
			target: "<= 1.2x, < 1.5 GB", limit: 1.2, limitMB: 1536, cluster: true, seed: seedDT, costs: true},
		{name: "PK", work: "peek of 1,000 records (200-byte values) printed as JSON", yardstick: "kcat -C -c 1000",
			target: "<= 1.5x", limit: 1.5, cluster: true, seed: seedPK},
		{name: "PD", work: "peek of 10,000 framed Avro records decoded through a registry (srfake), printed as JSON", yardstick: "kcat -C -c 10000, raw values",
			target: "(orientation)", cluster: true, seed: seedPD},
		{name: "C", work: "create then delete N topics (6 partitions, RF 1) in one script", yardstick: "kadm CreateTopics+DeleteTopics",
			target: "<= 1.5x", limit: 1.5, cluster: true, seed: seedC},
		{name: "S", work: "start, run `return 1`, exit", yardstick: "Go hello world", target: "<= 2x hello (4 ms)",
			limit: 2, seed: seedS},
		{name: "X", work: "lag() of one group over N partitions, summed in Lua", yardstick: "kadm Lag", target: "<= 1.5x, < 300 MB",
			limit: 1.5, limitMB: 300, cluster: true, seed: seedX},
		{name: "XJ", work: "X printed by -o json", yardstick: "kadm Lag + encoding/json", target: "(orientation)",
			cluster: true, seed: seedXJ},
		{name: "R", work: "alter_configs on N topics, one call each", yardstick: "kadm AlterTopicConfigs", target: "<= 1.5x",
			limit: 1.5, cluster: true, seed: seedR},
		{name: "M", work: "lag(), describe_topics(), alter_configs() N times in one script", yardstick: "the same, N/10 times",
			target: "peak RSS flat (<= 1.25x)", limitPeak: 1.25, cluster: true, seed: seedM, rounds: fewRounds},
		{name: "PJ", work: "a script's N rows printed by -o json", yardstick: "the same rows built, not printed",
			target: "peak RSS flat (<= 1.1x)", limitPeak: 1.1, seed: seedP("json"), rounds: fewRounds},
		{name: "PT", work: "a script's N rows printed by -o table", yardstick: "the same rows built, not printed",
			target: "peak RSS flat (<= 1.1x)", limitPeak: 1.1, seed: seedP("table"), rounds: fewRounds},
		{name: "PL", work: "plan SPEC: as many topics as C (a config each), twice as many ACLs; nothing to change", yardstick: "kadm ListTopics+DescribeTopicConfigs+DescribeACLs",
			target: "<= 2x", limit: 2, cluster: true, seed: seedPL},
	}
}

// fewRounds is for the long workloads (seconds a run).
func fewRounds(sc Scale) int { return max(1, min(sc.Rounds, 3)) }

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

// sameOutput as a seed's want: the two programs must print the same as
// each other (what that is depends on the seeding, e.g. its records' times).
const sameOutput = "="

// seedLT: L's cluster; both programs print how many rows got a time and
// the oldest of them.
func seedLT(ctx context.Context, s *seeded, sc Scale) (func(int) ([]string, []string), string, error) {
	if _, _, err := seedL(ctx, s, sc); err != nil {
		return nil, "", err
	}
	return func(int) ([]string, []string) {
		return kadminArgs("LT.lua"), plainArgs("LT")
	}, sameOutput, nil
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

// seedM: a topic of 12 partitions holding records and a group committed
// on it, for MIters rounds of lag, describe_topics and alter_configs.
func seedM(ctx context.Context, s *seeded, sc Scale) (func(int) ([]string, []string), string, error) {
	topics, err := s.topics(ctx, "m-", 1, 12)
	if err != nil {
		return nil, "", err
	}
	ends, err := s.produce(ctx, topics, 12, func(int, int) int { return 2 })
	if err != nil {
		return nil, "", err
	}
	if _, err := s.commit(ctx, "m-group", topics, ends, func(int, int) int64 { return 1 }); err != nil {
		return nil, "", err
	}
	n, tenth := sc.MIters, max(sc.MIters/10, 1)
	return func(int) ([]string, []string) {
		return kadminArgs("M.lua", strconv.Itoa(n)), kadminArgs("M.lua", strconv.Itoa(tenth))
	}, strconv.Itoa(25*n) + "|" + strconv.Itoa(25*tenth), nil
}

// seedP: no cluster; the script builds PRows rows and returns them
// (printed) or their count (the yardstick).
func seedP(output string) func(context.Context, *seeded, Scale) (func(int) ([]string, []string), string, error) {
	return func(_ context.Context, _ *seeded, sc Scale) (func(int) ([]string, []string), string, error) {
		n := strconv.Itoa(sc.PRows)
		return func(int) ([]string, []string) {
			return []string{"{kadmin}", "-o", output, "run", "{scripts}/P.lua", n},
				[]string{"{kadmin}", "run", "{scripts}/P.lua", n, "count"}
		}, "|" + n, nil
	}
}
