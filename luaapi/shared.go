package luaapi

import (
	"strings"
	"sync"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

// SharedClient is a default-cluster connection that outlives a Runtime.
// The CLI's loop mode makes one per cluster and hands it to the fresh
// Runtime of every run (Options.Shared), so a script run every five
// minutes for a year keeps one Kafka connection (its metadata, its SASL
// session) rather than dialing anew each time. It connects on first use,
// like every client; a Runtime never closes it: Close does, once the
// last run is over. It is safe for concurrent use.
type SharedClient struct {
	cfg engine.Config

	mu     sync.Mutex
	client *engine.Client
	closed bool
}

// NewSharedClient makes a shared client for cfg; nothing is dialed yet.
func NewSharedClient(cfg engine.Config) *SharedClient { return &SharedClient{cfg: cfg} }

// Config is the configuration the client connects with.
func (s *SharedClient) Config() engine.Config { return s.cfg }

func (s *SharedClient) get() (*engine.Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, &engine.Error{Code: engine.CodeCanceled, Message: "client is closed"}
	}
	if s.client == nil {
		cl, err := engine.New(s.cfg)
		if err != nil {
			return nil, err
		}
		s.client = cl
	}
	return s.client, nil
}

// Close closes the connection; later calls fail with CANCELED.
func (s *SharedClient) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.client != nil {
		s.client.Close()
		s.client = nil
	}
	s.closed = true
}

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
