package kafkatest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// A started cluster's nodes: where they listen, their processes, and
// stopping, killing and restarting them.

func (c *Cluster) node(id int32) (*node, error) {
	for _, n := range c.nodes {
		if n.id == id {
			return n, nil
		}
	}
	return nil, fmt.Errorf("kafkatest: no node %d (have %v)", id, c.NodeIDs())
}

// controllers are the nodes of the controller quorum (all but the brokers
// only).
func (c *Cluster) controllers() []*node {
	var out []*node
	for _, n := range c.nodes {
		if !n.brokerOnly {
			out = append(out, n)
		}
	}
	return out
}

// NodeIDs returns the node ids (1..Size).
func (c *Cluster) NodeIDs() []int32 {
	ids := make([]int32, len(c.nodes))
	for i, n := range c.nodes {
		ids[i] = n.id
	}
	return ids
}

// Brokers returns the client listener address (127.0.0.1:port) of every node,
// running or not.
func (c *Cluster) Brokers() []string {
	addrs := make([]string, len(c.nodes))
	for i, n := range c.nodes {
		addrs[i] = n.addr()
	}
	return addrs
}

// Bootstrap returns Brokers joined with commas, for CLI flags and configs.
func (c *Cluster) Bootstrap() string { return strings.Join(c.Brokers(), ",") }

// Addr returns node id's client listener address.
func (c *Cluster) Addr(id int32) string {
	n, err := c.node(id)
	if err != nil {
		return ""
	}
	return n.addr()
}

// PID returns the pid of node id's JVM, or 0 if it is not running.
func (c *Cluster) PID(id int32) int {
	n, err := c.node(id)
	if err != nil {
		return 0
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cmd == nil || closed(n.done) {
		return 0
	}
	return n.cmd.Process.Pid
}

// Banner names the broker for CI logs, e.g. "Apache Kafka 4.1.2 3-node PLAINTEXT".
func (c *Cluster) Banner() string {
	s := fmt.Sprintf("Apache Kafka %s %d-node %s", c.Version, c.Size, c.Protocol)
	if len(c.Mechanisms) > 0 {
		s += " (" + strings.Join(c.Mechanisms, ", ") + ")"
	}
	s += " at " + c.Bootstrap()
	if c.ZooKeeper() {
		s += " (ZooKeeper mode)"
	}
	return s
}

// LogTail returns the last n lines of node id's broker log.
func (c *Cluster) LogTail(id int32, lines int) string {
	n, err := c.node(id)
	if err != nil {
		return err.Error()
	}
	b, err := os.ReadFile(n.log)
	if err != nil {
		return err.Error()
	}
	return tail(string(b), lines)
}

// KillNode kills node id's JVM with SIGKILL and waits for it to exit.
// Killing a node that is not running is not an error.
func (c *Cluster) KillNode(id int32) error {
	return c.signal(context.Background(), id, syscall.SIGKILL)
}

// StopNode stops node id with SIGTERM (a controlled shutdown) and waits for
// it to exit; if ctx ends first the node is killed with SIGKILL.
func (c *Cluster) StopNode(ctx context.Context, id int32) error {
	return c.signal(ctx, id, syscall.SIGTERM)
}

func (c *Cluster) signal(ctx context.Context, id int32, sig syscall.Signal) error {
	n, err := c.node(id)
	if err != nil {
		return err
	}
	n.mu.Lock()
	cmd, done := n.cmd, n.done
	n.mu.Unlock()
	if cmd == nil || closed(done) {
		return nil
	}
	if err := signalGroup(cmd.Process.Pid, sig); err != nil && !closed(done) {
		return fmt.Errorf("kafkatest: signal node %d: %w", id, err)
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	_ = signalGroup(cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-done:
		return nil
	case <-time.After(30 * time.Second):
		return fmt.Errorf("kafkatest: node %d (pid %d) did not exit after SIGKILL", id, cmd.Process.Pid)
	}
}

// StartNode restarts a stopped or killed node with its old config and data,
// and waits until it is registered with the cluster again.
func (c *Cluster) StartNode(ctx context.Context, id int32) error {
	n, err := c.node(id)
	if err != nil {
		return err
	}
	if err := c.launch(n); err != nil {
		return err
	}
	return c.WaitBrokers(ctx, id)
}

// WaitBrokers polls Metadata until every broker in ids is listed (registered
// and unfenced). It fails early, with the tail of the node's log, if one of
// those nodes' JVMs exits.
func (c *Cluster) WaitBrokers(ctx context.Context, ids ...int32) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultStartTimeout)
		defer cancel()
	}
	cl, err := c.Client(kgo.DialTimeout(2 * time.Second))
	if err != nil {
		return err
	}
	defer cl.Close()
	var last error
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		for _, id := range ids {
			n, err := c.node(id)
			if err != nil {
				return err
			}
			n.mu.Lock()
			done, werr := n.done, n.waitErr
			n.mu.Unlock()
			if closed(done) {
				return fmt.Errorf("kafkatest: node %d exited (%v) while waiting for it; last log lines:\n%s",
					id, werr, c.LogTail(id, 40))
			}
		}
		rctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		last = everyBrokerSees(rctx, cl, ids)
		cancel()
		if last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			var tails strings.Builder
			for _, id := range ids {
				fmt.Fprintf(&tails, "--- node %d log tail ---\n%s\n", id, c.LogTail(id, 20))
			}
			return fmt.Errorf("kafkatest: brokers %v not ready: %v (last: %v)\n%s", ids, ctx.Err(), last, tails.String())
		case <-tick.C:
		}
	}
}

