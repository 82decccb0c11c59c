package single

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/internal/clientconfig"
	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

// TestSCRAMUserLifecycle: a user created with alter_user_scram_credentials
// logs in through kafka.connect and the binary; once deleted, it cannot.
func TestSCRAMUserLifecycle(t *testing.T) {
	need(t)
	adm := admin(t)
	user := unique("carol")
	const password = "carol-Secret-42"
	r := adminRT(t, kafkatest.MechPlain)
	var res []map[string]any
	r.json(fmt.Sprintf(`return alter_user_scram_credentials{upsert={
		{user=%[1]q, mechanism="SCRAM-SHA-512", iterations=8192, password=%[2]q},
		{user=%[1]q, mechanism="SCRAM-SHA-256", password=%[2]q},
	}}`, user, password), &res)
	require.NotEmpty(t, res)
	for _, x := range res {
		assert.Equal(t, user, x["user"])
		assert.Nil(t, x["error"])
	}
	assert.NotContains(t, r.Stdout.String()+r.Stderr.String(), password)

	// The independent client sees both credentials (once the broker has
	// them from the metadata log).
	mechs := map[string]int32{}
	assert.Eventually(t, func() bool {
		described, err := adm.DescribeUserSCRAMs(ctxT(t, 20*time.Second), user)
		if err != nil || described[user].Err != nil {
			return false
		}
		mechs = map[string]int32{}
		for _, ci := range described[user].CredInfos {
			mechs[ci.Mechanism.String()] = ci.Iterations
		}
		return len(mechs) == 2
	}, 20*time.Second, 200*time.Millisecond)
	assert.Equal(t, map[string]int32{"SCRAM-SHA-512": 8192, "SCRAM-SHA-256": 4096}, mechs)
	var creds []engine.SCRAMCredential
	r.json(fmt.Sprintf(`return describe_user_scram_credentials(%q)`, user), &creds)
	require.Len(t, creds, 2)

	// Log in as the new user from Lua: kafka.connect reads the password from
	// KADMIN_SASL_PASSWORD (here the runtime's env).
	carolEnv := runtimeWith(t, engine.Config{Brokers: cluster.Brokers(), Timeout: 20 * time.Second},
		map[string]string{clientconfig.PasswordEnv: password})
	login := func(mech string) string {
		return fmt.Sprintf(`
			local c = kafka.connect{brokers=%q, sasl_mechanism=%q, sasl_username=%q, timeout=20000}
			local ok, err = pcall(function() return c:describe_cluster() end)
			if ok then return "ok" end
			return err.code`, cluster.Bootstrap(), mech, user)
	}
	// The broker learns credential changes from the metadata log: poll.
	var got string
	waitLogin := func(mech, want string) {
		t.Helper()
		assert.Eventually(t, func() bool {
			carolEnv.json(login(mech), &got)
			return got == want
		}, 20*time.Second, 200*time.Millisecond, "%s login: last %s", mech, got)
	}
	waitLogin(kafkatest.MechScram512, "ok")
	carolEnv.json(login(kafkatest.MechScram256), &got)
	assert.Equal(t, "ok", got)
	bin := runBin(t, kafkatest.MechScram512, user, password, "-e", `return #describe_cluster().brokers`)
	assert.Equal(t, 0, bin.Code)
	assert.Equal(t, "1", strings.TrimSpace(bin.Stdout))

	// Delete the SHA-512 credential: that login now fails, SHA-256 still works.
	r.Run(fmt.Sprintf(`alter_user_scram_credentials{delete={{user=%q, mechanism="SCRAM-SHA-512"}}}`, user))
	waitLogin(kafkatest.MechScram512, "SASL_AUTHENTICATION_FAILED")
	carolEnv.json(login(kafkatest.MechScram256), &got)
	assert.Equal(t, "ok", got)
	re := r.RunErr(fmt.Sprintf(`alter_user_scram_credentials{delete={{user=%q, mechanism="SCRAM-SHA-512"}}}`, user))
	assert.Equal(t, "RESOURCE_NOT_FOUND", re.Code)
	r.Run(fmt.Sprintf(`alter_user_scram_credentials{delete={{user=%q, mechanism="SCRAM-SHA-256"}}}`, user))
	// The broker learns of the deletion through the metadata log a moment
	// after the controller confirms it: poll.
	assert.Eventually(t, func() bool {
		described, err := adm.DescribeUserSCRAMs(ctxT(t, 20*time.Second), user)
		return err == nil && described[user].Err != nil
	}, 20*time.Second, 200*time.Millisecond, "no credentials left")
}

