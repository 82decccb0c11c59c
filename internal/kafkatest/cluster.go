package kafkatest

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Users and mechanisms of the SASL cluster started by StartSingle.
const (
	AdminUser     = "admin" // super user
	AdminPassword = "admin-secret"
	AliceUser     = "alice" // ordinary user, no ACLs at start
	AlicePassword = "alice-secret"

	MechPlain    = "PLAIN"
	MechScram256 = "SCRAM-SHA-256"
	MechScram512 = "SCRAM-SHA-512"
	// MechOAuthBearer is enabled on the SASL cluster besides Mechanisms,
	// with unsecured JWTs (any subject; "admin" is the super user).
	MechOAuthBearer = "OAUTHBEARER"
	ProtoSASL       = "SASL_PLAINTEXT"
	ProtoPlain      = "PLAINTEXT"
	heapOpt         = "-Xmx512m"
	formatHeapOpt   = "-Xmx256m"
)

// DefaultStartTimeout bounds a cluster start when the context has no deadline.
const DefaultStartTimeout = 3 * time.Minute

// Cluster is a set of real Apache Kafka brokers (KRaft, each node combined
// broker+controller) running as child JVMs on 127.0.0.1.
//
// Always Close it; Single and Three do that through t.Cleanup. Even without
// Close the JVMs die with the test process (see proc_linux.go), but their
// directories stay behind.
type Cluster struct {
	Version    string            // Kafka version, e.g. "4.1.2"
	Mode       string            // ModeKRaft, or ModeZooKeeper (KADMIN_KAFKA_MODE)
	Size       int               // number of nodes
	ClusterID  string            // KRaft cluster id
	Protocol   string            // ProtoSASL or ProtoPlain (the client listener)
	Mechanisms []string          // SASL mechanisms enabled; nil for PLAINTEXT
	Users      map[string]string // user -> password; nil for PLAINTEXT
	Dir        string            // root of configs, data and logs (removed by Close)

	extra Extra // StartSingleWith's extra listeners

	java, jars string
	nodes      []*node
	zk         *node // ZooKeeper, in ZooKeeper mode
	closeOnce  sync.Once
	closeErr   error
}

type node struct {
	id          int32
	port, cport int
	sport       int    // the SSL listener's port (Extra.TLS), or 0
	oport       int    // the JWKS-validating OAUTHBEARER listener's port (Extra.JWKS), or 0
	kport       int    // the GSSAPI listener's port (Extra.Kerberos), or 0
	dirID       string // the metadata dir's directory id (Extra.DynamicQuorum), or ""
	dir         string // node dir: server.properties, node.log, data/
	cfg, log    string

	mu      sync.Mutex
	cmd     *exec.Cmd
	done    chan struct{} // closed when cmd exits
	waitErr error
}

func (n *node) addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(n.port)) }

// StartSingle starts one node with a SASL_PLAINTEXT client listener
// (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512), the StandardAuthorizer, super users
// admin and ANONYMOUS (the controller listener is PLAINTEXT), and the
// ordinary user alice without ACLs. SCRAM credentials for admin and alice
// exist for both SCRAM mechanisms from the start. It returns once the broker
// answers Metadata. The caller must Close the cluster.
func StartSingle(ctx context.Context) (*Cluster, error) {
	return start(ctx, 1, true, Extra{})
}

// TLSListener is the SSL client listener of StartSingleTLS: the broker's
// key store and the trust store it checks client certificates against
// (JKS or PKCS12 files, as keytool makes them).
type TLSListener struct {
	KeyStore, KeyStoreType, KeyStorePassword       string
	TrustStore, TrustStoreType, TrustStorePassword string
}

