package engine

import (
	"cmp"
	"context"
	"encoding/base64"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"
)

// PlanFormat marks a plan file; Apply refuses a file without it.
const PlanFormat = "kadmin-lua-plan/1"

// The actions of a Change, in the order Apply carries them out.
const (
	ActionCreate           = "create"            // a topic or an ACL the cluster lacks
	ActionAlter            = "alter"             // a topic's configs, config by config
	ActionReassign         = "reassign"          // a topic's replication factor changed
	ActionCreatePartitions = "create_partitions" // a topic's partition count raised
	ActionDelete           = "delete"            // owned, not in the spec, and --prune
)

// The kinds of resource a plan changes.
const (
	KindTopic = "topic"
	KindACL   = "acl"
)

// Plan is the diff of a spec against a cluster, as reviewed and applied:
// every change records the state it was planned against, so Apply can
// refuse a change whose resource moved on since (a stale plan).
type Plan struct {
	Format    string    `json:"format"`
	ClusterID string    `json:"cluster_id"`
	CreatedAt time.Time `json:"created_at"`
	Prune     bool      `json:"prune"`
	// Salt salts the plan's password fingerprints (base64).
	Salt    string   `json:"salt,omitempty"`
	Changes []Change `json:"changes"`
}

// Change is one change of a plan.
type Change struct {
	Kind   string `json:"kind"`
	Name   string `json:"name"`
	Action string `json:"action"`
	// Topic is the topic to create.
	Topic *TopicSpec `json:"topic,omitempty"`
	// Configs are a topic's config changes (alter).
	Configs []ConfigChange `json:"configs,omitempty"`
	// Partitions is the new partition count (create_partitions).
	Partitions int32 `json:"partitions,omitempty"`
	// ReplicationFactor and Replicas: the new replication factor and each
	// partition's new replicas (reassign).
	ReplicationFactor int               `json:"replication_factor,omitempty"`
	Replicas          []PartitionTarget `json:"replicas,omitempty"`
	// ACL is the ACL to create or delete.
	ACL *ACL `json:"acl,omitempty"`
	// Entity and Quotas: a quota entity and its quota changes.
	Entity QuotaEntity   `json:"entity,omitempty"`
	Quotas []QuotaChange `json:"quotas,omitempty"`
	// SCRAM is the credential to create, alter or delete; never its
	// password, only where to read it and PasswordFingerprint, which says
	// at apply whether it is still the password planned.
	SCRAM               *SCRAMUserSpec `json:"scram,omitempty"`
	PasswordFingerprint string         `json:"password_fingerprint,omitempty"`
	// Against is the resource's state when the change was planned.
	Against Observed `json:"against"`
}

// ValueChange is one value of an alter: Before nil when the resource did
// not have it (a config at its default, no such quota), After nil when it
// goes (back to the default).
type ValueChange[V any] struct {
	Key    string `json:"key"`
	Before *V     `json:"before"`
	After  *V     `json:"after"`
}

// ConfigChange is one config of an alter.
type ConfigChange = ValueChange[string]

// Observed is a resource's state as a plan saw it: for a topic its id,
// partitions, replication factor and the configs set on it (Kafka's
// DYNAMIC_TOPIC_CONFIG); for an ACL whether it exists.
type Observed struct {
	Exists            bool              `json:"exists"`
	ID                string            `json:"id,omitempty"`
	Partitions        int               `json:"partitions,omitempty"`
	ReplicationFactor int               `json:"replication_factor,omitempty"`
	Configs           map[string]string `json:"configs,omitempty"`
	// Sensitive lists the sensitive configs set on the resource: Kafka
	// never returns their values, and a plan never holds them, only
	// whether they are set. A plan leaves them as they are.
	Sensitive []string `json:"sensitive,omitempty"`
	// Quotas are a quota entity's quotas; Iterations a SCRAM
	// credential's.
	Quotas     map[string]float64 `json:"quotas,omitempty"`
	Iterations int32              `json:"iterations,omitempty"`
}

