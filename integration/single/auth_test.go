package single

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

// TestWrongPassword: with each mechanism, a wrong password makes the binary
// exit 3 promptly with "authentication failed" naming the mechanism, and
// the password appears nowhere: not in stdout, stderr or the audit log.
func TestWrongPassword(t *testing.T) {
	need(t)
	const wrong = "Wr0ng-Pa55word-xyzzy"
	for _, mech := range mechanisms {
		t.Run(mech, func(t *testing.T) {
			audit := filepath.Join(t.TempDir(), "audit.jsonl")
			// A mutation, so the audit log would have something to record.
			topic := unique("wrongpw")
			res := runBin(t, mech, kafkatest.AliceUser, wrong, "--audit-log", audit,
				"-e", fmt.Sprintf(`create_topics(%q)`, topic))
			assert.Equal(t, 3, res.Code)
			assert.Contains(t, strings.ToLower(res.Stderr), "authentication failed")
			assert.Contains(t, res.Stderr, "SASL_AUTHENTICATION_FAILED ("+mech+"): ")
			assert.NotContains(t, res.Stdout, wrong)
			assert.NotContains(t, res.Stderr, wrong)
			if b, err := os.ReadFile(audit); err == nil {
				assert.NotContains(t, string(b), wrong)
			}
			// Not retried until the --timeout (that would say TIMEOUT): an
			// authentication failure is final.
			assert.NotContains(t, res.Stderr, "TIMEOUT")
			assert.NotContains(t, topics(t), topic)

			// In-process: the Lua error value says so too.
			r := runtimeAs(t, mech, kafkatest.AliceUser, wrong)
			r.Run(`
				local ok, err = pcall(list_topics)
				assert(not ok, "list_topics should fail")
				assert(err.code == "SASL_AUTHENTICATION_FAILED", tostring(err.code))
				assert(err.retriable == false)
				assert(err.mechanism == "` + mech + `", tostring(err.mechanism))
				assert(tostring(err):find("SASL_AUTHENTICATION_FAILED (` + mech + `): ", 1, true), tostring(err))
				assert(tostring(err):find("authentication failed"), tostring(err))
			`)
			assert.NotContains(t, r.Stdout.String()+r.Stderr.String(), wrong)
		})
	}
}

// aliceACLs lists alice's ACLs through the independent client.
func aliceACLs(t *testing.T, adm *kadm.Client) []string {
	t.Helper()
	return describeACLsOf(t, adm, "User:"+kafkatest.AliceUser, func(d kadm.DescribedACL) string {
		return fmt.Sprintf("%s %s %s %s %s", d.Principal, d.Operation, d.Type, d.Name, d.Pattern)
	})
}

// describeACLsOf lists a principal's ACLs through the independent client,
// each as row says.
func describeACLsOf(t *testing.T, adm *kadm.Client, principal string, row func(kadm.DescribedACL) string) []string {
	t.Helper()
	b := kadm.NewACLs().Allow(principal).AnyResource().
		ResourcePatternType(kadm.ACLPatternAny).Operations(kadm.OpAny).AllowHosts().DenyHosts()
	res, err := adm.DescribeACLs(ctxT(t, 20*time.Second), b)
	require.NoError(t, err)
	var out []string
	for _, r := range res {
		require.NoError(t, r.Err)
		for _, d := range r.Described {
			out = append(out, row(d))
		}
	}
	return out
}

