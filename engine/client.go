package engine

import (
	"context"
	"sync"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Client is a connection to one cluster. It is safe for concurrent use.
// Creating it does not dial: the first call does.
type Client struct {
	cfg Config
	kgo *kgo.Client
	adm *kadm.Client
	aud auditor // where mutations are written ahead (mutate.go)

	closeOnce sync.Once
}

// New builds a client from cfg.
func New(cfg Config) (*Client, error) {
	opts, err := cfg.kgoOpts()
	if err != nil {
		return nil, err
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, AsError(err, "")
	}
	adm := kadm.NewClient(cl)
	adm.SetTimeoutMillis(int32(cfg.timeout().Milliseconds()))
	return &Client{cfg: cfg, kgo: cl, adm: adm}, nil
}

// Config returns the configuration the client was built from.
func (c *Client) Config() Config { return c.cfg }

// Close closes the connections. It is safe to call more than once.
func (c *Client) Close() { c.closeOnce.Do(c.kgo.Close) }

// callCtx bounds one call by the configured timeout (or a shorter deadline
// already on ctx).
func (c *Client) callCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, c.cfg.timeout())
}