// String describes a change on one line, for the plan table and errors.
func (ch Change) String() string {
	if ch.Kind != KindTopic && ch.Kind != KindACL {
		return ch.kindString()
	}
	switch ch.Action {
	case ActionCreate:
		if ch.Topic != nil {
			return fmt.Sprintf("create topic %s (partitions %s, replication factor %s, %d configs)", ch.Name,
				orBrokerDefault(int64(ch.Topic.Partitions)), orBrokerDefault(int64(ch.Topic.ReplicationFactor)), len(ch.Topic.Configs))
		}
		return "create acl " + ch.Name
	case ActionAlter:
		parts := make([]string, len(ch.Configs))
		for i, c := range ch.Configs {
			parts[i] = fmt.Sprintf("%s: %s -> %s", c.Key, showConfig(c.Key, c.Before), showConfig(c.Key, c.After))
		}
		return fmt.Sprintf("alter topic %s configs: %s", ch.Name, strings.Join(parts, ", "))
	case ActionCreatePartitions:
		return fmt.Sprintf("raise topic %s partitions %d -> %d", ch.Name, ch.Against.Partitions, ch.Partitions)
	case ActionReassign:
		return fmt.Sprintf("reassign topic %s replication factor %d -> %d (%d partitions)", ch.Name, ch.Against.ReplicationFactor, ch.ReplicationFactor, len(ch.Replicas))
	case ActionDelete:
		return fmt.Sprintf("delete %s %s", ch.Kind, ch.Name)
	}
	return ch.Action + " " + ch.Kind + " " + ch.Name
}

func orBrokerDefault(n int64) string {
	if n <= 0 {
		return "broker default"
	}
	return fmt.Sprint(n)
}

// showConfig renders a config value in a plan: (default) when unset, ***
// for a secret-looking key.
func showConfig(k string, v *string) string {
	switch {
	case v == nil:
		return "(default)"
	case IsSecretKey(k):
		return "***"
	}
	return fmt.Sprintf("%q", *v)
}

// PlanOptions modify PlanSpec.
type PlanSpecOptions struct {
	// Prune deletes what the spec owns and does not list.
	Prune bool
	// Env reads the environment variables SCRAM passwords come from
	// (os.Getenv when nil).
	Env func(string) string
}

// topicObs is a topic as observed: what a plan records, plus what the
// planner needs (replicas per partition).
type topicObs struct {
	Observed
	internal bool
	replicas map[int32][]int32
}

// clusterState is what a plan or an apply reads of the cluster, with a
// fixed number of requests whatever the number of resources: one
// Metadata, one DescribeConfigs per broker answering, one DescribeACLs.
type clusterState struct {
	clusterID string
	brokers   []int32
	racks     map[int32]string
	topics    map[string]*topicObs
	acls      map[string]ACL // every ACL by ACL.String(), when asked
	// The kinds beyond topics and ACLs, when asked (reconcile_kinds.go):
	// quotas by entity, SCRAM iterations by "user/mechanism", config
	// resources' dynamic configs by ConfigResource.String().
	quotas        map[string]map[string]float64
	quotaEntities []QuotaEntity
	scram         map[string]int32
	configs       map[string]*Observed
}