// KerberosListener is the GSSAPI client listener of StartSingleWith: the
// broker logs in to the KDC with its service principal's keytab, as Kafka's
// documentation sets it up.
type KerberosListener struct {
	// Krb5Conf is the krb5.conf naming the KDC, the broker JVM's (and
	// RunJava's) -Djava.security.krb5.conf.
	Krb5Conf string
	// Principal is the broker's service principal, service/host@REALM:
	// clients ask the KDC for a ticket to service/<the broker's host name>
	// (Kafka's Java client reverse-resolves an IP address to its host
	// name, so for 127.0.0.1 that is kafka/localhost). Its service part is
	// sasl.kerberos.service.name.
	Principal string
	// Keytab holds Principal's key.
	Keytab string
	// SuperUsers, when set, turn on the StandardAuthorizer on the node,
	// with these users (Kerberos principals map to their first component,
	// Kafka's DEFAULT sasl.kerberos.principal.to.local.rules, when in the
	// krb5.conf's default realm) and ANONYMOUS (the PLAINTEXT listeners'
	// clients) as super users; other principals have no rights until
	// given ACLs.
	SuperUsers []string
}

// Extra are the client listeners StartSingleWith adds.
type Extra struct {
	// TLS: an SSL listener with client authentication required
	// (ssl.client.auth=required); TLSBootstrap is its address.
	TLS *TLSListener
	// JWKS: a SASL_PLAINTEXT listener for OAUTHBEARER alone whose tokens
	// are signed JWTs, checked by Kafka's OAuthBearerValidatorCallbackHandler
	// against the keys at this URL (allowed by the system property
	// org.apache.kafka.sasl.oauthbearer.allowed.urls); sessions last 3 s.
	// OAuthBootstrap is its address.
	JWKS string
	// Audience and Issuer are the aud and iss claims the JWKS listener
	// requires of a token (sasl.oauthbearer.expected.audience and
	// .issuer). Kafka 4.4 refuses to start such a listener without them,
	// unless told to accept any.
	Audience, Issuer string
	// AllowURLs are more OAuth URLs for that system property, such as a
	// token endpoint for the Java clients RunJava starts.
	AllowURLs []string
	// Kerberos: a SASL_PLAINTEXT listener for GSSAPI alone, advertised as
	// 127.0.0.1. KerberosBootstrap is its address.
	Kerberos *KerberosListener
	// DynamicQuorum formats the nodes with --initial-controllers (KIP-853,
	// kraft.version 1) and points them at controller.quorum.bootstrap.servers
	// instead of a static controller.quorum.voters: the quorum's voters can
	// be added and removed. DirectoryID tells each node's directory id.
	DynamicQuorum bool
}

// StartSingleWith starts one node with a PLAINTEXT client listener (as
// StartThree's nodes, without an authorizer) and x's listeners besides.
func StartSingleWith(ctx context.Context, x Extra) (*Cluster, error) {
	return start(ctx, 1, false, x)
}

// StartSingleTLS is StartSingleWith an SSL listener made from l.
func StartSingleTLS(ctx context.Context, l TLSListener) (*Cluster, error) {
	return StartSingleWith(ctx, Extra{TLS: &l})
}

// OAuthBootstrap is the address of the JWKS-validating OAUTHBEARER
// listener (Extra.JWKS), or "".
func (c *Cluster) OAuthBootstrap() string {
	var out []string
	for _, n := range c.nodes {
		if n.oport != 0 {
			out = append(out, net.JoinHostPort("127.0.0.1", strconv.Itoa(n.oport)))
		}
	}
	return strings.Join(out, ",")
}

// TLSBootstrap is the address of the SSL listener (StartSingleTLS), or "".
func (c *Cluster) TLSBootstrap() string {
	var out []string
	for _, n := range c.nodes {
		if n.sport != 0 {
			out = append(out, net.JoinHostPort("127.0.0.1", strconv.Itoa(n.sport)))
		}
	}
	return strings.Join(out, ",")
}

// KerberosBootstrap is the address of the GSSAPI listener (Extra.Kerberos),
// or "".
func (c *Cluster) KerberosBootstrap() string {
	var out []string
	for _, n := range c.nodes {
		if n.kport != 0 {
			out = append(out, net.JoinHostPort("127.0.0.1", strconv.Itoa(n.kport)))
		}
	}
	return strings.Join(out, ",")
}