// TestClientQuotas: alter_client_quotas sets and removes, checked with kadm.
func TestClientQuotas(t *testing.T) {
	need(t)
	adm := admin(t)
	user := unique("quota-user")
	r := adminRT(t, kafkatest.MechScram256)
	r.Run(fmt.Sprintf(`alter_client_quotas{
		{entity={user=%[1]q}, set={producer_byte_rate=1048576, consumer_byte_rate=2097152}},
		{entity={user=%[1]q, client_id="reporting"}, set={request_percentage=50}},
	}`, user))
	read := func() map[string]map[string]float64 {
		out := map[string]map[string]float64{}
		qs, err := adm.DescribeClientQuotas(ctxT(t, 20*time.Second), false,
			[]kadm.DescribeClientQuotaComponent{{Type: "user", MatchName: &user}})
		require.NoError(t, err)
		for _, q := range qs {
			var k []string
			for _, e := range q.Entity {
				name := "<default>"
				if e.Name != nil {
					name = *e.Name
				}
				k = append(k, e.Type+"="+name)
			}
			vals := map[string]float64{}
			for _, v := range q.Values {
				vals[v.Key] = v.Value
			}
			slices.Sort(k)
			out[strings.Join(k, ",")] = vals
		}
		return out
	}
	want := map[string]map[string]float64{
		"user=" + user:                     {"producer_byte_rate": 1048576, "consumer_byte_rate": 2097152},
		"client-id=reporting,user=" + user: {"request_percentage": 50},
	}
	var got map[string]map[string]float64
	assert.Eventually(t, func() bool { got = read(); return assert.ObjectsAreEqual(want, got) }, 20*time.Second, 100*time.Millisecond)
	assert.Equal(t, want, got)

	var described []engine.DescribedQuota
	r.json(fmt.Sprintf(`return describe_client_quotas({user=%q}, {strict=true})`, user), &described)
	require.Len(t, described, 1)
	assert.Equal(t, float64(1048576), described[0].Quotas["producer_byte_rate"])

	r.Run(fmt.Sprintf(`alter_client_quotas{{entity={user=%q}, remove={"producer_byte_rate"}}}`, user))
	want["user="+user] = map[string]float64{"consumer_byte_rate": 2097152}
	assert.Eventually(t, func() bool { got = read(); return assert.ObjectsAreEqual(want, got) }, 20*time.Second, 100*time.Millisecond)
	assert.Equal(t, want, got)
	re := r.RunErr(fmt.Sprintf(`alter_client_quotas{{entity={user=%q}, set={no_such_quota=1}}}`, user))
	assert.Equal(t, "INVALID_REQUEST", re.Code)
}

// TestDelegationTokens: create, log in with, describe, renew, expire.
func TestDelegationTokens(t *testing.T) {
	need(t)
	adm := admin(t)
	r := adminRT(t, kafkatest.MechScram512)
	var tok engine.CreatedToken
	r.json(`return create_delegation_token{renewers={"User:admin"}}`, &tok)
	require.NotEmpty(t, tok.TokenID)
	require.NotEmpty(t, tok.HMAC)
	assert.Equal(t, "User:admin", tok.Owner)
	assert.Greater(t, tok.ExpiryMs, tok.IssuedMs)
	assert.GreaterOrEqual(t, tok.MaxMs, tok.ExpiryMs)
	assert.NotContains(t, r.Stdout.String()+r.Stderr.String(), tok.HMAC)

	// kadm sees it (the broker learns it from the metadata log: poll).
	listed := func() bool {
		dts, err := adm.DescribeDelegationTokens(ctxT(t, 20*time.Second))
		require.NoError(t, err)
		for _, d := range dts {
			if d.TokenID == tok.TokenID {
				return true
			}
		}
		return false
	}
	assert.Eventually(t, listed, 20*time.Second, 100*time.Millisecond, "kadm does not see token %s", tok.TokenID)

	// The token is a SCRAM credential: log in with it.
	cl, err := kgo.NewClient(kgo.SeedBrokers(cluster.Brokers()...),
		kgo.SASL(scram.Auth{User: tok.TokenID, Pass: tok.HMAC, IsToken: true}.AsSha512Mechanism()))
	require.NoError(t, err)
	defer cl.Close()
	assert.Eventually(t, func() bool { return cl.Ping(ctxT(t, 10*time.Second)) == nil }, 20*time.Second, 200*time.Millisecond)

	var infos []engine.TokenInfo
	r.json(`return describe_delegation_tokens("User:admin")`, &infos)
	var mine *engine.TokenInfo
	for i := range infos {
		if infos[i].TokenID == tok.TokenID {
			mine = &infos[i]
		}
	}
	require.NotNil(t, mine, "describe_delegation_tokens: %v", infos)
	assert.Equal(t, []string{"User:admin"}, mine.Renewers)
	assert.Equal(t, tok.ExpiryMs, mine.ExpiryMs)

	var renewed engine.TokenExpiry
	r.json(fmt.Sprintf(`return renew_delegation_token(%q, {period_ms=3600000})`, tok.HMAC), &renewed)
	assert.Greater(t, renewed.ExpiryMs, int64(0))
	assert.LessOrEqual(t, renewed.ExpiryMs, tok.MaxMs)

	var expired engine.TokenExpiry
	r.json(fmt.Sprintf(`return expire_delegation_token(%q)`, tok.HMAC), &expired)
	assert.Eventually(t, func() bool { return !listed() }, 20*time.Second, 200*time.Millisecond, "token still listed after expire")
	assert.NotContains(t, r.Stdout.String()+r.Stderr.String(), tok.HMAC)
	re := r.RunErr(fmt.Sprintf(`renew_delegation_token(%q)`, tok.HMAC))
	assert.Equal(t, "DELEGATION_TOKEN_NOT_FOUND", re.Code)
	assert.NotContains(t, re.Message, tok.HMAC)
}

