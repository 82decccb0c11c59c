package luaapi

import (
	"strings"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

// SharedClient is a default-cluster connection that outlives a Runtime.
// The CLI's loop mode makes one per cluster and hands it to the fresh
// Runtime of every run (Options.Shared), so a script run every five
// minutes for a year keeps one Kafka connection (its metadata, its SASL
// session) rather than dialing anew each time. It connects on first use,
// like every client; a Runtime never closes it: Close does, once the
// last run is over. It is safe for concurrent use.
type SharedClient struct{ conn connection }

// NewSharedClient makes a shared client for cfg, whose Audit and DryRun
// every runtime using it takes as its own; nothing is dialed yet.
func NewSharedClient(cfg engine.Config) *SharedClient {
	return &SharedClient{conn: connection{cfg: cfg}}
}

// Config is the configuration the client connects with.
func (s *SharedClient) Config() engine.Config { return s.conn.cfg }

// Close closes the connection; later calls fail with CANCELED.
func (s *SharedClient) Close() { s.conn.close() }

// label names a client's cluster in dry-run plan lines: its profile when
// it came from one, else its first seed broker ("kafka-1:9092,..." when
// there are more).
func (h *clientHandle) label() string {
	switch {
	case h.cluster != "":
		return h.cluster
	case len(h.cfg.Brokers) > 1:
		return h.cfg.Brokers[0] + ",..."
	}
	return strings.Join(h.cfg.Brokers, ",")
}
