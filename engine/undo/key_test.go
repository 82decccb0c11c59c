package undo

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/internal/testaudit"
	"github.com/kadmin-lua/kadmin-lua/internal/testengine"
)

// Undo acts only on what the key vouches for: lines sealed under another
// key after the log's own (as versions before this one let a writer
// append) are refused, and their change is left alone.
func TestUndoRefusesLinesAnotherKeySealed(t *testing.T) {
	cl, c, adm := testengine.Client(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	log, err := auditlog.OpenWith(path, auditlog.Options{Key: testaudit.Key})
	require.NoError(t, err)
	t.Cleanup(func() { _ = log.Close() })
	require.NoError(t, testengine.CreateTopic(testengine.WithAudit(t, cl, log), "mine"))

	// Someone with another key records creating a topic they made.
	id := victim(t, adm, "theirs")
	cluster, err := cl.ClusterID(ctx)
	require.NoError(t, err)
	recs := testaudit.Records(t, path)
	prev := recs[len(recs)-1].Hash
	other := auditlog.Options{Key: testaudit.OtherKey}
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
	steps, err := Run(ctx, cl, changes, Options{Confirm: func(string) bool { return true }})
	require.NoError(t, err)
	require.Len(t, steps, 2, "%v", testengine.Actions(steps))
	assert.Equal(t, "x1", steps[0].ID)
	assert.Equal(t, engine.UndoRefused, steps[0].Action)
	assert.Contains(t, steps[0].Message, "not trusted: the audit log's hash chain breaks at line 3")
	assert.Equal(t, "create_topics mine: "+engine.UndoReverted, testengine.Actions(steps[1:])[0])
	topics := testengine.FreshTopics(t, c)
	assert.Contains(t, topics, "theirs", "the change the key does not vouch for is left alone")
	assert.NotContains(t, topics, "mine")
}
