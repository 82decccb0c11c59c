package desired

import (
	"context"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/engine/undo"
	"github.com/kadmin-lua/kadmin-lua/internal/testaudit"
	"github.com/kadmin-lua/kadmin-lua/internal/testengine"
)

func changeLines(p Plan) []string {
	var out []string
	for _, ch := range p.Changes {
		out = append(out, ch.String())
	}
	return out
}

func teamSpec() Spec {
	return Spec{
		Topics: []engine.TopicSpec{
			{Name: "team-a.orders", Partitions: 3, ReplicationFactor: 2, Configs: map[string]string{"retention.ms": "86400000"}},
			{Name: "team-a.events", Partitions: 1, ReplicationFactor: 1},
		},
		ACLs: []engine.ACL{{Principal: "User:team-a", Host: "*", Operation: "read", Permission: "allow",
			ResourceType: "topic", ResourceName: "team-a.", PatternType: "prefixed"}},
		Owns: Owns{Topics: NameSet{{Prefix: "team-a."}}, ACLPrincipals: NameSet{{Prefix: "User:team-a"}}},
	}
}

// undoLog reads the audit log at path and undoes it with cl.
func undoLog(t *testing.T, cl *engine.Client, path string, o undo.Options) []engine.UndoStep {
	t.Helper()
	changes, problems := testaudit.Read(t, path, auditlog.Options{})
	require.Empty(t, problems)
	steps, err := undo.Run(context.Background(), cl, changes, o)
	require.NoError(t, err)
	return steps
}

