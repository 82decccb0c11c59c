package undo

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// Selection narrows what Run reverts besides Since: whole changes by
// intent id, and items of a change by the resource they touch or, for
// alter_configs, by config key. Selecting by resource or key reverts only
// those items of an intent: one topic of a create_topics of five, one
// config key of an alter_configs. Within a field any value matches; the
// fields given must all match.
type Selection struct {
	IDs []string // intent ids
	// Resources: "orders" (a topic, group, broker... of that name) or
	// "TYPE:NAME" ("topic:orders", "group:billing", "broker:1").
	Resources []string
	Keys      []string // config keys ("retention.ms"): alter_configs changes, those keys only
}

// Empty reports whether the selection keeps everything.
func (s *Selection) Empty() bool {
	return s == nil || len(s.IDs) == 0 && len(s.Resources) == 0 && len(s.Keys) == 0
}

// Check refuses an id that is not an intent in changes (a typo would
// select nothing and say "nothing to undo").
func (s *Selection) Check(changes []auditlog.Change) error {
	if s == nil {
		return nil
	}
	for _, id := range s.IDs {
		if !slices.ContainsFunc(changes, func(ch auditlog.Change) bool { return ch.Intent.ID == id }) {
			return vocab.Errorf(vocab.CodeInvalidArgument, "", "--id %q is not an intent id in the audit log", id)
		}
	}
	return nil
}

// Select returns the changes the selection keeps, their outcome items
// narrowed to the selected resources and keys. changes is not modified.
// An undo's own intent (undo_of) is left out: it is never reverted, and
// Run reads which items are undone already before selecting.
func (s *Selection) Select(changes []auditlog.Change) []auditlog.Change {
	if s.Empty() {
		return changes
	}
	var out []auditlog.Change
	for _, ch := range changes {
		if ch.Intent.UndoOf != "" {
			continue // not reverted in any case: Run says so only for --since
		}
		if len(s.IDs) > 0 && !slices.Contains(s.IDs, ch.Intent.ID) {
			continue
		}
		if len(s.Resources) == 0 && len(s.Keys) == 0 {
			out = append(out, ch)
			continue
		}
		if ch.Outcome == nil {
			// No outcome: nothing to narrow; kept when its arguments name
			// the resource, so that undo refuses it and says why.
			if s.matchesUnknown(ch) {
				out = append(out, ch)
			}
			continue
		}
		var items []auditlog.ItemOutcome
		for _, it := range ch.Outcome.Items {
			if it, ok := s.item(ch, it); ok {
				items = append(items, it)
			}
		}
		if len(items) == 0 {
			continue
		}
		outcome := *ch.Outcome
		outcome.Items = items
		ch.Outcome = &outcome
		out = append(out, ch)
	}
	return out
}

// item is it narrowed to the selection, and whether anything of it is
// selected.
func (s *Selection) item(ch auditlog.Change, it auditlog.ItemOutcome) (auditlog.ItemOutcome, bool) {
	if len(s.Resources) > 0 && !slices.ContainsFunc(s.Resources, func(r string) bool { return itemTouches(ch, it.Key, r) }) {
		return it, false
	}
	if len(s.Keys) == 0 {
		return it, true
	}
	if ch.Intent.Op != "alter_configs" {
		return it, false
	}
	// Detail is the after-state of the item's touched keys: undo reverts
	// the keys it holds, so keeping only the selected ones reverts those.
	var after map[string]json.RawMessage
	if err := json.Unmarshal(it.Detail, &after); err != nil || after == nil {
		return it, false
	}
	kept := map[string]json.RawMessage{}
	for _, k := range s.Keys {
		if v, ok := after[k]; ok {
			kept[k] = v
		}
	}
	if len(kept) == 0 {
		return it, false
	}
	detail, err := json.Marshal(kept)
	if err != nil {
		return it, false
	}
	it.Detail = detail
	return it, true
}

