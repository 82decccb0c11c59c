package auditlog_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/internal/testaudit"
)

func TestAuditChainLinksEveryLineAcrossRuns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.jsonl")
	testaudit.WriteChanges(t, path, auditlog.Options{}, 1, 1)
	testaudit.WriteChanges(t, path, auditlog.Options{}, 2, 1) // another process run: continues the chain
	recs := testaudit.Records(t, path)
	require.Len(t, recs, 4)
	assert.Empty(t, recs[0].Prev, "a file's first line starts the chain")
	for i, r := range recs {
		assert.Equal(t, auditlog.ChainSHA256, r.Chain)
		assert.Len(t, r.Hash, 64)
		if i > 0 {
			assert.Equal(t, recs[i-1].Hash, r.Prev, "line %d names line %d's hash", i+1, i)
		}
	}
	assert.True(t, strings.HasSuffix(testaudit.Lines(t, path)[0], `,"hash":"`+recs[0].Hash+`"}`), "the hash ends the line")
	changes, problems := testaudit.Read(t, path, auditlog.Options{})
	assert.Empty(t, problems)
	assert.Equal(t, []string{"c1 ok", "c2 ok"}, testaudit.Trust(changes))
	assert.Equal(t, 3, changes[1].IntentLine)
	assert.Equal(t, 4, changes[1].OutcomeLine)
}

