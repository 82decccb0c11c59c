package state

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine/alerts"
	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
	"github.com/kadmin-lua/kadmin-lua/internal/testnet"
)

// The labels an alert opened with and a pending status survive the state
// file; a store without notices writes nothing an older kadmin-lua cannot
// read.
func TestStateFileKeepsNoticeLabelsAndPending(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state")
	s, err := OpenFile(path, Options{})
	require.NoError(t, err)
	want := map[string]alerts.Notice{
		"open":    {Status: "ERR", OpenedMs: 1, SentMs: 2, Labels: alertLabels("alertname", "A", "severity", "critical")},
		"keyonly": {Status: "firing", OpenedMs: 1, SentMs: 2, Labels: map[string]string{}},
		"legacy":  {Status: "WARN", OpenedMs: 1, SentMs: 2},
		"pending": {Status: alerts.StatusResolved, Pending: "WARN", PendingRuns: 2, PendingMs: 3},
	}
	for k, v := range want {
		require.NoError(t, s.Notices("prod").SaveNotice(k, v))
	}
	require.NoError(t, s.Save())
	s.Close()
	again, err := OpenFile(path, Options{})
	require.NoError(t, err)
	defer again.Close()
	for k, v := range want {
		got, ok := again.Notices("prod").LastNotice(k)
		require.True(t, ok, k)
		assert.Equal(t, v, got, k)
	}
	assert.Equal(t, []byte{0}, encodeNotices(nil, nil), "no notices: the layout every version reads")
}

func alertLabels(kv ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

// With the state file's lock held by another run, kafka.notify sends
// nothing (it could not record what it sent); once the lock is free it
// sends.
func TestNotifySendsNothingWhileTheStateFileIsLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state")
	other := savedOneSample(t, path)
	store, err := OpenFile(path, Options{LockWait: 100 * time.Millisecond})
	require.NoError(t, err)
	defer store.Close()
	h := testnet.NewWebhook(t)
	n := alerts.NewNotifier(store.Notices("prod"))
	req := alerts.Request{URL: vocab.Secret(h.URL), Format: alerts.FormatAlertmanager, Alerts: []alerts.Alert{{Status: "WARN", Labels: map[string]string{"alertname": "KafkaConsumerLag", "group": "billing"}}}}
	_, err = n.Notify(context.Background(), req)
	var ee *vocab.Error
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, vocab.CodeStateLocked, ee.Code)
	assert.Empty(t, h.Bodies(), "nothing sent")

	other.Close()
	res, err := n.Notify(context.Background(), req)
	require.NoError(t, err)
	assert.True(t, res.Sent)
	assert.Len(t, h.Bodies(), 1)
}