// LiveBrokers returns the sorted ids of the brokers the cluster currently
// lists in Metadata (registered and not fenced), asking a broker afresh.
//
// Beware when writing such checks yourself: kadm (v1.20) Metadata and
// BrokerMetadata answer the broker list from the kgo client's cache, which
// is refreshed only every MetadataMaxAge (5 minutes by default), so a killed
// broker stays listed there. A raw kmsg.MetadataRequest is always sent.
func (c *Cluster) LiveBrokers(ctx context.Context) ([]int32, error) {
	cl, err := c.Client(kgo.DialTimeout(2 * time.Second))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	return liveBrokers(ctx, cl)
}

// everyBrokerSees is nil once the cluster lists ids as live and each of
// them, asked itself, does too. A KRaft broker learns of the others from
// its own copy of the metadata log, so right after a start (or a restart)
// one broker may list all three while another does not list itself yet:
// a request routed by that broker's view (kgo picks any broker for
// Metadata) would then find no broker 2.
func everyBrokerSees(ctx context.Context, cl *kgo.Client, ids []int32) error {
	have, err := liveBrokers(ctx, cl)
	if err != nil {
		return err
	}
	if missing := slices.DeleteFunc(slices.Clone(ids), func(id int32) bool { return slices.Contains(have, id) }); len(missing) > 0 {
		return fmt.Errorf("brokers %v registered, waiting for %v", have, missing)
	}
	for _, id := range ids {
		seen, err := liveBrokers(ctx, cl.Broker(int(id)))
		if err != nil {
			return fmt.Errorf("broker %d: %w", id, err)
		}
		if missing := slices.DeleteFunc(slices.Clone(ids), func(id int32) bool { return slices.Contains(seen, id) }); len(missing) > 0 {
			return fmt.Errorf("broker %d lists %v, not yet %v", id, seen, missing)
		}
	}
	return nil
}

func liveBrokers(ctx context.Context, cl kmsg.Requestor) ([]int32, error) {
	req := kmsg.NewPtrMetadataRequest()
	req.Topics = []kmsg.MetadataRequestTopic{} // brokers only
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return nil, err
	}
	ids := make([]int32, 0, len(resp.Brokers))
	for _, b := range resp.Brokers {
		ids = append(ids, b.NodeID)
	}
	slices.Sort(ids)
	return ids, nil
}

// Close kills every JVM of the cluster (SIGKILL, by pid/process group),
// waits for them and removes Dir (unless KADMIN_KAFKA_KEEP=1). It is safe to
// call more than once.
func (c *Cluster) Close() error {
	c.closeOnce.Do(func() {
		var errs []error
		for _, n := range c.nodes {
			if err := c.KillNode(n.id); err != nil {
				errs = append(errs, err)
			}
		}
		if err := c.stopZooKeeper(); err != nil {
			errs = append(errs, err)
		}
		if os.Getenv(EnvKeep) == "1" {
			_ = os.Remove(filepath.Join(c.Dir, ownerFile)) // keep it from sweepStale too
			fmt.Fprintf(os.Stderr, "kafkatest: keeping %s\n", c.Dir)
		} else if err := os.RemoveAll(c.Dir); err != nil {
			errs = append(errs, err)
		}
		c.closeErr = errors.Join(errs...)
	})
	return c.closeErr
}
