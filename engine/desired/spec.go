// Package desired is desired state as code (docs/reconcile.md): a Spec
// says which topics, ACLs, quotas, SCRAM users and configs a cluster should
// have, which names it owns and which policies its rows must meet;
// PlanSpec diffs it against the cluster into a Plan, and Apply carries a
// Plan out through the same audited methods a script calls (CreateTopics,
// AlterConfigs, ...), so undo reverts an apply. It drives the cluster
// through the admin core only: the core never imports it.
package desired

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/redact"
)

// The spec is read elsewhere (luaapi: a Lua table, YAML or JSON); this
// file holds what the engine checks of it before anything is asked of the
// cluster: ownership and policies.

// Spec is the desired state of the resources it owns.
type Spec struct {
	Topics []engine.TopicSpec `json:"topics,omitempty"`
	ACLs   []engine.ACL       `json:"acls,omitempty"`
	// Quotas, SCRAMUsers and Configs (group_configs, client_metrics,
	// broker_configs rows): kinds.go.
	Quotas     []QuotaSpec     `json:"quotas,omitempty"`
	SCRAMUsers []SCRAMUserSpec `json:"scram_users,omitempty"`
	Configs    []ConfigSpec    `json:"configs,omitempty"`
	Owns       Owns            `json:"owns"`
	Policies   Policies        `json:"policies"`
	// Where says where a row sits in its file, for errors: keyed by
	// SpecKey ("topic orders") to "spec.lua:12".
	Where map[string]string `json:"-"`
}

// SpecKey names a row of a spec in errors and in Spec.Where.
func SpecKey(kind, name string) string { return kind + " " + name }

// where prefixes msg with the row's place in its file, when known.
func (s Spec) where(kind, name string) string {
	if w := s.Where[SpecKey(kind, name)]; w != "" {
		return w + ": "
	}
	return ""
}

// OwnEverything, as an owns entry, owns every name of its kind. Owning
// everything must be said: an empty prefix, which an unset variable
// gives, is refused.
const OwnEverything = "*"

// NameMatcher matches a name by prefix, by an RE2 expression, or (All)
// every name. In JSON (a plan file) it is written as a spec writes it: the
// prefix, {"match": "RE2"}, or "*".
type NameMatcher struct {
	Prefix string
	Match  *regexp.Regexp
	All    bool
}

// String is the matcher as a spec writes it.
func (m NameMatcher) String() string {
	switch {
	case m.All:
		return strconv.Quote(OwnEverything) + " (every name)"
	case m.Match != nil:
		return "match " + strconv.Quote(m.Match.String())
	}
	return "prefix " + strconv.Quote(m.Prefix)
}

func (m NameMatcher) matches(name string) bool {
	switch {
	case m.All:
		return true
	case m.Match != nil:
		return m.Match.MatchString(name)
	}
	return strings.HasPrefix(name, m.Prefix)
}

// empty: the matcher would match every name without saying so (an empty
// prefix or pattern).
func (m NameMatcher) empty() bool {
	if m.Match != nil {
		return m.Match.String() == ""
	}
	return !m.All && m.Prefix == ""
}

func (m NameMatcher) MarshalJSON() ([]byte, error) {
	switch {
	case m.All:
		return json.Marshal(OwnEverything)
	case m.Match != nil:
		return json.Marshal(map[string]string{"match": m.Match.String()})
	}
	return json.Marshal(m.Prefix)
}

