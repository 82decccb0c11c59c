package engine

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kadmin-lua/kadmin-lua/engine/alerts"
	"github.com/kadmin-lua/kadmin-lua/engine/schemas"
	"github.com/kadmin-lua/kadmin-lua/engine/state"
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
	// localState holds lag_status's samples when Config.State is nil.
	localState     *state.Store
	localStateOnce sync.Once
	// caps is what one broker's ApiVersions said the cluster can do
	// (needs.go), asked once.
	caps atomic.Pointer[Capabilities]

	closeOnce sync.Once

	notifyOnce sync.Once // notifier: made on first use (notify.go, engine/alerts)
	notifier   *alerts.Notifier

	probers probers // probe's producer and consumer, kept between probes (probe.go)

	registryOnce sync.Once // the Schema Registry client: made on first use (schemas.go)
	registry     *schemas.Registry
	registryErr  error
}

// New builds a client from cfg.
func New(cfg Config) (*Client, error) {
	opts, err := cfg.kgoOpts()
	if err != nil {
		return nil, err
	}
	ct := newContact(cfg.Brokers, cfg.Verbose)
	if cfg.SASL != nil {
		ct.mech = strings.ToUpper(cfg.SASL.Mechanism)
	}
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
func (c *Client) Close() {
	c.closeOnce.Do(func() {
		c.probers.close()
		c.kgo.Close()
		c.contact.close()
	})
}

// callCtx bounds one call by the configured timeout (or a shorter deadline
// already on ctx). The call also ends, with a NETWORK error, as soon as it
// is clear that no seed broker can be reached at first contact (first_contact.go).
func (c *Client) callCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return c.contact.begin(ctx, c.cfg.timeout())
}

// CallContext bounds work that drives the client for one caller's call
// (desired state's plan, an apply's wait) as callCtx bounds one call: by
// the configured timeout, ended when no seed broker can be reached.
func (c *Client) CallContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return c.callCtx(ctx)
}
