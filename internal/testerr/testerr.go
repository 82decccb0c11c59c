// Package testerr reads the engine's errors in the tests of the packages
// below the core, which cannot call engine.AsError: what they return is a
// *vocab.Error already.
package testerr

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// As is err's *vocab.Error; the test fails when it has none.
func As(t testing.TB, err error) *vocab.Error {
	t.Helper()
	var e *vocab.Error
	require.True(t, errors.As(err, &e), "%T %v", err, err)
	return e
}

// Code is the code of err's *vocab.Error, "" when it has none.
func Code(err error) string {
	var e *vocab.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}
