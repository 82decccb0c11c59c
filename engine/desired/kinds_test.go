package desired

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/undo"
	"github.com/kadmin-lua/kadmin-lua/internal/testengine"
)

// dynamicConfigs reads a resource's dynamic configs through a brand-new
// client, not the engine.
func dynamicConfigs(t *testing.T, c *kfake.Cluster, typ kmsg.ConfigResourceType, name string) map[string]string {
	t.Helper()
	kc, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	require.NoError(t, err)
	defer kc.Close()
	req := kmsg.NewPtrDescribeConfigsRequest()
	rr := kmsg.NewDescribeConfigsRequestResource()
	rr.ResourceType, rr.ResourceName = typ, name
	req.Resources = append(req.Resources, rr)
	resp, err := req.RequestWith(context.Background(), kc)
	require.NoError(t, err)
	out := map[string]string{}
	for _, r := range resp.Resources {
		for _, e := range r.Configs {
			switch e.Source {
			case kmsg.ConfigSourceGroupConfig, kmsg.ConfigSourceClientMetricsConfig, kmsg.ConfigSourceDynamicBrokerConfig:
				if e.Value != nil {
					out[e.Name] = *e.Value
				}
			}
		}
	}
	return out
}

func quotasOf(t *testing.T, adm *kadm.Client) map[string]map[string]float64 {
	t.Helper()
	qs, err := adm.DescribeClientQuotas(context.Background(), false, nil)
	require.NoError(t, err)
	out := map[string]map[string]float64{}
	for _, q := range qs {
		e := engine.QuotaEntity{}
		for _, c := range q.Entity {
			e[quotaType(c.Type)] = *c.Name
		}
		vals := map[string]float64{}
		for _, v := range q.Values {
			vals[v.Key] = v.Value
		}
		out[e.String()] = vals
	}
	return out
}

// quotaType is the entity type QuotaEntity names Kafka's type by.
func quotaType(kafkaType string) string {
	for k, v := range engine.QuotaEntityTypes {
		if v == kafkaType {
			return k
		}
	}
	return kafkaType
}

func scramOf(t *testing.T, adm *kadm.Client) map[string]int32 {
	t.Helper()
	d, err := adm.DescribeUserSCRAMs(context.Background())
	require.NoError(t, err)
	out := map[string]int32{}
	for _, u := range d {
		for _, ci := range u.CredInfos {
			out[u.User+"/"+ci.Mechanism.String()] = ci.Iterations
		}
	}
	return out
}

func kindsSpec() Spec {
	return Spec{
		Quotas:     []QuotaSpec{{Entity: engine.QuotaEntity{"user": "team-a-svc"}, Set: map[string]float64{"producer_byte_rate": 1024, "consumer_byte_rate": 2048}}},
		SCRAMUsers: []SCRAMUserSpec{{User: "team-a-svc", Mechanism: "SCRAM-SHA-512", Iterations: 8192, PasswordEnv: "TEAM_A_PW"}},
		Configs: []ConfigSpec{
			{Kind: KindGroupConfig, Name: "team-a.g", Set: map[string]string{"consumer.heartbeat.interval.ms": "6000"}},
			{Kind: KindClientMetrics, Name: "team-a-sub", Set: map[string]string{"metrics": "org.apache.kafka.producer.", "interval.ms": "60000"}},
			{Kind: KindBrokerConfig, Name: "0", Set: map[string]string{"log.cleaner.backoff.ms": "20000"}},
		},
		Owns: Owns{Quotas: NameSet{{Prefix: "user=team-a"}}, SCRAMUsers: NameSet{{Prefix: "team-a-"}},
			Groups: NameSet{{Prefix: "team-a."}}, ClientMetrics: NameSet{{Prefix: "team-a-"}}},
	}
}

