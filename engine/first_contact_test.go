package engine

import (
	"context"
	"errors"
	"io"
	"math"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine/login"
)

// lockedBuffer is a strings.Builder the client's hooks may write to from
// several goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// closedAddr is a local address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

func asEngineError(t *testing.T, err error) *Error {
	t.Helper()
	var e *Error
	require.True(t, errors.As(err, &e), "%T %v", err, err)
	return e
}

func TestNoSeedAnswersFailsFast(t *testing.T) {
	a, b := closedAddr(t), closedAddr(t)
	cl, err := New(Config{Brokers: []string{a, b}, Timeout: 30 * time.Second})
	require.NoError(t, err)
	defer cl.Close()

	// A read (the engine's own metadata request, seed by seed) and a
	// mutation (kadm through kgo's controller lookup, which rotates seeds
	// itself) both end at once, naming each seed.
	began := time.Now()
	_, err = cl.ListTopics(context.Background(), ListTopicsOptions{})
	e := asEngineError(t, err)
	assert.Less(t, time.Since(began), 5*time.Second)
	assert.Equal(t, CodeNetwork, e.Code)
	assert.False(t, e.Retriable)
	assert.Equal(t, "no seed broker can be reached: "+a+": connection refused; "+b+": connection refused", e.Message)

	began = time.Now()
	res, err := cl.CreateTopics(context.Background(), []TopicSpec{{Name: "t"}}, CreateTopicsOptions{})
	assert.Less(t, time.Since(began), 5*time.Second)
	if err == nil {
		require.Len(t, res, 1)
		err = res[0].Err
	}
	e = asEngineError(t, err)
	assert.Equal(t, CodeNetwork, e.Code)
	assert.Contains(t, e.Message, a+": connection refused")
}

func TestRetriesUntilTheDeadlineOnceTheClusterAnswered(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	require.NoError(t, err)
	// 4 s: under a loaded -race run a 1.5 s call once ended before its
	// first redial had failed, with no last error to name.
	cl, err := New(Config{Brokers: c.ListenAddrs(), Timeout: 4 * time.Second})
	require.NoError(t, err)
	defer cl.Close()
	_, err = cl.ListTopics(context.Background(), ListTopicsOptions{})
	require.NoError(t, err)

	// The broker goes away: refused from now on, as when it restarts.
	// kfake's Close closes its listener at once but its open connections
	// only as its goroutines get to it, and one request sent in between
	// was once answered (CI, -race). Every request it still takes now
	// fails and closes its connection, so none can be answered.
	c.Control(func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		return nil, errors.New("the broker is going away"), true
	})
	c.Close()
	began := time.Now()
	_, err = cl.ListTopics(context.Background(), ListTopicsOptions{})
	took := time.Since(began)
	e := asEngineError(t, err)
	assert.Equal(t, CodeTimeout, e.Code, e.Error())
	assert.Contains(t, e.Message, "last error: NETWORK")
	assert.GreaterOrEqual(t, took, 3900*time.Millisecond, "kept retrying until the timeout")
}

func TestAnsweringSeedIsNotUnreachable(t *testing.T) {
	// One dead seed and one live one: the calls succeed through the live
	// one, even when the dead one is dialed first.
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	require.NoError(t, err)
	defer c.Close()
	dead := closedAddr(t)
	var out lockedBuffer
	cl, err := New(Config{Brokers: []string{dead, c.ListenAddrs()[0]}, Timeout: 10 * time.Second, Verbose: &out})
	require.NoError(t, err)
	defer cl.Close()
	_, err = cl.ListTopics(context.Background(), ListTopicsOptions{})
	require.NoError(t, err)
	assert.Contains(t, out.String(), "connect seed "+dead+": failed", "the engine's metadata request tries the seeds in order")
	res, err := cl.CreateTopics(context.Background(), []TopicSpec{{Name: "a"}}, CreateTopicsOptions{})
	require.NoError(t, err)
	assert.Nil(t, res[0].Err)
}

func TestVerboseShowsConnectionsAndRequestsNeverSecrets(t *testing.T) {
	const pw = "v3rb0se-pa55"
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.EnableSASL(), kfake.Superuser("PLAIN", "admin", pw))
	require.NoError(t, err)
	defer c.Close()
	var out lockedBuffer
	cl, err := New(Config{Brokers: c.ListenAddrs(), Timeout: 10 * time.Second, Verbose: &out,
		SASL: &login.SASLConfig{Mechanism: "PLAIN", Username: "admin", Password: pw}})
	require.NoError(t, err)
	defer cl.Close()
	_, err = cl.ListTopics(context.Background(), ListTopicsOptions{})
	require.NoError(t, err)

	log := out.String()
	seed := "seed " + c.ListenAddrs()[0]
	for _, want := range []string{
		"kadmin-lua: verbose: -> " + seed + " SaslAuthenticate (",
		"kadmin-lua: verbose: connect " + seed + ": ready in ",
		"kadmin-lua: verbose: -> " + seed + " Metadata (",
		"kadmin-lua: verbose: <- " + seed + " Metadata (",
	} {
		assert.Contains(t, log, want)
	}
	assert.NotContains(t, log, pw)
	for _, line := range strings.Split(strings.TrimSpace(log), "\n") {
		assert.True(t, strings.HasPrefix(line, "kadmin-lua: verbose: "), "%q", line)
	}

	var deadOut lockedBuffer
	dead, err := New(Config{Brokers: []string{closedAddr(t)}, Verbose: &deadOut})
	require.NoError(t, err)
	defer dead.Close()
	_, err = dead.ListTopics(context.Background(), ListTopicsOptions{})
	require.Error(t, err)
	assert.Contains(t, deadOut.String(), "connection refused")
}

