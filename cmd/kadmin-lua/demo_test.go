package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The demo cluster accepts a reassignment and moves nothing; the call says
// so plainly.
func TestEmbeddedReassignmentSaysNothingMoves(t *testing.T) {
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("--embedded", "-o", "json", "-e",
		`alter_partition_reassignments{{topic = "audit-log", partition = 0, replicas = {2, 0, 1}}}`), c.stderr.String())
	assert.Contains(t, c.stderr.String(), "WARN alter_partition_reassignments: the demo cluster (--embedded) accepts reassignments but moves no replica")
	assert.Contains(t, c.stdout.String(), `"topic": "audit-log"`)
}