func TestReconcilePlanApplyPlan(t *testing.T) {
	cl, c, adm := testengine.Client(t)
	ctx := context.Background()
	// Outside what the spec owns: never touched, even with prune.
	_, err := adm.CreateTopic(ctx, 1, 1, map[string]*string{"retention.ms": kadm.StringPtr("1000")}, "team-b.orders")
	require.NoError(t, err)
	_, err = cl.CreateACLs(ctx, []engine.ACL{{Principal: "User:team-b", Operation: "read", ResourceType: "topic", ResourceName: "team-b.orders"}})
	require.NoError(t, err)

	p, err := PlanSpec(ctx, cl, teamSpec(), PlanSpecOptions{Prune: true})
	require.NoError(t, err)
	assert.NotEmpty(t, p.ClusterID)
	assert.Equal(t, []string{
		"create topic team-a.events (partitions 1, replication factor 1, 0 configs)",
		"create topic team-a.orders (partitions 3, replication factor 2, 1 configs)",
		"create acl User:team-a allow read on topic team-a. (prefixed) from *",
	}, changeLines(p))

	res, err := Apply(ctx, cl, p, ApplyOptions{})
	require.NoError(t, err)
	for _, r := range res {
		assert.Equal(t, StatusApplied, r.Status, "%s: %v", r.Change, r.Err)
	}
	td, err := adm.ListTopics(ctx)
	require.NoError(t, err)
	assert.Len(t, td["team-a.orders"].Partitions, 3)
	assert.Equal(t, 2, td["team-a.orders"].Partitions.NumReplicas())
	v, src := testengine.TopicConfig(t, adm, "team-a.orders", "retention.ms")
	assert.Equal(t, "86400000", v, src)
	acls, err := adm.DescribeACLs(ctx, kadm.NewACLs().Allow("User:team-a").AllowHosts("*").Topics("team-a.").ResourcePatternType(kadm.ACLPatternPrefixed).Operations(kadm.OpRead))
	require.NoError(t, err)
	require.Len(t, acls, 1)
	assert.Len(t, acls[0].Described, 1)

	again, err := PlanSpec(ctx, cl, teamSpec(), PlanSpecOptions{Prune: true})
	require.NoError(t, err)
	assert.Empty(t, again.Changes, "applying twice: the second plan is empty")

	// Drift: configs, partitions, replication factor, a stray topic and ACL.
	spec := teamSpec()
	spec.Topics[0].Partitions = 5
	spec.Topics[0].ReplicationFactor = 3
	spec.Topics[0].Configs = map[string]string{"cleanup.policy": "compact"}
	_, err = adm.CreateTopic(ctx, 1, 1, map[string]*string{"retention.ms": kadm.StringPtr("1000")}, "team-a.stray") // configs not described for a deletion
	require.NoError(t, err)
	_, err = cl.CreateACLs(ctx, []engine.ACL{{Principal: "User:team-a", Operation: "write", ResourceType: "topic", ResourceName: "team-a.stray"}})
	require.NoError(t, err)

	noPrune, err := PlanSpec(ctx, cl, spec, PlanSpecOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{
		`alter topic team-a.orders configs: cleanup.policy: (default) -> "compact", retention.ms: "86400000" -> (default)`,
		"reassign topic team-a.orders replication factor 2 -> 3 (3 partitions)",
		"raise topic team-a.orders partitions 3 -> 5",
	}, changeLines(noPrune), "without --prune nothing is deleted")

	pruned, err := PlanSpec(ctx, cl, spec, PlanSpecOptions{Prune: true})
	require.NoError(t, err)
	assert.Equal(t, append(changeLines(noPrune),
		"delete acl User:team-a allow write on topic team-a.stray (literal) from *",
		"delete topic team-a.stray"), changeLines(pruned))
	res, err = Apply(ctx, cl, pruned, ApplyOptions{})
	require.NoError(t, err)
	for _, r := range res {
		assert.Equal(t, StatusApplied, r.Status, "%s: %v", r.Change, r.Err)
	}
	assert.NotContains(t, testengine.FreshTopics(t, c), "team-a.stray")

	td = testengine.FreshTopics(t, c)
	assert.Len(t, td["team-a.orders"].Partitions, 5)
	assert.Contains(t, td, "team-b.orders", "outside owns: untouched")
	v, _ = testengine.TopicConfig(t, adm, "team-b.orders", "retention.ms")
	assert.Equal(t, "1000", v)
	b, err := adm.DescribeACLs(ctx, kadm.NewACLs().Allow("User:team-b").AllowHosts("*").Topics("team-b.orders").Operations(kadm.OpRead))
	require.NoError(t, err)
	assert.Len(t, b[0].Described, 1, "ACLs outside owns: untouched")
	// The reassignment was asked for each partition (kfake accepts it
	// and moves nothing; the real-Kafka test sees the replicas move).
	for _, ch := range pruned.Changes {
		if ch.Action == ActionReassign {
			require.Len(t, ch.Replicas, 3)
			for _, pt := range ch.Replicas {
				assert.Len(t, pt.Replicas, 3, "partition %d", pt.Partition)
			}
		}
	}
}

func TestReconcileRefusesWhatCannotBeDone(t *testing.T) {
	cl, _, adm := testengine.Client(t)
	ctx := context.Background()
	_, err := adm.CreateTopic(ctx, 4, 1, nil, "team-a.big")
	require.NoError(t, err)
	spec := Spec{
		Topics: []engine.TopicSpec{{Name: "team-a.big", Partitions: 2}, {Name: "team-a.wide", Partitions: 1, ReplicationFactor: 1},
			{Name: "other", Partitions: 1}},
		Owns:  Owns{Topics: NameSet{{Prefix: "team-a."}}},
		Where: map[string]string{"topic other": "spec.lua:9"},
	}
	_, err = PlanSpec(ctx, cl, spec, PlanSpecOptions{})
	require.Error(t, err)
	assert.Equal(t, `spec.lua:9: topic other: outside owns.topics (prefix "team-a.")`, err.Error(), "checked before the cluster is asked")

	spec.Topics = spec.Topics[:2]
	spec.Topics[1] = engine.TopicSpec{Name: "team-a.wide", Partitions: 1}
	spec.Topics = append(spec.Topics, engine.TopicSpec{Name: "team-a.big2", Partitions: 1, ReplicationFactor: 1})
	_, err = adm.CreateTopic(ctx, 1, 1, nil, "team-a.big2")
	require.NoError(t, err)
	spec.Topics[2].ReplicationFactor = 9
	_, err = PlanSpec(ctx, cl, spec, PlanSpecOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "topic team-a.big: partitions cannot decrease from 4 to 2")
	assert.Contains(t, err.Error(), "topic team-a.big2: replication_factor 9 is above the 3 brokers")
}

