package single

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

// reconcileSpec is a spec owning the topics under prefix+"." and the ACLs
// of User:prefix-app; orders has parts partitions and cfg as its configs.
func reconcileSpec(prefix string, parts int, rf int, cfg string) string {
	return fmt.Sprintf(`topics:
  - name: %[1]s.orders
    partitions: %[2]d
    replication_factor: %[3]d
    configs: {%[4]s}
  - {name: %[1]s.events, partitions: 1, configs: {segment.ms: "3600000"}}
acls:
  - {principal: "User:%[1]s-app", operation: read, resource_type: topic, resource_name: %[1]s.orders}
owns:
  topics: [%[1]s.]
  acls: {principals: ["User:%[1]s-app"]}
`, prefix, parts, rf, cfg)
}

// principalOpsOn lists the ACLs of principal, as "operation resource", sorted.
func principalOpsOn(t *testing.T, adm *kadm.Client, principal string) []string {
	t.Helper()
	b := kadm.NewACLs().Allow(principal).AllowHosts().AnyResource().ResourcePatternType(kadm.ACLPatternAny).Operations(kadm.OpAny)
	described, err := adm.DescribeACLs(ctxT(t, 20*time.Second), b)
	require.NoError(t, err)
	var out []string
	for _, d := range described {
		require.NoError(t, d.Err)
		for _, a := range d.Described {
			out = append(out, a.Operation.String()+" "+a.Name)
		}
	}
	slices.Sort(out) // the broker answers in no fixed order
	return out
}

