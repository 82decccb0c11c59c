package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const testKey = Secret("0123456789abcdef-test-key")

// writeChanges appends n intent+outcome pairs (ids c1, c2, ...) to the log
// at path through an AuditLog opened with o, as one process run.
func writeChanges(t *testing.T, path string, o AuditLogOptions, from, n int) {
	t.Helper()
	log, err := OpenAuditLogWith(path, o)
	require.NoError(t, err)
	defer log.Close()
	for i := from; i < from+n; i++ {
		id := fmt.Sprintf("c%d", i)
		require.NoError(t, log.append(AuditRecord{Type: AuditIntent, ID: id, Op: "create_topics", ClusterID: "kfake",
			Args: json.RawMessage(`{"specs":[{"name":"t` + id + `"}]}`)}))
		require.NoError(t, log.append(AuditRecord{Type: AuditOutcome, ID: id, Op: "create_topics",
			Items: []AuditItemOutcome{{Key: "t" + id, Outcome: OutcomeOK}}}))
	}
}

func readLog(t *testing.T, path string, o AuditLogOptions) ([]AuditedChange, []AuditProblem) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	changes, problems, err := ReadAuditLogWith(f, path, o)
	require.NoError(t, err)
	return changes, problems
}

// trust is each change's id and "ok" or why it is not trusted.
func trust(changes []AuditedChange) []string {
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

func trusted(changes []AuditedChange) []string {
	var out []string
	for _, ch := range changes {
		if ch.Untrusted == "" {
			out = append(out, ch.Intent.ID)
		}
	}
	return out
}

func fileLines(t *testing.T, path string) []string {
	t.Helper()
	return strings.Split(strings.TrimSuffix(string(mustRead(t, path)), "\n"), "\n")
}

func writeLines(t *testing.T, path string, lines []string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600))
}

func TestAuditChainLinksEveryLineAcrossRuns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.jsonl")
	writeChanges(t, path, AuditLogOptions{}, 1, 1)
	writeChanges(t, path, AuditLogOptions{}, 2, 1) // another process run: continues the chain
	recs := readAudit(t, path)
	require.Len(t, recs, 4)
	assert.Empty(t, recs[0].Prev, "a file's first line starts the chain")
	for i, r := range recs {
		assert.Equal(t, ChainSHA256, r.Chain)
		assert.Len(t, r.Hash, 64)
		if i > 0 {
			assert.Equal(t, recs[i-1].Hash, r.Prev, "line %d names line %d's hash", i+1, i)
		}
	}
	assert.True(t, strings.HasSuffix(fileLines(t, path)[0], `,"hash":"`+recs[0].Hash+`"}`), "the hash ends the line")
	changes, problems := readLog(t, path, AuditLogOptions{})
	assert.Empty(t, problems)
	assert.Equal(t, []string{"c1 ok", "c2 ok"}, trust(changes))
	assert.Equal(t, 3, changes[1].IntentLine)
	assert.Equal(t, 4, changes[1].OutcomeLine)
}

