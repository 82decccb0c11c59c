package kafkatest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// What a node runs with: its server.properties (listeners, SASL, TLS,
// Kerberos, the quorum), the log4j configuration of Kafka 3.x and 4.x, and
// the JVM's arguments.

func (c *Cluster) log4jFile() string { return filepath.Join(c.Dir, "log4j2.properties") }

// log4j1File is the same for Kafka 3.x, whose pom brings slf4j-reload4j
// (a log4j 1 binding that wins over log4j-slf4j-impl) and ignores the
// log4j2 file.
func (c *Cluster) log4j1File() string { return filepath.Join(c.Dir, "log4j.properties") }

const log4j1Config = `log4j.rootLogger=INFO, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka.request.logger=WARN
`

// log4jConfig sends broker logs to stdout, which goes to node<N>/node.log.
const log4jConfig = `status = warn
appender.out.type = Console
appender.out.name = STDOUT
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.out.ref = STDOUT
logger.request.name = kafka.request.logger
logger.request.level = WARN
`

func (c *Cluster) serverProperties(n *node) string {
	rf, minISR := 1, 1
	if c.Size >= 3 {
		rf, minISR = 3, 2
	}
	var voters, bootstrap []string
	for _, m := range c.controllers() {
		voters = append(voters, fmt.Sprintf("%d@127.0.0.1:%d", m.id, m.cport))
		bootstrap = append(bootstrap, fmt.Sprintf("127.0.0.1:%d", m.cport))
	}
	quorum := [2]string{"controller.quorum.voters", strings.Join(voters, ",")}
	if c.extra.DynamicQuorum {
		quorum = [2]string{"controller.quorum.bootstrap.servers", strings.Join(bootstrap, ",")}
	}
	p := c.Protocol
	ssl, sslMap := "", ""
	if c.extra.TLS != nil {
		ssl, sslMap = fmt.Sprintf(",SSL://127.0.0.1:%d", n.sport), ",SSL:SSL"
	}
	if c.extra.JWKS != "" {
		ssl += fmt.Sprintf(",OAUTH://127.0.0.1:%d", n.oport)
		sslMap += ",OAUTH:SASL_PLAINTEXT"
	}
	if c.extra.Kerberos != nil {
		ssl += fmt.Sprintf(",KERBEROS://127.0.0.1:%d", n.kport)
		sslMap += ",KERBEROS:SASL_PLAINTEXT"
	}
	roles, listeners := "broker,controller", fmt.Sprintf("%s://127.0.0.1:%d,CONTROLLER://127.0.0.1:%d", p, n.port, n.cport)
	if n.brokerOnly {
		roles, listeners = "broker", fmt.Sprintf("%s://127.0.0.1:%d", p, n.port)
	}
	props := [][2]string{
		{"process.roles", roles},
		{"node.id", strconv.Itoa(int(n.id))},
		quorum,
		{"controller.listener.names", "CONTROLLER"},
		{"listeners", listeners + ssl},
		{"advertised.listeners", fmt.Sprintf("%s://127.0.0.1:%d", p, n.port) + ssl},
		{"inter.broker.listener.name", p},
		{"listener.security.protocol.map", fmt.Sprintf("CONTROLLER:PLAINTEXT,%s:%s", p, p) + sslMap},
		{"log.dirs", filepath.Join(n.dir, "data")},
		{"num.partitions", "1"},
		{"default.replication.factor", strconv.Itoa(rf)},
		{"min.insync.replicas", strconv.Itoa(minISR)},
		{"offsets.topic.replication.factor", strconv.Itoa(rf)},
		{"offsets.topic.num.partitions", "3"}, // default 50 makes the first group call slow
		{"transaction.state.log.replication.factor", strconv.Itoa(rf)},
		{"transaction.state.log.min.isr", strconv.Itoa(minISR)},
		{"transaction.state.log.num.partitions", "3"},
		{"share.coordinator.state.topic.replication.factor", strconv.Itoa(rf)},
		{"share.coordinator.state.topic.min.isr", strconv.Itoa(minISR)},
		{"share.coordinator.state.topic.num.partitions", "3"},
		{"group.initial.rebalance.delay.ms", "0"},
		{"auto.create.topics.enable", "false"},
		// Notice a killed node within seconds (defaults 2000/9000).
		{"broker.heartbeat.interval.ms", "500"},
		{"broker.session.timeout.ms", "4000"},
		// The cleaner allocates this on the heap (default 128 MiB).
		{"log.cleaner.dedupe.buffer.size", strconv.Itoa(8 << 20)},
	}
	if len(c.nodes) > len(c.controllers()) {
		// StartFour's cluster is for moving data: a replication throttle
		// averaged over 2 s (default 11) bites at once, so small test
		// partitions still take seconds to move under it.
		props = append(props, [2]string{"replication.quota.window.num", "2"})
	}
	if c.Protocol == ProtoSASL {
		plain := `org.apache.kafka.common.security.plain.PlainLoginModule required username="` + AdminUser +
			`" password="` + AdminPassword + `"`
		for _, u := range []string{AdminUser, AliceUser} {
			plain += fmt.Sprintf(` user_%s="%s"`, u, c.Users[u])
		}
		plain += ";"
		scram := "org.apache.kafka.common.security.scram.ScramLoginModule required;"
		props = append(props, [][2]string{
			// OAUTHBEARER too, with Kafka's default (unsecured JWT)
			// validator, and sessions that must log in again every 3 s.
			{"sasl.enabled.mechanisms", strings.Join(append(slices.Clone(c.Mechanisms), MechOAuthBearer), ",")},
			{"listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config",
				`org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub="` + AdminUser + `";`},
			{"listener.name.sasl_plaintext.oauthbearer.connections.max.reauth.ms", "3000"},
			{"sasl.mechanism.inter.broker.protocol", MechPlain},
			{"listener.name.sasl_plaintext.plain.sasl.jaas.config", plain},
			{"listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config", scram},
			{"listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config", scram},
			{"authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer"},
			// ANONYMOUS: the PLAINTEXT controller listener authorizes broker
			// registration (CLUSTER_ACTION) as User:ANONYMOUS.
			{"super.users", "User:" + AdminUser + ";User:ANONYMOUS"},
			// Enables delegation tokens (they need SASL, which this listener has).
			{"delegation.token.secret.key", "kadmin-lua-test-token-key"},
		}...)
	}
	if u := c.extra.JWKS; u != "" {
		const pre = "listener.name.oauth.oauthbearer."
		props = append(props, [][2]string{
			{"listener.name.oauth.sasl.enabled.mechanisms", MechOAuthBearer},
			{pre + "sasl.jaas.config", "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;"},
			{pre + "sasl.server.callback.handler.class", "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler"},
			{"sasl.oauthbearer.jwks.endpoint.url", u},
			{pre + "sasl.oauthbearer.jwks.endpoint.url", u},
			{"listener.name.oauth.connections.max.reauth.ms", "3000"},
		}...)
		for _, kv := range [][2]string{{"expected.audience", c.extra.Audience}, {"expected.issuer", c.extra.Issuer}} {
			if kv[1] != "" {
				props = append(props, [2]string{"sasl.oauthbearer." + kv[0], kv[1]}, [2]string{pre + "sasl.oauthbearer." + kv[0], kv[1]})
			}
		}
	}
	if k := c.extra.Kerberos; k != nil {
		service, _, _ := strings.Cut(k.Principal, "/")
		props = append(props, [][2]string{
			{"listener.name.kerberos.sasl.enabled.mechanisms", "GSSAPI"},
			{"sasl.kerberos.service.name", service},
			{"listener.name.kerberos.gssapi.sasl.jaas.config", fmt.Sprintf(
				`com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true keyTab="%s" principal="%s";`,
				k.Keytab, k.Principal)},
			{"sasl.kerberos.principal.to.local.rules", "DEFAULT"},
		}...)
		if len(k.SuperUsers) > 0 && c.Protocol != ProtoSASL {
			supers := []string{"User:ANONYMOUS"}
			for _, u := range k.SuperUsers {
				supers = append(supers, "User:"+u)
			}
			props = append(props, [][2]string{
				{"authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer"},
				{"super.users", strings.Join(supers, ";")},
			}...)
		}
	}
	if l := c.extra.TLS; l != nil {
		props = append(props, [][2]string{
			{"listener.name.ssl.ssl.keystore.location", l.KeyStore},
			{"listener.name.ssl.ssl.keystore.type", l.KeyStoreType},
			{"listener.name.ssl.ssl.keystore.password", l.KeyStorePassword},
			{"listener.name.ssl.ssl.key.password", l.KeyStorePassword},
			{"listener.name.ssl.ssl.truststore.location", l.TrustStore},
			{"listener.name.ssl.ssl.truststore.type", l.TrustStoreType},
			{"listener.name.ssl.ssl.truststore.password", l.TrustStorePassword},
			{"listener.name.ssl.ssl.client.auth", "required"},
		}...)
	}
	if c.extra.TieredStorage {
		props = append(props, tieredProperties(filepath.Join(c.Dir, "remote"), p)...)
	}
	if c.ZooKeeper() {
		props = c.zooKeeperProperties(n, props)
	}
	props = append(props, c.extra.Properties...)
	var b strings.Builder
	b.WriteString("# generated by kadmin-lua internal/kafkatest\n")
	for _, kv := range props {
		b.WriteString(kv[0] + "=" + kv[1] + "\n")
	}
	return b.String()
}

func (c *Cluster) jvmArgs(heap string) []string {
	args := []string{heap, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto", "-Djava.awt.headless=true"}
	if c.extra.JWKS != "" {
		args = append(args, "-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls="+
			strings.Join(append([]string{c.extra.JWKS}, c.extra.AllowURLs...), ","))
	}
	if k := c.extra.Kerberos; k != nil {
		args = append(args, "-Djava.security.krb5.conf="+k.Krb5Conf)
	}
	args = append(args, strings.Fields(os.Getenv(EnvJVMOpts))...)
	return append(args,
		"-cp", c.classPath(),
		"-Dlog4j2.configurationFile="+c.log4jFile(),
		"-Dlog4j.configuration=file:"+c.log4j1File(),
	)
}

// classPath is the broker's libs, and the tiered storage jar when a node
// has tiered storage.
func (c *Cluster) classPath() string {
	cp := filepath.Join(c.jars, "*")
	if c.extra.TieredStorage && c.tieredJar != "" {
		cp += string(os.PathListSeparator) + c.tieredJar
	}
	return cp
}