// plan, apply, plan on the SASL node through the binary, checked through
// an independent admin client: the first apply creates what the spec
// lists and prunes what it owns and does not list, never what lies
// outside owns; the second plan is empty; a plan made stale by a change
// between plan and apply is refused for that topic only; a replication
// factor above the one broker fails the plan; undo reverts an apply.
func TestReconcilePlanApplyPlan(t *testing.T) {
	need(t)
	adm := admin(t)
	ctx := ctxT(t, 3*time.Minute)
	p := unique("rec")
	orders, events, stray, outside := p+".orders", p+".events", p+".stray", unique("rec-outside")
	app, other := "User:"+p+"-app", "User:"+p+"-other"
	for _, name := range []string{stray, outside} {
		_, err := adm.CreateTopic(ctx, 1, 1, map[string]*string{"retention.ms": kadm.StringPtr("1000")}, name)
		require.NoError(t, err)
	}
	for _, a := range []*kadm.ACLBuilder{
		kadm.NewACLs().Allow(app).AllowHosts("*").Topics(stray).ResourcePatternType(kadm.ACLPatternLiteral).Operations(kadm.OpWrite),
		kadm.NewACLs().Allow(other).AllowHosts("*").Topics(outside).ResourcePatternType(kadm.ACLPatternLiteral).Operations(kadm.OpRead),
	} {
		res, err := adm.CreateACLs(ctx, a)
		require.NoError(t, err)
		require.NoError(t, res[0].Err)
	}
	waitTopic(t, stray, 1)
	require.Eventually(t, func() bool { return len(principalOpsOn(t, adm, app)) == 1 }, 20*time.Second, 100*time.Millisecond)

	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.yaml")
	write := func(s string) { require.NoError(t, os.WriteFile(spec, []byte(s), 0o600)) }
	as := func(args ...string) kafkatest.BinResult {
		return runBin(t, kafkatest.MechScram512, kafkatest.AdminUser, kafkatest.AdminPassword, args...)
	}
	planFile := filepath.Join(dir, "plan.json")
	write(reconcileSpec(p, 2, 1, `retention.ms: "86400000"`))

	res := as("plan", spec, "--prune", "--exit-code", "--out", planFile)
	require.Equal(t, 2, res.Code, res.Stdout+res.Stderr)
	for _, want := range []string{"create topic " + orders, "create topic " + events, "create acl " + app + " allow read on topic " + orders,
		"delete acl " + app + " allow write on topic " + stray, "delete topic " + stray, "Plan: 5 changes."} {
		assert.Contains(t, res.Stdout, want)
	}
	assert.NotContains(t, res.Stdout, outside, "outside owns")

	res = as("--audit-log", filepath.Join(dir, "audit1.jsonl"), "apply", planFile)
	require.Equal(t, 0, res.Code, res.Stdout+res.Stderr)
	waitTopic(t, orders, 2)
	waitTopic(t, events, 1)
	waitTopic(t, stray, gone)
	eventuallyConfig(t, adm, orders, "retention.ms", "86400000", "DYNAMIC_TOPIC_CONFIG")
	eventuallyConfig(t, adm, events, "segment.ms", "3600000", "DYNAMIC_TOPIC_CONFIG")
	require.Eventually(t, func() bool {
		a := principalOpsOn(t, adm, app)
		return len(a) == 1 && a[0] == "READ "+orders
	}, 20*time.Second, 100*time.Millisecond, "the listed ACL created, the stray one pruned")
	// Outside owns: untouched, with --prune.
	assert.Contains(t, topics(t), outside)
	v, _ := configValue(t, adm, outside, "retention.ms")
	assert.Equal(t, "1000", v)
	assert.Equal(t, []string{"READ " + outside}, principalOpsOn(t, adm, other))

	// Applying twice: the second plan is empty.
	res = as("plan", spec, "--prune", "--exit-code")
	require.Equal(t, 0, res.Code, res.Stdout+res.Stderr)
	assert.Contains(t, res.Stdout, "No changes")

	// One broker: a replication factor of 2 cannot be planned.
	write(reconcileSpec(p, 2, 2, `retention.ms: "86400000"`))
	res = as("plan", spec, "--exit-code")
	require.Equal(t, 1, res.Code, res.Stdout+res.Stderr)
	assert.Contains(t, res.Stderr, "topic "+orders+": replication_factor 2 is above the 1 brokers of the cluster")

	// Drift in the spec: more partitions, other configs, for both topics.
	write(reconcileSpec(p, 4, 1, `cleanup.policy: compact`)) // orders: retention.ms back to its default
	res = as("plan", spec, "--out", planFile)
	require.Equal(t, 0, res.Code, res.Stdout+res.Stderr)
	assert.Contains(t, res.Stdout, `alter topic `+orders+` configs: cleanup.policy: (default) -> "compact", retention.ms: "86400000" -> (default)`)
	assert.Contains(t, res.Stdout, "raise topic "+orders+" partitions 2 -> 4")
	// Between review and apply someone changes orders: its items are stale.
	_, err := adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Name: "retention.ms", Value: kadm.StringPtr("5000")}}, orders)
	require.NoError(t, err)
	eventuallyConfig(t, adm, orders, "retention.ms", "5000", "DYNAMIC_TOPIC_CONFIG")
	res = as("apply", planFile)
	require.Equal(t, 1, res.Code, res.Stdout+res.Stderr)
	assert.Contains(t, res.Stdout, `was retention.ms "86400000", now "5000" since the plan; plan again`)
	assert.Contains(t, res.Stderr, "2 of 2 changes were stale")
	waitTopic(t, orders, 2)
	v, _ = configValue(t, adm, orders, "cleanup.policy")
	assert.Equal(t, "delete", v, "a stale change sends nothing")

	// Plan again and apply, audited; undo reverts the configs (Kafka
	// cannot remove partitions: undo says so).
	audit := filepath.Join(dir, "audit2.jsonl")
	res = as("plan", spec, "--out", planFile)
	require.Equal(t, 0, res.Code, res.Stdout+res.Stderr)
	res = as("--audit-log", audit, "apply", planFile)
	require.Equal(t, 0, res.Code, res.Stdout+res.Stderr)
	waitTopic(t, orders, 4)
	eventuallyConfig(t, adm, orders, "cleanup.policy", "compact", "DYNAMIC_TOPIC_CONFIG")
	res = as("plan", spec, "--prune", "--exit-code")
	require.Equal(t, 0, res.Code, res.Stdout+res.Stderr)

	res = as("--yes", "undo", audit)
	assert.Regexp(t, `create_partitions +`+orders+` +cannot undo +partition increases cannot be undone`, res.Stdout)
	eventuallyConfig(t, adm, orders, "retention.ms", "5000", "DYNAMIC_TOPIC_CONFIG")
	_, src := configValue(t, adm, orders, "cleanup.policy")
	assert.Equal(t, "DEFAULT_CONFIG", src, "undo put cleanup.policy back to its default")
	res = as("plan", spec, "--exit-code")
	require.Equal(t, 2, res.Code, res.Stdout+res.Stderr)
	assert.Contains(t, res.Stdout, `alter topic `+orders+` configs: cleanup.policy: (default) -> "compact", retention.ms: "5000" -> (default)`)
}

