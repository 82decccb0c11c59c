package kafkatest

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// These run under -short: they check what the harness renders, not Kafka.

func props(t *testing.T, s string) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		require.True(t, ok, line)
		_, dup := m[k]
		require.False(t, dup, "duplicate key %s", k)
		m[k] = v
	}
	return m
}

func testCluster(size int, sasl bool) *Cluster {
	c := &Cluster{Size: size, Protocol: ProtoPlain, Dir: "/tmp/x"}
	if sasl {
		c.Protocol = ProtoSASL
		c.Mechanisms = []string{MechPlain, MechScram256, MechScram512}
		c.Users = map[string]string{AdminUser: AdminPassword, AliceUser: AlicePassword}
	}
	for i := 0; i < size; i++ {
		c.nodes = append(c.nodes, &node{id: int32(i + 1), port: 40000 + 2*i, cport: 40001 + 2*i, dir: "/tmp/x/n", brokerOnly: i >= 3})
	}
	return c
}

func TestServerPropertiesSingleSASL(t *testing.T) {
	c := testCluster(1, true)
	p := props(t, c.serverProperties(c.nodes[0]))
	require.Equal(t, "broker,controller", p["process.roles"])
	require.Equal(t, "1@127.0.0.1:40001", p["controller.quorum.voters"])
	require.Equal(t, "SASL_PLAINTEXT://127.0.0.1:40000,CONTROLLER://127.0.0.1:40001", p["listeners"])
	require.Equal(t, "SASL_PLAINTEXT://127.0.0.1:40000", p["advertised.listeners"])
	require.Equal(t, "CONTROLLER:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT", p["listener.security.protocol.map"])
	require.Equal(t, "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER", p["sasl.enabled.mechanisms"])
	require.Equal(t, "User:admin;User:ANONYMOUS", p["super.users"])
	require.Equal(t, "1", p["offsets.topic.replication.factor"])
	require.Contains(t, p["listener.name.sasl_plaintext.plain.sasl.jaas.config"], `user_alice="alice-secret"`)
	require.True(t, strings.HasSuffix(p["listener.name.sasl_plaintext.plain.sasl.jaas.config"], ";"))
}

func TestServerPropertiesThree(t *testing.T) {
	c := testCluster(3, false)
	for _, n := range c.nodes {
		p := props(t, c.serverProperties(n))
		require.Equal(t, "1@127.0.0.1:40001,2@127.0.0.1:40003,3@127.0.0.1:40005", p["controller.quorum.voters"])
		require.Equal(t, "3", p["default.replication.factor"])
		require.Equal(t, "2", p["min.insync.replicas"])
		require.Equal(t, "3", p["offsets.topic.replication.factor"])
		require.Empty(t, p["super.users"])
		require.Contains(t, p["listeners"], "PLAINTEXT://127.0.0.1:")
	}
}

// StartFour's cluster: three controllers, the fourth node a broker only,
// and throttles averaged over 2 s; a cluster of three keeps Kafka's 11.
func TestServerPropertiesFour(t *testing.T) {
	c := testCluster(4, false)
	for _, n := range c.nodes {
		p := props(t, c.serverProperties(n))
		require.Equal(t, "1@127.0.0.1:40001,2@127.0.0.1:40003,3@127.0.0.1:40005", p["controller.quorum.voters"], "node %d", n.id)
		require.Equal(t, "2", p["replication.quota.window.num"])
		if n.id == 4 {
			require.Equal(t, "broker", p["process.roles"])
			require.Equal(t, "PLAINTEXT://127.0.0.1:40006", p["listeners"])
		} else {
			require.Equal(t, "broker,controller", p["process.roles"])
			require.Contains(t, p["listeners"], "CONTROLLER://127.0.0.1:")
		}
	}
	three := testCluster(3, false)
	require.NotContains(t, three.serverProperties(three.nodes[0]), "replication.quota.window.num")
}