// TestClusterMetadataReads: describe_quorum, api_versions, describe_features.
func TestClusterMetadataReads(t *testing.T) {
	need(t)
	adm := admin(t)
	r := adminRT(t, kafkatest.MechPlain)

	var q struct {
		Leader        int32 `json:"leader"`
		Epoch         int32 `json:"epoch"`
		HighWatermark int64 `json:"high_watermark"`
		Voters        []struct {
			ID           int32 `json:"id"`
			LogEndOffset int64 `json:"log_end_offset"`
			Lag          int64 `json:"lag"`
		} `json:"voters"`
	}
	r.json(`return describe_quorum()`, &q)
	assert.Equal(t, int32(1), q.Leader)
	assert.Greater(t, q.Epoch, int32(0))
	assert.Greater(t, q.HighWatermark, int64(0))
	require.Len(t, q.Voters, 1)
	assert.Equal(t, int32(1), q.Voters[0].ID)
	assert.GreaterOrEqual(t, q.Voters[0].LogEndOffset, q.HighWatermark)

	var av []engine.APIVersion
	r.json(`return api_versions()`, &av)
	byName := map[string]engine.APIVersion{}
	for _, v := range av {
		assert.Equal(t, int32(1), v.Broker)
		byName[v.Name] = v
	}
	vs, err := adm.ApiVersions(ctxT(t, 20*time.Second))
	require.NoError(t, err)
	require.Len(t, vs, 1)
	for _, b := range vs {
		require.NoError(t, b.Err)
		n := 0
		b.EachKeySorted(func(int16, int16, int16) { n++ })
		assert.Len(t, av, n)
		max, ok := b.KeyMaxVersion(55) // DescribeQuorum
		require.True(t, ok)
		assert.Equal(t, max, byName["DescribeQuorum"].MaxVersion)
	}
	assert.Contains(t, byName, "DescribeTransactions")

	var fs []engine.Feature
	r.json(`return describe_features()`, &fs)
	levels := map[string]int16{}
	for _, f := range fs {
		levels[f.Feature] = f.FinalizedLevel
		assert.LessOrEqual(t, f.SupportedMin, f.SupportedMax, f.Feature)
	}
	assert.Greater(t, levels["metadata.version"], int16(0), "%v", levels)
	cl, err := cluster.Client()
	require.NoError(t, err)
	defer cl.Close()
	req := kmsg.NewPtrApiVersionsRequest()
	req.ClientSoftwareName, req.ClientSoftwareVersion = "kadmin-lua-it", "0"
	resp, err := req.RequestWith(ctxT(t, 20*time.Second), cl)
	require.NoError(t, err)
	require.NotEmpty(t, resp.FinalizedFeatures)
	for _, f := range resp.FinalizedFeatures {
		assert.Equal(t, f.MaxVersionLevel, levels[f.Name], f.Name)
	}
}
