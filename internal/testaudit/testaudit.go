// Package testaudit reads and writes audit logs for the tests of the
// packages that write or act on them (engine, engine/auditlog, engine/undo).
package testaudit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// Key is a key for a keyed log (auditlog.Options.Key); OtherKey another.
const (
	Key      = vocab.Secret("0123456789abcdef-test-key")
	OtherKey = vocab.Secret("another-key-0123456789")
)

// WriteChanges appends n intent+outcome pairs (ids c<from>, c<from+1>, ...)
// to the log at path through a Log opened with o, as one process run.
func WriteChanges(t testing.TB, path string, o auditlog.Options, from, n int) {
	t.Helper()
	log, err := auditlog.OpenWith(path, o)
	require.NoError(t, err)
	defer log.Close()
	for i := from; i < from+n; i++ {
		id := fmt.Sprintf("c%d", i)
		require.NoError(t, log.Append(auditlog.Record{Type: auditlog.TypeIntent, ID: id, Op: "create_topics", ClusterID: "kfake",
			Args: json.RawMessage(`{"specs":[{"name":"t` + id + `"}]}`)}))
		require.NoError(t, log.Append(auditlog.Record{Type: auditlog.TypeOutcome, ID: id, Op: "create_topics",
			Items: []auditlog.ItemOutcome{{Key: "t" + id, Outcome: auditlog.OutcomeOK}}}))
	}
}

// Read reads the log at path as auditlog.ReadWith does.
func Read(t testing.TB, path string, o auditlog.Options) ([]auditlog.Change, []auditlog.Problem) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	changes, problems, err := auditlog.ReadWith(f, path, o)
	require.NoError(t, err)
	return changes, problems
}

// Records reads the log at path as its lines.
func Records(t testing.TB, path string) []auditlog.Record {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []auditlog.Record
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var r auditlog.Record
		require.NoError(t, json.Unmarshal(line, &r), "%s", line)
		out = append(out, r)
	}
	return out
}

// Trust is each change's id and "ok" or why it is not trusted.
func Trust(changes []auditlog.Change) []string {
	var out []string
	for _, ch := range changes {
		s := ch.Intent.ID + " ok"
		if ch.Untrusted != "" {
			s = ch.Intent.ID + " untrusted: " + ch.Untrusted
		}
		out = append(out, s)
	}
	return out
}

// Trusted is the ids of the changes that are trusted.
func Trusted(changes []auditlog.Change) []string {
	var out []string
	for _, ch := range changes {
		if ch.Untrusted == "" {
			out = append(out, ch.Intent.ID)
		}
	}
	return out
}

// Lines is the file at path as its lines.
func Lines(t testing.TB, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// WriteLines writes lines to path, a newline after each.
func WriteLines(t testing.TB, path string, lines []string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600))
}

// MustJSON is v as JSON.
func MustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}