// Quotas, SCRAM users, group configs, client-metrics subscriptions and
// broker configs: plan, apply, plan again empty; --prune deletes inside
// owns only; a stale quota and a password that is not the one planned
// are refused; undo reverts the quotas and configs an apply set.
func TestReconcileOtherKindsPlanApplyPlan(t *testing.T) {
	cl, c, adm, path := testengine.Audited(t)
	ctx := context.Background()
	env := map[string]string{"TEAM_A_PW": "s3cret-pw"}
	getenv := func(k string) string { return env[k] }
	// Owned strays and outside resources.
	_, err := cl.AlterClientQuotas(ctx, []engine.QuotaAlteration{
		{Entity: engine.QuotaEntity{"user": "team-a-old"}, Set: map[string]float64{"producer_byte_rate": 1}},
		{Entity: engine.QuotaEntity{"user": "other"}, Set: map[string]float64{"producer_byte_rate": 2}},
	}, false)
	require.NoError(t, err)
	_, err = cl.AlterUserSCRAMCredentials(ctx, []engine.SCRAMUpsert{
		{User: "team-a-old", Mechanism: kadm.ScramSha256, Password: "x"}, {User: "other", Mechanism: kadm.ScramSha256, Password: "y"}}, nil)
	require.NoError(t, err)
	_, err = cl.AlterConfigs(ctx, []engine.ConfigAlteration{
		{Resource: engine.ConfigResource{Type: engine.ConfigGroup, Name: "team-a.stray"}, Set: map[string]string{"consumer.session.timeout.ms": "50000"}},
		{Resource: engine.ConfigResource{Type: engine.ConfigGroup, Name: "other.g"}, Set: map[string]string{"consumer.session.timeout.ms": "50000"}},
	}, engine.AlterConfigsOptions{})
	require.NoError(t, err)

	p, err := PlanSpec(ctx, cl, kindsSpec(), PlanSpecOptions{Prune: true, Env: getenv})
	require.NoError(t, err)
	assert.Equal(t, []string{
		`create broker_config 0 configs: log.cleaner.backoff.ms: (default) -> "20000"`,
		`create group_config team-a.g configs: consumer.heartbeat.interval.ms: (default) -> "6000"`,
		`create client_metrics team-a-sub configs: interval.ms: (default) -> "60000", metrics: (default) -> "org.apache.kafka.producer."`,
		`create quota user=team-a-svc: consumer_byte_rate: (none) -> 2048, producer_byte_rate: (none) -> 1024`,
		`create scram_user team-a-svc/SCRAM-SHA-512 (iterations 8192, password from $TEAM_A_PW)`,
		`delete scram_user team-a-old/SCRAM-SHA-256`,
		`delete quota user=team-a-old: producer_byte_rate: 1 -> (none)`,
		`delete group_config team-a.stray configs: consumer.session.timeout.ms: "50000" -> (default)`,
	}, changeLines(p))
	raw, err := json.Marshal(p)
	require.NoError(t, err)
	assert.NotContains(t, string(raw), "s3cret-pw", "a password never reaches the plan")
	assert.Contains(t, string(raw), `"password_fingerprint":"pbkdf2-sha256:4096:`)

	// Without the password at apply nothing of the user is sent.
	res, err := Apply(ctx, cl, p, ApplyOptions{Env: func(string) string { return "" }})
	require.NoError(t, err)
	for _, r := range res {
		if r.Action == ActionCreate && r.Kind == KindSCRAMUser {
			assert.Equal(t, StatusFailed, r.Status)
			assert.Contains(t, r.Err.Error(), "the environment variable TEAM_A_PW is not set")
		} else {
			assert.Equal(t, StatusApplied, r.Status, "%s: %v", r.Change, r.Err)
		}
	}
	assert.NotContains(t, scramOf(t, adm), "team-a-svc/SCRAM-SHA-512")
	p, err = PlanSpec(ctx, cl, kindsSpec(), PlanSpecOptions{Prune: true, Env: getenv})
	require.NoError(t, err)
	assert.Equal(t, []string{`create scram_user team-a-svc/SCRAM-SHA-512 (iterations 8192, password from $TEAM_A_PW)`}, changeLines(p), "re-planning shows the rest")
	res, err = Apply(ctx, cl, p, ApplyOptions{Env: getenv})
	require.NoError(t, err)
	require.Equal(t, StatusApplied, res[0].Status, "%v", res[0].Err)

	// The cluster as a separate client sees it.
	assert.Equal(t, map[string]map[string]float64{"user=team-a-svc": {"producer_byte_rate": 1024, "consumer_byte_rate": 2048},
		"user=other": {"producer_byte_rate": 2}}, quotasOf(t, adm))
	assert.Equal(t, map[string]int32{"team-a-svc/SCRAM-SHA-512": 8192, "other/SCRAM-SHA-256": 4096}, scramOf(t, adm))
	assert.Equal(t, map[string]string{"consumer.heartbeat.interval.ms": "6000"}, dynamicConfigs(t, c, kmsg.ConfigResourceTypeGroupConfig, "team-a.g"))
	assert.Empty(t, dynamicConfigs(t, c, kmsg.ConfigResourceTypeGroupConfig, "team-a.stray"))
	assert.Equal(t, map[string]string{"consumer.session.timeout.ms": "50000"}, dynamicConfigs(t, c, kmsg.ConfigResourceTypeGroupConfig, "other.g"), "outside owns")
	assert.Equal(t, map[string]string{"metrics": "org.apache.kafka.producer.", "interval.ms": "60000"}, dynamicConfigs(t, c, kmsg.ConfigResourceTypeClientMetrics, "team-a-sub"))
	assert.Equal(t, "20000", dynamicConfigs(t, c, kmsg.ConfigResourceTypeBroker, "0")["log.cleaner.backoff.ms"])

	again, err := PlanSpec(ctx, cl, kindsSpec(), PlanSpecOptions{Prune: true, Env: getenv})
	require.NoError(t, err)
	assert.Empty(t, changeLines(again), "applying twice: the second plan is empty")

	// Drift: other quotas and iterations; stale between plan and apply.
	spec := kindsSpec()
	spec.Quotas[0].Set = map[string]float64{"producer_byte_rate": 4096}
	spec.SCRAMUsers[0].Iterations = 4096
	spec.Configs[0].Set = map[string]string{"consumer.session.timeout.ms": "60000"}
	p, err = PlanSpec(ctx, cl, spec, PlanSpecOptions{Env: getenv})
	require.NoError(t, err)
	assert.Equal(t, []string{
		`alter group_config team-a.g configs: consumer.heartbeat.interval.ms: "6000" -> (default), consumer.session.timeout.ms: (default) -> "60000"`,
		`alter quota user=team-a-svc: consumer_byte_rate: 2048 -> (none), producer_byte_rate: 1024 -> 4096`,
		`alter scram_user team-a-svc/SCRAM-SHA-512 iterations 8192 -> 4096 (password from $TEAM_A_PW)`,
	}, changeLines(p))
	_, err = cl.AlterClientQuotas(ctx, []engine.QuotaAlteration{{Entity: engine.QuotaEntity{"user": "team-a-svc"}, Set: map[string]float64{"producer_byte_rate": 1}}}, false)
	require.NoError(t, err)
	env["TEAM_A_PW"] = "another-pw"
	res, err = Apply(ctx, cl, p, ApplyOptions{Env: getenv})
	require.NoError(t, err)
	status := map[string]string{}
	for _, r := range res {
		status[r.Kind] = r.Status + ": " + r.Stale
	}
	assert.Equal(t, map[string]string{
		KindGroupConfig: StatusApplied + ": ",
		KindQuota:       StatusStale + `: was producer_byte_rate 1024, now 1`,
		KindSCRAMUser:   StatusStale + ": scram_user team-a-svc/SCRAM-SHA-512: the password in $TEAM_A_PW is not the one planned; plan again",
	}, status)
	assert.NotContains(t, status[KindSCRAMUser], "another-pw")
	assert.Equal(t, int32(8192), scramOf(t, adm)["team-a-svc/SCRAM-SHA-512"], "nothing sent for a stale password")

	// undo reverts, newest first: the group config the last apply set.
	steps := undoLog(t, cl, path, undo.Options{Confirm: func(string) bool { return true }})
	assert.Contains(t, testengine.Actions(steps), "alter_configs group:team-a.g: reverted")
	assert.Equal(t, map[string]string{}, dynamicConfigs(t, c, kmsg.ConfigResourceTypeGroupConfig, "team-a.g"))
}

