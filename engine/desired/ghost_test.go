package desired

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/internal/testengine"
)

// The ghost change (issue 27): a broker answers describes from its copy of
// the cluster's metadata, a moment behind the controller's, and kgo asks any
// broker. lagBehind makes the first two describe answers after a write say
// what stale says, as brokers that have not replayed the write yet do.
func lagBehind(c *kfake.Cluster, write, describe kmsg.Key, stale func(kmsg.Request) kmsg.Response) {
	lagging := 0
	c.ControlKey(int16(write), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		lagging = 2
		return nil, nil, false
	})
	c.ControlKey(int16(describe), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if lagging == 0 {
			return nil, nil, false
		}
		lagging--
		return stale(req), nil, true
	})
}

// noneYet answers a describe with nothing, as before the write.
func noneYet(req kmsg.Request) kmsg.Response { return req.ResponseKind() }

// assertNoGhost plans spec (one change), applies it, and plans again: apply
// waits until every broker shows what it applied, so the second plan is
// empty and the change has no note.
func assertNoGhost(t *testing.T, cl *engine.Client, spec Spec, env func(string) string) {
	t.Helper()
	ctx := context.Background()
	p, err := PlanSpec(ctx, cl, spec, PlanSpecOptions{Env: env})
	require.NoError(t, err)
	require.Len(t, p.Changes, 1, "%v", changeLines(p))
	res, err := Apply(ctx, cl, p, ApplyOptions{Env: env})
	require.NoError(t, err)
	require.Equal(t, StatusApplied, res[0].Status, "%v", res[0].Err)
	assert.Empty(t, res[0].Note)
	again, err := PlanSpec(ctx, cl, spec, PlanSpecOptions{Env: env})
	require.NoError(t, err)
	assert.Empty(t, changeLines(again), "a plan right after the apply shows no change")
}

func TestPlanRightAfterApplyShowsNoGhostQuotaChange(t *testing.T) {
	cl, c, _ := testengine.Client(t)
	lagBehind(c, kmsg.AlterClientQuotas, kmsg.DescribeClientQuotas, noneYet)
	assertNoGhost(t, cl, Spec{Quotas: []QuotaSpec{{Entity: engine.QuotaEntity{"user": "svc"}, Set: map[string]float64{"producer_byte_rate": 1048576}}}}, nil)
}

// A topic's configs: the stale answer has the topic with nothing set.
func TestPlanRightAfterApplyShowsNoGhostConfigChange(t *testing.T) {
	cl, c, adm := testengine.Client(t)
	_, err := adm.CreateTopic(context.Background(), 1, 1, nil, "x")
	require.NoError(t, err)
	lagBehind(c, kmsg.IncrementalAlterConfigs, kmsg.DescribeConfigs, func(req kmsg.Request) kmsg.Response {
		r := req.(*kmsg.DescribeConfigsRequest)
		resp := r.ResponseKind().(*kmsg.DescribeConfigsResponse)
		for _, rr := range r.Resources {
			res := kmsg.NewDescribeConfigsResponseResource()
			res.ResourceType, res.ResourceName = rr.ResourceType, rr.ResourceName
			resp.Resources = append(resp.Resources, res)
		}
		return resp
	})
	assertNoGhost(t, cl, Spec{Topics: []engine.TopicSpec{{Name: "x", Configs: map[string]string{"retention.ms": "3600000"}}}}, nil)
}

func TestPlanRightAfterApplyShowsNoGhostACL(t *testing.T) {
	cl, c, _ := testengine.Client(t)
	lagBehind(c, kmsg.CreateACLs, kmsg.DescribeACLs, noneYet)
	assertNoGhost(t, cl, Spec{ACLs: []engine.ACL{{Principal: "User:team-a", Host: "*", Operation: "read", Permission: "allow",
		ResourceType: "topic", ResourceName: "team-a.", PatternType: "prefixed"}},
		Owns: Owns{ACLPrincipals: NameSet{{Prefix: "User:team-a"}}}}, nil)
}

func TestPlanRightAfterApplyShowsNoGhostSCRAMUser(t *testing.T) {
	cl, c, _ := testengine.Client(t)
	lagBehind(c, kmsg.AlterUserSCRAMCredentials, kmsg.DescribeUserSCRAMCredentials, noneYet)
	env := func(k string) string { return map[string]string{"SVC_PW": "s3cret-pw-0123"}[k] }
	assertNoGhost(t, cl, Spec{SCRAMUsers: []SCRAMUserSpec{{User: "svc", Mechanism: "SCRAM-SHA-512", PasswordEnv: "SVC_PW"}}}, env)
}