func (m *NameMatcher) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*m = NameMatcher{Prefix: s, All: s == OwnEverything}
		if m.All {
			m.Prefix = ""
		}
		return nil
	}
	var o struct {
		Match string `json:"match"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		return fmt.Errorf(`an owns entry is a prefix, "*" or {"match": "RE2"}: %v`, err)
	}
	re, err := regexp.Compile(o.Match)
	if err != nil {
		return fmt.Errorf("owns entry: match: %v", err)
	}
	*m = NameMatcher{Match: re}
	return nil
}

// NameSet is a list of matchers; nil (not declared) owns nothing beyond
// the rows a spec lists.
type NameSet []NameMatcher

// Contains reports whether a matcher of s matches name.
func (s NameSet) Contains(name string) bool {
	return slices.ContainsFunc(s, func(m NameMatcher) bool { return m.matches(name) })
}

// Owns says which names are the spec's, per kind. A kind left out owns
// exactly the rows the spec lists: nothing else of that kind is ever
// changed or deleted. Inside what a kind owns, a resource the spec does
// not list is deleted only with --prune.
type Owns struct {
	Topics NameSet `json:"topics,omitempty"`
	// ACLPrincipals: the ACLs of these principals ("User:team-a", a
	// prefix, or a pattern) are the spec's.
	ACLPrincipals NameSet `json:"acl_principals,omitempty"`
	// Quotas matches entities as QuotaEntity.String() writes them
	// ("user=alice", "client_id=app,user=alice"); SCRAMUsers user
	// names; Groups group ids; ClientMetrics subscription names; Brokers
	// broker ids and "default".
	Quotas        NameSet `json:"quotas,omitempty"`
	SCRAMUsers    NameSet `json:"scram_users,omitempty"`
	Groups        NameSet `json:"group_configs,omitempty"`
	ClientMetrics NameSet `json:"client_metrics,omitempty"`
	Brokers       NameSet `json:"broker_configs,omitempty"`
}

// Policies are rules every topic row must meet; each violation is named.
type Policies struct {
	TopicName            *regexp.Regexp `json:"-"` // names must match (RE2, unanchored: use ^...$)
	MinReplicationFactor int16          `json:"min_replication_factor,omitempty"`
	MinInsyncReplicas    int            `json:"min_insync_replicas,omitempty"`
	MaxPartitions        int32          `json:"max_partitions,omitempty"`
	RequiredConfigs      []string       `json:"required_configs,omitempty"`
}

// policiesFields are Policies' fields as JSON has them, TopicName aside.
type policiesFields Policies

// policiesJSON is Policies in a plan file: the topic_name expression as
// its text.
type policiesJSON struct {
	TopicName string `json:"topic_name,omitempty"`
	policiesFields
}

func (p Policies) MarshalJSON() ([]byte, error) {
	j := policiesJSON{policiesFields: policiesFields(p)}
	if p.TopicName != nil {
		j.TopicName = p.TopicName.String()
	}
	return json.Marshal(j)
}

func (p *Policies) UnmarshalJSON(b []byte) error {
	var j policiesJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return fmt.Errorf("policies: %v", err)
	}
	*p = Policies(j.policiesFields)
	if j.TopicName != "" {
		re, err := regexp.Compile(j.TopicName)
		if err != nil {
			return fmt.Errorf("policies: topic_name: %v", err)
		}
		p.TopicName = re
	}
	return nil
}

// SpecErrors are the problems of a spec (or of a plan): each one names its
// row, with its place in the file when known.
type SpecErrors []string

func (e SpecErrors) Error() string {
	if len(e) == 1 {
		return e[0]
	}
	return fmt.Sprintf("%d problems:\n  %s", len(e), strings.Join(e, "\n  "))
}

// Check refuses a spec whose rows lie outside what it owns or break a
// policy, and an owns entry that owns everything without saying so,
// naming every problem; it asks nothing of the cluster.
func (s Spec) Check() error {
	errs := SpecErrors(s.Owns.emptyEntries())
	for _, t := range s.Topics {
		at := s.where("topic", t.Name)
		if s.Owns.Topics != nil && !s.Owns.Topics.Contains(t.Name) {
			errs = append(errs, fmt.Sprintf("%stopic %s: outside owns.topics (%s)", at, t.Name, s.Owns.Topics))
		}
		for _, v := range s.Policies.violations(t) {
			errs = append(errs, fmt.Sprintf("%stopic %s: policy %s", at, t.Name, v))
		}
		for _, k := range slices.Sorted(maps.Keys(t.Configs)) {
			if redact.IsSecretKey(k) {
				errs = append(errs, at+sensitiveConfigErr(KindTopic, t.Name, k))
			}
		}
	}
	for _, a := range s.ACLs {
		if s.Owns.ACLPrincipals != nil && !s.Owns.ACLPrincipals.Contains(a.Principal) {
			errs = append(errs, fmt.Sprintf("%sacl %s: principal outside owns.acls.principals (%s)", s.where("acl", a.String()), a, s.Owns.ACLPrincipals))
		}
	}
	errs = append(errs, s.checkKinds()...)
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// sensitiveConfigErr refuses a sensitive config in a spec row, never
// naming its value. Kafka never returns a sensitive config's value, so a
// plan could not diff it, and a plan file (kept as a CI artifact,
// attached to reviews) must not hold it; docs/reconcile.md.
func sensitiveConfigErr(kind, name, key string) string {
	return fmt.Sprintf("%s %s: configs[%q]: a sensitive config cannot be reconciled: Kafka never returns its value, so a plan can neither diff it nor hold it; remove it from the spec and set it with alter_configs (its value from kafka.env)", kind, name, key)
}

// emptyEntries names each owns entry that is an empty prefix or pattern.
func (o Owns) emptyEntries() []string {
	var errs []string
	for _, kind := range []string{KindTopic, KindACL, KindQuota, KindSCRAMUser, KindGroupConfig, KindClientMetrics, KindBrokerConfig} {
		for i, m := range o.of(kind) {
			if m.empty() {
				errs = append(errs, fmt.Sprintf("%s: entry #%d: an empty prefix or pattern would own every name: write %q to own them all", ownsKey[kind], i+1, OwnEverything))
			}
		}
	}
	return errs
}

func (s NameSet) String() string {
	parts := make([]string, len(s))
	for i, m := range s {
		parts[i] = m.String()
	}
	return strings.Join(parts, ", ")
}

// violations names each policy topic t breaks.
func (p Policies) violations(t engine.TopicSpec) []string {
	var out []string
	if p.TopicName != nil && !p.TopicName.MatchString(t.Name) {
		out = append(out, fmt.Sprintf("topic_name: %q does not match %q", t.Name, p.TopicName.String()))
	}
	rf, parts := int(t.ReplicationFactor), int(t.Partitions)
	if len(t.Assignment) > 0 {
		parts = len(t.Assignment)
		for _, rs := range t.Assignment {
			rf = len(rs)
			break
		}
	}
	if p.MinReplicationFactor > 0 {
		switch {
		case rf == 0:
			out = append(out, fmt.Sprintf("min_replication_factor: replication_factor must be given (at least %d)", p.MinReplicationFactor))
		case rf < int(p.MinReplicationFactor):
			out = append(out, fmt.Sprintf("min_replication_factor: replication_factor %d is below %d", rf, p.MinReplicationFactor))
		}
	}
	if p.MaxPartitions > 0 && parts > int(p.MaxPartitions) {
		out = append(out, fmt.Sprintf("max_partitions: partitions %d is above %d", parts, p.MaxPartitions))
	}
	if p.MinInsyncReplicas > 0 {
		v, ok := t.Configs["min.insync.replicas"]
		n, err := strconv.Atoi(v)
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("min_insync_replicas: configs[\"min.insync.replicas\"] must be given (at least %d)", p.MinInsyncReplicas))
		case err != nil || n < p.MinInsyncReplicas:
			out = append(out, fmt.Sprintf("min_insync_replicas: min.insync.replicas %q is below %d", v, p.MinInsyncReplicas))
		}
	}
	for _, k := range p.RequiredConfigs {
		if _, ok := t.Configs[k]; !ok {
			out = append(out, fmt.Sprintf("required_configs: configs[%q] must be given", k))
		}
	}
	return out
}