// RunJava runs a Java class of the broker classpath (a Kafka tool such as
// org.apache.kafka.tools.TopicCommand) with args, and returns its combined
// output.
func (c *Cluster) RunJava(ctx context.Context, class string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, c.java, append(append(c.jvmArgs(formatHeapOpt), class), args...)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// StartThree starts three combined broker+controller nodes (ids 1, 2, 3) with a
// static controller quorum and PLAINTEXT listeners, default.replication.factor=3
// and min.insync.replicas=2 (internal topics likewise). It returns once all
// three brokers are in the metadata. The caller must Close the cluster.
func StartThree(ctx context.Context) (*Cluster, error) {
	return start(ctx, 3, false, Extra{})
}

// StartThreeWith is StartThree with x (only DynamicQuorum applies).
func StartThreeWith(ctx context.Context, x Extra) (*Cluster, error) {
	return start(ctx, 3, false, Extra{DynamicQuorum: x.DynamicQuorum})
}

// DirectoryID is node id's metadata directory id, as Kafka prints it; ""
// unless the quorum is dynamic (Extra.DynamicQuorum).
func (c *Cluster) DirectoryID(id int32) string {
	if n, err := c.node(id); err == nil {
		return n.dirID
	}
	return ""
}

// ControllerPort is node id's CONTROLLER listener port (on 127.0.0.1).
func (c *Cluster) ControllerPort(id int32) int {
	if n, err := c.node(id); err == nil {
		return n.cport
	}
	return 0
}

func start(ctx context.Context, size int, sasl bool, x Extra) (*Cluster, error) {
	java, jars, err := runtimeDeps()
	if err != nil {
		return nil, err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultStartTimeout)
		defer cancel()
	}
	// A port picked as free can be taken before the JVM binds it; retry
	// with fresh ports in that case.
	for attempt := 1; ; attempt++ {
		c, err := startOnce(ctx, java, jars, size, sasl, x)
		if err == nil {
			return c, nil
		}
		if attempt >= 3 || !strings.Contains(err.Error(), "Address already in use") || ctx.Err() != nil {
			return nil, err
		}
	}
}

