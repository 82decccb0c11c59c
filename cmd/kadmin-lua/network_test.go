package main

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runTimed runs the CLI and returns its exit code and how long it took.
func (c *cli) runTimed(args ...string) (int, time.Duration) {
	c.t.Helper()
	began := time.Now()
	code := c.run(args...)
	return code, time.Since(began)
}

func TestRefusedSeedExitsAtOnce(t *testing.T) {
	c := newCLI(t)
	code, took := c.runTimed("-b", "127.0.0.1:1", "--timeout", "30s", "-e", "return list_topics()")
	require.Equal(t, ExitKafka, code, c.stderr.String())
	assert.Less(t, took, 5*time.Second, "not the 30s timeout")
	assert.Equal(t, "kadmin-lua: list_topics: NETWORK: the seed broker cannot be reached: 127.0.0.1:1: connection refused\n", c.stderr.String())
}

func TestUnresolvableSeedExitsAtOnce(t *testing.T) {
	const host = "no-such-host.invalid" // RFC 6761: never resolves
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	var dns *net.DNSError
	if _, err := net.DefaultResolver.LookupHost(ctx, host); !errors.As(err, &dns) || !dns.IsNotFound {
		t.Skipf("this machine's resolver does not answer NXDOMAIN for %s (got %v)", host, err)
	}
	c := newCLI(t)
	dead := closedPort(t)
	code, took := c.runTimed("-b", host+":9092,"+dead, "--timeout", "30s", "-e", `create_topics{"t"}`)
	require.Equal(t, ExitKafka, code, c.stderr.String())
	assert.Less(t, took, 5*time.Second, "not the 30s timeout")
	msg := c.stderr.String()
	assert.Contains(t, msg, "NETWORK: no seed broker can be reached: "+host+":9092: no such host; "+dead+": connection refused")
	assert.Equal(t, 1, strings.Count(msg, "\n"), "one message: %s", msg)
}

func TestVerboseShowsConnectionsAndRequests(t *testing.T) {
	cl, _ := saslCluster(t)
	c := newCLI(t)
	c.env["KADMIN_SASL_PASSWORD"] = "secret"
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "--sasl-mechanism", "PLAIN", "--sasl-username", "admin", "--verbose",
		"-e", `create_topics{"seen"}`), c.stderr.String())
	log := c.stderr.String()
	assert.Regexp(t, `kadmin-lua: verbose: connect seed 127\.0\.0\.1:\d+: ready in `, log)
	assert.Regexp(t, `kadmin-lua: verbose: -> seed 127\.0\.0\.1:\d+ SaslAuthenticate \(\d+ bytes\)`, log)
	assert.Regexp(t, `kadmin-lua: verbose: -> broker \d+ 127\.0\.0\.1:\d+ CreateTopics \(\d+ bytes\)`, log)
	assert.NotContains(t, log, "secret")

	c = newCLI(t)
	c.env["KADMIN_SASL_PASSWORD"] = "secret"
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "--sasl-mechanism", "PLAIN", "--sasl-username", "admin", "-e", `return #list_topics()`))
	assert.Empty(t, c.stderr.String(), "quiet without --verbose")
}
