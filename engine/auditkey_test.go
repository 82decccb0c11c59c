package engine

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/internal/testaudit"
)

const otherKey = Secret("another-key-0123456789")

// Through a client: the mutation whose intent cannot be appended under
// its key is not sent (AUDIT_LOG), so it leaves no change the log's key
// cannot vouch for.
func TestAMutationUnderAnotherKeyIsNotSent(t *testing.T) {
	cl, c, _ := newTestClient(t)
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	logWith := func(key Secret) *Client {
		log, err := auditlog.OpenWith(path, auditlog.Options{Key: key})
		require.NoError(t, err)
		t.Cleanup(func() { _ = log.Close() })
		return withAudit(t, cl, log)
	}
	mine, theirs := logWith(testaudit.Key), logWith(otherKey) // both opened on the empty file
	require.NoError(t, createTopic(mine, "mine"))
	creates := countRequests(c, kmsg.CreateTopics)
	err := createTopic(theirs, "theirs")
	require.Error(t, err)
	assert.Equal(t, CodeAudit, AsError(err, "").Code)
	assert.Contains(t, err.Error(), "keyed with another key")
	requireNotSent(t, c, creates, "theirs")
	assert.Equal(t, []string{"intent create_topics", "outcome create_topics"}, linesOf(t, path))
}

// Undo acts only on what the key vouches for: lines sealed under another
// key after the log's own (as versions before this one let a writer
// append) are refused, and their change is left alone.
func TestUndoRefusesLinesAnotherKeySealed(t *testing.T) {
	cl, c, adm := newTestClient(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	log, err := auditlog.OpenWith(path, auditlog.Options{Key: testaudit.Key})
	require.NoError(t, err)
	t.Cleanup(func() { _ = log.Close() })
	require.NoError(t, createTopic(withAudit(t, cl, log), "mine"))

	// Someone with another key records creating a topic they made.
	id := victim(t, adm, "theirs")
	cluster, err := cl.ClusterID(ctx)
	require.NoError(t, err)
	recs := testaudit.Records(t, path)
	prev := recs[len(recs)-1].Hash
	other := auditlog.Options{Key: otherKey}
	lines := testaudit.Lines(t, path)
	for _, rec := range []auditlog.Record{
		{Type: auditlog.TypeIntent, ID: "x1", Time: "2026-11-30T10:00:00Z", Op: "create_topics", ClusterID: cluster,
			Args: json.RawMessage(`{"specs":[{"name":"theirs"}]}`), Before: json.RawMessage(`{"theirs":{"exists":false}}`)},
		{Type: auditlog.TypeOutcome, ID: "x1", Time: "2026-11-30T10:00:01Z", Op: "create_topics",
			Items: []auditlog.ItemOutcome{{Key: "theirs", Outcome: auditlog.OutcomeOK, Detail: json.RawMessage(`{"id":"` + id + `"}`)}}},
	} {
		rec.Chain, rec.Prev = auditlog.ChainHMAC, prev
		line, sum := other.Seal(auditlog.ChainHMAC, testaudit.MustJSON(t, rec))
		lines, prev = append(lines, string(line)), sum
	}
	testaudit.WriteLines(t, path, lines)

	changes, problems := testaudit.Read(t, path, auditlog.Options{Key: testaudit.Key})
	require.Len(t, problems, 2)
	assert.Contains(t, problems[0].Reason, "line 3's HMAC does not verify with the key")
	assert.Contains(t, problems[1].Reason, "line 4's HMAC does not verify with the key")
	steps, err := cl.Undo(ctx, changes, UndoOptions{Confirm: func(string) bool { return true }})
	require.NoError(t, err)
	require.Len(t, steps, 2, "%v", actions(steps))
	assert.Equal(t, "x1", steps[0].ID)
	assert.Equal(t, UndoRefused, steps[0].Action)
	assert.Contains(t, steps[0].Message, "not trusted: the audit log's hash chain breaks at line 3")
	assert.Equal(t, "create_topics mine: "+UndoReverted, actions(steps[1:])[0])
	topics := freshTopics(t, c)
	assert.Contains(t, topics, "theirs", "the change the key does not vouch for is left alone")
	assert.NotContains(t, topics, "mine")
}