// observe reads the topics (configs of those in withConfigs) and, when
// withACLs, every ACL.
func (c *Client) observe(ctx context.Context, withConfigs func(string) bool, withACLs bool) (*clusterState, error) {
	m, err := c.metadata(ctx, nil)
	if err != nil {
		return nil, err
	}
	st := &clusterState{clusterID: m.Cluster, racks: map[int32]string{}, topics: make(map[string]*topicObs, len(m.Topics))}
	for _, b := range m.Brokers {
		st.brokers = append(st.brokers, b.NodeID)
		if b.Rack != nil {
			st.racks[b.NodeID] = *b.Rack
		}
	}
	slices.Sort(st.brokers)
	var cfgRes []ConfigResource
	for name, t := range m.Topics {
		if t.Err != nil {
			continue
		}
		o := &topicObs{Observed: Observed{Exists: true, ID: FormatTopicID(t.ID), Partitions: len(t.Partitions)},
			internal: t.IsInternal, replicas: make(map[int32][]int32, len(t.Partitions))}
		for _, p := range t.Partitions {
			o.replicas[p.Partition] = p.Replicas
		}
		if p, ok := t.Partitions[0]; ok {
			o.ReplicationFactor = len(p.Replicas)
		}
		st.topics[name] = o
		if withConfigs(name) {
			cfgRes = append(cfgRes, ConfigResource{Type: ConfigTopic, Name: name})
		}
	}
	if len(cfgRes) > 0 {
		ds, err := c.DescribeConfigs(ctx, cfgRes, DescribeConfigsOptions{Dynamic: true})
		if err != nil {
			return nil, err
		}
		for _, d := range ds {
			if d.Err != nil {
				if d.Err.Code == "UNKNOWN_TOPIC_OR_PARTITION" {
					delete(st.topics, d.Name) // deleted since the metadata
					continue
				}
				return nil, d.Err
			}
			st.topics[d.Name].Configs, st.topics[d.Name].Sensitive = observedConfigs(d)
		}
	}
	if withACLs {
		acls, err := c.DescribeACLs(ctx, ACLFilter{})
		if err != nil {
			return nil, err
		}
		st.acls = make(map[string]ACL, len(acls))
		for _, a := range acls {
			st.acls[a.String()] = a
		}
	}
	return st, nil
}

// observedConfigs splits the configs set on a resource into the values a
// plan records and the sensitive ones it records only as set: those
// Kafka marks sensitive (it sends no value) and those whose name says
// secret (IsSecretKey), whatever Kafka sends.
func observedConfigs(d DescribedConfigs) (map[string]string, []string) {
	cfgs := map[string]string{}
	var sensitive []string
	for k, e := range d.Configs {
		switch {
		case e.Sensitive || IsSecretKey(k):
			sensitive = append(sensitive, k)
		case e.Value != nil:
			cfgs[k] = *e.Value
		}
	}
	slices.Sort(sensitive)
	return cfgs, sensitive
}

// PlanSpec diffs spec against the cluster. What cannot be done (a
// partition decrease, a replication factor above the brokers) fails the
// plan with every problem named; nothing is changed.
func (c *Client) PlanSpec(ctx context.Context, spec Spec, o PlanSpecOptions) (Plan, error) {
	if err := spec.Check(); err != nil {
		return Plan{}, err
	}
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	listed := make(map[string]TopicSpec, len(spec.Topics))
	for _, t := range spec.Topics {
		listed[t.Name] = t
	}
	withACLs := len(spec.ACLs) > 0 || (o.Prune && spec.Owns.ACLPrincipals != nil)
	st, err := c.observe(ctx, func(n string) bool { _, ok := listed[n]; return ok }, withACLs)
	if err != nil {
		return Plan{}, err
	}
	quotas, scram, listTypes, brokers := spec.wantsKinds(o.Prune)
	var resources []ConfigResource
	for _, cs := range spec.Configs {
		resources = append(resources, cs.Resource())
	}
	if err := c.observeKinds(ctx, st, quotas, scram, resources, listTypes, brokers); err != nil {
		return Plan{}, err
	}
	salt := newSalt()
	p := Plan{Format: PlanFormat, ClusterID: st.clusterID, CreatedAt: time.Now().UTC(), Prune: o.Prune, Changes: []Change{}}
	if len(spec.SCRAMUsers) > 0 {
		p.Salt = base64.RawStdEncoding.EncodeToString(salt)
	}
	var errs SpecErrors
	for _, t := range spec.Topics {
		chs, problems := planTopic(spec, t, st)
		p.Changes = append(p.Changes, chs...)
		errs = append(errs, problems...)
	}
	if o.Prune && spec.Owns.Topics != nil {
		for _, name := range slices.Sorted(maps.Keys(st.topics)) {
			t := st.topics[name]
			if _, ok := listed[name]; ok || t.internal || !spec.Owns.Topics.Contains(name) {
				continue
			}
			p.Changes = append(p.Changes, Change{Kind: KindTopic, Name: name, Action: ActionDelete, Against: t.Observed})
		}
	}
	if withACLs {
		p.Changes = append(p.Changes, planACLs(spec, st, o.Prune)...)
	}
	chs, problems := planKinds(spec, st, o.Prune, salt, envOr(o.Env))
	p.Changes, errs = append(p.Changes, chs...), append(errs, problems...)
	if len(errs) > 0 {
		return Plan{}, errs
	}
	sortChanges(p.Changes)
	return p, nil
}

