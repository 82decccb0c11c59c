package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Workload PL (issue 22 item 5): `kadmin-lua plan SPEC` of a spec listing
// K topics (each with a config) and 2K ACLs, all as on the cluster, so the
// plan is empty, beside a plain kadm program making the describes a plan
// needs (ListTopics, DescribeTopicConfigs, DescribeACLs) and checking the
// same. K is workload C's topic count (5,000 at full scale), so no field
// of Scale is added.

const planRetention = "86400000"

// seedPL makes K topics pl-NNNNN of one partition with retention.ms set,
// the ACLs User:pl-NNNNN read and write on its topic, and the Lua spec
// listing them all.
func seedPL(ctx context.Context, s *seeded, sc Scale) (func(int) ([]string, []string), string, error) {
	k := sc.CTopics
	names := topicNamesOf("pl-", k)
	for start := 0; start < k; start += 500 {
		created, err := s.adm.CreateTopics(ctx, 1, 1, map[string]*string{"retention.ms": kadm.StringPtr(planRetention)}, names[start:min(start+500, k)]...)
		if err != nil {
			return nil, "", err
		}
		if err := created.Error(); err != nil {
			return nil, "", err
		}
	}
	for start := 0; start < k; start += 500 {
		req := kmsg.NewPtrCreateACLsRequest()
		for _, name := range names[start:min(start+500, k)] {
			for _, op := range []kmsg.ACLOperation{kmsg.ACLOperationRead, kmsg.ACLOperationWrite} {
				c := kmsg.NewCreateACLsRequestCreation()
				c.ResourceType, c.ResourceName, c.ResourcePatternType = kmsg.ACLResourceTypeTopic, name, kmsg.ACLResourcePatternTypeLiteral
				c.Principal, c.Host, c.Operation, c.PermissionType = "User:"+name, "*", op, kmsg.ACLPermissionTypeAllow
				req.Creations = append(req.Creations, c)
			}
		}
		resp, err := req.RequestWith(ctx, s.cl)
		if err != nil {
			return nil, "", err
		}
		for _, r := range resp.Results {
			if r.ErrorCode != 0 {
				return nil, "", fmt.Errorf("create ACLs: error code %d", r.ErrorCode)
			}
		}
	}
	dir, err := os.MkdirTemp("", "kadmin-bench-plan-")
	if err != nil {
		return nil, "", err
	}
	s.temps = append(s.temps, dir)
	spec := filepath.Join(dir, "PL-spec.lua")
	if err := os.WriteFile(spec, []byte(planSpec(names)), 0o644); err != nil {
		return nil, "", err
	}
	n := strconv.Itoa(k)
	return func(int) ([]string, []string) {
		return []string{"{kadmin}", "-b", "{brokers}", "plan", spec}, plainArgs("PL", "pl-", n, planRetention)
	}, "No changes: the cluster matches the spec.", nil
}

// planSpec is the spec of the topics and their ACLs, as people write one.
func planSpec(names []string) string {
	var b strings.Builder
	b.WriteString("return {\n  topics = {\n")
	for _, n := range names {
		fmt.Fprintf(&b, "    {name = %q, partitions = 1, configs = {[\"retention.ms\"] = %q}},\n", n, planRetention)
	}
	b.WriteString("  },\n  acls = {\n")
	for _, n := range names {
		for _, op := range []string{"read", "write"} {
			fmt.Fprintf(&b, "    {principal = \"User:%s\", operation = %q, resource_type = \"topic\", resource_name = %q},\n", n, op, n)
		}
	}
	b.WriteString("  },\n  owns = {topics = {\"pl-\"}, acls = {principals = {\"User:pl-\"}}},\n}\n")
	return b.String()
}

func topicNamesOf(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%05d", prefix, i)
	}
	return out
}