// matchesUnknown: a change without outcome whose arguments mention the
// selected resource (by name) and, with keys, is an alter_configs.
func (s *Selection) matchesUnknown(ch auditlog.Change) bool {
	if len(s.Keys) > 0 && ch.Intent.Op != "alter_configs" {
		return false
	}
	args := string(ch.Intent.Args)
	for _, r := range s.Resources {
		_, name := splitResource(r)
		if q, _ := json.Marshal(name); strings.Contains(args, string(q)) {
			return true
		}
	}
	return len(s.Resources) == 0
}

// otherProfile says why an undo connected through profile ("": none) to
// the seed brokers leaves ch alone: ch was written through another
// profile. A fleet's log (run --profiles) holds the changes of several
// profiles, whose clusters may share an id (kfake and docker-compose files
// fix it), so the cluster id alone cannot tell them apart: an undo through
// a profile acts on that profile's lines, and one without a profile (-b)
// on a profile's lines only when it names one of the seed brokers they
// were written to. A change written without a profile is told by its
// cluster id only. "" when ch is this undo's.
func otherProfile(ch auditlog.Change, profile string, brokers []string) string {
	p := ch.Intent.Profile
	switch {
	case p == "" || p == profile:
		return ""
	case profile != "":
		return fmt.Sprintf("written through profile %s, not %s: run undo --profile %s", p, profile, p)
	case slices.ContainsFunc(brokers, func(b string) bool { return slices.Contains(ch.Intent.Brokers, b) }):
		return ""
	}
	return fmt.Sprintf("written through profile %s (brokers %s), none of which this undo names: run undo --profile %s",
		p, strings.Join(ch.Intent.Brokers, ","), p)
}

// aclResourceRE finds an ACL's resource in its key (ACL.String).
var aclResourceRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(` on (\S+) (.*) \((literal|prefixed|match|any)\) from `)
})

// partitionKeyRE is a partition's key: "orders[3]".
var partitionKeyRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(.*)\[(\d+)\]$`) })

// itemTouches reports whether the item key of change ch touches resource
// r ("orders" or "topic:orders").
func itemTouches(ch auditlog.Change, key, r string) bool {
	typ, name := splitResource(r)
	match := func(t, n string) bool { return n == name && (typ == "" || typ == t) }
	if key == r {
		return true
	}
	switch ch.Intent.Op {
	case "alter_configs":
		t, n, _ := strings.Cut(key, ":")
		return match(t, n)
	case "create_topics", "delete_topics":
		return match("topic", key)
	case "create_acls", "delete_acls":
		if m := aclResourceRE().FindStringSubmatch(key); m != nil {
			return match(m[1], m[2])
		}
		return false
	case "commit_offsets", "reset_offsets", "delete_group_offsets":
		var before struct {
			Group string `json:"group"`
		}
		if json.Unmarshal(ch.Intent.Before, &before) == nil && before.Group != "" && match("group", before.Group) {
			return true
		}
	}
	if m := partitionKeyRE().FindStringSubmatch(key); m != nil {
		return match("topic", m[1])
	}
	return false
}

// resourceTypes are the TYPE of --resource TYPE:NAME.
var resourceTypes = []string{"topic", "group", "broker", "broker_logger", "transactional_id", "cluster", "user", "client"}

// splitResource splits "topic:orders" into its type and name; a string
// without a known type is a name of any type.
func splitResource(r string) (typ, name string) {
	if t, n, ok := strings.Cut(r, ":"); ok && slices.Contains(resourceTypes, t) {
		return t, n
	}
	return "", r
}

// ParseResource checks a --resource value.
func ParseResource(r string) error {
	if t, n, ok := strings.Cut(r, ":"); ok && slices.Contains(resourceTypes, t) && n == "" {
		return vocab.Errorf(vocab.CodeInvalidArgument, "", "--resource %q names no %s", r, t)
	}
	if r == "" {
		return vocab.Errorf(vocab.CodeInvalidArgument, "", "--resource is empty")
	}
	return nil
}
