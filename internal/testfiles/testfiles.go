// Package testfiles writes small file trees for tests (plugin directories,
// config homes).
package testfiles

import (
	"os"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
)

// Tree writes files (slash-separated path -> content; parent directories
// are created) into a fresh temporary directory and returns it.
func Tree(t testing.TB, files map[string]string) string {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, content := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(content), Mode: 0o600}
	}
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, fsys))
	return dir
}