// TestAuthorization: alice without ACLs is refused (a Lua error value with
// the Kafka code; exit 3 from the binary); admin grants her an ACL from Lua
// and she succeeds; delete_acls takes it away and she is refused again.
func TestAuthorization(t *testing.T) {
	need(t)
	adm := admin(t)
	topic := unique("acl")
	_, err := adm.CreateTopic(ctxT(t, time.Minute), 2, 1, nil, topic)
	require.NoError(t, err)
	produce(t, topic, 2, 3)
	require.Empty(t, aliceACLs(t, adm))

	admin := adminRT(t, kafkatest.MechScram512)
	alice := runtimeAs(t, kafkatest.MechScram256, kafkatest.AliceUser, kafkatest.AlicePassword)
	denied := fmt.Sprintf(`
		local ok, err = pcall(describe_topics, %q)
		assert(not ok, "alice should be refused")
		return err.code`, topic)
	var code string
	alice.json(denied, &code)
	assert.Equal(t, "TOPIC_AUTHORIZATION_FAILED", code)
	alice.json(fmt.Sprintf(`local ok, err = pcall(list_offsets, %q); assert(not ok); return err.code`, topic), &code)
	assert.Equal(t, "TOPIC_AUTHORIZATION_FAILED", code)
	alice.json(fmt.Sprintf(`local ok, err = pcall(create_topics, %q); assert(not ok); return err.code`, unique("alice-new")), &code)
	assert.Equal(t, "TOPIC_AUTHORIZATION_FAILED", code)
	alice.json(`local ok, err = pcall(describe_acls); assert(not ok); return err.code`, &code)
	assert.Equal(t, "CLUSTER_AUTHORIZATION_FAILED", code)
	// The refusal names the operation, the resource and who was logged
	// in, not Kafka's request dump (kept under --verbose).
	var msg string
	alice.json(`local ok, err = pcall(describe_acls); return tostring(err)`, &msg)
	assert.Equal(t, "describe_acls: CLUSTER_AUTHORIZATION_FAILED: not authorized: describe_acls needs DESCRIBE on the cluster; logged in as User:alice", msg)
	res := runBin(t, kafkatest.MechPlain, kafkatest.AliceUser, kafkatest.AlicePassword, "--verbose", "-e", `describe_acls()`)
	assert.Equal(t, 3, res.Code)
	assert.Contains(t, res.Stderr, "logged in as User:alice (broker: Request Request(")

	for _, mech := range mechanisms {
		res := runBin(t, mech, kafkatest.AliceUser, kafkatest.AlicePassword, "-e", fmt.Sprintf(`return describe_topics(%q)`, topic))
		assert.Equal(t, 3, res.Code, mech)
		assert.Contains(t, res.Stderr, "TOPIC_AUTHORIZATION_FAILED", mech)
	}

	// Grant through kadmin-lua.
	var created []engine.ACL
	admin.json(fmt.Sprintf(`return create_acls{
		{principal="User:alice", operation="describe", resource_type="topic", resource_name=%q},
	}`, topic), &created)
	require.Len(t, created, 1)
	// Other clients see ACLs once the broker has them from the metadata log.
	want := []string{"User:alice DESCRIBE TOPIC " + topic + " LITERAL"}
	assert.Eventually(t, func() bool { return slices.Equal(want, aliceACLs(t, adm)) }, 20*time.Second, 100*time.Millisecond)
	// The broker applies ACLs from the metadata log: poll.
	var desc []struct {
		Name       string `json:"name"`
		Partitions []any  `json:"partitions"`
	}
	require.Eventually(t, func() bool {
		_, err := alice.RT.DoString(ctxT(t, 20*time.Second), "probe", fmt.Sprintf(`describe_topics(%q)`, topic))
		return err == nil
	}, 20*time.Second, 100*time.Millisecond)
	alice.json(fmt.Sprintf(`return describe_topics(%q)`, topic), &desc)
	require.Len(t, desc, 1)
	assert.Len(t, desc[0].Partitions, 2)
	res = runBin(t, kafkatest.MechPlain, kafkatest.AliceUser, kafkatest.AlicePassword, "-o", "json", "-e", fmt.Sprintf(`return list_offsets(%q)`, topic))
	assert.Equal(t, 0, res.Code)
	assert.Contains(t, res.Stdout, topic)

	// Revoke through kadmin-lua.
	var deleted []struct {
		Deleted []engine.ACL `json:"deleted"`
	}
	admin.json(`return delete_acls{{principal="User:alice"}}`, &deleted)
	require.Len(t, deleted, 1)
	require.Len(t, deleted[0].Deleted, 1)
	assert.Equal(t, topic, deleted[0].Deleted[0].ResourceName)
	assert.Eventually(t, func() bool { return len(aliceACLs(t, adm)) == 0 }, 20*time.Second, 100*time.Millisecond)
	require.Eventually(t, func() bool {
		_, err := alice.RT.DoString(ctxT(t, 20*time.Second), "probe", fmt.Sprintf(`describe_topics(%q)`, topic))
		return err != nil
	}, 20*time.Second, 100*time.Millisecond)
	alice.json(denied, &code)
	assert.Equal(t, "TOPIC_AUTHORIZATION_FAILED", code)
	res = runBin(t, kafkatest.MechScram512, kafkatest.AliceUser, kafkatest.AlicePassword, "-e", fmt.Sprintf(`return describe_topics(%q)`, topic))
	assert.Equal(t, 3, res.Code)
}