// SCRAM users, quotas and group configs on the SASL node: the password
// comes from the environment at plan and at apply and the new user logs
// in with it; --prune deletes an owned user's credential and quota only.
func TestReconcileSCRAMUsersQuotasAndGroupConfigs(t *testing.T) {
	need(t)
	adm := admin(t)
	ctx := ctxT(t, 2*time.Minute)
	p := unique("recu")
	svc, stray, group := p+"-svc", p+"-stray", p+".g"
	_, err := adm.AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{{User: stray, Mechanism: kadm.ScramSha256, Iterations: 4096, Password: "stray-pw"}})
	require.NoError(t, err)
	_, err = adm.AlterClientQuotas(ctx, []kadm.AlterClientQuotaEntry{{Entity: []kadm.ClientQuotaEntityComponent{{Type: "user", Name: &stray}},
		Ops: []kadm.AlterClientQuotaOp{{Key: "producer_byte_rate", Value: 1}}}})
	require.NoError(t, err)

	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.yaml")
	require.NoError(t, os.WriteFile(spec, []byte(fmt.Sprintf(`scram_users:
  - {user: %[1]s, mechanism: SCRAM-SHA-512, iterations: 8192, password_env: SVC_PASSWORD}
quotas:
  - {entity: {user: %[1]s}, set: {producer_byte_rate: 1048576}}
group_configs:
  - {group: %[2]s, set: {consumer.session.timeout.ms: 50000}}
owns: {scram_users: [%[3]s-], quotas: [user=%[3]s-], group_configs: [%[3]s.]}
`, svc, group, p)), 0o600))
	planFile := filepath.Join(dir, "plan.json")
	as := func(pw string, args ...string) kafkatest.BinResult {
		full := append([]string{"-b", cluster.Bootstrap(), "--sasl-mechanism", kafkatest.MechScram512, "--sasl-username", kafkatest.AdminUser,
			"--timeout", "20s"}, args...)
		return kafkatest.RunBinary(ctxT(t, time.Minute), t, bin, []string{"KADMIN_SASL_PASSWORD=" + kafkatest.AdminPassword, "SVC_PASSWORD=" + pw}, "", full...)
	}
	res := as("svc-pw-1", "plan", spec, "--prune", "--exit-code", "--out", planFile)
	require.Equal(t, 2, res.Code, res.Stdout+res.Stderr)
	for _, want := range []string{"create scram_user " + svc + "/SCRAM-SHA-512 (iterations 8192, password from $SVC_PASSWORD)",
		"create quota user=" + svc + ": producer_byte_rate: (none) -> 1048576", "delete scram_user " + stray + "/SCRAM-SHA-256",
		"delete quota user=" + stray, `create group_config ` + group + ` configs: consumer.session.timeout.ms: (default) -> "50000"`} {
		assert.Contains(t, res.Stdout, want)
	}
	b, err := os.ReadFile(planFile)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "svc-pw-1")

	res = as("svc-pw-1", "apply", planFile)
	require.Equal(t, 0, res.Code, res.Stdout+res.Stderr)
	assert.NotContains(t, res.Stdout+res.Stderr, "svc-pw-1")
	var logged error
	require.Eventually(t, func() bool {
		svcAdm, err := cluster.AdminAs(kafkatest.MechScram512, svc, "svc-pw-1")
		if err != nil {
			logged = err
			return false
		}
		defer svcAdm.Close()
		_, logged = svcAdm.BrokerMetadata(ctxT(t, 10*time.Second))
		return logged == nil
	}, 20*time.Second, 200*time.Millisecond, "the new user logs in with the password from the environment: %v", logged)
	d, err := adm.DescribeUserSCRAMs(ctx, svc, stray)
	require.NoError(t, err)
	require.Len(t, d[svc].CredInfos, 1)
	assert.Equal(t, int32(8192), d[svc].CredInfos[0].Iterations)
	assert.Empty(t, d[stray].CredInfos, "pruned")
	qs, err := adm.DescribeClientQuotas(ctx, false, []kadm.DescribeClientQuotaComponent{{Type: "user", MatchName: &svc, MatchType: kmsg.QuotasMatchTypeExact}})
	require.NoError(t, err)
	require.Len(t, qs, 1)
	assert.Equal(t, 1048576.0, qs[0].Values[0].Value)
	qs, err = adm.DescribeClientQuotas(ctx, false, []kadm.DescribeClientQuotaComponent{{Type: "user", MatchName: &stray, MatchType: kmsg.QuotasMatchTypeExact}})
	require.NoError(t, err)
	assert.Empty(t, qs, "pruned")

	require.Eventually(t, func() bool {
		return as("svc-pw-1", "plan", spec, "--prune", "--exit-code").Code == 0
	}, 20*time.Second, 500*time.Millisecond, "the second plan is empty")
}

