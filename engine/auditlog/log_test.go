package auditlog_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
	"github.com/kadmin-lua/kadmin-lua/internal/testerr"
)

func TestAuditLogIsCreated0600(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.jsonl")
	log, err := auditlog.Open(path)
	require.NoError(t, err)
	defer log.Close()
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
}

func TestOpenAuditLogRefusesFilesOthersCanWrite(t *testing.T) {
	dir := t.TempDir()
	for _, mode := range []os.FileMode{0o620, 0o602, 0o666, 0o622} {
		path := filepath.Join(dir, "shared.jsonl")
		require.NoError(t, os.WriteFile(path, nil, 0o600))
		require.NoError(t, os.Chmod(path, mode)) // not subject to the umask
		_, err := auditlog.Open(path)
		require.Error(t, err, "mode %04o", mode)
		assert.Equal(t, vocab.CodeInvalidArgument, testerr.Code(err))
		assert.Contains(t, err.Error(), path)
		assert.Contains(t, err.Error(), "may be written by group or others")
	}
	// Readable by others is fine: only writing forges lines.
	path := filepath.Join(dir, "readable.jsonl")
	require.NoError(t, os.WriteFile(path, nil, 0o600))
	require.NoError(t, os.Chmod(path, 0o644))
	log, err := auditlog.Open(path)
	require.NoError(t, err)
	require.NoError(t, log.Close())
}

func TestOpenAuditLogRefusesSymlinksAndNonFiles(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "real.jsonl")
	require.NoError(t, os.WriteFile(target, nil, 0o600))
	link := filepath.Join(dir, "link.jsonl")
	require.NoError(t, os.Symlink(target, link))
	_, err := auditlog.Open(link)
	require.Error(t, err)
	assert.Equal(t, vocab.CodeInvalidArgument, testerr.Code(err))
	assert.Contains(t, err.Error(), link+" is a symbolic link")

	dangling := filepath.Join(dir, "dangling.jsonl")
	require.NoError(t, os.Symlink(filepath.Join(dir, "nothing-yet"), dangling))
	_, err = auditlog.Open(dangling)
	require.Error(t, err, "a dangling link would create its target")
	assert.Contains(t, err.Error(), "symbolic link")
	assert.NoFileExists(t, filepath.Join(dir, "nothing-yet"))

	_, err = auditlog.Open(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), dir)
}

// The cost of checking the path before each intent line (an lstat and an
// fstat), next to the fsync every line pays anyway: BenchmarkAuditAppend.
func BenchmarkAuditFollowPath(b *testing.B) {
	log, err := auditlog.Open(filepath.Join(b.TempDir(), "a.jsonl"))
	require.NoError(b, err)
	defer log.Close()
	for b.Loop() {
		if err := log.FollowPath(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAuditAppend(b *testing.B) {
	log, err := auditlog.Open(filepath.Join(b.TempDir(), "a.jsonl"))
	require.NoError(b, err)
	defer log.Close()
	rec := auditlog.Record{Type: auditlog.TypeIntent, ID: "x", Op: "create_topics", ClusterID: "c", Args: []byte(`{"specs":[{"name":"t"}]}`)}
	for b.Loop() {
		if err := log.Append(rec); err != nil {
			b.Fatal(err)
		}
	}
}

// Opening a log reads only its last line for the chain: the time does not
// grow with the file (compare lines=1 and lines=20000, ~21 MB).
func BenchmarkOpenAuditLog(b *testing.B) {
	for _, n := range []int{1, 20000} {
		b.Run(fmt.Sprintf("lines=%d", n), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "a.jsonl")
			line := `{"type":"outcome","id":"x","op":"create_topics","error":"` + strings.Repeat("x", 1000) + `"}` + "\n"
			require.NoError(b, os.WriteFile(path, []byte(strings.Repeat(line, n)), 0o600))
			log, err := auditlog.Open(path)
			require.NoError(b, err)
			require.NoError(b, log.Append(auditlog.Record{Type: auditlog.TypeOutcome, ID: "y", Op: "create_topics"}))
			require.NoError(b, log.Close())
			for b.Loop() {
				log, err := auditlog.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				_ = log.Close()
			}
		})
	}
}
