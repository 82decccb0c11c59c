package engine

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/internal/testaudit"
)

// createTopic creates one topic through cl and returns the call's error.
func createTopic(cl *Client, name string) error {
	res, err := cl.CreateTopics(context.Background(), []TopicSpec{{Name: name, Partitions: 1}}, CreateTopicsOptions{})
	if err == nil && res[0].Err != nil {
		return res[0].Err
	}
	return err
}

// linesOf is each line of the log at path as "type op".
func linesOf(t *testing.T, path string) []string {
	t.Helper()
	var out []string
	for _, r := range testaudit.Records(t, path) {
		out = append(out, r.Type+" "+r.Op)
	}
	return out
}

func requireNotSent(t *testing.T, c *kfake.Cluster, creates interface{ Load() int32 }, topic string) {
	t.Helper()
	assert.Zero(t, creates.Load(), "no CreateTopics request was sent")
	assert.NotContains(t, freshTopics(t, c), topic)
}

func TestOpenAuditLogRefusesAFileOfAnotherUser(t *testing.T) {
	if runtime.GOOS == "windows" || os.Geteuid() != 0 {
		t.Skip("needs to chown (root)")
	}
	path := filepath.Join(t.TempDir(), "theirs.jsonl")
	require.NoError(t, os.WriteFile(path, nil, 0o600))
	require.NoError(t, os.Chown(path, 65534, 65534))
	_, err := auditlog.Open(path)
	require.Error(t, err)
	assert.Equal(t, CodeInvalidArgument, AsError(err, "").Code)
	assert.Contains(t, err.Error(), path+" belongs to uid 65534, not to this user")

	// Put at the path after a rotation: the call fails, nothing is sent.
	cl, c, _, logPath := auditedClient(t)
	require.NoError(t, os.Rename(logPath, logPath+".1"))
	require.NoError(t, os.WriteFile(logPath, nil, 0o600))
	require.NoError(t, os.Chown(logPath, 65534, 65534))
	creates := countRequests(c, kmsg.CreateTopics)
	err = createTopic(cl, "planted")
	require.Error(t, err)
	assert.Equal(t, CodeAudit, AsError(err, "").Code)
	assert.Contains(t, err.Error(), "belongs to uid 65534")
	requireNotSent(t, c, creates, "planted")
}

func TestAuditLogFollowsAMovedFile(t *testing.T) {
	cl, c, _, path := auditedClient(t)
	require.NoError(t, createTopic(cl, "before-rotation"))

	// logrotate: mv, then a new file at the path.
	require.NoError(t, os.Rename(path, path+".1"))
	require.NoError(t, os.WriteFile(path, nil, 0o600))
	require.NoError(t, createTopic(cl, "after-rotation"))
	old, cur := testaudit.Records(t, path+".1"), testaudit.Records(t, path)
	require.Len(t, old, 2)
	require.Len(t, cur, 2)
	assert.Contains(t, string(old[0].Args), "before-rotation")
	assert.Contains(t, string(cur[0].Args), "after-rotation")
	assert.Equal(t, cur[0].ID, cur[1].ID, "intent and outcome in the new file")

	// mv with no new file: the path is created again, 0600.
	require.NoError(t, os.Rename(path, path+".2"))
	require.NoError(t, createTopic(cl, "recreated"))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	assert.Equal(t, []string{"intent create_topics", "outcome create_topics"}, linesOf(t, path))
	assert.Len(t, testaudit.Records(t, path+".2"), 2, "the moved file keeps its lines")

	// Moved between an intent and its outcome: the outcome follows its
	// intent into the moved file.
	c.ControlKey(int16(kmsg.CreateTopics), func(kmsg.Request) (kmsg.Response, error, bool) {
		require.NoError(t, os.Rename(path, path+".3"))
		return nil, nil, false
	})
	require.NoError(t, createTopic(cl, "mid-call"))
	moved := testaudit.Records(t, path+".3")
	require.Len(t, moved, 4)
	assert.Equal(t, moved[2].ID, moved[3].ID)
	assert.Equal(t, auditlog.TypeOutcome, moved[3].Type)
	assert.NoFileExists(t, path, "no intent since: nothing created")
}