func TestAuditChainDetectsEditsRemovalsAndInsertions(t *testing.T) {
	dir := t.TempDir()
	fresh := func(t *testing.T) (string, []string) {
		path := filepath.Join(dir, strings.ReplaceAll(t.Name(), "/", "_")+".jsonl")
		testaudit.WriteChanges(t, path, auditlog.Options{}, 1, 3)
		return path, testaudit.Lines(t, path)
	}
	t.Run("edited", func(t *testing.T) {
		path, lines := fresh(t)
		lines[2] = strings.Replace(lines[2], `"tc2"`, `"victim"`, 1)
		testaudit.WriteLines(t, path, lines)
		changes, problems := testaudit.Read(t, path, auditlog.Options{})
		require.Len(t, problems, 1)
		assert.Equal(t, 3, problems[0].Line)
		assert.Contains(t, problems[0].Reason, "line 3's hash does not match it: it was edited")
		assert.Equal(t, []string{"c1"}, testaudit.Trusted(changes), "the changes from the break on are refused")
		assert.Contains(t, changes[1].Untrusted, "hash chain breaks at line 3")
	})
	t.Run("edited with its hash recomputed", func(t *testing.T) {
		path, lines := fresh(t)
		_, body, ok := auditlog.Sealed([]byte(lines[2]))
		require.True(t, ok)
		body = bytes.Replace(body, []byte(`"tc2"`), []byte(`"victim"`), 1)
		resealed, _ := auditlog.Options{}.Seal(auditlog.ChainSHA256, body)
		lines[2] = string(resealed)
		testaudit.WriteLines(t, path, lines)
		changes, problems := testaudit.Read(t, path, auditlog.Options{})
		require.Len(t, problems, 1)
		assert.Equal(t, 4, problems[0].Line)
		assert.Contains(t, problems[0].Reason, "line 4 does not follow line 3")
		assert.Equal(t, []string{"c1"}, testaudit.Trusted(changes), "the edited line itself is refused")
	})
	t.Run("removed", func(t *testing.T) {
		path, lines := fresh(t)
		testaudit.WriteLines(t, path, append(lines[:3:3], lines[4:]...)) // c2's outcome gone: c2 would look unfinished
		changes, problems := testaudit.Read(t, path, auditlog.Options{})
		require.Len(t, problems, 1)
		assert.Contains(t, problems[0].Reason, "line 4 does not follow line 3: lines between were removed or inserted")
		assert.Equal(t, []string{"c1"}, testaudit.Trusted(changes))
	})
	t.Run("removed from the start", func(t *testing.T) {
		path, lines := fresh(t)
		testaudit.WriteLines(t, path, lines[2:])
		changes, problems := testaudit.Read(t, path, auditlog.Options{})
		require.NotEmpty(t, problems)
		assert.Contains(t, problems[0].Reason, "lines were removed from the start")
		assert.Empty(t, testaudit.Trusted(changes))
	})
	t.Run("inserted unchained", func(t *testing.T) {
		path, lines := fresh(t)
		forged := `{"type":"intent","id":"forged","op":"create_topics","cluster_id":"kfake","args":{"specs":[{"name":"victim"}]}}`
		testaudit.WriteLines(t, path, append(lines, forged))
		changes, problems := testaudit.Read(t, path, auditlog.Options{})
		require.Len(t, problems, 1)
		assert.Equal(t, 7, problems[0].Line)
		assert.Contains(t, problems[0].Reason, "has no hash after chained lines")
		assert.Equal(t, []string{"c1", "c2", "c3"}, testaudit.Trusted(changes))
	})
	t.Run("inserted chained", func(t *testing.T) {
		path, lines := fresh(t)
		forged, _ := auditlog.Options{}.Seal(auditlog.ChainSHA256, []byte(`{"type":"intent","id":"forged","op":"create_topics","cluster_id":"kfake","chain":"sha256","prev":"`+strings.Repeat("0", 64)+`"}`))
		testaudit.WriteLines(t, path, append(lines[:2:2], append([]string{string(forged)}, lines[2:]...)...))
		changes, problems := testaudit.Read(t, path, auditlog.Options{})
		require.NotEmpty(t, problems)
		assert.Equal(t, 3, problems[0].Line)
		assert.Empty(t, testaudit.Trusted(changes), "without a key, line 2 may be the edited one")
		assert.Contains(t, changes[0].Untrusted, "breaks at line 3")
	})
	t.Run("inserted between keyed lines", func(t *testing.T) {
		path := filepath.Join(dir, "keyed-insert.jsonl")
		testaudit.WriteChanges(t, path, auditlog.Options{Key: testaudit.Key}, 1, 2)
		lines := testaudit.Lines(t, path)
		forged, _ := auditlog.Options{Key: "a-guessed-key-16b"}.Seal(auditlog.ChainHMAC, []byte(`{"type":"intent","id":"forged","op":"create_topics","cluster_id":"kfake","chain":"hmac-sha256","prev":"`+testaudit.Records(t, path)[1].Hash+`"}`))
		testaudit.WriteLines(t, path, append(lines[:2:2], append([]string{string(forged)}, lines[2:]...)...))
		changes, problems := testaudit.Read(t, path, auditlog.Options{Key: testaudit.Key})
		require.NotEmpty(t, problems)
		assert.Equal(t, 3, problems[0].Line)
		assert.Equal(t, []string{"c1"}, testaudit.Trusted(changes), "line 2's HMAC verified: it was not edited")
	})
	t.Run("a line from elsewhere starting a chain", func(t *testing.T) {
		path, lines := fresh(t)
		other := filepath.Join(dir, "other.jsonl")
		testaudit.WriteChanges(t, other, auditlog.Options{}, 9, 1)
		testaudit.WriteLines(t, path, append(lines, testaudit.Lines(t, other)...))
		changes, problems := testaudit.Read(t, path, auditlog.Options{})
		require.NotEmpty(t, problems)
		assert.Contains(t, problems[0].Reason, "line 7 starts a new chain after line 6")
		assert.Equal(t, []string{"c1", "c2", "c3"}, testaudit.Trusted(changes))
	})
}

