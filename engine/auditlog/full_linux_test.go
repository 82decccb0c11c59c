//go:build linux

package auditlog_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
)

// Every write to /dev/full fails (ENOSPC): Append says so, and mutate then
// sends nothing (engine's TestAuditUnwritableLogSendsNothing).
func TestAppendToAFullDiskFails(t *testing.T) {
	// Open refuses a device (and a world-writable one): the log is made
	// around the open file.
	f, err := os.OpenFile("/dev/full", os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	full := auditlog.OnFile("/dev/full", f)
	defer full.Close()
	err = full.Append(auditlog.Record{Type: auditlog.TypeIntent, ID: full.NewID(), Op: "create_topics"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no space left on device")
}
