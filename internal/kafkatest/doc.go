// Package kafkatest runs real Apache Kafka brokers (4.1.x, KRaft) as child
// JVMs for integration tests: no Docker, just java >= 17 and the broker jars
// from Maven Central, which are fetched once with mvn into
// ~/.cache/kadmin-lua/kafka-<version>/libs (see pom.xml and fetch-jars.sh).
//
// These shapes of cluster exist:
//
//   - Single / StartSingle: one node, SASL_PLAINTEXT with PLAIN,
//     SCRAM-SHA-256 and SCRAM-SHA-512, ACLs enforced (StandardAuthorizer),
//     super user admin/admin-secret and ordinary user alice/alice-secret.
//   - Three / StartThree: three nodes, PLAINTEXT, replication factor 3,
//     min.insync.replicas 2, with KillNode, StopNode and StartNode;
//     StartThreeWith(Extra{DynamicQuorum: true}) the same on a dynamic
//     KRaft quorum (--initial-controllers), whose voters can change.
//   - StartFour: four PLAINTEXT nodes, replication factor 3; nodes
//     1-3 are also the controllers, node 4 a broker only: a broker can be
//     drained with every replication factor kept. Replication throttles
//     average over 2 s, so they slow small test partitions at once.
//   - StartSingleWith: one PLAINTEXT node with more client listeners
//     (Extra): SSL with client certificates, OAUTHBEARER checking signed
//     JWTs against a JWKS endpoint, GSSAPI against a KDC (with
//     internal/testkdc).
//
// In a test:
//
//	func TestSomething(t *testing.T) {
//		c := kafkatest.Single(t) // skips under -short or KADMIN_SKIP_KAFKA=1
//		adm, err := c.AdminAs(kafkatest.MechScram512, kafkatest.AliceUser, kafkatest.AlicePassword)
//		...
//	}
//
// One cluster for a whole package, with the kadmin-lua binary built while
// it starts (RunSuite):
//
//	var (
//		cluster *kafkatest.Cluster
//		binary  string
//	)
//
//	func TestMain(m *testing.M) {
//		os.Exit(kafkatest.RunSuite(m, "integration/three", kafkatest.StartThree,
//			func(c *kafkatest.Cluster, bin string) { cluster, binary = c, bin }))
//	}
//
// (tests then skip when cluster is nil: RunSuite fails the run when they
// must run and cannot.) The tests' helpers: WaitFor polls a state until it
// holds, RunBinary runs the binary and captures its output, AdminT gives a
// brand-new kadm client, Partitions reads a topic's partitions afresh, and
// SyncBuffer collects a process's output while it runs.
//
// Real-Kafka tests are skipped only with `go test -short` or
// KADMIN_SKIP_KAFKA=1; otherwise a missing java, mvn or jar fails the test.
// The JVMs are killed by Close, and by the kernel if the test binary dies
// first (timeout, Ctrl-C), since they are started with PR_SET_PDEATHSIG.
package kafkatest
