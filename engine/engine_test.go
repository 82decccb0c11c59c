package engine

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine/login"
)

// The engine is a Go library of its own: these tests use it without Lua.

func newTestClient(t *testing.T, opts ...kfake.Opt) (*Client, *kfake.Cluster, *kadm.Client) {
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(3)}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	cl, err := New(Config{Brokers: c.ListenAddrs(), Timeout: 5 * time.Second})
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	kc, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	require.NoError(t, err)
	t.Cleanup(kc.Close)
	return cl, c, kadm.NewClient(kc)
}

// freshTopics lists topics through a brand-new client: a kgo client that
// listed before can answer from a merge with its cache and still show a
// topic deleted since (see metadata.go).
func freshTopics(t *testing.T, c *kfake.Cluster) kadm.TopicDetails {
	kc, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	require.NoError(t, err)
	defer kc.Close()
	td, err := kadm.NewClient(kc).ListTopics(context.Background())
	require.NoError(t, err)
	return td
}

func TestEngineCreateDescribeDelete(t *testing.T) {
	cl, c, adm := newTestClient(t)
	ctx := context.Background()
	res, err := cl.CreateTopics(ctx, []TopicSpec{{Name: "b", Partitions: 2}, {Name: "a", Partitions: 1, Configs: map[string]string{"retention.ms": "1000"}}}, CreateTopicsOptions{})
	require.NoError(t, err)
	require.Len(t, res, 2)
	assert.Equal(t, "a", res[0].Name, "results are sorted by name")
	first, failed := FirstFailure(res)
	assert.Nil(t, first)
	assert.Zero(t, failed)

	td, err := adm.ListTopics(ctx)
	require.NoError(t, err)
	assert.Len(t, td["b"].Partitions, 2)

	desc, err := cl.DescribeTopics(ctx, []string{"b", "missing"})
	require.NoError(t, err)
	require.Len(t, desc, 2)
	assert.Len(t, desc[0].Partitions, 2)
	require.NotNil(t, desc[1].Err)
	assert.Equal(t, "UNKNOWN_TOPIC_OR_PARTITION", desc[1].Err.Code)
	assert.False(t, desc[1].Err.Retriable, "a missing topic is final for an admin")

	del, err := cl.DeleteTopics(ctx, []string{"a", "nope"}, DeleteTopicsOptions{IfExists: true})
	require.NoError(t, err)
	assert.Nil(t, del[0].Err, "%+v", del)
	assert.True(t, del[1].Missing)
	assert.NotContains(t, freshTopics(t, c), "a")
}

func TestEngineDeadlineBoundsRetries(t *testing.T) {
	cl, c, _ := newTestClient(t)
	h := c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.CreateTopics}, Err: kerr.NotController, Count: -1})
	defer h.Remove()
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	res, err := cl.CreateTopics(ctx, []TopicSpec{{Name: "never"}}, CreateTopicsOptions{})
	require.NoError(t, err)
	require.NotNil(t, res[0].Err)
	assert.Equal(t, CodeTimeout, res[0].Err.Code)
	// kgo itself retries NOT_CONTROLLER inside a request, so whether an
	// answer reached the engine before the deadline depends on timing;
	// when one did, the TIMEOUT names it (TestRetryItemsTimeoutNamesLastError).
	assert.Greater(t, h.Hits(), 1, "retried before giving up")
}

func TestEngineUnreachableBrokerIsNetworkOrTimeout(t *testing.T) {
	cl, err := New(Config{Brokers: []string{"127.0.0.1:1"}, Timeout: 500 * time.Millisecond})
	require.NoError(t, err)
	defer cl.Close()
	_, err = cl.ListTopics(context.Background(), ListTopicsOptions{})
	var e *Error
	require.True(t, errors.As(err, &e), "%T %v", err, err)
	assert.Contains(t, []string{CodeTimeout, CodeNetwork}, e.Code)
}

func TestSecretNeverPrints(t *testing.T) {
	s := Secret("hunter2")
	cfg := login.SASLConfig{Mechanism: "PLAIN", Username: "u", Password: s}
	for _, out := range []string{s.String(), fmtAll(cfg), fmtAll(&cfg)} {
		assert.NotContains(t, out, "hunter2")
	}
	assert.Equal(t, "hunter2", s.Reveal())
}

func TestAsErrorCodes(t *testing.T) {
	assert.Equal(t, "TOPIC_ALREADY_EXISTS", AsError(kerr.TopicAlreadyExists, "t").Code)
	assert.True(t, AsError(kerr.NotController, "").Retriable)
	assert.Equal(t, CodeTimeout, AsError(context.DeadlineExceeded, "").Code)
	assert.Equal(t, CodeCanceled, AsError(context.Canceled, "").Code)
	e := AsError(kerr.SaslAuthenticationFailed, "")
	assert.Contains(t, e.Message, "authentication failed")
	assert.Equal(t, "t: TOPIC_ALREADY_EXISTS: x", (&Error{Code: "TOPIC_ALREADY_EXISTS", Message: "x", Resource: "t"}).Error())
	// A file's errno is a net.Error too; a file error is not the network's.
	_, ferr := os.Open(filepath.Join(t.TempDir(), "none", "file"))
	fe := AsError(fmt.Errorf("locking: %w", ferr), "")
	assert.Equal(t, CodeUnknown, fe.Code)
	assert.False(t, fe.Retriable)
	_, nerr := net.Dial("tcp", closedAddr(t))
	assert.Equal(t, CodeNetwork, AsError(nerr, "").Code, "a dial's error still is")
}

// The vocabulary spells out the names of a refused login so that it imports
// no Kafka package; they must be the names AsError gives.
func TestAuthFailureCodesAreKafkaNames(t *testing.T) {
	for _, ke := range []*kerr.Error{kerr.SaslAuthenticationFailed, kerr.IllegalSaslState, kerr.UnsupportedSaslMechanism} {
		assert.True(t, AsError(ke, "").IsAuthFailure(), ErrorName(ke))
	}
	assert.False(t, AsError(kerr.TopicAuthorizationFailed, "").IsAuthFailure())
}

func TestTLSErrorsAreFinal(t *testing.T) {
	for _, err := range []error{
		fmt.Errorf("unable to dial: %w", &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}),
		fmt.Errorf("unable to dial: %w", tls.AlertError(42)),
	} {
		e := AsError(err, "")
		assert.Equal(t, CodeTLS, e.Code, err.Error())
		assert.False(t, e.Retriable, "a rejected certificate is rejected again: no retry until the deadline")
	}
}

func TestRetryItemsTimeoutNamesLastError(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	calls := 0
	got := retryItems(ctx, []string{"a"}, func(k string) string { return k }, func(ctx context.Context, keys []string) (map[string]*Error, error) {
		calls++
		if calls == 1 {
			return map[string]*Error{"a": {Code: "NOT_CONTROLLER", Retriable: true}}, nil
		}
		<-ctx.Done() // the next attempt is cut by the deadline
		return nil, ctx.Err()
	})
	require.NotNil(t, got["a"])
	assert.Equal(t, CodeTimeout, got["a"].Code)
	assert.Contains(t, got["a"].Message, "last error: NOT_CONTROLLER")
}