func startOnce(ctx context.Context, java, jars string, size int, sasl bool, x Extra) (_ *Cluster, err error) {
	sweepStale()
	dir, err := os.MkdirTemp("", dirPrefix)
	if err != nil {
		return nil, fmt.Errorf("kafkatest: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return nil, fmt.Errorf("kafkatest: %w", err)
	}
	c := &Cluster{
		Version:   Version(),
		Mode:      Mode(),
		Size:      size,
		ClusterID: newClusterID(),
		Protocol:  ProtoPlain,
		Dir:       dir,
		extra:     x,
		java:      java,
		jars:      jars,
	}
	if sasl {
		c.Protocol = ProtoSASL
		c.Mechanisms = []string{MechPlain, MechScram256, MechScram512}
		c.Users = map[string]string{AdminUser: AdminPassword, AliceUser: AlicePassword}
	}
	defer func() {
		if err != nil {
			c.Close()
		}
	}()
	if err := checkMode(c.Mode, c.Version); err != nil {
		return nil, err
	}
	const perNode = 5
	ports, err := freePorts(perNode*size + 1)
	if err != nil {
		return nil, err
	}
	if c.ZooKeeper() {
		zdir := filepath.Join(dir, "zookeeper")
		c.zk = &node{port: ports[perNode*size], dir: zdir, log: filepath.Join(zdir, "zookeeper.log")}
	}
	for i := 0; i < size; i++ {
		n := &node{id: int32(i + 1), port: ports[perNode*i], cport: ports[perNode*i+1]}
		if x.TLS != nil {
			n.sport = ports[perNode*i+2]
		}
		if x.JWKS != "" {
			n.oport = ports[perNode*i+3]
		}
		if x.Kerberos != nil {
			n.kport = ports[perNode*i+4]
		}
		if x.DynamicQuorum {
			n.dirID = newDirectoryID()
		}
		n.dir = filepath.Join(dir, fmt.Sprintf("node%d", n.id))
		n.cfg = filepath.Join(n.dir, "server.properties")
		n.log = filepath.Join(n.dir, "node.log")
		c.nodes = append(c.nodes, n)
	}
	if err := os.WriteFile(c.log4jFile(), []byte(log4jConfig), 0o644); err != nil {
		return nil, fmt.Errorf("kafkatest: %w", err)
	}
	if err := os.WriteFile(c.log4j1File(), []byte(log4j1Config), 0o644); err != nil {
		return nil, fmt.Errorf("kafkatest: %w", err)
	}
	for _, n := range c.nodes {
		if err := os.MkdirAll(n.dir, 0o755); err != nil {
			return nil, fmt.Errorf("kafkatest: %w", err)
		}
		if err := os.WriteFile(n.cfg, []byte(c.serverProperties(n)), 0o644); err != nil {
			return nil, fmt.Errorf("kafkatest: %w", err)
		}
	}
	if c.ZooKeeper() {
		// No storage to format: ZooKeeper holds the metadata.
		if err := c.startZooKeeper(ctx); err != nil {
			return nil, err
		}
	} else if err := c.formatAll(ctx); err != nil {
		return nil, err
	}
	// A static quorum needs a majority: launch every node, then wait.
	for _, n := range c.nodes {
		if err := c.launch(n); err != nil {
			return nil, err
		}
	}
	if err := c.WaitBrokers(ctx, c.NodeIDs()...); err != nil {
		return nil, err
	}
	if c.ZooKeeper() && c.Protocol == ProtoSASL {
		if err := c.addSCRAMUsers(ctx); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// formatAll formats all nodes' storage in parallel (one short JVM each).
func (c *Cluster) formatAll(ctx context.Context) error {
	errs := make([]error, len(c.nodes))
	var wg sync.WaitGroup
	for i, n := range c.nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = c.format(ctx, n)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

const (
	dirPrefix = "kadmin-kafka-"
	ownerFile = "owner.pid" // pid of the test process that owns the dir
)

// sweepStale removes cluster dirs left in the temp dir by test processes that
// died without Close (timeout, Ctrl-C; their JVMs died with them).
func sweepStale() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), dirPrefix+"*"))
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, ownerFile))
		if err != nil {
			continue // being created, kept (KADMIN_KAFKA_KEEP) or not ours
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 0 || processAlive(pid) {
			continue
		}
		_ = os.RemoveAll(d)
	}
}

// newClusterID returns a random KRaft cluster id (a base64url Uuid).
// newDirectoryID is a random directory id as Kafka prints it (a Uuid in
// URL-safe base64), never one of the reserved ones (first 8 bytes zero).
func newDirectoryID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[0] = b[0]&0x7f | 0x40 // nor one starting with "-" or "_" (Kafka avoids those too)
	return base64.RawURLEncoding.EncodeToString(b[:])
}

func newClusterID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[0] &= 0x7f // keep clear of the reserved ids (all zero, all ones)
	b[0] |= 0x01
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// freePorts returns n distinct free TCP ports on 127.0.0.1, avoiding the
// ports developers' own brokers usually listen on.
func freePorts(n int) ([]int, error) {
	reserved := map[int]bool{9092: true, 9093: true, 9094: true, 19092: true, 19093: true, 19094: true}
	var ports []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for tries := 0; len(ports) < n; tries++ {
		if tries > 10*n {
			return nil, errors.New("kafkatest: cannot find free ports on 127.0.0.1")
		}
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("kafkatest: pick port: %w", err)
		}
		ls = append(ls, l) // hold it until all are picked, so they are distinct
		p := l.Addr().(*net.TCPAddr).Port
		if !reserved[p] {
			ports = append(ports, p)
		}
	}
	return ports, nil
}

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
	for _, m := range c.nodes {
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
	props := [][2]string{
		{"process.roles", "broker,controller"},
		{"node.id", strconv.Itoa(int(n.id))},
		quorum,
		{"controller.listener.names", "CONTROLLER"},
		{"listeners", fmt.Sprintf("%s://127.0.0.1:%d,CONTROLLER://127.0.0.1:%d", p, n.port, n.cport) + ssl},
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
	if c.ZooKeeper() {
		props = c.zooKeeperProperties(n, props)
	}
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
		"-cp", filepath.Join(c.jars, "*"),
		"-Dlog4j2.configurationFile="+c.log4jFile(),
		"-Dlog4j.configuration=file:"+c.log4j1File(),
	)
}