func TestReconcilePolicies(t *testing.T) {
	spec := Spec{
		Topics: []engine.TopicSpec{{Name: "Bad Name", Partitions: 100, ReplicationFactor: 1, Configs: map[string]string{"min.insync.replicas": "1"}},
			{Name: "good.one", Partitions: 3, ReplicationFactor: 3, Configs: map[string]string{"min.insync.replicas": "2", "retention.ms": "1"}}},
		Policies: Policies{TopicName: regexp.MustCompile(`^[a-z.]+$`), MinReplicationFactor: 3, MinInsyncReplicas: 2,
			MaxPartitions: 64, RequiredConfigs: []string{"retention.ms"}},
		Where: map[string]string{"topic Bad Name": "spec.yaml:3"},
	}
	err := spec.Check()
	require.Error(t, err)
	assert.Equal(t, SpecErrors{
		`spec.yaml:3: topic Bad Name: policy topic_name: "Bad Name" does not match "^[a-z.]+$"`,
		`spec.yaml:3: topic Bad Name: policy min_replication_factor: replication_factor 1 is below 3`,
		`spec.yaml:3: topic Bad Name: policy max_partitions: partitions 100 is above 64`,
		`spec.yaml:3: topic Bad Name: policy min_insync_replicas: min.insync.replicas "1" is below 2`,
		`spec.yaml:3: topic Bad Name: policy required_configs: configs["retention.ms"] must be given`,
	}, err)
}

func TestReconcileStalePlan(t *testing.T) {
	cl, _, adm, path := testengine.Audited(t)
	ctx := context.Background()
	_, err := adm.CreateTopic(ctx, 1, 1, map[string]*string{"retention.ms": kadm.StringPtr("1000")}, "team-a.orders")
	require.NoError(t, err)
	spec := teamSpec()
	spec.Topics[0].ReplicationFactor = 1
	spec.Topics[0].Partitions = 2
	p, err := PlanSpec(ctx, cl, spec, PlanSpecOptions{})
	require.NoError(t, err)
	require.Len(t, p.Changes, 4, "%v", changeLines(p))

	// Between review and apply someone changes the topic's retention.
	_, err = adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Name: "retention.ms", Value: kadm.StringPtr("5000")}}, "team-a.orders")
	require.NoError(t, err)
	res, err := Apply(ctx, cl, p, ApplyOptions{})
	require.NoError(t, err)
	status := map[string]string{}
	for _, r := range res {
		status[r.Kind+" "+r.Name+" "+r.Action] = r.Status
		if r.Status == StatusStale {
			assert.Equal(t, `was retention.ms "1000", now "5000"`, r.Stale)
			assert.Equal(t, "STALE_PLAN", r.Err.Code)
		}
	}
	assert.Equal(t, map[string]string{
		"topic team-a.events create":                                           StatusApplied,
		"topic team-a.orders alter":                                            StatusStale,
		"topic team-a.orders create_partitions":                                StatusStale,
		"acl User:team-a allow read on topic team-a. (prefixed) from * create": StatusApplied,
	}, status)
	v, _ := testengine.TopicConfig(t, adm, "team-a.orders", "retention.ms")
	assert.Equal(t, "5000", v, "a stale change sends nothing")
	td, err := adm.ListTopics(ctx)
	require.NoError(t, err)
	assert.Len(t, td["team-a.orders"].Partitions, 1)

	// The apply is undone from the audit log: the topic and the ACL it
	// created are gone again.
	steps := undoLog(t, cl, path, undo.Options{Confirm: func(string) bool { return true }})
	assert.Contains(t, testengine.Actions(steps), "create_topics team-a.events: reverted")
	assert.Contains(t, testengine.Actions(steps), "create_acls User:team-a allow read on topic team-a. (prefixed) from *: reverted")
	again, err := PlanSpec(ctx, cl, spec, PlanSpecOptions{})
	require.NoError(t, err)
	assert.Len(t, again.Changes, 4, "after undo the plan is what it was: %v", changeLines(again))
}