func TestAuditLogRemovedFailsAndSendsNothing(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("link counts")
	}
	cl, c, _, path := auditedClient(t)
	require.NoError(t, createTopic(cl, "first"))
	creates := countRequests(c, kmsg.CreateTopics)

	require.NoError(t, os.Remove(path))
	err := createTopic(cl, "after-rm")
	require.Error(t, err)
	assert.Equal(t, CodeAudit, AsError(err, "").Code)
	assert.Contains(t, err.Error(), path+" was removed")
	assert.Contains(t, err.Error(), "nothing was sent")
	assert.NoFileExists(t, path, "a removed log is not silently recreated")

	// A new file at the path does not make the deleted one's loss go away.
	require.NoError(t, os.WriteFile(path, nil, 0o600))
	err = createTopic(cl, "after-rm")
	require.Error(t, err)
	assert.Equal(t, CodeAudit, AsError(err, "").Code)
	assert.Empty(t, mustRead(t, path))
	requireNotSent(t, c, creates, "after-rm")
}

func TestAuditLogReopenRefusesWhatOpenRefuses(t *testing.T) {
	cl, c, _, path := auditedClient(t)
	require.NoError(t, createTopic(cl, "first"))
	creates := countRequests(c, kmsg.CreateTopics)
	require.NoError(t, os.Rename(path, path+".1"))

	// A group-writable file put at the path.
	require.NoError(t, os.WriteFile(path, nil, 0o600))
	require.NoError(t, os.Chmod(path, 0o666))
	err := createTopic(cl, "forged")
	require.Error(t, err)
	assert.Equal(t, CodeAudit, AsError(err, "").Code)
	assert.Contains(t, err.Error(), "may be written by group or others")
	assert.Contains(t, err.Error(), "nothing was sent")

	// A symlink put at the path (to a file the attacker reads).
	require.NoError(t, os.Remove(path))
	elsewhere := filepath.Join(t.TempDir(), "theirs.jsonl")
	require.NoError(t, os.WriteFile(elsewhere, nil, 0o600))
	require.NoError(t, os.Symlink(elsewhere, path))
	err = createTopic(cl, "forged")
	require.Error(t, err)
	assert.Equal(t, CodeAudit, AsError(err, "").Code)
	assert.Contains(t, err.Error(), "symbolic link")
	assert.Empty(t, mustRead(t, elsewhere))
	requireNotSent(t, c, creates, "forged")
	assert.Len(t, testaudit.Records(t, path+".1"), 2)
}

func TestAuditLineOverTheLimitIsRefusedBeforeSending(t *testing.T) {
	_, c, _, path := auditedClient(t)
	// Encoding 16 MiB twice takes seconds under -race: more than the
	// test client's 5 s deadline on a loaded machine.
	log, err := auditlog.Open(path)
	require.NoError(t, err)
	defer log.Close()
	cl, err := New(Config{Brokers: c.ListenAddrs(), Timeout: 2 * time.Minute, Audit: log})
	require.NoError(t, err)
	defer cl.Close()
	creates := countRequests(c, kmsg.CreateTopics)
	huge := strings.Repeat("x", auditlog.MaxLine)
	res, err := cl.CreateTopics(context.Background(), []TopicSpec{{Name: "huge", Partitions: 1, Configs: map[string]string{"my.note": huge}}}, CreateTopicsOptions{})
	require.Error(t, err, "%v", res)
	assert.Equal(t, CodeAudit, AsError(err, "").Code)
	assert.Contains(t, err.Error(), "line limit of 16777216 bytes")
	assert.Contains(t, err.Error(), "nothing was sent")
	assert.Empty(t, mustRead(t, path))
	requireNotSent(t, c, creates, "huge")
}

func TestAuditRotationStartsANewChain(t *testing.T) {
	cl, _, _, path := auditedClient(t)
	require.NoError(t, createTopic(cl, "one"))
	require.NoError(t, os.Rename(path, path+".1"))
	require.NoError(t, createTopic(cl, "two"))
	recs := testaudit.Records(t, path)
	assert.Empty(t, recs[0].Prev, "the new file's first line starts a chain")
	for _, p := range []string{path, path + ".1"} {
		changes, problems := testaudit.Read(t, p, auditlog.Options{})
		assert.Empty(t, problems, p)
		assert.Len(t, testaudit.Trusted(changes), 1, p)
	}
}