func TestReconcileOtherKindsRefused(t *testing.T) {
	cl, _, _ := testengine.Client(t)
	spec := kindsSpec()
	spec.Quotas = append(spec.Quotas, QuotaSpec{Entity: engine.QuotaEntity{"user": "bob"}, Set: map[string]float64{"producer_byte_rate": 1}})
	spec.Configs = append(spec.Configs, ConfigSpec{Kind: KindBrokerConfig, Name: "1", Set: map[string]string{"listener.name.x.ssl.keystore.password": "clear"}})
	spec.Owns.Brokers = NameSet{{Prefix: "0"}}
	_, err := PlanSpec(context.Background(), cl, spec, PlanSpecOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `quota user=bob: outside owns.quotas (prefix "user=team-a")`)
	assert.Contains(t, err.Error(), `broker_config 1: outside owns.broker_configs (prefix "0")`)
	assert.Contains(t, err.Error(), `broker_config 1: configs["listener.name.x.ssl.keystore.password"]: a sensitive config cannot be reconciled`)
	assert.NotContains(t, err.Error(), "clear")

	_, err = PlanSpec(context.Background(), cl, kindsSpec(), PlanSpecOptions{Env: func(string) string { return "" }})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "scram_user team-a-svc/SCRAM-SHA-512: password_env: the environment variable TEAM_A_PW is not set")
}

