package desired

import (
	"context"
	"encoding/json"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/internal/testengine"
)

// A plan is what was reviewed (issue 28): a plan file edited after review
// is refused whole, naming the change, and nothing is sent.

// reviewedPlan is a plan of team-a's spec on a cluster that also holds
// team-b's topic and ACL: a reassignment of team-a.orders, a deletion of
// team-a's stray ACL.
func reviewedPlan(t *testing.T) (*engine.Client, *kadm.Client, Plan) {
	t.Helper()
	cl, _, adm := testengine.Client(t)
	ctx := context.Background()
	_, err := adm.CreateTopic(ctx, 3, 1, nil, "team-a.orders")
	require.NoError(t, err)
	_, err = adm.CreateTopic(ctx, 1, 1, nil, "team-b.keep")
	require.NoError(t, err)
	_, err = cl.CreateACLs(ctx, []engine.ACL{
		{Principal: "User:team-a", Operation: "write", ResourceType: "topic", ResourceName: "team-a.stray"},
		{Principal: "User:team-b", Operation: "read", ResourceType: "topic", ResourceName: "team-b.keep"},
	})
	require.NoError(t, err)
	spec := Spec{
		Topics:   []engine.TopicSpec{{Name: "team-a.orders", Partitions: 3, ReplicationFactor: 2}},
		Owns:     Owns{Topics: NameSet{{Prefix: "team-a."}}, ACLPrincipals: NameSet{{Prefix: "User:team-a"}}},
		Policies: Policies{TopicName: regexp.MustCompile(`^team-a\.`), MaxPartitions: 12, MinReplicationFactor: 2},
	}
	p, err := PlanSpec(ctx, cl, spec, PlanSpecOptions{Prune: true})
	require.NoError(t, err)
	require.Equal(t, []string{
		"reassign topic team-a.orders replication factor 1 -> 2 (3 partitions)",
		"delete acl User:team-a allow write on topic team-a.stray (literal) from *",
	}, changeLines(p))
	return cl, adm, p
}

// edited is a deep copy of p through its JSON, as a plan file is.
func edited(t *testing.T, p Plan, edit func(*Plan)) Plan {
	t.Helper()
	b, err := json.Marshal(p)
	require.NoError(t, err)
	var out Plan
	require.NoError(t, json.Unmarshal(b, &out))
	edit(&out)
	require.NoError(t, out.Seal(), "the digest made again, as whoever edits a plan can")
	return out
}

