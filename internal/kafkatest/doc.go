// Package kafkatest runs real Apache Kafka brokers (4.1.x, KRaft) as child
// JVMs for integration tests: no Docker, just java >= 17 and the broker jars
// from Maven Central, which are fetched once with mvn into
// ~/.cache/kadmin-lua/kafka-<version>/libs (see pom.xml and fetch-jars.sh).
//
// Two shapes of cluster exist:
//
//   - Single / StartSingle: one node, SASL_PLAINTEXT with PLAIN,
//     SCRAM-SHA-256 and SCRAM-SHA-512, ACLs enforced (StandardAuthorizer),
//     super user admin/admin-secret and ordinary user alice/alice-secret.
//   - Three / StartThree: three nodes, PLAINTEXT, replication factor 3,
//     min.insync.replicas 2, with KillNode, StopNode and StartNode.
//
// In a test:
//
//	func TestSomething(t *testing.T) {
//		c := kafkatest.Single(t) // skips under -short or KADMIN_SKIP_KAFKA=1
//		adm, err := c.AdminAs(kafkatest.MechScram512, kafkatest.AliceUser, kafkatest.AlicePassword)
//		...
//	}
//
// One cluster for a whole package:
//
//	var cluster *kafkatest.Cluster
//
//	func TestMain(m *testing.M) {
//		flag.Parse()
//		if r := kafkatest.SkipReason(); r == "" {
//			c, err := kafkatest.StartThree(context.Background())
//			if err != nil {
//				fmt.Fprintln(os.Stderr, err)
//				os.Exit(1)
//			}
//			fmt.Println(c.Banner())
//			cluster = c
//		}
//		code := m.Run()
//		if cluster != nil {
//			cluster.Close()
//		}
//		os.Exit(code)
//	}
//
// (tests then call kafkatest.Require(t) or skip when cluster is nil.)
//
// Real-Kafka tests are skipped only with `go test -short` or
// KADMIN_SKIP_KAFKA=1; otherwise a missing java, mvn or jar fails the test.
// The JVMs are killed by Close, and by the kernel if the test binary dies
// first (timeout, Ctrl-C), since they are started with PR_SET_PDEATHSIG.
package kafkatest