func TestAuditChainWithAKey(t *testing.T) {
	dir := t.TempDir()
	keyed := auditlog.Options{Key: testaudit.Key}
	path := filepath.Join(dir, "keyed.jsonl")
	testaudit.WriteChanges(t, path, keyed, 1, 2)
	recs := testaudit.Records(t, path)
	assert.Equal(t, auditlog.ChainHMAC, recs[0].Chain)

	changes, problems := testaudit.Read(t, path, keyed)
	assert.Empty(t, problems)
	assert.Equal(t, []string{"c1", "c2"}, testaudit.Trusted(changes))

	// Without the key the HMACs cannot be checked: nothing is trusted.
	changes, problems = testaudit.Read(t, path, auditlog.Options{})
	assert.Empty(t, problems)
	assert.Empty(t, testaudit.Trusted(changes))
	assert.Contains(t, changes[0].Untrusted, "keyed (hmac-sha256): give the log's key")

	// Another key: the first line does not verify.
	changes, problems = testaudit.Read(t, path, auditlog.Options{Key: "another-key-of-16-bytes"})
	require.NotEmpty(t, problems)
	assert.Contains(t, problems[0].Reason, "line 1's HMAC does not verify with the key")
	assert.Empty(t, testaudit.Trusted(changes))

	// A forger without the key: an unkeyed line that chains correctly...
	lines := testaudit.Lines(t, path)
	last := recs[len(recs)-1].Hash
	forged, _ := auditlog.Options{}.Seal(auditlog.ChainSHA256, []byte(`{"type":"intent","id":"forged","op":"create_topics","cluster_id":"kfake","chain":"sha256","prev":"`+last+`"}`))
	testaudit.WriteLines(t, path, append(lines, string(forged)))
	changes, problems = testaudit.Read(t, path, keyed)
	require.Len(t, problems, 1)
	assert.Contains(t, problems[0].Reason, "line 5 is not keyed, after keyed lines")
	assert.Equal(t, []string{"c1", "c2"}, testaudit.Trusted(changes))
	_, problems = testaudit.Read(t, path, auditlog.Options{})
	require.Len(t, problems, 1, "without the key too, the downgrade is seen")
	assert.Contains(t, problems[0].Reason, "line 5 is not keyed")
	// ... or one that claims to be keyed, with any hash.
	forged, _ = auditlog.Options{Key: "a-guessed-key-16b"}.Seal(auditlog.ChainHMAC, []byte(`{"type":"intent","id":"forged","op":"create_topics","cluster_id":"kfake","chain":"hmac-sha256","prev":"`+last+`"}`))
	testaudit.WriteLines(t, path, append(lines, string(forged)))
	changes, problems = testaudit.Read(t, path, keyed)
	require.Len(t, problems, 1)
	assert.Contains(t, problems[0].Reason, "line 5's HMAC does not verify with the key")
	assert.Equal(t, []string{"c1", "c2"}, testaudit.Trusted(changes))
	testaudit.WriteLines(t, path, lines)

	// A keyed log is not continued without its key.
	_, err := auditlog.Open(path)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is keyed")
	testaudit.WriteChanges(t, path, keyed, 3, 1)
	changes, problems = testaudit.Read(t, path, keyed)
	assert.Empty(t, problems)
	assert.Equal(t, []string{"c1", "c2", "c3"}, testaudit.Trusted(changes))

	// The key is a secret: it never prints.
	for _, s := range []string{fmt.Sprint(keyed), fmt.Sprintf("%+v %#v %s %q", keyed, keyed, keyed.Key, keyed.Key), string(testaudit.MustJSON(t, keyed))} {
		assert.NotContains(t, s, string(testaudit.Key))
	}
	_, err = auditlog.OpenWith(filepath.Join(dir, "short.jsonl"), auditlog.Options{Key: "short-secret"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "at least 16")
	assert.NotContains(t, err.Error(), "short-secret")
}

func TestAuditChainAfterLinesOfEarlierVersions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.jsonl")
	testaudit.WriteLines(t, path, []string{
		`{"time":"2026-11-01T10:00:00Z","op":"create_topics","args":["x"]}`, // the one-line-per-call format
		`{"type":"intent","id":"old1","op":"create_topics","cluster_id":"kfake","args":{"specs":[{"name":"old"}]}}`,
		`{"type":"outcome","id":"old1","op":"create_topics","items":[{"key":"old","outcome":"ok"}]}`,
	})
	testaudit.WriteChanges(t, path, auditlog.Options{}, 1, 1)
	recs := testaudit.Records(t, path)
	assert.Equal(t, auditlog.Options{}.Sum(auditlog.ChainSHA256, []byte(testaudit.Lines(t, path)[2])), recs[3].Prev, "the chain starts from the last unchained line")

	changes, problems := testaudit.Read(t, path, auditlog.Options{})
	assert.Empty(t, problems)
	assert.Equal(t, []string{"old1 ok", "c1 ok"}, testaudit.Trust(changes))
	assert.True(t, changes[0].Unchained)
	assert.False(t, changes[1].Unchained)

	// Editing the last unchained line breaks the chain; with a key the
	// unchained change is not trusted anyway.
	changes, _ = testaudit.Read(t, path, auditlog.Options{Key: testaudit.Key})
	assert.Contains(t, changes[0].Untrusted, "written without the hash chain")
	lines := testaudit.Lines(t, path)
	lines[2] = strings.Replace(lines[2], `"ok"`, `"TOPIC_ALREADY_EXISTS"`, 1)
	testaudit.WriteLines(t, path, lines)
	changes, problems = testaudit.Read(t, path, auditlog.Options{})
	require.Len(t, problems, 1)
	assert.Contains(t, problems[0].Reason, "line 4 does not follow line 3")
	assert.Empty(t, testaudit.Trusted(changes))
}

