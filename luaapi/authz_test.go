package luaapi

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/login"
	"github.com/kadmin-lua/kadmin-lua/internal/testpki"
)

// javaDump is how Kafka 4.1.2 words a cluster-level refusal (as a real
// broker answered describe_acls): its Scala request object printed whole.
const javaDump = "Request Request(processor=2, connectionId=127.0.0.1:34375-127.0.0.1:35436-2-2, " +
	"session=org.apache.kafka.network.Session@55ad36cb, listenerName=ListenerName(SASL_PLAINTEXT), " +
	"securityProtocol=SASL_PLAINTEXT, buffer=null, envelope=None) needs DESCRIBE permission."

// TestDeniedNamesOperationResourceAndPrincipal: an ACL refusal says which
// function, which Kafka operation on which resource, and who kadmin-lua
// was logged in as; Kafka's request dump is left out unless --verbose.
func TestDeniedNamesOperationResourceAndPrincipal(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.EnableSASL(), kfake.EnableACLs(),
		kfake.Superuser("SCRAM-SHA-256", "admin", "admin-pass"), kfake.User("SCRAM-SHA-256", "eve", "eve-pass"))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	as := func(verbose bool) *env {
		cfg := engine.Config{SASL: &login.SASLConfig{Mechanism: "SCRAM-SHA-256", Username: "eve", Password: engine.Secret("eve-pass")}}
		if verbose {
			cfg.Verbose = &bytes.Buffer{}
		}
		return newEnvOn(t, c, Options{Config: cfg})
	}
	admin := newEnvOn(t, c, Options{Config: engine.Config{SASL: &login.SASLConfig{Mechanism: "SCRAM-SHA-256", Username: "admin", Password: engine.Secret("admin-pass")}}})
	admin.run(`create_topics{{name = "orders", partitions = 1, replication_factor = 1}}`)

	// A topic kfake itself refuses: the resource is the topic.
	re := as(false).runErr(`delete_topics("orders")`)
	assert.Equal(t, "TOPIC_AUTHORIZATION_FAILED", re.Code)
	assert.Contains(t, re.Message, "delete_topics: orders: TOPIC_AUTHORIZATION_FAILED: not authorized: delete_topics needs DELETE on topic orders; logged in as User:eve")
	assert.NotContains(t, re.Message, "eve-pass")

	// A record refused: the item names the topic, the error the write.
	admin.run(`create_acls{{principal = "User:eve", operation = "describe", resource_type = "topic", resource_name = "orders"}}`)
	re = as(false).runErr(`produce("orders", {value = "x"})`)
	// kfake asks for IDEMPOTENT_WRITE, as brokers before KIP-679 did.
	assert.Equal(t, "produce: orders record 1: CLUSTER_AUTHORIZATION_FAILED: not authorized: produce needs IDEMPOTENT_WRITE on the cluster; logged in as User:eve", re.Message)

	// A cluster refusal worded as Kafka 4.1 words it.
	c.ControlKey(int16(kmsg.DescribeACLs), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		resp := kreq.ResponseKind().(*kmsg.DescribeACLsResponse)
		resp.ErrorCode = kerr.ClusterAuthorizationFailed.Code
		msg := javaDump
		resp.ErrorMessage = &msg
		return resp, nil, true
	})
	re = as(false).runErr(`describe_acls()`)
	assert.Equal(t, "CLUSTER_AUTHORIZATION_FAILED", re.Code)
	assert.Equal(t, "describe_acls: CLUSTER_AUTHORIZATION_FAILED: not authorized: describe_acls needs DESCRIBE on the cluster; logged in as User:eve", re.Message)
	// --verbose keeps the broker's words.
	re = as(true).runErr(`describe_acls()`)
	assert.Contains(t, re.Message, "not authorized: describe_acls needs DESCRIBE on the cluster; logged in as User:eve (broker: Request Request(processor=2")
	// The error value carries the same message for pcall.
	as(false).run(`local ok, err = pcall(describe_acls)
		assert(not ok and err.code == "CLUSTER_AUTHORIZATION_FAILED")
		assert(err.message:find("logged in as User:eve", 1, true), err.message)
		assert(not err.message:find("Request(", 1, true), err.message)`)
}

// TestPrincipalNames: who a config logs in as, as Kafka's default
// principal builder names it.
func TestPrincipalNames(t *testing.T) {
	assert.Equal(t, "User:ANONYMOUS", engine.Config{}.Principal())
	assert.Equal(t, "User:alice", engine.Config{SASL: &login.SASLConfig{Mechanism: "PLAIN", Username: "alice"}}.Principal())
	assert.Equal(t, "the OAUTHBEARER token's subject (client id svc)",
		engine.Config{SASL: &login.SASLConfig{Mechanism: "OAUTHBEARER", OAuth: &login.OAuthConfig{ClientID: "svc"}}}.Principal())
	pki := testpki.New(t)
	assert.Equal(t, "User:CN=admin", engine.Config{TLS: &login.TLSConfig{CertFile: pki.CertFile, KeyFile: pki.KeyFile}}.Principal())
}