// A data-only Lua spec (read without the Lua compiler, luaapi/spec_literal.go)
// and the same rows computed by Lua (behind a local, so the chunk is run)
// plan the same on the SASL node; applying the first, the second plans
// nothing; a bad row in a data-only spec is refused with its file:line.
func TestReconcileDataOnlyLuaSpecPlansAsLua(t *testing.T) {
	need(t)
	adm := admin(t)
	p := unique("recl")
	orders := p + ".orders"
	rows := fmt.Sprintf(`{
  topics = {
    {name = %q, partitions = 3, configs = {["retention.ms"] = "7200000"}},
  },
  acls = {{principal = "User:%s-app", operation = "read", resource_type = "topic", resource_name = %q}},
  owns = {topics = {%q}, acls = {principals = {"User:%s-app"}}},
}
`, orders, p, orders, p+".", p)
	dir := t.TempDir()
	data, computed := filepath.Join(dir, "data.lua"), filepath.Join(dir, "computed.lua")
	require.NoError(t, os.WriteFile(data, []byte("-- generated\nreturn "+rows), 0o600))
	require.NoError(t, os.WriteFile(computed, []byte("local spec = "+rows+"return spec\n"), 0o600))
	as := func(args ...string) kafkatest.BinResult {
		return runBin(t, kafkatest.MechScram512, kafkatest.AdminUser, kafkatest.AdminPassword, args...)
	}
	fromData, fromLua := as("plan", data, "--exit-code"), as("plan", computed, "--exit-code")
	require.Equal(t, 2, fromData.Code, fromData.Stdout+fromData.Stderr)
	assert.Equal(t, fromLua.Code, fromData.Code)
	// The same changes; the digests differ, since each plan records when it was made.
	digest := regexp.MustCompile(`(?m)^Digest: sha256:[0-9a-f]{64}$`)
	assert.Equal(t, digest.ReplaceAllString(fromLua.Stdout, "Digest"), digest.ReplaceAllString(fromData.Stdout, "Digest"),
		"the same plan from either reading")
	assert.Regexp(t, digest, fromData.Stdout, "the plan prints its digest")
	for _, want := range []string{"create topic " + orders, "create acl User:" + p + "-app allow read on topic " + orders, "Plan: 2 changes."} {
		assert.Contains(t, fromData.Stdout, want)
	}

	res := as("--yes", "apply", data)
	require.Equal(t, 0, res.Code, res.Stdout+res.Stderr)
	waitTopic(t, orders, 3)
	eventuallyConfig(t, adm, orders, "retention.ms", "7200000", "DYNAMIC_TOPIC_CONFIG")
	res = as("plan", computed, "--exit-code")
	require.Equal(t, 0, res.Code, res.Stdout+res.Stderr)

	bad := filepath.Join(dir, "bad.lua")
	require.NoError(t, os.WriteFile(bad, []byte("return {\n  topics = {\n    {name = \"x\",\n     partitions = \"many\"},\n  },\n}\n"), 0o600))
	res = as("plan", bad)
	require.Equal(t, 2, res.Code, "a bad spec is a usage error: %s", res.Stdout+res.Stderr)
	assert.Contains(t, res.Stderr, "bad.lua:4: topics #1: partitions")
	res = as("plan", bad, "--exit-code")
	require.Equal(t, 1, res.Code, "terraform's codes: an error is 1, never 2 (changes): %s", res.Stdout+res.Stderr)
}