func TestServerPropertiesKerberos(t *testing.T) {
	c := testCluster(1, false)
	c.extra = Extra{Kerberos: &KerberosListener{Krb5Conf: "/k/krb5.conf", Principal: "kafka/localhost@R.TEST",
		Keytab: "/k/kafka.keytab", SuperUsers: []string{"kadmin"}}}
	c.nodes[0].kport = 40009
	p := props(t, c.serverProperties(c.nodes[0]))
	require.Equal(t, "PLAINTEXT://127.0.0.1:40000,CONTROLLER://127.0.0.1:40001,KERBEROS://127.0.0.1:40009", p["listeners"])
	require.Equal(t, "PLAINTEXT://127.0.0.1:40000,KERBEROS://127.0.0.1:40009", p["advertised.listeners"])
	require.Equal(t, "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,KERBEROS:SASL_PLAINTEXT", p["listener.security.protocol.map"])
	require.Equal(t, "GSSAPI", p["listener.name.kerberos.sasl.enabled.mechanisms"])
	require.Equal(t, "kafka", p["sasl.kerberos.service.name"])
	require.Equal(t, `com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true keyTab="/k/kafka.keytab" principal="kafka/localhost@R.TEST";`,
		p["listener.name.kerberos.gssapi.sasl.jaas.config"])
	require.Equal(t, "org.apache.kafka.metadata.authorizer.StandardAuthorizer", p["authorizer.class.name"])
	require.Equal(t, "User:ANONYMOUS;User:kadmin", p["super.users"])
	require.Contains(t, c.jvmArgs(heapOpt), "-Djava.security.krb5.conf=/k/krb5.conf")
	require.Equal(t, "127.0.0.1:40009", c.KerberosBootstrap())
}

func TestFreePortsAndClusterID(t *testing.T) {
	ports, err := freePorts(6)
	require.NoError(t, err)
	seen := map[int]bool{}
	for _, p := range ports {
		require.False(t, seen[p])
		seen[p] = true
		require.NotContains(t, []int{9092, 9093, 9094, 19092, 19093, 19094}, p)
	}
	id := newClusterID()
	require.Len(t, id, 22)
	_, err = base64.RawURLEncoding.DecodeString(id)
	require.NoError(t, err)
}

func TestSkipReason(t *testing.T) {
	t.Setenv(EnvSkip, "1")
	require.Equal(t, "KADMIN_SKIP_KAFKA=1", SkipReason())
	t.Setenv(EnvSkip, "")
	if testing.Short() {
		require.Equal(t, "go test -short", SkipReason())
	} else {
		require.Empty(t, SkipReason())
	}
}

func TestZooKeeperModeProperties(t *testing.T) {
	c := testCluster(1, true)
	c.Mode, c.Version = ModeZooKeeper, "3.9.1"
	c.zk = &node{port: 42181}
	p := props(t, c.serverProperties(c.nodes[0]))
	require.Equal(t, "1", p["broker.id"])
	require.Equal(t, "127.0.0.1:42181", p["zookeeper.connect"])
	require.Equal(t, "SASL_PLAINTEXT://127.0.0.1:40000", p["listeners"])
	require.Equal(t, "SASL_PLAINTEXT:SASL_PLAINTEXT", p["listener.security.protocol.map"])
	require.Equal(t, "kafka.security.authorizer.AclAuthorizer", p["authorizer.class.name"])
	for _, k := range []string{"process.roles", "node.id", "controller.quorum.voters", "controller.listener.names"} {
		require.NotContains(t, p, k)
	}
	require.NoError(t, checkMode(ModeZooKeeper, "3.9.1"))
	require.ErrorContains(t, checkMode(ModeZooKeeper, "4.0.2"), "Kafka 4.0.2 has no ZooKeeper mode")
	require.ErrorContains(t, checkMode("zk", "3.9.1"), `want kraft or zookeeper`)
}
