package kafkatest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
)

// Cluster modes (KADMIN_KAFKA_MODE).
const (
	ModeKRaft     = "kraft"
	ModeZooKeeper = "zookeeper"
)

// EnvMode set to "zookeeper" runs the brokers in ZooKeeper mode, with a
// ZooKeeper the harness starts from the jars of Kafka's own dependency tree
// (Kafka 3.x only: 4.0 removed ZooKeeper mode). Default "kraft".
const EnvMode = "KADMIN_KAFKA_MODE"

// Mode returns the cluster mode the harness uses.
func Mode() string {
	if m := strings.ToLower(strings.TrimSpace(os.Getenv(EnvMode))); m != "" {
		return m
	}
	return ModeKRaft
}

func checkMode(mode, version string) error {
	switch mode {
	case ModeKRaft:
		return nil
	case ModeZooKeeper:
		if !strings.HasPrefix(version, "3.") {
			return fmt.Errorf("kafkatest: %s=%s: Kafka %s has no ZooKeeper mode (removed in 4.0)", EnvMode, mode, version)
		}
		return nil
	}
	return fmt.Errorf("kafkatest: %s=%q: want %s or %s", EnvMode, mode, ModeKRaft, ModeZooKeeper)
}

// ZooKeeper reports whether the cluster runs in ZooKeeper mode.
func (c *Cluster) ZooKeeper() bool { return c.Mode == ModeZooKeeper }

// startZooKeeper starts a standalone ZooKeeper (ZooKeeperServerMain, from
// the zookeeper jar Kafka 3.x depends on) on c.zk's port and waits until
// it accepts connections.
func (c *Cluster) startZooKeeper(ctx context.Context) error {
	n := c.zk
	if err := os.MkdirAll(filepath.Join(n.dir, "data"), 0o755); err != nil {
		return fmt.Errorf("kafkatest: %w", err)
	}
	out, err := os.OpenFile(n.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("kafkatest: %w", err)
	}
	args := append(c.jvmArgs("-Xmx128m"), "-Dzookeeper.admin.enableServer=false",
		"org.apache.zookeeper.server.ZooKeeperServerMain", strconv.Itoa(n.port), filepath.Join(n.dir, "data"))
	cmd := exec.Command(c.java, args...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := startProcess(cmd); err != nil {
		out.Close()
		return fmt.Errorf("kafkatest: start ZooKeeper: %w", err)
	}
	n.watchExit(cmd, out)
	for {
		conn, err := net.DialTimeout("tcp", n.addr(), time.Second)
		if err == nil {
			conn.Close()
			return nil
		}
		if closed(n.done) {
			b, _ := os.ReadFile(n.log)
			return fmt.Errorf("kafkatest: ZooKeeper exited at start:\n%s", tail(string(b), 30))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("kafkatest: ZooKeeper not listening on %s: %w", n.addr(), ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// stopZooKeeper kills ZooKeeper (after the brokers) and waits for it.
func (c *Cluster) stopZooKeeper() error {
	n := c.zk
	if n == nil || n.cmd == nil || closed(n.done) {
		return nil
	}
	_ = signalGroup(n.cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-n.done:
		return nil
	case <-time.After(30 * time.Second):
		return fmt.Errorf("kafkatest: ZooKeeper (pid %d) did not exit after SIGKILL", n.cmd.Process.Pid)
	}
}

// zooKeeperProperties turns KRaft server properties into ZooKeeper-mode
// ones: broker.id and zookeeper.connect instead of the KRaft roles, quorum
// and controller listener, and the ZooKeeper-backed AclAuthorizer.
func (c *Cluster) zooKeeperProperties(n *node, props [][2]string) [][2]string {
	out := [][2]string{{"broker.id", strconv.Itoa(int(n.id))}, {"zookeeper.connect", c.zk.addr()},
		{"zookeeper.connection.timeout.ms", "30000"}}
	for _, kv := range props {
		switch kv[0] {
		case "process.roles", "node.id", "controller.quorum.voters", "controller.listener.names",
			"broker.heartbeat.interval.ms", "broker.session.timeout.ms":
			continue
		case "listeners", "listener.security.protocol.map":
			var keep []string
			for _, l := range strings.Split(kv[1], ",") {
				if !strings.HasPrefix(l, "CONTROLLER:") {
					keep = append(keep, l)
				}
			}
			kv[1] = strings.Join(keep, ",")
		case "authorizer.class.name":
			kv[1] = "kafka.security.authorizer.AclAuthorizer"
		}
		out = append(out, kv)
	}
	return out
}

// addSCRAMUsers gives a ZooKeeper-mode SASL cluster the SCRAM credentials
// a KRaft one gets at format time (--add-scram), through
// AlterUserScramCredentials as the PLAIN admin.
func (c *Cluster) addSCRAMUsers(ctx context.Context) error {
	adm, err := c.Admin()
	if err != nil {
		return err
	}
	defer adm.Close()
	var ups []kadm.UpsertSCRAM
	for _, mech := range []kadm.ScramMechanism{kadm.ScramSha256, kadm.ScramSha512} {
		for _, u := range []string{AdminUser, AliceUser} {
			ups = append(ups, kadm.UpsertSCRAM{User: u, Mechanism: mech, Iterations: 4096, Password: c.Users[u]})
		}
	}
	res, err := adm.AlterUserSCRAMs(ctx, nil, ups)
	if err == nil {
		err = res.Error()
	}
	if err != nil {
		return fmt.Errorf("kafkatest: add SCRAM users: %w", err)
	}
	return nil
}
