// Command plain is the yardstick of the whole-process benchmarks: a plain
// Go program that does each workload's admin work with kadm, as a developer
// would write it by hand, and prints what the kadmin-lua script prints.
//
//	plain BROKERS L              lag of every group, summed over partitions
//	plain BROKERS LT             L's lag in time: rows with a time, and the oldest
//	plain BROKERS X GROUP        lag of one group, summed
//	plain BROKERS XJ GROUP       lag of one group as indented JSON
//	plain BROKERS C PREFIX N     create then delete N topics (6 partitions, RF 1)
//	plain BROKERS R PREFIX N VAL set retention.ms=VAL on N topics, one call each
//	plain BROKERS PL PREFIX N VAL the describes a plan of N topics and 2N ACLs needs (plan.go)
//	plain BROKERS DT             partitions of every topic, paged DescribeTopicPartitions (topics.go)
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: plain BROKERS WORKLOAD [ARGS...]")
		os.Exit(2)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(os.Args[1], ",")...))
	check(err)
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx := context.Background()
	args := os.Args[3:]
	switch os.Args[2] {
	case "L":
		lags, err := adm.Lag(ctx)
		check(err)
		fmt.Println(sumLag(lags))
	case "LT":
		n, oldest := lagTime(ctx, strings.Split(os.Args[1], ","), adm)
		fmt.Println(n, oldest)
	case "X":
		lags, err := adm.Lag(ctx, args[0])
		check(err)
		fmt.Println(sumLag(lags))
	case "XJ":
		lags, err := adm.Lag(ctx, args[0])
		check(err)
		printJSON(lags)
	case "C":
		names := topicNames(args[0], atoi(args[1]))
		created, err := adm.CreateTopics(ctx, 6, 1, nil, names...)
		check(err)
		check(created.Error())
		deleted, err := adm.DeleteTopics(ctx, names...)
		check(err)
		check(deleted.Error())
		fmt.Println(len(created), len(deleted))
	case "R":
		value := args[2]
		n := 0
		for _, t := range topicNames(args[0], atoi(args[1])) {
			res, err := adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "retention.ms", Value: &value}}, t)
			check(err)
			for _, r := range res {
				check(r.Err)
				n++
			}
		}
		fmt.Println(n)
	case "PL":
		planCheck(ctx, adm, args[0], atoi(args[1]), args[2])
	case "DT":
		describeAllPaged(ctx, cl)
	default:
		fmt.Fprintln(os.Stderr, "unknown workload", os.Args[2])
		os.Exit(2)
	}
}

// sumLag adds up the lag of every partition of every group (what the Lua
// scripts add up from lag()'s rows).
func sumLag(lags kadm.DescribedGroupLags) int64 {
	var sum int64
	for _, g := range lags {
		check(g.Error())
		for _, ps := range g.Lag {
			for _, p := range ps {
				check(p.Err)
				sum += max(p.Lag, 0)
			}
		}
	}
	return sum
}

// lagRow and groupRow are lag()'s rows, for the JSON the XJ workload prints.
type lagRow struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Committed int64  `json:"committed"`
	EndOffset int64  `json:"end_offset"`
	Lag       int64  `json:"lag"`
	MemberID  string `json:"member_id,omitempty"`
	ClientID  string `json:"client_id,omitempty"`
}

type groupRow struct {
	Group      string   `json:"group"`
	State      string   `json:"state"`
	TotalLag   int64    `json:"total_lag"`
	Partitions []lagRow `json:"partitions"`
}

func printJSON(lags kadm.DescribedGroupLags) {
	var out []groupRow
	for _, g := range lags.Sorted() {
		check(g.Error())
		row := groupRow{Group: g.Group, State: g.State, Partitions: []lagRow{}}
		for _, p := range g.Lag.Sorted() {
			r := lagRow{Topic: p.Topic, Partition: p.Partition, Committed: p.Commit.At, EndOffset: p.End.Offset, Lag: max(p.Lag, 0)}
			if p.Member != nil {
				r.MemberID, r.ClientID = p.Member.MemberID, p.Member.ClientID
			}
			row.TotalLag += r.Lag
			row.Partitions = append(row.Partitions, r)
		}
		out = append(out, row)
	}
	slices.SortFunc(out, func(a, b groupRow) int { return strings.Compare(a.Group, b.Group) })
	w := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	check(enc.Encode(out))
	check(w.Flush())
}

func topicNames(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%05d", prefix, i)
	}
	return out
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	check(err)
	return n
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "plain:", err)
		os.Exit(1)
	}
}
