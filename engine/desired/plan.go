package desired

import (
	"cmp"
	"context"
	"encoding/base64"
	"fmt"
	"maps"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/redact"
)

// PlanFormat marks a plan file; Apply refuses a file without it. Format 1
// (before digests, bindings and recorded rules) is refused: plan again.
const PlanFormat = "kadmin-lua-plan/2"

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
// refuse a change whose resource moved on since (a stale plan); the plan
// records the cluster it was made on and the rules it was made under, and
// carries a digest of itself, so Apply can refuse a plan edited since it
// was reviewed (verify.go).
type Plan struct {
	Format string `json:"format"`
	// Digest is "sha256:" and the hex SHA-256 of the plan's JSON with
	// Digest empty (ComputeDigest); `apply --digest` names the one
	// reviewed.
	Digest    string `json:"digest"`
	ClusterID string `json:"cluster_id"`
	// Brokers are the cluster's brokers as it advertised them when
	// planned ("host:port", sorted), and Profile the profile the plan was
	// made with: a cluster id alone is shared by copies and by test
	// clusters with a fixed id.
	Brokers   []string  `json:"brokers"`
	Profile   string    `json:"profile,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	Prune     bool      `json:"prune"`
	// Owns and Policies are the spec's: Apply checks every change against
	// them again.
	Owns     Owns     `json:"owns"`
	Policies Policies `json:"policies"`
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
	Topic *engine.TopicSpec `json:"topic,omitempty"`
	// Configs are a topic's config changes (alter).
	Configs []ConfigChange `json:"configs,omitempty"`
	// Partitions is the new partition count (create_partitions).
	Partitions int32 `json:"partitions,omitempty"`
	// ReplicationFactor and Replicas: the new replication factor and each
	// partition's new replicas (reassign).
	ReplicationFactor int                      `json:"replication_factor,omitempty"`
	Replicas          []engine.PartitionTarget `json:"replicas,omitempty"`
	// ACL is the ACL to create or delete.
	ACL *engine.ACL `json:"acl,omitempty"`
	// Entity and Quotas: a quota entity and its quota changes.
	Entity engine.QuotaEntity `json:"entity,omitempty"`
	Quotas []QuotaChange      `json:"quotas,omitempty"`
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
	case redact.IsSecretKey(k):
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
	addrs     []string // the brokers' "host:port", sorted
	racks     map[int32]string
	topics    map[string]*topicObs
	acls      map[string]engine.ACL // every ACL by ACL.String(), when asked
	// The kinds beyond topics and ACLs, when asked (kinds.go):
	// quotas by entity, SCRAM iterations by "user/mechanism", config
	// resources' dynamic configs by ConfigResource.String().
	quotas        map[string]map[string]float64
	quotaEntities []engine.QuotaEntity
	scram         map[string]int32
	configs       map[string]*Observed
}

// observe reads the topics (configs of those in withConfigs) and, when
// withACLs, every ACL.
func (c client) observe(ctx context.Context, withConfigs func(string) bool, withACLs bool) (*clusterState, error) {
	v, err := c.View(ctx)
	if err != nil {
		return nil, err
	}
	st := &clusterState{clusterID: v.ClusterID, racks: map[int32]string{}, topics: make(map[string]*topicObs, len(v.Topics))}
	for _, b := range v.Brokers {
		st.brokers = append(st.brokers, b.ID)
		st.addrs = append(st.addrs, net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port))))
		if b.Rack != nil {
			st.racks[b.ID] = *b.Rack
		}
	}
	slices.Sort(st.brokers)
	slices.Sort(st.addrs)
	var cfgRes []engine.ConfigResource
	for name, t := range v.Topics {
		o := &topicObs{Observed: Observed{Exists: true, ID: t.ID, Partitions: len(t.Replicas)},
			internal: t.Internal, replicas: t.Replicas}
		if r, ok := t.Replicas[0]; ok {
			o.ReplicationFactor = len(r)
		}
		st.topics[name] = o
		if withConfigs(name) {
			cfgRes = append(cfgRes, engine.ConfigResource{Type: engine.ConfigTopic, Name: name})
		}
	}
	if len(cfgRes) > 0 {
		ds, err := c.DescribeConfigs(ctx, cfgRes, engine.DescribeConfigsOptions{Dynamic: true})
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
		acls, err := c.DescribeACLs(ctx, engine.ACLFilter{})
		if err != nil {
			return nil, err
		}
		st.acls = make(map[string]engine.ACL, len(acls))
		for _, a := range acls {
			st.acls[a.String()] = a
		}
	}
	return st, nil
}

// observedConfigs splits the configs set on a resource into the values a
// plan records and the sensitive ones it records only as set: those
// Kafka marks sensitive (it sends no value) and those whose name says
// secret (redact.IsSecretKey), whatever Kafka sends.
func observedConfigs(d engine.DescribedConfigs) (map[string]string, []string) {
	cfgs := map[string]string{}
	var sensitive []string
	for k, e := range d.Configs {
		switch {
		case e.Sensitive || redact.IsSecretKey(k):
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
func PlanSpec(ctx context.Context, cl *engine.Client, spec Spec, o PlanSpecOptions) (Plan, error) {
	c := client{cl}
	if err := spec.Check(); err != nil {
		return Plan{}, err
	}
	ctx, cancel := c.CallContext(ctx)
	defer cancel()
	listed := make(map[string]engine.TopicSpec, len(spec.Topics))
	for _, t := range spec.Topics {
		listed[t.Name] = t
	}
	withACLs := len(spec.ACLs) > 0 || (o.Prune && spec.Owns.ACLPrincipals != nil)
	st, err := c.observe(ctx, func(n string) bool { _, ok := listed[n]; return ok }, withACLs)
	if err != nil {
		return Plan{}, err
	}
	quotas, scram, listTypes, brokers := spec.wantsKinds(o.Prune)
	var resources []engine.ConfigResource
	for _, cs := range spec.Configs {
		resources = append(resources, cs.Resource())
	}
	if err := c.observeKinds(ctx, st, quotas, scram, resources, listTypes, brokers); err != nil {
		return Plan{}, err
	}
	salt := newSalt()
	p := Plan{Format: PlanFormat, ClusterID: st.clusterID, Brokers: st.addrs, Profile: c.Config().Profile, CreatedAt: time.Now().UTC(),
		Prune: o.Prune, Owns: spec.Owns, Policies: spec.Policies, Changes: []Change{}}
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
	return p, p.Seal()
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
