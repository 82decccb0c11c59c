package engine

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Client is a connection to one cluster. It is safe for concurrent use.
// Creating it does not dial: the first call does.
type Client struct {
	cfg     Config
	kgo     *kgo.Client
	adm     *kadm.Client
	contact *contact
	aud     auditor // the cluster id of its audit lines (mutate.go)
	// groupAPIs is what ApiVersions said about group types (groups.go).
	groupAPIs atomic.Int32

	closeOnce sync.Once
}

// New builds a client from cfg.
func New(cfg Config) (*Client, error) {
	opts, err := cfg.kgoOpts()
	if err != nil {
		return nil, err
	}
	ct := newContact(cfg.Brokers, cfg.Verbose)
	cl, err := kgo.NewClient(append(opts, kgo.WithHooks(ct))...)
	if err != nil {
		return nil, AsError(err, "")
	}
	adm := kadm.NewClient(cl)
	adm.SetTimeoutMillis(int32(cfg.timeout().Milliseconds()))
	return &Client{cfg: cfg, kgo: cl, adm: adm, contact: ct}, nil
}

// Config returns the configuration the client was built from.
func (c *Client) Config() Config { return c.cfg }

// Close closes the connections. It is safe to call more than once.
func (c *Client) Close() { c.closeOnce.Do(c.kgo.Close) }

// callCtx bounds one call by the configured timeout (or a shorter deadline
// already on ctx). The call also ends, with a NETWORK error, as soon as it
// is clear that no seed broker can be reached at first contact (first_contact.go).
func (c *Client) callCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return c.contact.begin(ctx, c.cfg.timeout())
}
