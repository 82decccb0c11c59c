package kafkatest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
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
// broker+controller, but StartFour's fourth, a broker only) running as
// child JVMs on 127.0.0.1.
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
	tieredJar  string // Extra.TieredStorage's jar (tiered.go)
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
	brokerOnly  bool   // process.roles=broker: not a controller (nodes past the third)
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

// StartFour starts four nodes like StartThree, but node 4 is a broker only
// (nodes 1, 2 and 3 are also the controller quorum): enough brokers to
// drain one and still hold replication factor 3. It returns once all four
// brokers are in the metadata. The caller must Close the cluster.
func StartFour(ctx context.Context) (*Cluster, error) {
	return start(ctx, 4, false, Extra{})
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
	var tieredJar string
	if x.TieredStorage {
		if tieredJar, err = TieredStorageJar(); err != nil {
			return nil, err
		}
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultStartTimeout)
		defer cancel()
	}
	// A port picked as free can be taken before the JVM binds it; retry
	// with fresh ports in that case.
	for attempt := 1; ; attempt++ {
		c, err := startOnce(ctx, java, jars, tieredJar, size, sasl, x)
		if err == nil {
			return c, nil
		}
		if attempt >= 3 || !strings.Contains(err.Error(), "Address already in use") || ctx.Err() != nil {
			return nil, err
		}
	}
}

func startOnce(ctx context.Context, java, jars, tieredJar string, size int, sasl bool, x Extra) (_ *Cluster, err error) {
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
		tieredJar: tieredJar,
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
		// At most three controllers: a fourth voter would only slow the
		// quorum down, and a majority of four is still three.
		n := &node{id: int32(i + 1), port: ports[perNode*i], cport: ports[perNode*i+1], brokerOnly: i >= 3}
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

func (c *Cluster) format(ctx context.Context, n *node) error {
	args := c.jvmArgs(formatHeapOpt)
	args = append(args, "-Dkafka.logs.dir="+n.dir,
		"kafka.tools.StorageTool", "format", "-t", c.ClusterID, "-c", n.cfg)
	switch {
	case c.extra.DynamicQuorum && n.brokerOnly:
		args = append(args, "--no-initial-controllers")
	case c.extra.DynamicQuorum:
		var initial []string
		for _, m := range c.controllers() {
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