func envOr(env func(string) string) func(string) string {
	if env == nil {
		return os.Getenv
	}
	return env
}

// sortChanges puts changes in the order Apply carries them out
// (applySteps), then by name.
func sortChanges(chs []Change) {
	step := func(ch Change) int { return slices.Index(applySteps, [2]string{ch.Kind, ch.Action}) }
	slices.SortStableFunc(chs, func(a, b Change) int {
		return cmp.Or(cmp.Compare(step(a), step(b)), cmp.Compare(a.Name, b.Name))
	})
}

// planTopic is one listed topic's changes, or why it cannot be reconciled.
func planTopic(spec Spec, t TopicSpec, st *clusterState) ([]Change, []string) {
	at := spec.where(KindTopic, t.Name)
	cur, ok := st.topics[t.Name]
	if !ok {
		s := t
		return []Change{{Kind: KindTopic, Name: t.Name, Action: ActionCreate, Topic: &s, Against: Observed{}}}, nil
	}
	var out []Change
	var errs []string
	if cur.internal {
		return nil, []string{fmt.Sprintf("%stopic %s: an internal topic cannot be managed", at, t.Name)}
	}
	for _, k := range cur.Sensitive {
		if _, ok := t.Configs[k]; ok { // Kafka marks it sensitive; its name does not say so
			errs = append(errs, at+sensitiveConfigErr(KindTopic, t.Name, k))
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	if cfgs := configChanges(cur.Configs, t.Configs); len(cfgs) > 0 {
		out = append(out, Change{Kind: KindTopic, Name: t.Name, Action: ActionAlter, Configs: cfgs, Against: cur.Observed})
	}
	want := int(t.Partitions)
	if len(t.Assignment) > 0 {
		want = len(t.Assignment)
	}
	switch {
	case want > cur.Partitions:
		out = append(out, Change{Kind: KindTopic, Name: t.Name, Action: ActionCreatePartitions, Partitions: int32(want), Against: cur.Observed})
	case want > 0 && want < cur.Partitions:
		errs = append(errs, fmt.Sprintf("%stopic %s: partitions cannot decrease from %d to %d (Kafka cannot remove partitions)", at, t.Name, cur.Partitions, want))
	}
	if rf := int(t.ReplicationFactor); rf > 0 && rf != cur.ReplicationFactor {
		targets, err := replicationTargets(t.Name, cur.replicas, rf, st)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%stopic %s: %v", at, t.Name, err))
		} else {
			out = append(out, Change{Kind: KindTopic, Name: t.Name, Action: ActionReassign, ReplicationFactor: rf, Replicas: targets, Against: cur.Observed})
		}
	}
	return out, errs
}

// configChanges is the config diff of a listed topic: every config the
// spec gives with another value is set, and every config set on the topic
// that the spec does not give goes back to its default (the spec lists a
// topic's configs whole).
func configChanges(cur, want map[string]string) []ConfigChange { return valueChanges(cur, want) }

// valueChanges is the diff of a map whose wanted state is whole: each key
// want gives with another value is set, each key only cur has goes.
func valueChanges[V comparable](cur, want map[string]V) []ValueChange[V] {
	var out []ValueChange[V]
	for _, k := range slices.Sorted(maps.Keys(want)) {
		w := want[k]
		if v, ok := cur[k]; !ok || v != w {
			ch := ValueChange[V]{Key: k, After: &w}
			if ok {
				ch.Before = &v
			}
			out = append(out, ch)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(cur)) {
		if _, ok := want[k]; !ok {
			v := cur[k]
			out = append(out, ValueChange[V]{Key: k, Before: &v})
		}
	}
	slices.SortFunc(out, func(a, b ValueChange[V]) int { return cmp.Compare(a.Key, b.Key) })
	return out
}

// replicationTargets gives each partition rf replicas: a lower factor
// keeps the first replicas (the preferred leader stays), a higher one adds
// the brokers holding the fewest replicas, preferring racks the partition
// is not on yet.
func replicationTargets(topic string, replicas map[int32][]int32, rf int, st *clusterState) ([]PartitionTarget, error) {
	if rf > len(st.brokers) {
		return nil, fmt.Errorf("replication_factor %d is above the %d brokers of the cluster", rf, len(st.brokers))
	}
	load := map[int32]int{}
	for _, t := range st.topics {
		for _, rs := range t.replicas {
			for _, b := range rs {
				load[b]++
			}
		}
	}
	var out []PartitionTarget
	for _, p := range slices.Sorted(maps.Keys(replicas)) {
		cur := replicas[p]
		if len(cur) >= rf {
			for _, b := range cur[rf:] {
				load[b]--
			}
			out = append(out, PartitionTarget{Topic: topic, Partition: p, Replicas: slices.Clone(cur[:rf])})
			continue
		}
		target := slices.Clone(cur)
		for len(target) < rf {
			racks := map[string]bool{}
			for _, b := range target {
				racks[st.racks[b]] = true
			}
			best := int32(-1)
			for _, b := range st.brokers {
				if slices.Contains(target, b) {
					continue
				}
				if best < 0 || better(b, best, load, racks, st.racks) {
					best = b
				}
			}
			target = append(target, best)
			load[best]++
		}
		out = append(out, PartitionTarget{Topic: topic, Partition: p, Replicas: target})
	}
	return out, nil
}

// better: broker a is a better new replica than b (a rack not used yet,
// then fewer replicas, then the lower id).
func better(a, b int32, load map[int32]int, used map[string]bool, rack map[int32]string) bool {
	fa, fb := !used[rack[a]] || rack[a] == "", !used[rack[b]] || rack[b] == ""
	if fa != fb {
		return fa
	}
	if load[a] != load[b] {
		return load[a] < load[b]
	}
	return a < b
}

// planACLs: the listed ACLs the cluster lacks are created; with prune, the
// owned ACLs not listed are deleted.
func planACLs(spec Spec, st *clusterState, prune bool) []Change {
	var out []Change
	listed := map[string]bool{}
	for _, a := range spec.ACLs {
		k := a.String()
		listed[k] = true
		if _, ok := st.acls[k]; !ok {
			a := a
			out = append(out, Change{Kind: KindACL, Name: k, Action: ActionCreate, ACL: &a, Against: Observed{}})
		}
	}
	if prune && spec.Owns.ACLPrincipals != nil {
		for _, k := range slices.Sorted(maps.Keys(st.acls)) {
			a := st.acls[k]
			if listed[k] || !spec.Owns.ACLPrincipals.Contains(a.Principal) {
				continue
			}
			out = append(out, Change{Kind: KindACL, Name: k, Action: ActionDelete, ACL: &a, Against: Observed{Exists: true}})
		}
	}
	return out
}