func TestMissingSASLIsAnAuthErrorAtOnce(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.EnableSASL(), kfake.Superuser("PLAIN", "admin", "pw"))
	require.NoError(t, err)
	defer c.Close()
	cl, err := New(Config{Brokers: c.ListenAddrs(), Timeout: 30 * time.Second})
	require.NoError(t, err)
	defer cl.Close()
	began := time.Now()
	_, err = cl.ListTopics(context.Background(), ListTopicsOptions{})
	e := asEngineError(t, err)
	assert.Less(t, time.Since(began), 5*time.Second)
	assert.Equal(t, CodeAuth, e.Code)
	assert.Contains(t, e.Message, "expects SASL and this connection sends no credentials")
}

// A broker that refuses a login by closing the connection right after the
// SaslAuthenticate request (kfake does, for a wrong password) gives AUTH,
// naming the mechanism, within a few seconds, not NETWORK: EOF retried until
// the deadline. The right password still logs in on the same cluster.
func TestLoginRefusedByAClosedConnectionIsAnAuthError(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.EnableSASL(),
		kfake.Superuser("PLAIN", "admin", "pw"), kfake.Superuser("SCRAM-SHA-256", "admin", "pw"))
	require.NoError(t, err)
	defer c.Close()
	for _, mech := range []string{"PLAIN", "SCRAM-SHA-256"} {
		t.Run(mech, func(t *testing.T) {
			cl, err := New(Config{Brokers: c.ListenAddrs(), Timeout: 30 * time.Second,
				SASL: &login.SASLConfig{Mechanism: mech, Username: "admin", Password: "bad-pa55"}})
			require.NoError(t, err)
			defer cl.Close()
			began := time.Now()
			_, err = cl.ListTopics(context.Background(), ListTopicsOptions{})
			e := asEngineError(t, err)
			assert.Less(t, time.Since(began), 5*time.Second, "not retried until the 30 s deadline")
			assert.Equal(t, CodeAuth, e.Code)
			assert.Equal(t, mech, e.Mechanism)
			assert.True(t, e.IsAuthFailure())
			assert.Contains(t, e.Error(), "AUTH ("+mech+"): authentication failed: seed "+c.ListenAddrs()[0]+" closed the connection right after the login")
			assert.NotContains(t, e.Error(), "bad-pa55", "never the password")

			good, err := New(Config{Brokers: c.ListenAddrs(), Timeout: 10 * time.Second,
				SASL: &login.SASLConfig{Mechanism: mech, Username: "admin", Password: "pw"}})
			require.NoError(t, err)
			defer good.Close()
			_, err = good.ListTopics(context.Background(), ListTopicsOptions{})
			require.NoError(t, err)
		})
	}
}

// Once a login was accepted, a connection dropped at the login (a broker
// restarting) is retried as before: only a client that never logged in
// takes the drop for a refusal.
func TestDroppedLoginAfterASuccessIsRetried(t *testing.T) {
	ct := newContact([]string{"127.0.0.1:1"}, nil)
	ct.mech = "PLAIN"
	seed := kgo.BrokerMetadata{NodeID: math.MinInt32, Host: "127.0.0.1", Port: 1}
	ctx, cancel := ct.begin(context.Background(), time.Minute)
	defer cancel()
	ct.OnBrokerConnect(seed, time.Millisecond, nil, nil) // logged in
	for range 5 {
		ct.OnBrokerRead(seed, saslAuthenticateKey, 0, 0, 0, io.EOF)
	}
	assert.NoError(t, ctx.Err(), "still waiting for the broker to come back")

	fresh := newContact([]string{"127.0.0.1:1"}, nil)
	fresh.mech = "PLAIN"
	ctx2, cancel2 := fresh.begin(context.Background(), time.Minute)
	defer cancel2()
	fresh.OnBrokerRead(seed, 18 /* ApiVersions */, 0, 0, 0, io.EOF)
	fresh.OnBrokerRead(seed, 1 /* Fetch */, 0, 0, 0, io.EOF)
	assert.NoError(t, ctx2.Err(), "a drop at another request is not a refused login")
	fresh.OnBrokerRead(seed, saslAuthenticateKey, 0, 0, 0, io.EOF)
	assert.NoError(t, ctx2.Err(), "one drop could be the broker going down")
	fresh.OnBrokerRead(seed, saslAuthenticateKey, 0, 0, 0, io.EOF)
	assert.Equal(t, CodeAuth, AsError(ctx2.Err(), "").Code)
}