func TestAuditChainDetectsEditsRemovalsAndInsertions(t *testing.T) {
	dir := t.TempDir()
	fresh := func(t *testing.T) (string, []string) {
		path := filepath.Join(dir, strings.ReplaceAll(t.Name(), "/", "_")+".jsonl")
		writeChanges(t, path, AuditLogOptions{}, 1, 3)
		return path, fileLines(t, path)
	}
	t.Run("edited", func(t *testing.T) {
		path, lines := fresh(t)
		lines[2] = strings.Replace(lines[2], `"tc2"`, `"victim"`, 1)
		writeLines(t, path, lines)
		changes, problems := readLog(t, path, AuditLogOptions{})
		require.Len(t, problems, 1)
		assert.Equal(t, 3, problems[0].Line)
		assert.Contains(t, problems[0].Reason, "line 3's hash does not match it: it was edited")
		assert.Equal(t, []string{"c1"}, trusted(changes), "the changes from the break on are refused")
		assert.Contains(t, changes[1].Untrusted, "hash chain breaks at line 3")
	})
	t.Run("edited with its hash recomputed", func(t *testing.T) {
		path, lines := fresh(t)
		_, body, ok := sealed([]byte(lines[2]))
		require.True(t, ok)
		body = bytes.Replace(body, []byte(`"tc2"`), []byte(`"victim"`), 1)
		resealed, _ := AuditLogOptions{}.seal(ChainSHA256, body)
		lines[2] = string(resealed)
		writeLines(t, path, lines)
		changes, problems := readLog(t, path, AuditLogOptions{})
		require.Len(t, problems, 1)
		assert.Equal(t, 4, problems[0].Line)
		assert.Contains(t, problems[0].Reason, "line 4 does not follow line 3")
		assert.Equal(t, []string{"c1"}, trusted(changes), "the edited line itself is refused")
	})
	t.Run("removed", func(t *testing.T) {
		path, lines := fresh(t)
		writeLines(t, path, append(lines[:3:3], lines[4:]...)) // c2's outcome gone: c2 would look unfinished
		changes, problems := readLog(t, path, AuditLogOptions{})
		require.Len(t, problems, 1)
		assert.Contains(t, problems[0].Reason, "line 4 does not follow line 3: lines between were removed or inserted")
		assert.Equal(t, []string{"c1"}, trusted(changes))
	})
	t.Run("removed from the start", func(t *testing.T) {
		path, lines := fresh(t)
		writeLines(t, path, lines[2:])
		changes, problems := readLog(t, path, AuditLogOptions{})
		require.NotEmpty(t, problems)
		assert.Contains(t, problems[0].Reason, "lines were removed from the start")
		assert.Empty(t, trusted(changes))
	})
	t.Run("inserted unchained", func(t *testing.T) {
		path, lines := fresh(t)
		forged := `{"type":"intent","id":"forged","op":"create_topics","cluster_id":"kfake","args":{"specs":[{"name":"victim"}]}}`
		writeLines(t, path, append(lines, forged))
		changes, problems := readLog(t, path, AuditLogOptions{})
		require.Len(t, problems, 1)
		assert.Equal(t, 7, problems[0].Line)
		assert.Contains(t, problems[0].Reason, "has no hash after chained lines")
		assert.Equal(t, []string{"c1", "c2", "c3"}, trusted(changes))
	})
	t.Run("inserted chained", func(t *testing.T) {
		path, lines := fresh(t)
		forged, _ := AuditLogOptions{}.seal(ChainSHA256, []byte(`{"type":"intent","id":"forged","op":"create_topics","cluster_id":"kfake","chain":"sha256","prev":"`+strings.Repeat("0", 64)+`"}`))
		writeLines(t, path, append(lines[:2:2], append([]string{string(forged)}, lines[2:]...)...))
		changes, problems := readLog(t, path, AuditLogOptions{})
		require.NotEmpty(t, problems)
		assert.Equal(t, 3, problems[0].Line)
		assert.Empty(t, trusted(changes), "without a key, line 2 may be the edited one")
		assert.Contains(t, changes[0].Untrusted, "breaks at line 3")
	})
	t.Run("inserted between keyed lines", func(t *testing.T) {
		path := filepath.Join(dir, "keyed-insert.jsonl")
		writeChanges(t, path, AuditLogOptions{Key: testKey}, 1, 2)
		lines := fileLines(t, path)
		forged, _ := AuditLogOptions{Key: "a-guessed-key-16b"}.seal(ChainHMAC, []byte(`{"type":"intent","id":"forged","op":"create_topics","cluster_id":"kfake","chain":"hmac-sha256","prev":"`+readAudit(t, path)[1].Hash+`"}`))
		writeLines(t, path, append(lines[:2:2], append([]string{string(forged)}, lines[2:]...)...))
		changes, problems := readLog(t, path, AuditLogOptions{Key: testKey})
		require.NotEmpty(t, problems)
		assert.Equal(t, 3, problems[0].Line)
		assert.Equal(t, []string{"c1"}, trusted(changes), "line 2's HMAC verified: it was not edited")
	})
	t.Run("a line from elsewhere starting a chain", func(t *testing.T) {
		path, lines := fresh(t)
		other := filepath.Join(dir, "other.jsonl")
		writeChanges(t, other, AuditLogOptions{}, 9, 1)
		writeLines(t, path, append(lines, fileLines(t, other)...))
		changes, problems := readLog(t, path, AuditLogOptions{})
		require.NotEmpty(t, problems)
		assert.Contains(t, problems[0].Reason, "line 7 starts a new chain after line 6")
		assert.Equal(t, []string{"c1", "c2", "c3"}, trusted(changes))
	})
}

