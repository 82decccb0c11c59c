package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

const otherKey = Secret("another-key-0123456789")

// A keyed log is appended to only with its key: not with none, not with
// another, when it is opened and before each line (another process may
// have appended in between).
func TestAuditLogRefusesAnAppendUnderAnotherKey(t *testing.T) {
	keyed := AuditLogOptions{Key: testKey}
	path := filepath.Join(t.TempDir(), "keyed.jsonl")
	writeChanges(t, path, keyed, 1, 1)
	before := mustRead(t, path)
	for _, o := range []AuditLogOptions{{Key: otherKey}, {}} {
		_, err := OpenAuditLogWith(path, o)
		require.Error(t, err)
		assert.Equal(t, CodeInvalidArgument, AsError(err, "").Code)
		assert.Contains(t, err.Error(), path+" is keyed")
		assert.NotContains(t, err.Error(), string(testKey))
		assert.NotContains(t, err.Error(), string(otherKey))
	}
	_, err := OpenAuditLogWith(path, AuditLogOptions{Key: otherKey})
	assert.Contains(t, err.Error(), "keyed with another key: its last line's HMAC does not verify with the key given")
	assert.Equal(t, before, mustRead(t, path), "nothing appended")

	// A last line cut short by a crash has no hash: the line before tells
	// the key.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"type":"intent","id":"c9","op":"create_to`)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	for _, o := range []AuditLogOptions{{Key: otherKey}, {}} {
		_, err := OpenAuditLogWith(path, o)
		require.Error(t, err, "key %v", o.Key != "")
		assert.Contains(t, err.Error(), path+" is keyed")
	}
	writeChanges(t, path, keyed, 2, 1)
	changes, problems := readLog(t, path, keyed)
	assert.Empty(t, problems)
	assert.Equal(t, []string{"c1", "c2"}, trusted(changes))

	// Two processes opened the same new log, each with its own key: the
	// first line decides, the other's next append is refused.
	shared := filepath.Join(t.TempDir(), "shared.jsonl")
	mine, err := OpenAuditLogWith(shared, keyed)
	require.NoError(t, err)
	defer mine.Close()
	theirs, err := OpenAuditLogWith(shared, AuditLogOptions{Key: otherKey})
	require.NoError(t, err, "an empty log has no key yet")
	defer theirs.Close()
	require.NoError(t, mine.append(AuditRecord{Type: AuditIntent, ID: "m1", Op: "create_topics", ClusterID: "kfake"}))
	err = theirs.append(AuditRecord{Type: AuditIntent, ID: "t1", Op: "create_topics", ClusterID: "kfake"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "keyed with another key")
	require.NoError(t, mine.append(AuditRecord{Type: AuditOutcome, ID: "m1", Op: "create_topics"}))
	changes, problems = readLog(t, shared, keyed)
	assert.Empty(t, problems)
	assert.Equal(t, []string{"m1 ok"}, trust(changes))
}

// Through a client: the mutation whose intent cannot be appended under
// its key is not sent (AUDIT_LOG), so it leaves no change the log's key
// cannot vouch for.
func TestAMutationUnderAnotherKeyIsNotSent(t *testing.T) {
	cl, c, _ := newTestClient(t)
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	logWith := func(key Secret) *Client {
		log, err := OpenAuditLogWith(path, AuditLogOptions{Key: key})
		require.NoError(t, err)
		t.Cleanup(func() { _ = log.Close() })
		return withAudit(t, cl, log)
	}
	mine, theirs := logWith(testKey), logWith(otherKey) // both opened on the empty file
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
	log, err := OpenAuditLogWith(path, AuditLogOptions{Key: testKey})
	require.NoError(t, err)
	t.Cleanup(func() { _ = log.Close() })
	require.NoError(t, createTopic(withAudit(t, cl, log), "mine"))

	// Someone with another key records creating a topic they made.
	id := victim(t, adm, "theirs")
	cluster, err := cl.ClusterID(ctx)
	require.NoError(t, err)
	recs := readAudit(t, path)
	prev := recs[len(recs)-1].Hash
	other := AuditLogOptions{Key: otherKey}
	lines := fileLines(t, path)
	for _, rec := range []AuditRecord{
		{Type: AuditIntent, ID: "x1", Time: "2026-11-30T10:00:00Z", Op: "create_topics", ClusterID: cluster,
			Args: json.RawMessage(`{"specs":[{"name":"theirs"}]}`), Before: json.RawMessage(`{"theirs":{"exists":false}}`)},
		{Type: AuditOutcome, ID: "x1", Time: "2026-11-30T10:00:01Z", Op: "create_topics",
			Items: []AuditItemOutcome{{Key: "theirs", Outcome: OutcomeOK, Detail: json.RawMessage(`{"id":"` + id + `"}`)}}},
	} {
		rec.Chain, rec.Prev = ChainHMAC, prev
		line, sum := other.seal(ChainHMAC, mustJSON(t, rec))
		lines, prev = append(lines, string(line)), sum
	}
	writeLines(t, path, lines)

	changes, problems := readLog(t, path, AuditLogOptions{Key: testKey})
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
