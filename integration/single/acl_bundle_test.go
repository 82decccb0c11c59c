package single

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

// principalACLs lists a principal's ACLs through the independent client,
// without the principal: "WRITE ALLOW TOPIC orders LITERAL *", sorted.
func principalACLs(t *testing.T, adm *kadm.Client, principal string) []string {
	t.Helper()
	out := describeACLsOf(t, adm, principal, func(d kadm.DescribedACL) string {
		return fmt.Sprintf("%s %s %s %s %s %s", d.Operation, d.Permission, d.Type, d.Name, d.Pattern, d.Host)
	})
	slices.Sort(out)
	return out
}

// TestACLBundlesMatchKafkaAcls: the ACLs acl_bundle gives create_acls are
// those kafka-acls --producer/--consumer creates (Apache Kafka's own
// AclCommand against the same broker), and delete_acls with the same
// bundle removes them all.
func TestACLBundlesMatchKafkaAcls(t *testing.T) {
	need(t)
	props := filepath.Join(t.TempDir(), "admin.properties")
	require.NoError(t, os.WriteFile(props, []byte(fmt.Sprintf("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"+
		"sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=%q password=%q;\n",
		kafkatest.AdminUser, kafkatest.AdminPassword)), 0o600))
	cases := []struct {
		name, kafkaArgs, bundle string
	}{
		{"producer and consumer, idempotent, transactional id",
			"--producer --consumer --topic orders --topic refunds --group billing --transactional-id tx-1 --idempotent",
			`producer = P, consumer = P, topics = {"orders", "refunds"}, group = "billing", transactional_id = "tx-1", idempotent = true`},
		{"prefixed, from two hosts",
			"--producer --consumer --topic pay- --group pay- --resource-pattern-type prefixed --allow-host 10.0.0.1 --allow-host 10.0.0.2",
			`producer = P, consumer = P, topics = "pay-", group = "pay-", pattern_type = "prefixed", hosts = {"10.0.0.1", "10.0.0.2"}`},
		{"consumer only", "--consumer --topic '*' --group '*'",
			`consumer = P, topics = "*", group = "*"`},
	}
	adm := admin(t)
	java := make([]string, len(cases))
	var wg sync.WaitGroup
	for i, c := range cases {
		java[i] = "User:" + unique("java-bundle")
		wg.Add(1)
		go func() { // each waits mostly on a JVM starting
			defer wg.Done()
			args := []string{"--bootstrap-server", cluster.Bootstrap(), "--command-config", props, "--add", "--force", "--allow-principal", java[i]}
			for _, a := range strings.Fields(c.kafkaArgs) {
				args = append(args, strings.Trim(a, "'"))
			}
			out, err := cluster.RunJava(ctxT(t, 2*time.Minute), "org.apache.kafka.tools.AclCommand", args...)
			assert.NoError(t, err, "AclCommand %s: %s", c.kafkaArgs, out)
		}()
	}
	wg.Wait()
	rt := adminRT(t, kafkatest.MechScram512)
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ours := "User:" + unique("lua-bundle")
			var n int
			rt.json(fmt.Sprintf(`local P = %q
				return #create_acls(acl_bundle{%s})`, ours, c.bundle), &n)
			var theirs, mine []string
			require.Eventually(t, func() bool {
				theirs, mine = principalACLs(t, adm, java[i]), principalACLs(t, adm, ours)
				return len(theirs) > 0 && len(mine) == n
			}, 20*time.Second, 100*time.Millisecond)
			assert.Equal(t, theirs, mine)
			assert.Len(t, mine, n)

			// The same bundle deletes them.
			rt.json(fmt.Sprintf(`local P = %q
				local d = 0
				for _, r in ipairs(delete_acls(acl_bundle{%s})) do d = d + #r.deleted end
				return d`, ours, c.bundle), &n)
			assert.Equal(t, len(mine), n)
			assert.Eventually(t, func() bool { return len(principalACLs(t, adm, ours)) == 0 }, 20*time.Second, 100*time.Millisecond)
		})
	}
}
