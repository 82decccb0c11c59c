// Package alerts is kafka.notify: it POSTs alerts as JSON to a webhook, in
// one of Formats, and remembers what it sent in a Ledger (the state store
// between runs, or memory) so that an alert is sent once when its status
// opens ("opened"; a change of firing word, WARN to ERR, opens anew), again
// while it stays open once per repeat interval ("repeat"), once when it
// resolves ("resolved", with the labels it was opened with), and otherwise
// not at all ("unchanged"). With AfterRuns, a new status is sent only once
// that many calls in a row saw it ("pending" until then). An alert's labels
// are its identity at the webhook (Alertmanager fingerprints the label
// set): when they change while it is open, the open alert is resolved with
// its own labels in the same POST as the new one opens (decide.go). A
// delivery that fails ("failed") records nothing, so the next call tries
// again. Nothing here is a Kafka mutation: no audit line, no operations
// row; under dry-run nothing is POSTed and nothing recorded.
//
// It imports no Kafka package: the admin core hands it the client's dry-run
// and picks its ledger (engine.Client.Notifier); the state store
// (engine/state) implements Ledger between runs.
package alerts