func TestReconcileApplyRefusesAnotherCluster(t *testing.T) {
	cl, _, _ := testengine.Client(t)
	p, err := PlanSpec(context.Background(), cl, teamSpec(), PlanSpecOptions{})
	require.NoError(t, err)
	p.ClusterID = "elsewhere"
	require.NoError(t, p.Seal()) // an edit with its digest made again: the id is still checked
	_, err = Apply(context.Background(), cl, p, ApplyOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `the plan was made on cluster "elsewhere"`)
}

// A sensitive config never reaches a plan: a spec giving one is refused
// before the cluster is asked, without its value in the error; one Kafka
// marks sensitive (it sends no value) is recorded only as set, left alone
// by the plan, and its appearing or going makes the plan stale.
func TestReconcileSensitiveConfigsNeverInAPlan(t *testing.T) {
	cl, _, adm := testengine.Client(t)
	ctx := context.Background()
	spec := teamSpec()
	spec.Topics[0].Configs["ssl.keystore.password"] = "hunter2-clear"
	_, err := PlanSpec(ctx, cl, spec, PlanSpecOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `topic team-a.orders: configs["ssl.keystore.password"]: a sensitive config cannot be reconciled`)
	assert.NotContains(t, err.Error(), "hunter2")

	// Kafka's flag, whatever the name: the value is not kept, the key is.
	cfgs, sensitive := observedConfigs(engine.DescribedConfigs{Type: engine.ConfigTopic, Name: "t", Configs: map[string]engine.ConfigEntry{
		"retention.ms":     {Value: kadm.StringPtr("1"), Source: "DYNAMIC_TOPIC_CONFIG"},
		"custom.cert":      {Source: "DYNAMIC_TOPIC_CONFIG", Sensitive: true},
		"sasl.jaas.config": {Value: kadm.StringPtr("leaked"), Source: "DYNAMIC_TOPIC_CONFIG"},
	}})
	assert.Equal(t, map[string]string{"retention.ms": "1"}, cfgs)
	assert.Equal(t, []string{"custom.cert", "sasl.jaas.config"}, sensitive)

	_, err = adm.CreateTopic(ctx, 1, 1, nil, "team-a.orders")
	require.NoError(t, err)
	st, err := client{cl}.observe(ctx, func(string) bool { return true }, false)
	require.NoError(t, err)
	st.topics["team-a.orders"].Sensitive = []string{"custom.cert"}
	chs, problems := planTopic(Spec{}, engine.TopicSpec{Name: "team-a.orders", Configs: map[string]string{"retention.ms": "5"}}, st)
	assert.Empty(t, problems)
	require.Len(t, chs, 1)
	assert.Equal(t, `alter topic team-a.orders configs: retention.ms: (default) -> "5"`, chs[0].String(), "a sensitive config set on the topic is left alone")
	_, problems = planTopic(Spec{}, engine.TopicSpec{Name: "team-a.orders", Configs: map[string]string{"custom.cert": "x"}}, st)
	assert.Equal(t, []string{`topic team-a.orders: configs["custom.cert"]: a sensitive config cannot be reconciled: Kafka never returns its value, so a plan can neither diff it nor hold it; remove it from the spec and set it with alter_configs (its value from kafka.env)`}, problems)

	st.topics["team-a.orders"].Sensitive = nil
	assert.Equal(t, "was sensitive configs set [custom.cert], now []", staleness(chs[0], st))
}
