package alerts

import (
	"net/http"
	"testing"
	"time"

	"github.com/kadmin-lua/kadmin-lua/internal/testnet"
)

// What the tests of package alerts_test (which import the state store,
// itself importing alerts) reach of the package's insides and helpers.

// AMNotifier is amNotifier.
func AMNotifier(t *testing.T, ledger Ledger) (*Notifier, *time.Time, *testnet.Alertmanager) {
	return amNotifier(t, ledger)
}

// Labels is labels.
func Labels(kv ...string) map[string]string { return labels(kv...) }

// SeverityByStatus is severityByStatus.
var SeverityByStatus = severityByStatus

// SetTransport sends the notifier's POSTs through tr.
func (n *Notifier) SetTransport(tr http.RoundTripper) { n.http.Transport = tr }
