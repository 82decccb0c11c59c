package engine

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine/alerts"
	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
	"github.com/kadmin-lua/kadmin-lua/internal/testnet"
)

// A client's notifier remembers in Config.Notices.
func TestClientNotifierUsesConfigLedger(t *testing.T) {
	h := testnet.NewWebhook(t)
	ledger := alerts.NewMemoryLedger()
	c, err := New(Config{Brokers: []string{"127.0.0.1:1"}, Notices: ledger})
	require.NoError(t, err)
	defer c.Close()
	req := alerts.Request{URL: vocab.Secret(h.URL), Format: alerts.FormatJSON, Alerts: []alerts.Alert{{Key: "k"}}}
	res, err := c.Notify(context.Background(), req)
	require.NoError(t, err)
	assert.True(t, res.Sent)
	_, found := ledger.LastNotice(alerts.NoticeKey(h.URL, "k"))
	assert.True(t, found)
	res, err = c.Notify(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, alerts.ReasonUnchanged, res.Reason)

	// The client's dry-run holds.
	dry, err := New(Config{Brokers: []string{"127.0.0.1:1"}, DryRun: true})
	require.NoError(t, err)
	defer dry.Close()
	res, err = dry.Notify(context.Background(), alerts.Request{URL: vocab.Secret(h.URL), Format: alerts.FormatJSON, Alerts: []alerts.Alert{{Key: "other"}}})
	require.NoError(t, err)
	assert.True(t, res.DryRun)
	assert.Len(t, h.Bodies(), 1)
}
