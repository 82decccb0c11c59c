// Command benchwhole runs the whole-process benchmarks (`make bench`):
// kadmin-lua beside a plain kadm program, or a hello world for start-up,
// in interleaved rounds against in-process kfake clusters, and prints the
// ratio table docs/benchmarks.md keeps.
//
//	go run ./bench/cmd/benchwhole [-only L,X] [-rounds 7] [-tiny]
//	go run ./bench/cmd/benchwhole -serve X    # a seeded cluster to profile against
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/kadmin-lua/kadmin-lua/bench"
)

func main() {
	only := flag.String("only", "", "comma-separated workloads to run (L,LT,LS,LG,LGS,DT,PK,C,S,X,XJ,R,M,PJ,PT,J,T); all when empty")
	rounds := flag.Int("rounds", 0, "rounds per cluster workload (default: the scale's)")
	tiny := flag.Bool("tiny", false, "toy sizes, one round: check that the harness works")
	serve := flag.String("serve", "", "seed one workload's cluster, print its command lines and wait (for profiling)")
	flag.Parse()
	sc := bench.Full
	if *tiny {
		sc = bench.Tiny
	}
	if *rounds > 0 {
		sc.Rounds = *rounds
	}
	if *serve != "" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		if err := bench.Serve(ctx, *serve, sc, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "benchwhole:", err)
			os.Exit(1)
		}
		return
	}
	var names []string
	if *only != "" {
		names = strings.Split(*only, ",")
	}
	load := bench.LoadAverage()
	start := time.Now()
	results, err := bench.Run(context.Background(), bench.Options{Scale: sc, Only: names, Log: os.Stderr})
	fmt.Printf("\n%s\n%s; %s in all\n", bench.Table(results), bench.Machine(load), time.Since(start).Round(time.Second))
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchwhole:", err)
		os.Exit(1)
	}
}
