package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// doc NAME with a typo names the function meant.
func TestDocUnknownNameSuggests(t *testing.T) {
	c := newCLI(t)
	assert.Equal(t, ExitUsage, c.run("doc", "lagg"))
	assert.Equal(t, "kadmin-lua: doc: no function named \"lagg\"; did you mean lag? (kadmin-lua doc lists them all)\n", c.stderr.String())
	assert.Empty(t, c.stdout.String())

	assert.Equal(t, ExitUsage, c.run("doc", "--json", "describe_topcis"))
	assert.Contains(t, c.stderr.String(), "did you mean describe_topics?")

	assert.Equal(t, ExitUsage, c.run("doc", "slep"))
	assert.Contains(t, c.stderr.String(), "did you mean kafka.sleep?")

	assert.Equal(t, ExitUsage, c.run("doc", "xyzzy"))
	assert.Equal(t, "kadmin-lua: doc: no function named \"xyzzy\" (kadmin-lua doc lists them all)\n", c.stderr.String())
}