// A plan's requests do not grow with the resources: 10 topics and 20
// ACLs, or 200 topics and 400 ACLs (and the other kinds), cost the same
// requests of each kind.
func TestReconcilePlanRequestsDoNotGrow(t *testing.T) {
	counts := func(n int) map[string]int32 {
		cl, c, adm := testengine.Client(t)
		ctx := context.Background()
		spec := kindsSpec()
		spec.Owns = Owns{}
		var names []string
		for i := range n {
			name := fmt.Sprintf("t-%04d", i)
			names = append(names, name)
			spec.Topics = append(spec.Topics, engine.TopicSpec{Name: name, Partitions: 1, Configs: map[string]string{"retention.ms": "1000"}})
			for _, op := range []string{"read", "write"} {
				spec.ACLs = append(spec.ACLs, engine.ACL{Principal: "User:" + name, Host: "*", Operation: op, Permission: "allow",
					ResourceType: "topic", ResourceName: name, PatternType: "literal"})
			}
		}
		_, err := adm.CreateTopics(ctx, 1, 1, map[string]*string{"retention.ms": kadm.StringPtr("1000")}, names...)
		require.NoError(t, err)
		_, err = cl.CreateACLs(ctx, spec.ACLs)
		require.NoError(t, err)
		keys := []kmsg.Key{kmsg.Metadata, kmsg.DescribeConfigs, kmsg.DescribeACLs, kmsg.DescribeClientQuotas, kmsg.DescribeUserSCRAMCredentials}
		got := map[string]*atomic.Int32{}
		for _, k := range keys {
			got[k.Name()] = testengine.CountRequests(c, k)
		}
		p, err := PlanSpec(ctx, cl, spec, PlanSpecOptions{Env: func(string) string { return "pw" }})
		require.NoError(t, err)
		assert.Len(t, p.Changes, 5, "the topics and ACLs are as listed; the other kinds are created")
		out := map[string]int32{}
		for k, v := range got {
			out[k] = v.Load()
		}
		return out
	}
	small, big := counts(10), counts(200)
	assert.Equal(t, small, big)
	t.Logf("requests of a plan: %v", big)
}