func TestReadAuditLogKeepsGoingPastBadLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.jsonl")
	long := `{"type":"intent","id":"long","op":"create_topics","args":"` + strings.Repeat("x", auditlog.MaxLine) + `"}`
	testaudit.WriteLines(t, path, []string{
		`{"type":"intent","id":"a","op":"create_topics","cluster_id":"kfake"}`,
		`{"type":"outcome","id":"a","op":"create_topics","items":[{"key":"t","outcome":"ok"}]}`,
		`garbage in the middle`,
		long,
		``,
		`{"type":"intent","id":"b","op":"create_topics","cluster_id":"kfake"}`,
		`{"type":"intent","id":`,
		`{"type":"outcome","id":"b","op":"create_topics","items":[{"key":"t","outcome":"ok"}]}`,
	})
	changes, problems := testaudit.Read(t, path, auditlog.Options{})
	assert.Equal(t, []string{"a ok", "b ok"}, testaudit.Trust(changes), "the lines around the bad ones are read")
	require.Len(t, problems, 3)
	assert.Equal(t, 3, problems[0].Line)
	assert.Contains(t, problems[0].Reason, "not an audit record")
	assert.Equal(t, 4, problems[1].Line)
	assert.Contains(t, problems[1].Reason, "longer than the line limit (16777216 bytes)")
	assert.Equal(t, 7, problems[2].Line)
	assert.Equal(t, 8, changes[1].OutcomeLine)
}

func TestAuditLineCutShortByACrash(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cut.jsonl")
	testaudit.WriteChanges(t, path, auditlog.Options{}, 1, 1)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"type":"intent","id":"c2","op":"delete_to`) // the process died mid-write
	require.NoError(t, err)
	require.NoError(t, f.Close())
	changes, problems := testaudit.Read(t, path, auditlog.Options{})
	assert.Empty(t, problems, "a last line cut short: nothing was sent for it")
	assert.Equal(t, []string{"c1 ok"}, testaudit.Trust(changes))

	// The next run ends the cut line and chains to it.
	testaudit.WriteChanges(t, path, auditlog.Options{}, 3, 1)
	lines := testaudit.Lines(t, path)
	require.Len(t, lines, 5)
	assert.Equal(t, `{"type":"intent","id":"c2","op":"delete_to`, lines[2])
	changes, problems = testaudit.Read(t, path, auditlog.Options{})
	assert.Empty(t, problems)
	assert.Equal(t, []string{"c1 ok", "c3 ok"}, testaudit.Trust(changes))

	// Blank lines at the end are not part of the chain, for the writer
	// either.
	f, err = os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("\n  \n\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	testaudit.WriteChanges(t, path, auditlog.Options{}, 4, 1)
	changes, problems = testaudit.Read(t, path, auditlog.Options{})
	assert.Empty(t, problems)
	assert.Equal(t, []string{"c1 ok", "c3 ok", "c4 ok"}, testaudit.Trust(changes))
}

func TestAuditChainWithTwoWritersOnOneFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shared.jsonl")
	// Two processes (two AuditLogs, two descriptors) appending at once:
	// each reads the end of the file under the lock.
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			testaudit.WriteChanges(t, path, auditlog.Options{}, 1+100*w, 20)
		}()
	}
	wg.Wait()
	changes, problems := testaudit.Read(t, path, auditlog.Options{})
	assert.Empty(t, problems)
	assert.Len(t, testaudit.Trusted(changes), 40)
}

// A log written without the key, then with it: with the key only the keyed
// changes are trusted, and the chain holds across the switch.
func TestAuditChainKeySetLater(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.jsonl")
	testaudit.WriteChanges(t, path, auditlog.Options{}, 1, 1)
	testaudit.WriteChanges(t, path, auditlog.Options{Key: testaudit.Key}, 2, 1)
	changes, problems := testaudit.Read(t, path, auditlog.Options{Key: testaudit.Key})
	assert.Empty(t, problems)
	assert.Equal(t, []string{"c2"}, testaudit.Trusted(changes))
	assert.Contains(t, changes[0].Untrusted, "written without the key (sha256)")
	changes, problems = testaudit.Read(t, path, auditlog.Options{})
	assert.Empty(t, problems)
	assert.Equal(t, []string{"c1"}, testaudit.Trusted(changes))
}
