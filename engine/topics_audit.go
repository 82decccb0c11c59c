package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
)

// What create_topics, delete_topics and create_partitions look at: the
// topics as they were before the call (the audit log's before-state), and
// again after an unknown outcome. A topic counts as created, deleted or
// grown by the call only when the state before and the state after say so.

// TopicBefore is one topic as it was before a call.
type TopicBefore struct {
	Exists            bool   `json:"exists"`
	ID                string `json:"id,omitempty"`
	Partitions        int    `json:"partitions,omitempty"`
	ReplicationFactor int    `json:"replication_factor,omitempty"`
	// Hidden is the error code that kept the topic from view: a principal
	// may create topics (CREATE) without the right to describe them
	// (DESCRIBE), as Kafka's own tools allow. Such a topic's before-state is
	// unknown; a definite answer of the create still decides, an unknown
	// outcome stays undetermined.
	Hidden string `json:"hidden,omitempty"`
}

// MarshalJSON leaves "exists" out of a hidden topic's state: the audit
// line must not say "exists": false of a topic nobody could look at.
func (s TopicBefore) MarshalJSON() ([]byte, error) {
	if s.Hidden != "" {
		return json.Marshal(struct {
			Hidden string `json:"hidden"`
		}{s.Hidden})
	}
	type plain TopicBefore
	return json.Marshal(plain(s))
}

// TopicsBefore is the before-state of the topic mutations: name -> state.
type TopicsBefore map[string]TopicBefore

// topicStates looks the named topics up (fresh metadata), reading of the
// response only what a TopicBefore keeps (metadata_skim.go).
func (c *Client) topicStates(ctx context.Context, names []string) (TopicsBefore, error) {
	req := newSkimRequest(names)
	var resp *skimResponse
	if err := retryCall(ctx, "", func(ctx context.Context) error {
		r, err := c.askAnyBroker(ctx, req)
		if err == nil {
			resp = r.(*skimResponse)
		}
		return err
	}); err != nil {
		return nil, err
	}
	out := make(TopicsBefore, len(names))
	for _, n := range names {
		t := resp.topics[req.want[n]]
		var terr error
		if t.found {
			terr = kerr.ErrorForCode(t.errorCode)
		}
		if !t.found || terr == kerr.UnknownTopicOrPartition || terr == kerr.UnknownTopicID {
			out[n] = TopicBefore{}
			continue
		}
		if terr == kerr.TopicAuthorizationFailed {
			out[n] = TopicBefore{Hidden: terr.(*kerr.Error).Message}
			continue
		}
		if terr != nil && !AsError(terr, n).Retriable {
			return nil, AsError(terr, n) // cannot tell
		}
		out[n] = TopicBefore{Exists: true, ID: FormatTopicID(t.id), Partitions: t.partitions, ReplicationFactor: t.rf}
	}
	return out, nil
}

// TopicsExist reports which of names exist now (a fresh metadata request).
func (c *Client) TopicsExist(ctx context.Context, names []string) (map[string]bool, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	m, err := c.metadata(ctx, names)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, n := range names {
		t, ok := m.Topics[n]
		out[n] = ok && t.Err == nil
	}
	return out, nil
}

func summarizeCreated(name string, id [16]byte, parts kadm.PartitionDetails) CreatedTopic {
	rf := 0
	if p, ok := parts[0]; ok {
		rf = len(p.Replicas)
	}
	return CreatedTopic{Name: name, ID: FormatTopicID(id), Partitions: len(parts), ReplicationFactor: rf}
}

// createdByUs says whether topic n, there now, was created by this call:
// it was not there before (or had another id) and the call may have
// created it.
func createdByUs(n string, now kadm.TopicDetail, before TopicsBefore, maybe bool) (CreatedTopic, bool) {
	ct := summarizeCreated(n, now.ID, now.Partitions)
	b := before[n]
	if !b.Exists || (b.ID != "" && ct.ID != "" && b.ID != ct.ID) {
		return ct, maybe
	}
	return ct, false
}

