package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A topic named to drive a terminal reaches the operator escaped in table
// output and in error messages, and exact in JSON.
func TestClusterStringsReachTheTerminalEscaped(t *testing.T) {
	cl := newCluster(t)
	const red = "\x1b[31mred\x07"
	_, err := cl.admin(t).CreateTopic(ctx(t), 1, 1, nil, red)
	require.NoError(t, err)

	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "-e", "list_topics()"), c.stderr.String())
	assert.Contains(t, c.stdout.String(), `\x1b[31mred\a`)
	assert.NotContains(t, c.stdout.String(), "\x1b")
	assert.NotContains(t, c.stdout.String(), "\x07")

	c = newCLI(t)
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "-o", "json", "-e", "list_topics()"), c.stderr.String())
	assert.NotContains(t, c.stdout.String(), "\x1b")
	var topics []map[string]any
	require.NoError(t, json.Unmarshal([]byte(c.stdout.String()), &topics))
	require.Len(t, topics, 1)
	assert.Equal(t, red, topics[0]["name"])

	c = newCLI(t)
	// A name Kafka cannot have is refused before any request; the error
	// quoting it is escaped too.
	require.Equal(t, ExitScript, c.run("-b", cl.addrs, "-e", `describe_topics{"\27[31mnope\7"}`))
	assert.Contains(t, c.stderr.String(), `describe_topics: names #1: "\x1b[31mnope\a" has`)
	assert.NotContains(t, c.stderr.String(), "\x1b")
}