func (c *Cluster) format(ctx context.Context, n *node) error {
	args := c.jvmArgs(formatHeapOpt)
	args = append(args, "-Dkafka.logs.dir="+n.dir,
		"kafka.tools.StorageTool", "format", "-t", c.ClusterID, "-c", n.cfg)
	if c.extra.DynamicQuorum {
		var initial []string
		for _, m := range c.nodes {
			initial = append(initial, fmt.Sprintf("%d@127.0.0.1:%d:%s", m.id, m.cport, m.dirID))
		}
		args = append(args, "--initial-controllers", strings.Join(initial, ","))
	}
	if c.Protocol == ProtoSASL {
		for _, mech := range []string{MechScram256, MechScram512} {
			for _, u := range []string{AdminUser, AliceUser} {
				args = append(args, "--add-scram", fmt.Sprintf(`%s=[name="%s",password="%s"]`, mech, u, c.Users[u]))
			}
		}
	}
	cmd := exec.Command(c.java, args...)
	out, err := os.Create(filepath.Join(n.dir, "format.log"))
	if err != nil {
		return fmt.Errorf("kafkatest: %w", err)
	}
	defer out.Close()
	cmd.Stdout, cmd.Stderr = out, out
	if err := startProcess(cmd); err != nil {
		return fmt.Errorf("kafkatest: format node %d: %w", n.id, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = signalGroup(cmd.Process.Pid, syscall.SIGKILL)
		<-done
		err = ctx.Err()
	}
	if err != nil {
		b, _ := os.ReadFile(filepath.Join(n.dir, "format.log"))
		return fmt.Errorf("kafkatest: format node %d: %v\n%s", n.id, err, tail(string(b), 30))
	}
	return nil
}

// launch starts node n's JVM (appending to its log) and a goroutine that
// records its exit.
func (c *Cluster) launch(n *node) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cmd != nil && !closed(n.done) {
		return fmt.Errorf("kafkatest: node %d is already running (pid %d)", n.id, n.cmd.Process.Pid)
	}
	out, err := os.OpenFile(n.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("kafkatest: %w", err)
	}
	fmt.Fprintf(out, "=== kafkatest: starting node %d at %s ===\n", n.id, time.Now().Format(time.RFC3339))
	args := c.jvmArgs(heapOpt)
	args = append(args, "-Dkafka.logs.dir="+n.dir, "kafka.Kafka", n.cfg)
	cmd := exec.Command(c.java, args...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := startProcess(cmd); err != nil {
		out.Close()
		return fmt.Errorf("kafkatest: start node %d: %w", n.id, err)
	}
	n.watchExit(cmd, out)
	return nil
}

// watchExit makes the started cmd n's process: done closes when it exits,
// with its exit error in waitErr and its log file out closed. The caller
// holds n.mu, or has n to itself (ZooKeeper at start).
func (n *node) watchExit(cmd *exec.Cmd, out *os.File) {
	done := make(chan struct{})
	n.cmd, n.done, n.waitErr = cmd, done, nil
	go func() {
		err := cmd.Wait()
		out.Close()
		n.mu.Lock()
		n.waitErr = err
		n.mu.Unlock()
		close(done)
	}()
}

func closed(ch chan struct{}) bool {
	if ch == nil {
		return true
	}
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