// TestDescribeACLsPatterns: describe_acls with pattern_type "prefixed" and
// "match" (every literal, prefixed and wildcard ACL that applies to a
// name), which only a real broker implements.
func TestDescribeACLsPatterns(t *testing.T) {
	need(t)
	r := adminRT(t, kafkatest.MechPlain)
	bob := "User:" + unique("bob")
	prefix := unique("pfx") + "-"
	r.Run(fmt.Sprintf(`create_acls{
		{principal=%[1]q, operation="read", resource_type="topic", resource_name=%[2]q, pattern_type="prefixed"},
		{principal=%[1]q, operation="write", resource_type="topic", resource_name=%[3]q},
		{principal=%[1]q, operation="describe", resource_type="topic", resource_name="*"},
		{principal=%[1]q, operation="read", resource_type="topic", resource_name="unrelated-topic"},
		{principal=%[1]q, operation="read", resource_type="group", resource_name=%[2]q, pattern_type="prefixed"},
	}`, bob, prefix, prefix+"one"))
	t.Cleanup(func() { r.Run(fmt.Sprintf(`delete_acls{{principal=%q}}`, bob)) })

	describe := func(filter string) []string {
		var rows []engine.ACL
		r.json(`return describe_acls`+filter, &rows)
		var out []string
		for _, a := range rows {
			assert.Equal(t, bob, a.Principal)
			out = append(out, fmt.Sprintf("%s %s %s %s", a.ResourceType, a.ResourceName, a.PatternType, a.Operation))
		}
		return out
	}
	// ACLs reach the authorizer (which answers DescribeAcls) from the metadata log: poll.
	require.Eventually(t, func() bool { return len(describe(fmt.Sprintf(`{principal=%q}`, bob))) == 5 }, 20*time.Second, 100*time.Millisecond)

	assert.Equal(t, []string{
		"topic " + prefix + " prefixed read",
	}, describe(fmt.Sprintf(`{principal=%q, resource_type="topic", pattern_type="prefixed"}`, bob)))
	assert.Equal(t, []string{
		"topic * literal describe",
		"topic " + prefix + " prefixed read",
		"topic " + prefix + "one literal write",
	}, describe(fmt.Sprintf(`{principal=%q, resource_type="topic", resource_name=%q, pattern_type="match"}`, bob, prefix+"one")))
	assert.Equal(t, []string{
		"topic * literal describe",
		"topic " + prefix + " prefixed read",
	}, describe(fmt.Sprintf(`{principal=%q, resource_type="topic", resource_name=%q, pattern_type="match"}`, bob, prefix+"two")))
	assert.Equal(t, []string{
		"topic * literal describe",
	}, describe(fmt.Sprintf(`{principal=%q, resource_type="topic", resource_name="elsewhere", pattern_type="match"}`, bob)))
	// literal: exactly that name, no wildcard.
	assert.Equal(t, []string{
		"topic " + prefix + "one literal write",
	}, describe(fmt.Sprintf(`{principal=%q, resource_type="topic", resource_name=%q, pattern_type="literal"}`, bob, prefix+"one")))
}