func TestAuditChainWithAKey(t *testing.T) {
	dir := t.TempDir()
	keyed := AuditLogOptions{Key: testKey}
	path := filepath.Join(dir, "keyed.jsonl")
	writeChanges(t, path, keyed, 1, 2)
	recs := readAudit(t, path)
	assert.Equal(t, ChainHMAC, recs[0].Chain)

	changes, problems := readLog(t, path, keyed)
	assert.Empty(t, problems)
	assert.Equal(t, []string{"c1", "c2"}, trusted(changes))

	// Without the key the HMACs cannot be checked: nothing is trusted.
	changes, problems = readLog(t, path, AuditLogOptions{})
	assert.Empty(t, problems)
	assert.Empty(t, trusted(changes))
	assert.Contains(t, changes[0].Untrusted, "keyed (hmac-sha256): give the log's key")

	// Another key: the first line does not verify.
	changes, problems = readLog(t, path, AuditLogOptions{Key: "another-key-of-16-bytes"})
	require.NotEmpty(t, problems)
	assert.Contains(t, problems[0].Reason, "line 1's HMAC does not verify with the key")
	assert.Empty(t, trusted(changes))

	// A forger without the key: an unkeyed line that chains correctly...
	lines := fileLines(t, path)
	last := recs[len(recs)-1].Hash
	forged, _ := AuditLogOptions{}.seal(ChainSHA256, []byte(`{"type":"intent","id":"forged","op":"create_topics","cluster_id":"kfake","chain":"sha256","prev":"`+last+`"}`))
	writeLines(t, path, append(lines, string(forged)))
	changes, problems = readLog(t, path, keyed)
	require.Len(t, problems, 1)
	assert.Contains(t, problems[0].Reason, "line 5 is not keyed, after keyed lines")
	assert.Equal(t, []string{"c1", "c2"}, trusted(changes))
	_, problems = readLog(t, path, AuditLogOptions{})
	require.Len(t, problems, 1, "without the key too, the downgrade is seen")
	assert.Contains(t, problems[0].Reason, "line 5 is not keyed")
	// ... or one that claims to be keyed, with any hash.
	forged, _ = AuditLogOptions{Key: "a-guessed-key-16b"}.seal(ChainHMAC, []byte(`{"type":"intent","id":"forged","op":"create_topics","cluster_id":"kfake","chain":"hmac-sha256","prev":"`+last+`"}`))
	writeLines(t, path, append(lines, string(forged)))
	changes, problems = readLog(t, path, keyed)
	require.Len(t, problems, 1)
	assert.Contains(t, problems[0].Reason, "line 5's HMAC does not verify with the key")
	assert.Equal(t, []string{"c1", "c2"}, trusted(changes))
	writeLines(t, path, lines)

	// A keyed log is not continued without its key.
	_, err := OpenAuditLog(path)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is keyed")
	writeChanges(t, path, keyed, 3, 1)
	changes, problems = readLog(t, path, keyed)
	assert.Empty(t, problems)
	assert.Equal(t, []string{"c1", "c2", "c3"}, trusted(changes))

	// The key is a secret: it never prints.
	for _, s := range []string{fmt.Sprint(keyed), fmt.Sprintf("%+v %#v %s %q", keyed, keyed, keyed.Key, keyed.Key), string(mustJSON(t, keyed))} {
		assert.NotContains(t, s, string(testKey))
	}
	_, err = OpenAuditLogWith(filepath.Join(dir, "short.jsonl"), AuditLogOptions{Key: "short-secret"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "at least 16")
	assert.NotContains(t, err.Error(), "short-secret")
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

func TestAuditChainAfterLinesOfEarlierVersions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.jsonl")
	writeLines(t, path, []string{
		`{"time":"2026-11-01T10:00:00Z","op":"create_topics","args":["x"]}`, // the one-line-per-call format
		`{"type":"intent","id":"old1","op":"create_topics","cluster_id":"kfake","args":{"specs":[{"name":"old"}]}}`,
		`{"type":"outcome","id":"old1","op":"create_topics","items":[{"key":"old","outcome":"ok"}]}`,
	})
	writeChanges(t, path, AuditLogOptions{}, 1, 1)
	recs := readAudit(t, path)
	assert.Equal(t, AuditLogOptions{}.sum(ChainSHA256, []byte(fileLines(t, path)[2])), recs[3].Prev, "the chain starts from the last unchained line")

	changes, problems := readLog(t, path, AuditLogOptions{})
	assert.Empty(t, problems)
	assert.Equal(t, []string{"old1 ok", "c1 ok"}, trust(changes))
	assert.True(t, changes[0].Unchained)
	assert.False(t, changes[1].Unchained)

	// Editing the last unchained line breaks the chain; with a key the
	// unchained change is not trusted anyway.
	changes, _ = readLog(t, path, AuditLogOptions{Key: testKey})
	assert.Contains(t, changes[0].Untrusted, "written without the hash chain")
	lines := fileLines(t, path)
	lines[2] = strings.Replace(lines[2], `"ok"`, `"TOPIC_ALREADY_EXISTS"`, 1)
	writeLines(t, path, lines)
	changes, problems = readLog(t, path, AuditLogOptions{})
	require.Len(t, problems, 1)
	assert.Contains(t, problems[0].Reason, "line 4 does not follow line 3")
	assert.Empty(t, trusted(changes))
}

func TestReadAuditLogKeepsGoingPastBadLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.jsonl")
	long := `{"type":"intent","id":"long","op":"create_topics","args":"` + strings.Repeat("x", MaxAuditLine) + `"}`
	writeLines(t, path, []string{
		`{"type":"intent","id":"a","op":"create_topics","cluster_id":"kfake"}`,
		`{"type":"outcome","id":"a","op":"create_topics","items":[{"key":"t","outcome":"ok"}]}`,
		`garbage in the middle`,
		long,
		``,
		`{"type":"intent","id":"b","op":"create_topics","cluster_id":"kfake"}`,
		`{"type":"intent","id":`,
		`{"type":"outcome","id":"b","op":"create_topics","items":[{"key":"t","outcome":"ok"}]}`,
	})
	changes, problems := readLog(t, path, AuditLogOptions{})
	assert.Equal(t, []string{"a ok", "b ok"}, trust(changes), "the lines around the bad ones are read")
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
	writeChanges(t, path, AuditLogOptions{}, 1, 1)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"type":"intent","id":"c2","op":"delete_to`) // the process died mid-write
	require.NoError(t, err)
	require.NoError(t, f.Close())
	changes, problems := readLog(t, path, AuditLogOptions{})
	assert.Empty(t, problems, "a last line cut short: nothing was sent for it")
	assert.Equal(t, []string{"c1 ok"}, trust(changes))

	// The next run ends the cut line and chains to it.
	writeChanges(t, path, AuditLogOptions{}, 3, 1)
	lines := fileLines(t, path)
	require.Len(t, lines, 5)
	assert.Equal(t, `{"type":"intent","id":"c2","op":"delete_to`, lines[2])
	changes, problems = readLog(t, path, AuditLogOptions{})
	assert.Empty(t, problems)
	assert.Equal(t, []string{"c1 ok", "c3 ok"}, trust(changes))

	// Blank lines at the end are not part of the chain, for the writer
	// either.
	f, err = os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("\n  \n\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	writeChanges(t, path, AuditLogOptions{}, 4, 1)
	changes, problems = readLog(t, path, AuditLogOptions{})
	assert.Empty(t, problems)
	assert.Equal(t, []string{"c1 ok", "c3 ok", "c4 ok"}, trust(changes))
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
			writeChanges(t, path, AuditLogOptions{}, 1+100*w, 20)
		}()
	}
	wg.Wait()
	changes, problems := readLog(t, path, AuditLogOptions{})
	assert.Empty(t, problems)
	assert.Len(t, trusted(changes), 40)
}

