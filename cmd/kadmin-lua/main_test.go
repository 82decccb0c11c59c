package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl/plain"

	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

// syncBuffer is a bytes.Buffer safe to read while the CLI writes to it.
type syncBuffer = kafkatest.SyncBuffer

// cli is the CLI behind a fake process State: buffers for the streams, a
// map for the environment, a channel for signals, a recorded exit.
type cli struct {
	t        *testing.T
	env      map[string]string
	stdin    io.Reader
	terminal bool
	password func(prompt string) (string, error)
	sigs     chan os.Signal
	exits    chan int
	stdout   *syncBuffer
	stderr   *syncBuffer
}

func newCLI(t *testing.T) *cli {
	t.Helper()
	home := t.TempDir()
	return &cli{
		t:     t,
		env:   map[string]string{"HOME": home},
		stdin: strings.NewReader(""),
		sigs:  make(chan os.Signal, 2),
		exits: make(chan int, 2),
	}
}

func (c *cli) state(args []string) *State {
	c.stdout, c.stderr = &syncBuffer{}, &syncBuffer{}
	return &State{
		Args:         args,
		Env:          func(k string) string { return c.env[k] },
		Stdin:        c.stdin,
		Stdout:       c.stdout,
		Stderr:       c.stderr,
		IsTerminal:   func(any) bool { return c.terminal },
		ReadPassword: c.password,
		Signals:      c.sigs,
		Exit:         func(code int) { c.exits <- code },
	}
}

// run runs the CLI to completion and returns the exit code.
func (c *cli) run(args ...string) int {
	c.t.Helper()
	return run(c.state(args))
}

// cluster is a 3-broker kfake cluster and an independent kadm client.
type cluster struct {
	*kfake.Cluster
	adm   *kadm.Client
	addrs string
}

func newCluster(t *testing.T, opts ...kfake.Opt) *cluster {
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(3)}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return &cluster{Cluster: c, addrs: strings.Join(c.ListenAddrs(), ",")}
}

func (c *cluster) admin(t *testing.T, kopts ...kgo.Opt) *kadm.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(c.ListenAddrs()...)}, kopts...)...)
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	return kadm.NewClient(cl)
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

func topicNames(t *testing.T, adm *kadm.Client) []string {
	t.Helper()
	td, err := adm.ListTopics(ctx(t))
	require.NoError(t, err)
	return td.Names()
}

// closedPort is a local address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := t.TempDir() + "/" + name
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	return path
}

// saslCluster is a cluster that only lets admin/secret in with PLAIN.
// kfake drops the connection on a bad password; a real broker first answers
// SASL_AUTHENTICATION_FAILED. A control function answers like the broker
// does, so the test sees what users see.
func saslCluster(t *testing.T) (*cluster, *kadm.Client) {
	t.Helper()
	c := newCluster(t, kfake.EnableSASL(), kfake.Superuser("PLAIN", "admin", "secret"))
	c.ControlKey(int16(kmsg.SASLAuthenticate), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		r := req.(*kmsg.SASLAuthenticateRequest)
		parts := bytes.Split(r.SASLAuthBytes, []byte{0})
		if len(parts) == 3 && string(parts[1]) == "admin" && string(parts[2]) == "secret" {
			return nil, nil, false // kfake logs the user in
		}
		resp := r.ResponseKind().(*kmsg.SASLAuthenticateResponse)
		resp.ErrorCode = kerr.SaslAuthenticationFailed.Code
		msg := "Authentication failed: Invalid username or password"
		resp.ErrorMessage = &msg
		return resp, nil, true
	})
	adm := c.admin(t, kgo.SASL(plain.Auth{User: "admin", Pass: "secret"}.AsMechanism()))
	return c, adm
}
