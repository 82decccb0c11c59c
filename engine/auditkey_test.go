package engine

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/internal/testaudit"
)

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
	mine, theirs := logWith(testaudit.Key), logWith(testaudit.OtherKey) // both opened on the empty file
	require.NoError(t, createTopic(mine, "mine"))
	creates := countRequests(c, kmsg.CreateTopics)
	err := createTopic(theirs, "theirs")
	require.Error(t, err)
	assert.Equal(t, CodeAudit, AsError(err, "").Code)
	assert.Contains(t, err.Error(), "keyed with another key")
	requireNotSent(t, c, creates, "theirs")
	assert.Equal(t, []string{"intent create_topics", "outcome create_topics"}, linesOf(t, path))
}
