package main

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
)

// planCheck is workload PL's yardstick: the describes a plan of N topics
// prefixN (each with retention.ms=value) and their 2N ACLs needs
// (ListTopics, DescribeTopicConfigs, DescribeACLs), and the comparison.
func planCheck(ctx context.Context, adm *kadm.Client, prefix string, n int, value string) {
	names := topicNames(prefix, n)
	td, err := adm.ListTopics(ctx)
	check(err)
	cfgs, err := adm.DescribeTopicConfigs(ctx, names...)
	check(err)
	acls, err := adm.DescribeACLs(ctx, kadm.NewACLs().AnyResource().ResourcePatternType(kadm.ACLPatternAny).
		Operations(kadm.OpAny).Allow().Deny().AllowHosts().DenyHosts())
	check(err)
	changes := 0
	for _, name := range names {
		if _, ok := td[name]; !ok {
			changes++
		}
	}
	for _, rc := range cfgs {
		check(rc.Err)
		for _, c := range rc.Configs {
			if c.Key == "retention.ms" && c.MaybeValue() != value {
				changes++
			}
		}
	}
	have := map[string]bool{}
	for _, d := range acls {
		check(d.Err)
		for _, a := range d.Described {
			have[a.Principal+" "+a.Operation.String()+" "+a.Name] = true
		}
	}
	for _, name := range names {
		for _, op := range []string{"READ", "WRITE"} {
			if !have["User:"+name+" "+op+" "+name] {
				changes++
			}
		}
	}
	if changes == 0 {
		fmt.Println("No changes: the cluster matches the spec.")
		return
	}
	fmt.Printf("Plan: %d changes.\n", changes)
}
