package luaapi

import (
	"sync"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

// connection is the one way luaapi connects to a cluster: on first use,
// from an engine configuration that carries the audit log and the dry-run
// floor (engine.Config.Audit, .DryRun), so no client exists without them.
// clientHandle (the default client and kafka.connect's) and SharedClient
// (loop mode's and a fleet's, kept across runtimes) both hold one.
type connection struct {
	cfg engine.Config

	mu     sync.Mutex
	client *engine.Client
	closed bool
}

func (c *connection) get() (*engine.Client, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, &engine.Error{Code: engine.CodeCanceled, Message: "client is closed"}
	}
	if c.client == nil {
		cl, err := engine.New(c.cfg)
		if err != nil {
			return nil, err
		}
		c.client = cl
	}
	return c.client, nil
}

// close closes the connection; later calls fail with CANCELED.
func (c *connection) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.client != nil {
		c.client.Close()
		c.client = nil
	}
	c.closed = true
}
