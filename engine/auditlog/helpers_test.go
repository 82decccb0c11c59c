package auditlog_test

import (
	"errors"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// code is the code of err's *vocab.Error ("" when it has none).
func code(err error) string {
	var e *vocab.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

func mustRead(t *testing.T, path string) []byte {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}
