package auditlog_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
	"github.com/kadmin-lua/kadmin-lua/internal/testaudit"
	"github.com/kadmin-lua/kadmin-lua/internal/testerr"
)

// A keyed log is appended to only with its key: not with none, not with
// another, when it is opened and before each line (another process may
// have appended in between).

func TestAuditLogRefusesAnAppendUnderAnotherKey(t *testing.T) {
	keyed := auditlog.Options{Key: testaudit.Key}
	path := filepath.Join(t.TempDir(), "keyed.jsonl")
	testaudit.WriteChanges(t, path, keyed, 1, 1)
	before := mustRead(t, path)
	for _, o := range []auditlog.Options{{Key: testaudit.OtherKey}, {}} {
		_, err := auditlog.OpenWith(path, o)
		require.Error(t, err)
		assert.Equal(t, vocab.CodeInvalidArgument, testerr.Code(err))
		assert.Contains(t, err.Error(), path+" is keyed")
		assert.NotContains(t, err.Error(), string(testaudit.Key))
		assert.NotContains(t, err.Error(), string(testaudit.OtherKey))
	}
	_, err := auditlog.OpenWith(path, auditlog.Options{Key: testaudit.OtherKey})
	assert.Contains(t, err.Error(), "keyed with another key: its last line's HMAC does not verify with the key given")
	assert.Equal(t, before, mustRead(t, path), "nothing appended")

	// A last line cut short by a crash has no hash: the line before tells
	// the key.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"type":"intent","id":"c9","op":"create_to`)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	for _, o := range []auditlog.Options{{Key: testaudit.OtherKey}, {}} {
		_, err := auditlog.OpenWith(path, o)
		require.Error(t, err, "key %v", o.Key != "")
		assert.Contains(t, err.Error(), path+" is keyed")
	}
	testaudit.WriteChanges(t, path, keyed, 2, 1)
	changes, problems := testaudit.Read(t, path, keyed)
	assert.Empty(t, problems)
	assert.Equal(t, []string{"c1", "c2"}, testaudit.Trusted(changes))

	// Two processes opened the same new log, each with its own key: the
	// first line decides, the other's next append is refused.
	shared := filepath.Join(t.TempDir(), "shared.jsonl")
	mine, err := auditlog.OpenWith(shared, keyed)
	require.NoError(t, err)
	defer mine.Close()
	theirs, err := auditlog.OpenWith(shared, auditlog.Options{Key: testaudit.OtherKey})
	require.NoError(t, err, "an empty log has no key yet")
	defer theirs.Close()
	require.NoError(t, mine.Append(auditlog.Record{Type: auditlog.TypeIntent, ID: "m1", Op: "create_topics", ClusterID: "kfake"}))
	err = theirs.Append(auditlog.Record{Type: auditlog.TypeIntent, ID: "t1", Op: "create_topics", ClusterID: "kfake"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "keyed with another key")
	require.NoError(t, mine.Append(auditlog.Record{Type: auditlog.TypeOutcome, ID: "m1", Op: "create_topics"}))
	changes, problems = testaudit.Read(t, shared, keyed)
	assert.Empty(t, problems)
	assert.Equal(t, []string{"m1 ok"}, testaudit.Trust(changes))
}
