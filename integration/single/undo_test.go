package single

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

// committed reads group's committed offsets through the independent client.
func committed(t *testing.T, adm *kadm.Client, group string) map[int32]int64 {
	t.Helper()
	fetched, err := adm.FetchOffsets(ctxT(t, 20*time.Second), group)
	require.NoError(t, err)
	out := map[int32]int64{}
	fetched.Each(func(r kadm.OffsetResponse) {
		if r.Err == nil && r.At >= 0 {
			out[r.Partition] = r.At
		}
	})
	return out
}

// aclPrincipals lists the principals with an ACL on topic.
func aclPrincipals(t *testing.T, adm *kadm.Client, topic string) []string {
	t.Helper()
	b := kadm.NewACLs().Topics(topic).ResourcePatternType(kadm.ACLPatternLiteral).Operations(kadm.OpAny).
		Allow().Deny().AllowHosts().DenyHosts()
	described, err := adm.DescribeACLs(ctxT(t, 20*time.Second), b)
	require.NoError(t, err)
	seen := map[string]bool{}
	var out []string
	for _, d := range described {
		for _, a := range d.Described {
			if !seen[a.Principal] {
				seen[a.Principal] = true
				out = append(out, a.Principal)
			}
		}
	}
	return out
}

// The binary writes each mutation ahead to --audit-log; undo puts back
// what was there, as a second client sees it.
func TestAuditAndUndoThroughTheBinary(t *testing.T) {
	need(t)
	adm := admin(t)
	topic, group, reader := unique("undo"), unique("undo-g"), unique("User:undo-reader")
	_, err := adm.CreateTopic(ctxT(t, time.Minute), 2, 1, map[string]*string{"retention.ms": kadm.StringPtr("1000")}, topic)
	require.NoError(t, err)
	eventuallyConfig(t, adm, topic, "retention.ms", "1000", "DYNAMIC_TOPIC_CONFIG")
	_, segSource := configValue(t, adm, topic, "segment.ms")
	produce(t, topic, 2, 10)
	offs := kadm.Offsets{}
	offs.Add(kadm.Offset{Topic: topic, Partition: 0, At: 5, LeaderEpoch: -1})
	_, err = adm.CommitOffsets(ctxT(t, 20*time.Second), group, offs)
	require.NoError(t, err)

	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	res := runBin(t, kafkatest.MechPlain, kafkatest.AdminUser, kafkatest.AdminPassword, "--audit-log", audit, "-e", fmt.Sprintf(`
		alter_configs{{topic = %[1]q, set = {["retention.ms"] = "2000", ["segment.ms"] = "3600000"}}}
		create_acls{{principal = %[2]q, operation = "read", resource_type = "topic", resource_name = %[1]q}}
		commit_offsets(%[3]q, {{topic = %[1]q, partition = 0, offset = 8}, {topic = %[1]q, partition = 1, offset = 3}})`,
		topic, reader, group))
	require.Equal(t, 0, res.Code, res.Stderr)
	eventuallyConfig(t, adm, topic, "retention.ms", "2000", "DYNAMIC_TOPIC_CONFIG")
	require.Eventually(t, func() bool { return len(aclPrincipals(t, adm, topic)) == 1 }, 20*time.Second, 50*time.Millisecond)
	assert.Equal(t, map[int32]int64{0: 8, 1: 3}, committed(t, adm, group))

	log, err := readFile(audit)
	require.NoError(t, err)
	assert.Equal(t, 6, strings.Count(log, "\n"), "an intent and an outcome per call:\n%s", log)
	assert.NotContains(t, log, kafkatest.AdminPassword)

	res = runBin(t, kafkatest.MechPlain, kafkatest.AdminUser, kafkatest.AdminPassword, "undo", audit)
	require.Equal(t, 0, res.Code, "stdout:\n%s\nstderr:\n%s", res.Stdout, res.Stderr)
	// The configs, the ACL, the commit of partition 0 and the deletion of
	// partition 1's offset (it had none before).
	assert.Equal(t, 4, strings.Count(res.Stdout, engine.UndoReverted), res.Stdout)

	eventuallyConfig(t, adm, topic, "retention.ms", "1000", "DYNAMIC_TOPIC_CONFIG")
	_, src := configValue(t, adm, topic, "segment.ms")
	assert.Equal(t, segSource, src, "segment.ms was not set on the topic before")
	assert.Eventually(t, func() bool { return len(aclPrincipals(t, adm, topic)) == 0 }, 20*time.Second, 50*time.Millisecond,
		"the ACL the change created is gone")
	assert.Equal(t, map[int32]int64{0: 5}, committed(t, adm, group), "offsets back; partition 1 had none")

	log, err = readFile(audit)
	require.NoError(t, err)
	assert.Equal(t, 4, strings.Count(log, `"undo_of"`), "undo's own changes are audited:\n%s", log)
}

func readFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	return string(b), err
}
