package engine

import (
	"io"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kadmin-lua/kadmin-lua/engine/alerts"
	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/engine/login"
	"github.com/kadmin-lua/kadmin-lua/engine/schemas"
	"github.com/kadmin-lua/kadmin-lua/engine/state"
)

// DefaultTimeout bounds every call unless Config.Timeout says otherwise.
const DefaultTimeout = 30 * time.Second

// Config says how to reach and log in to a cluster.
type Config struct {
	Brokers  []string          // seed brokers, host:port
	ClientID string            // defaults to "kadmin-lua"
	Timeout  time.Duration     // per call; DefaultTimeout when zero
	TLS      *login.TLSConfig  // nil: plaintext
	SASL     *login.SASLConfig // nil: no authentication
	// Verbose, when set, receives one line per connection attempt and per
	// request sent or answered (names, sizes, times; never contents).
	Verbose io.Writer
	Profile string // the profile these settings came from, if any (for the audit log)

	// Audit and DryRun are the client's safety settings. They are part of
	// its configuration, not set on it afterwards, so that no client (the
	// default one, loop mode's and a fleet's shared ones, kafka.connect's,
	// undo's, a Go caller's) exists without them: every mutation goes
	// through mutate (mutate.go), which reads them.
	//
	// Audit is where every mutation is written ahead: an intent line
	// synced before the request, an outcome line after. nil writes none.
	Audit *auditlog.Log
	// DryRun: the client sends nothing that changes the cluster. mutate
	// refuses every mutating request but a validate_only one with
	// DRY_RUN. A call may raise it (WithDryRun) and never lower it.
	DryRun bool

	// Notices is where kafka.notify remembers what it last sent for each
	// alert, so that an open alert is sent once, again after its repeat
	// interval, and once when it resolves (engine/alerts). The state store
	// (--state) implements it: nil takes State's (engine/state), or
	// without a State an in-memory ledger for the client's life.
	Notices alerts.Ledger

	// State is the store lag_status keeps its samples in between calls
	// and runs (--state FILE; in memory without it), shared by every
	// client of the process: each cluster's samples are kept apart by
	// cluster id. nil: the client keeps its own, in memory.
	State *state.Store

	// Decompress bounds what reading records (peek, lag in time)
	// decompresses, whatever memory the process may use
	// (decompress.go); zero values take the defaults.
	Decompress DecompressLimits

	// Registry is the cluster's Schema Registry (engine/schemas), with
	// credentials of its own that go to it alone; nil: none. Its
	// requests take Timeout unless it sets its own.
	Registry *schemas.Config
}

// HasCredentials reports whether the config logs in (SASL or a TLS client
// certificate).
func (c Config) HasCredentials() bool {
	return c.SASL != nil || (c.TLS != nil && (c.TLS.CertFile != "" || c.TLS.KeyFile != "" || c.TLS.KeyStore != nil))
}

// WithoutCredentials returns the config with no SASL and no TLS client
// certificate; TLS verification settings, client id, timeout and the
// verbose writer stay.
func (c Config) WithoutCredentials() Config {
	c.SASL = nil
	if c.TLS != nil {
		t := *c.TLS
		t.CertFile, t.KeyFile, t.KeyStore = "", "", nil
		c.TLS = &t
	}
	return c
}

func (c Config) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

// kgoOpts turns the config into franz-go client options.
func (c Config) kgoOpts() ([]kgo.Opt, error) {
	if len(c.Brokers) == 0 {
		return nil, Errorf(CodeInvalidArgument, "", "no brokers: pass -b host:port, set KADMIN_BROKERS, or use a profile")
	}
	id := c.ClientID
	if id == "" {
		id = "kadmin-lua"
	}
	opts := []kgo.Opt{
		kgo.SeedBrokers(c.Brokers...),
		kgo.ClientID(id),
		// KIP-714 client metrics are for long-lived producers and
		// consumers: for an admin run they only add a subscription
		// request and a push, on connections of their own, at exit
		// (docs/decisions.md).
		kgo.DisableClientMetrics(),
		// Admin reads must see the writes made just before them: keep kgo's
		// metadata cache (used to route sharded requests) nearly fresh.
		kgo.MetadataMinAge(100 * time.Millisecond),
		kgo.MetadataMaxAge(10 * time.Second),
		kgo.DialTimeout(5 * time.Second),
		// The call's context deadline is the real bound; kgo's own retries
		// stop when it ends.
		kgo.RequestRetries(1 << 20),
		kgo.RetryTimeout(c.timeout()),
	}
	if c.TLS != nil {
		tc, err := c.TLS.Build()
		if err != nil {
			return nil, err
		}
		opts = append(opts, kgo.DialTLSConfig(tc))
	}
	if c.SASL != nil {
		m, err := c.SASL.Build()
		if err != nil {
			return nil, err
		}
		opts = append(opts, kgo.SASL(m))
	}
	return opts, nil
}
