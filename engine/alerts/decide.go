package alerts

import (
	"maps"
	"time"
)

// Deciding what to send for one alert, from what was last sent for it.
//
// An alert's identity at the webhook is its label set: Alertmanager
// fingerprints the labels (model.LabelSet.Fingerprint, after dropping
// labels whose value is empty) and resolves the alert of that fingerprint
// when a POST carries it with an endsAt in the past. So the labels an
// alert opened with are recorded (Notice.Labels), its resolution carries
// them whatever the caller's labels are by then, and when the labels it
// fires with change while it is open (a status label: severity warning
// to critical), the open one is resolved with its own labels in the same
// POST as the new one opens. Otherwise it would stay firing beside the new
// one until its endsAt.

// step is what one alert of a request does.
type step struct {
	ledgerKey string
	reason    string
	runs      int        // pending: calls in a row that saw the new status
	sends     []outgoing // what goes in the POST: a resolution, an opening (or repeat), or both
	next      Notice     // what the ledger records once sends are delivered
	save      bool       // next is to be recorded (for a step that sends nothing: at once)
}

// outgoing is one alert as it goes in a POST.
type outgoing struct {
	Alert           // Labels are those sent; Status "resolved" for a resolution
	reason   string // opened, repeat or resolved
	firing   bool
	startsMs int64
	endsMs   int64 // firing: when Alertmanager lets it lapse unless sent again
}

// firingLabels are the labels an alert fires with under status word: its
// own, and its status's over them.
func (req *Request) firingLabels(a Alert, word string) map[string]string {
	out := maps.Clone(a.Labels)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, req.StatusLabels[word])
	return out
}

// openedLabels are the labels the open alert prev was sent with. A notice
// recorded before labels were (an earlier kadmin-lua) was sent with the
// labels the caller gave: those it gives now, with the status labels of
// the word it opened with.
func (req *Request) openedLabels(a Alert, prev Notice) map[string]string {
	if prev.Labels != nil {
		return prev.Labels
	}
	return req.firingLabels(a, prev.Status)
}

// sameIdentity reports whether two label sets are one alert to
// Alertmanager, which drops labels whose value is empty before it
// fingerprints them (api/v2 removeEmptyLabels).
func sameIdentity(a, b map[string]string) bool {
	for k, v := range a {
		if v != "" && b[k] != v {
			return false
		}
	}
	for k, v := range b {
		if v != "" && a[k] != v {
			return false
		}
	}
	return true
}

// decide compares an alert (Status and Key filled in) with what was last
// sent for it.
func decide(req *Request, a Alert, prev Notice, found bool, now int64) step {
	target := a.Status
	if resolves(target) {
		target = StatusResolved
	}
	open := found && prev.Status != StatusResolved
	current := StatusResolved
	var opened, fires map[string]string
	if open {
		current, opened = prev.Status, req.openedLabels(a, prev)
	}
	if target != StatusResolved {
		fires = req.firingLabels(a, target)
	}
	s := step{reason: ReasonUnchanged}
	resolution := func() outgoing {
		r := Alert{Key: a.Key, Status: StatusResolved, Labels: opened, Annotations: a.Annotations}
		// startsAt after endsAt is refused by Alertmanager: a clock that
		// went back since the alert opened.
		return outgoing{Alert: r, reason: ReasonResolved, startsMs: min(prev.OpenedMs, now), endsMs: now}
	}
	firing := func(word string, labels map[string]string, reason string, startsMs int64) outgoing {
		f := Alert{Key: a.Key, Status: word, Labels: labels, Annotations: a.Annotations}
		// Alertmanager resolves an alert nobody re-sends by endsAt: it stays
		// firing through the next repeat, and lapses when the job that sends
		// it stopped.
		return outgoing{Alert: f, reason: reason, firing: true, startsMs: startsMs,
			endsMs: now + 2*req.RepeatInterval.Milliseconds()}
	}

	if target == current {
		// No change of status: a pending one that did not hold is
		// forgotten.
		s.next, s.save = prev, prev.Pending != ""
		s.next.Pending, s.next.PendingRuns, s.next.PendingMs = "", 0, 0
		switch {
		case !open:
			// Nothing open: nothing to resolve, and nothing remembered (a
			// healthy alert costs the ledger nothing).
		case !sameIdentity(opened, fires):
			// The same status under other labels (the caller's changed, or
			// an earlier kadmin-lua's alert): another alert to the webhook.
			s.reason, s.save = ReasonOpened, true
			s.sends = []outgoing{resolution(), firing(a.Status, fires, ReasonOpened, now)}
			s.next = Notice{Status: target, OpenedMs: now, SentMs: now, Labels: fires}
		case repeatDue(prev.SentMs, now, req.RepeatInterval):
			s.reason, s.save = ReasonRepeat, true
			s.sends = []outgoing{firing(a.Status, fires, ReasonRepeat, prev.OpenedMs)}
			s.next = Notice{Status: target, OpenedMs: prev.OpenedMs, SentMs: now, Labels: fires}
		}
		return s
	}

	// A new status: sent once it has held for AfterRuns calls in a row.
	runs, since := 1, now
	if prev.Pending == target {
		runs, since = prev.PendingRuns+1, prev.PendingMs
	}
	if runs < req.AfterRuns {
		s.reason, s.runs, s.save = ReasonPending, runs, true
		s.next = prev
		if !found {
			s.next.Status = StatusResolved
		}
		s.next.Pending, s.next.PendingRuns, s.next.PendingMs = target, runs, since
		if open && repeatDue(prev.SentMs, now, req.RepeatInterval) {
			// Still open until the new status holds: repeated as it opened,
			// or Alertmanager would let it lapse at its endsAt meanwhile.
			s.reason = ReasonRepeat
			s.sends = []outgoing{firing(prev.Status, opened, ReasonRepeat, prev.OpenedMs)}
			s.next.SentMs, s.next.Labels = now, opened
		}
		return s
	}
	s.save = true
	if target == StatusResolved {
		s.reason = ReasonResolved
		s.sends = []outgoing{resolution()}
		s.next = Notice{Status: StatusResolved, OpenedMs: now, SentMs: now}
		return s
	}
	s.reason = ReasonOpened
	if open && !sameIdentity(opened, fires) {
		s.sends = append(s.sends, resolution())
	}
	s.sends = append(s.sends, firing(a.Status, fires, ReasonOpened, since))
	s.next = Notice{Status: target, OpenedMs: since, SentMs: now, Labels: fires}
	return s
}

// repeatDue reports whether an open alert last sent at sentMs is sent
// again now. A clock that went backwards counts as time passed: the
// notice is repeated at most once, then dated anew.
func repeatDue(sentMs, now int64, repeat time.Duration) bool {
	elapsed := now - sentMs
	if elapsed < 0 {
		elapsed = -elapsed
	}
	return time.Duration(elapsed)*time.Millisecond >= repeat
}
