package engine

import (
	"context"

	"github.com/kadmin-lua/kadmin-lua/engine/alerts"
)

// kafka.notify's delivery, formats and ledger are engine/alerts; the
// client keeps one notifier, remembering in its configuration's ledger.

// Notifier returns the client's notifier, remembering in Config.Notices
// (memory when nil): made once, kept for the client's life.
func (c *Client) Notifier() *alerts.Notifier {
	c.notifyOnce.Do(func() {
		ledger := c.cfg.Notices
		if ledger == nil && c.cfg.State != nil {
			ledger = c.cfg.State.Notices(stateName(c.cfg))
		}
		c.notifier = alerts.NewNotifier(ledger)
	})
	return c.notifier
}

// Notify sends req through the client's notifier; the client's dry-run
// (its configuration's, or ctx's) holds.
func (c *Client) Notify(ctx context.Context, req alerts.Request) (*alerts.Result, error) {
	req.DryRun = req.DryRun || c.DryRun(ctx)
	return c.Notifier().Notify(ctx, req)
}
