package auditlog_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

func mustRead(t *testing.T, path string) []byte {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}