func TestAuditRotationStartsANewChain(t *testing.T) {
	cl, _, _, path := auditedClient(t)
	require.NoError(t, createTopic(cl, "one"))
	require.NoError(t, os.Rename(path, path+".1"))
	require.NoError(t, createTopic(cl, "two"))
	recs := readAudit(t, path)
	assert.Empty(t, recs[0].Prev, "the new file's first line starts a chain")
	for _, p := range []string{path, path + ".1"} {
		changes, problems := readLog(t, p, AuditLogOptions{})
		assert.Empty(t, problems, p)
		assert.Len(t, trusted(changes), 1, p)
	}
}

// A log written without the key, then with it: with the key only the keyed
// changes are trusted, and the chain holds across the switch.
func TestAuditChainKeySetLater(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.jsonl")
	writeChanges(t, path, AuditLogOptions{}, 1, 1)
	writeChanges(t, path, AuditLogOptions{Key: testKey}, 2, 1)
	changes, problems := readLog(t, path, AuditLogOptions{Key: testKey})
	assert.Empty(t, problems)
	assert.Equal(t, []string{"c2"}, trusted(changes))
	assert.Contains(t, changes[0].Untrusted, "written without the key (sha256)")
	changes, problems = readLog(t, path, AuditLogOptions{})
	assert.Empty(t, problems)
	assert.Equal(t, []string{"c1"}, trusted(changes))
}