// hiddenBefore is the answer for a topic whose create may have been
// applied (the first attempt timed out) and whose before-state could not be
// read: which of "created by this call" and "there before" holds cannot be
// told, so the outcome stays unknown (nil when the before-state was read).
func hiddenBefore(n string, before TopicsBefore) *Error {
	h := before[n].Hidden
	if h == "" {
		return nil
	}
	return &Error{Code: kerr.RequestTimedOut.Message, Resource: n,
		Message: fmt.Sprintf("the create timed out and the topic exists now; whether it existed before this call cannot be told: describing it was refused before the call (%s)", h)}
}

func existedBefore(n string, before TopicsBefore) *Error {
	return &Error{Code: kerr.TopicAlreadyExists.Message, Resource: n,
		Message: fmt.Sprintf("topic %s existed before this call (id %s, %d partitions)", n, before[n].ID, before[n].Partitions)}
}

// settleUnknownCreates looks at topics whose create timed out before they
// are asked again: a topic there now is answered (created by this call, or
// there before it); one still missing is sent again.
func (c *Client) settleUnknownCreates(ctx context.Context, pending []string, maybe map[string]bool, before TopicsBefore, ifNotExists bool, results map[string]CreatedTopic) (map[string]*Error, error) {
	answers := make(map[string]*Error, len(pending))
	var check []string
	for _, n := range pending {
		if maybe[n] {
			check = append(check, n)
		}
	}
	if len(check) == 0 {
		return answers, nil
	}
	m, err := c.freshMetadata(ctx, check...)
	if err != nil {
		return nil, err
	}
	for _, n := range check {
		t, ok := m.Topics[n]
		if e := hiddenBefore(n, before); e != nil && ok && !isUnknownTopic(t.Err) {
			answers[n] = e // there now (or still hidden): cannot be told
			continue
		}
		if !ok || t.Err != nil {
			continue
		}
		ct, ours := createdByUs(n, t, before, true)
		switch {
		case ours || ifNotExists:
			ct.Existed = !ours
			results[n], answers[n] = ct, nil
		default:
			answers[n] = existedBefore(n, before)
		}
	}
	return answers, nil
}

// raisedByUs is the answer for a topic found with at least total
// partitions after a timed-out CreatePartitions: raised by this call when
// it had fewer before.
func raisedByUs(n string, total int32, before TopicsBefore) *Error {
	if b := before[n]; b.Exists && b.Partitions >= int(total) {
		return &Error{Code: kerr.InvalidPartitions.Message, Resource: n,
			Message: fmt.Sprintf("topic %s already had %d partitions before this call", n, b.Partitions)}
	}
	return nil
}

// looked adds what looking afterwards showed to an item's error.
func looked(e *Error, what string) *Error {
	if e == nil {
		return nil
	}
	c := *e
	c.Message += "; looked afterwards: " + what
	return &c
}

// lookTopics reads fresh metadata for the topics whose outcome is unknown
// and lets decide settle each such item (there: the topic exists now). It
// returns what was found per topic; nothing when the cluster cannot be read
// (the items stay unknown).
func lookTopics[T any](ctx context.Context, c *Client, unknown map[string]bool, res []T, name func(T) string,
	decide func(r *T, t kadm.TopicDetail, there bool) string) map[string]string {
	found := map[string]string{}
	m, err := c.freshMetadata(ctx, slices.Sorted(maps.Keys(unknown))...)
	if err != nil {
		return found
	}
	for i := range res {
		n := name(res[i])
		if !unknown[n] {
			continue
		}
		t, ok := m.Topics[n]
		if ok && t.Err != nil && !isUnknownTopic(t.Err) {
			// Not allowed to describe it (or another error): the look
			// shows nothing either way.
			found[n] = auditlog.FoundUndetermined
			continue
		}
		found[n] = decide(&res[i], t, ok && t.Err == nil)
	}
	return found
}