func TestApplyRefusesAnEditedPlan(t *testing.T) {
	cl, adm, p := reviewedPlan(t)
	teamB := engine.ACL{Principal: "User:team-b", Host: "*", Operation: "read", Permission: "allow", ResourceType: "topic", ResourceName: "team-b.keep", PatternType: "literal"}
	for _, tc := range []struct {
		name string
		edit func(*Plan)
		want string
	}{
		{"a reassignment whose replicas name another topic", func(p *Plan) {
			for i := range p.Changes[0].Replicas {
				p.Changes[0].Replicas[i].Topic = "team-b.keep"
			}
		}, `change #1 (reassign topic team-a.orders): replicas #1 name topic "team-b.keep", not the one its name says`},
		{"an ACL deletion carrying another principal's ACL", func(p *Plan) { p.Changes[1].ACL = &teamB },
			`change #2 (delete acl User:team-a allow write on topic team-a.stray (literal) from *): its acl is "User:team-b allow read on topic team-b.keep (literal) from *", not the one its name says`},
		{"an ACL deletion outside owns", func(p *Plan) {
			p.Changes[1].ACL, p.Changes[1].Name = &teamB, teamB.String()
		}, `change #2 (delete acl User:team-b allow read on topic team-b.keep (literal) from *): User:team-b is outside owns.acls.principals (prefix "User:team-a")`},
		{"a deletion appended outside owns", func(p *Plan) {
			p.Changes = append(p.Changes, Change{Kind: KindTopic, Name: "team-b.keep", Action: ActionDelete, Against: Observed{Exists: true}})
		}, `change #3 (delete topic team-b.keep): team-b.keep is outside owns.topics (prefix "team-a.")`},
		{"a creation breaking a policy", func(p *Plan) {
			p.Changes = append(p.Changes, Change{Kind: KindTopic, Name: "team-a.big", Action: ActionCreate,
				Topic: &engine.TopicSpec{Name: "team-a.big", Partitions: 64, ReplicationFactor: 2}})
		}, `change #3 (create topic team-a.big): policy max_partitions: partitions 64 is above 12`},
		{"a lower replication factor than the policy's", func(p *Plan) {
			p.Changes[0].ReplicationFactor = 1
			for i := range p.Changes[0].Replicas {
				p.Changes[0].Replicas[i].Replicas = p.Changes[0].Replicas[i].Replicas[:1]
			}
		}, `change #1 (reassign topic team-a.orders): policy min_replication_factor: replication_factor 1 is below 2`},
		{"a deletion in a plan made without prune", func(p *Plan) { p.Prune = false },
			`change #2 (delete acl User:team-a allow write on topic team-a.stray (literal) from *): a deletion in a plan made without --prune`},
		{"a change given twice", func(p *Plan) { p.Changes = append(p.Changes, p.Changes[1]) },
			`change #3 (delete acl User:team-a allow write on topic team-a.stray (literal) from *): given twice (first as change #2)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Apply(context.Background(), cl, edited(t, p, tc.edit), ApplyOptions{})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}

	// An edit without its digest made again, or a plan that is not the
	// one reviewed (--digest), is refused before anything else.
	tampered := edited(t, p, func(*Plan) {})
	tampered.Changes[0].Replicas[0].Topic = "team-b.keep"
	_, err := Apply(context.Background(), cl, tampered, ApplyOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the plan's content does not match its digest "+p.Digest)
	other := edited(t, p, func(p *Plan) { p.Changes = p.Changes[:1] })
	_, err = Apply(context.Background(), cl, other, ApplyOptions{Digest: p.Digest})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the plan's digest is "+other.Digest+", not "+p.Digest+" (--digest): this is not the plan that was reviewed")

	// Nothing was sent for any of them: team-b's topic, its ACL and
	// team-a's replication factor are as they were.
	td, err := adm.ListTopics(context.Background())
	require.NoError(t, err)
	assert.Contains(t, td, "team-b.keep")
	assert.Equal(t, 1, td["team-a.orders"].Partitions.NumReplicas())
	acls, err := adm.DescribeACLs(context.Background(), kadm.NewACLs().Allow("User:team-b").AllowHosts("*").Topics("team-b.keep").Operations(kadm.OpRead))
	require.NoError(t, err)
	assert.Len(t, acls[0].Described, 1)

	// The plan as reviewed applies, named by its digest.
	res, err := Apply(context.Background(), cl, p, ApplyOptions{Digest: p.Digest})
	require.NoError(t, err)
	for _, r := range res {
		assert.Equal(t, StatusApplied, r.Status, "%s: %v", r.Change, r.Err)
	}
}

// A plan records its rules in its file: the regular expressions and "*"
// come back as they were, and so does the digest.
func TestPlanFileKeepsItsRules(t *testing.T) {
	p := Plan{Format: PlanFormat, Owns: Owns{Topics: NameSet{{Prefix: "a."}, {Match: regexp.MustCompile(`^b-\d$`)}, {All: true}}},
		Policies: Policies{TopicName: regexp.MustCompile(`^[a-z.]+$`), MaxPartitions: 3}, Changes: []Change{}}
	require.NoError(t, p.Seal())
	b, err := json.Marshal(p)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"owns":{"topics":["a.",{"match":"^b-\\d$"},"*"]}`)
	assert.Contains(t, string(b), `"policies":{"topic_name":"^[a-z.]+$","max_partitions":3}`)
	var back Plan
	require.NoError(t, json.Unmarshal(b, &back))
	assert.True(t, back.Owns.Topics.Contains("b-1") && back.Owns.Topics.Contains("z"))
	assert.Equal(t, "^[a-z.]+$", back.Policies.TopicName.String())
	assert.NoError(t, back.checkDigest(p.Digest))

	var bad Plan
	assert.ErrorContains(t, json.Unmarshal([]byte(`{"owns": {"topics": [{"match": "("}]}}`), &bad), "owns entry: match: error parsing regexp")
	empty := Plan{Owns: Owns{Topics: NameSet{{Prefix: ""}}}}
	assert.ErrorContains(t, empty.Verify(), `owns.topics: entry #1: an empty prefix or pattern would own every name: write "*" to own them all`)
}

// A cluster id alone does not say which cluster: kfake and
// docker-compose files fix it. A plan is bound to the brokers it was made
// on and to its profile too, and the refusal says which.
func TestApplyRefusesAnotherClusterWithTheSameID(t *testing.T) {
	a, _, _ := testengine.Client(t, kfake.ClusterID("fixed-id"))
	b, _, badm := testengine.Client(t, kfake.ClusterID("fixed-id"))
	p, err := PlanSpec(context.Background(), a, Spec{Topics: []engine.TopicSpec{{Name: "x"}}}, PlanSpecOptions{})
	require.NoError(t, err)
	require.Len(t, p.Brokers, 3)
	_, err = Apply(context.Background(), b, p, ApplyOptions{})
	require.Error(t, err)
	assert.Regexp(t, `the plan was made on cluster "fixed-id" at brokers 127\.0\.0\.1:\d+, .*; this cluster "fixed-id" is at .*, none of them: another cluster with the same id; nothing was applied`, err.Error())
	td, err := badm.ListTopics(context.Background())
	require.NoError(t, err)
	assert.NotContains(t, td, "x")

	cfg := a.Config()
	cfg.Profile = "prod"
	prod, err := engine.New(cfg)
	require.NoError(t, err)
	t.Cleanup(prod.Close)
	p, err = PlanSpec(context.Background(), prod, Spec{Topics: []engine.TopicSpec{{Name: "x"}}}, PlanSpecOptions{})
	require.NoError(t, err)
	assert.Equal(t, "prod", p.Profile)
	_, err = Apply(context.Background(), a, p, ApplyOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `the plan was made with profile "prod"; this run uses no profile: nothing was applied`)
}

// A broker that never shows the applied quota (down, or far behind) does
// not fail the apply, which did apply: the change says which broker, and
// that a plan made now may still list it.
func TestApplyNotesABrokerThatDoesNotShowTheQuota(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(3))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	cl, err := engine.New(engine.Config{Brokers: c.ListenAddrs(), Timeout: 500 * time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	altered := false
	c.ControlKey(int16(kmsg.AlterClientQuotas), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		altered = true
		return nil, nil, false
	})
	c.ControlKey(int16(kmsg.DescribeClientQuotas), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if !altered || c.CurrentNode() != 1 {
			return nil, nil, false
		}
		return req.(*kmsg.DescribeClientQuotasRequest).ResponseKind(), nil, true
	})
	p, err := PlanSpec(context.Background(), cl, Spec{Quotas: []QuotaSpec{{Entity: engine.QuotaEntity{"user": "svc"}, Set: map[string]float64{"consumer_byte_rate": 1}}}}, PlanSpecOptions{})
	require.NoError(t, err)
	res, err := Apply(context.Background(), cl, p, ApplyOptions{})
	require.NoError(t, err)
	assert.Equal(t, StatusApplied, res[0].Status)
	assert.Equal(t, "brokers [1] did not show it yet: a plan made now may still list it", res[0].Note)
}