// lookCreatedTopics resolves creates whose outcome stayed unknown.
func (c *Client) lookCreatedTopics(o CreateTopicsOptions) func(context.Context, TopicsBefore, []CreatedTopic, error, map[string]bool) ([]CreatedTopic, error, map[string]string) {
	return func(ctx context.Context, before TopicsBefore, res []CreatedTopic, err error, unknown map[string]bool) ([]CreatedTopic, error, map[string]string) {
		return res, err, lookTopics(ctx, c, unknown, res, func(r CreatedTopic) string { return r.Name },
			func(r *CreatedTopic, t kadm.TopicDetail, there bool) string {
				if !there {
					r.Err = looked(r.Err, "the topic does not exist")
					return auditlog.FoundNotApplied
				}
				if e := hiddenBefore(r.Name, before); e != nil {
					r.Err = e
					return auditlog.FoundUndetermined
				}
				ct, ours := createdByUs(r.Name, t, before, true)
				switch {
				case ours:
					*r = ct
					return auditlog.FoundApplied
				case o.IfNotExists:
					ct.Existed = true
					*r = ct
				default:
					r.Err = existedBefore(r.Name, before)
				}
				return auditlog.FoundNotApplied
			})
	}
}

// lookDeletedTopics resolves deletes whose outcome stayed unknown.
func (c *Client) lookDeletedTopics(o DeleteTopicsOptions) func(context.Context, TopicsBefore, []DeletedTopic, error, map[string]bool) ([]DeletedTopic, error, map[string]string) {
	return func(ctx context.Context, before TopicsBefore, res []DeletedTopic, err error, unknown map[string]bool) ([]DeletedTopic, error, map[string]string) {
		return res, err, lookTopics(ctx, c, unknown, res, func(r DeletedTopic) string { return r.Name },
			func(r *DeletedTopic, t kadm.TopicDetail, there bool) string {
				b := before[r.Name]
				switch {
				case b.Exists && (!there || (b.ID != "" && FormatTopicID(t.ID) != b.ID)):
					r.Err = nil
					return auditlog.FoundApplied
				case !b.Exists && !there && o.IfExists:
					r.Err, r.Missing = nil, true
				case !b.Exists && !there:
					r.Err = looked(r.Err, "the topic did not exist before this call")
				default:
					r.Err = looked(r.Err, "the topic still exists")
				}
				return auditlog.FoundNotApplied
			})
	}
}

// lookCreatedPartitions resolves partition increases whose outcome stayed
// unknown.
func (c *Client) lookCreatedPartitions(totals map[string]int32) func(context.Context, TopicsBefore, []CreatedPartitions, error, map[string]bool) ([]CreatedPartitions, error, map[string]string) {
	return func(ctx context.Context, before TopicsBefore, res []CreatedPartitions, err error, unknown map[string]bool) ([]CreatedPartitions, error, map[string]string) {
		return res, err, lookTopics(ctx, c, unknown, res, func(r CreatedPartitions) string { return r.Name },
			func(r *CreatedPartitions, t kadm.TopicDetail, there bool) string {
				n := 0
				if there {
					n = len(t.Partitions)
				}
				switch e := raisedByUs(r.Name, totals[r.Name], before); {
				case n >= int(totals[r.Name]) && e == nil:
					r.Err, r.Partitions = nil, int(totals[r.Name])
					return auditlog.FoundApplied
				case e != nil:
					r.Err = e
				default:
					r.Err = looked(r.Err, fmt.Sprintf("the topic has %d partitions", n))
				}
				return auditlog.FoundNotApplied
			})
	}
}

// createdTopicDetail is what undo needs of a created topic: its id, or
// that it was there already (if_not_exists).
func createdTopicDetail(_ TopicsBefore, res []CreatedTopic, key string) any {
	for _, r := range res {
		if r.Name == key {
			return CreatedTopicDetail{ID: r.ID, Existed: r.Existed}
		}
	}
	return nil
}

// CreatedTopicDetail is an applied create_topics item's detail.
type CreatedTopicDetail struct {
	ID      string `json:"id,omitempty"`
	Existed bool   `json:"existed,omitempty"`
}

// isUnknownTopic says whether err means the topic does not exist.
func isUnknownTopic(err error) bool {
	return errors.Is(err, kerr.UnknownTopicOrPartition) || errors.Is(err, kerr.UnknownTopicID)
}
