package desired

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/redact"
	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// A plan is what was reviewed (DESIGN.md, invariant 8): Apply sends what a
// change's payload says (a reassignment's replicas, an ACL, a topic to
// create), so a plan file edited after review could name one resource and
// change another, delete outside what the spec owns, or break a policy.
// Before reading the cluster Apply therefore checks the plan's digest,
// then every change against the rules the plan records (Verify); after
// reading it, that this is the cluster the plan was made on
// (checkCluster).

// digestPrefix marks the hash a plan's digest is.
const digestPrefix = "sha256:"

// ComputeDigest is the plan's digest: "sha256:" and the hex SHA-256 of its
// JSON with Digest empty. A plan read back from its file encodes as it was
// written (Go's encoding: fields in order, map keys sorted, floats and
// times round-trip), so the digest does not depend on the file's layout.
func (p Plan) ComputeDigest() (string, error) {
	p.Digest = ""
	b, err := json.Marshal(p)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return digestPrefix + hex.EncodeToString(sum[:]), nil
}

// Seal sets the plan's digest.
func (p *Plan) Seal() error {
	d, err := p.ComputeDigest()
	p.Digest = d
	return err
}

// checkDigest refuses a plan whose content is not the one its digest
// names, or whose digest is not want (the one reviewed, when given).
func (p Plan) checkDigest(want string) error {
	if want != "" && !strings.EqualFold(strings.TrimPrefix(want, digestPrefix), strings.TrimPrefix(p.Digest, digestPrefix)) {
		return vocab.Errorf(vocab.CodeInvalidArgument, "", "the plan's digest is %s, not %s (--digest): this is not the plan that was reviewed; nothing was applied", orNone(p.Digest), want)
	}
	got, err := p.ComputeDigest()
	switch {
	case err != nil:
		return vocab.Errorf(vocab.CodeInvalidArgument, "", "plan: %v", err)
	case p.Digest == "":
		return vocab.Errorf(vocab.CodeInvalidArgument, "", "the plan has no digest: plan again; nothing was applied")
	case got != p.Digest:
		return vocab.Errorf(vocab.CodeInvalidArgument, "", "the plan's content does not match its digest %s (it is %s): the plan was changed after it was made; plan again and review; nothing was applied", p.Digest, got)
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// Verify checks every change of the plan against what the plan says of
// itself: its payload names the resource its name says, it lies inside
// the plan's owns, a deletion was pruned, and what it sets meets the
// policies. Each problem names the change; nothing is asked of the
// cluster.
func (p Plan) Verify() error {
	var errs SpecErrors
	errs = append(errs, p.Owns.emptyEntries()...)
	seen := map[string]int{}
	for i, ch := range p.Changes {
		at := fmt.Sprintf("change #%d (%s %s %s)", i+1, ch.Action, ch.Kind, ch.Name)
		key := ch.Kind + "\x00" + ch.Name + "\x00" + ch.Action
		if first, dup := seen[key]; dup {
			errs = append(errs, fmt.Sprintf("%s: given twice (first as change #%d)", at, first))
			continue
		}
		seen[key] = i + 1
		for _, problem := range p.verifyChange(ch) {
			errs = append(errs, at+": "+problem)
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// planActions are the actions each kind of change may have.
var planActions = map[string][]string{
	KindTopic: {ActionCreate, ActionAlter, ActionReassign, ActionCreatePartitions, ActionDelete},
	KindACL:   {ActionCreate, ActionDelete},
}

// verifyChange names what is wrong with one change.
func (p Plan) verifyChange(ch Change) []string {
	actions, ok := planActions[ch.Kind]
	if !ok {
		actions = []string{ActionCreate, ActionAlter, ActionDelete}
		if _, known := ownsKey[ch.Kind]; !known {
			return []string{fmt.Sprintf("unknown kind %q", ch.Kind)}
		}
	}
	if !slices.Contains(actions, ch.Action) {
		return []string{fmt.Sprintf("a %s cannot be %q", ch.Kind, ch.Action)}
	}
	payload, owned := changePayload(ch)
	var out []string
	if payload != "" {
		out = append(out, payload)
	}
	set := p.Owns.of(ch.Kind)
	switch {
	case owned == "":
	case set != nil && !set.Contains(owned):
		out = append(out, fmt.Sprintf("%s is outside %s (%s)", owned, ownsKey[ch.Kind], set))
	case ch.Action == ActionDelete && set == nil:
		out = append(out, fmt.Sprintf("a deletion outside owns: the plan has no %s", ownsKey[ch.Kind]))
	}
	if ch.Action == ActionDelete && !p.Prune {
		out = append(out, "a deletion in a plan made without --prune")
	}
	for _, c := range ch.Configs {
		if redact.IsSecretKey(c.Key) {
			out = append(out, fmt.Sprintf("configs[%q]: a sensitive config cannot be reconciled", c.Key))
		}
	}
	if ch.Kind == KindTopic && ch.Action != ActionDelete {
		for _, v := range p.Policies.changeViolations(ch) {
			out = append(out, "policy "+v)
		}
	}
	return out
}

// changePayload checks that what Apply sends for ch names the resource ch.Name
// says, and returns the name owns must contain ("" when the payload is
// unusable).
func changePayload(ch Change) (problem, owned string) {
	switch ch.Kind {
	case KindTopic:
		return topicPayload(ch), ch.Name
	case KindACL:
		switch {
		case ch.ACL == nil:
			return "no acl to " + ch.Action, ""
		case ch.ACL.String() != ch.Name:
			return fmt.Sprintf("its acl is %q, not the one its name says", ch.ACL.String()), ch.ACL.Principal
		}
		return "", ch.ACL.Principal
	case KindQuota:
		if e := ch.Entity.String(); e != ch.Name {
			return fmt.Sprintf("its entity is %q, not the one its name says", e), e
		}
		if len(ch.Quotas) == 0 {
			return "no quota to change", ch.Name
		}
		return "", ch.Name
	case KindSCRAMUser:
		switch {
		case ch.SCRAM == nil:
			return "no credential to " + ch.Action, ""
		case ch.SCRAM.Key() != ch.Name:
			return fmt.Sprintf("its credential is %q, not the one its name says", ch.SCRAM.Key()), ch.SCRAM.User
		case ch.Action != ActionDelete && ch.PasswordFingerprint == "":
			return "no password fingerprint", ch.SCRAM.User
		}
		return "", ch.SCRAM.User
	}
	if len(ch.Configs) == 0 {
		return "no config to change", ch.Name
	}
	return "", ch.Name // a config resource is named by the change's name alone
}

// topicPayload checks a topic change's payload against its name and the
// state it was planned against.
func topicPayload(ch Change) string {
	switch ch.Action {
	case ActionCreate:
		switch {
		case ch.Topic == nil:
			return "no topic to create"
		case ch.Topic.Name != ch.Name:
			return fmt.Sprintf("it creates topic %q, not the one its name says", ch.Topic.Name)
		}
	case ActionAlter:
		if len(ch.Configs) == 0 {
			return "no config to change"
		}
	case ActionCreatePartitions:
		if int(ch.Partitions) <= ch.Against.Partitions {
			return fmt.Sprintf("partitions %d do not raise the %d planned against", ch.Partitions, ch.Against.Partitions)
		}
	case ActionReassign:
		return reassignPayload(ch)
	}
	return ""
}

// reassignPayload: a reassignment names its own topic's partitions, each
// once, each with ReplicationFactor distinct brokers.
func reassignPayload(ch Change) string {
	if ch.ReplicationFactor <= 0 || len(ch.Replicas) != ch.Against.Partitions {
		return fmt.Sprintf("it must give replication factor and the replicas of each of the %d partitions planned against", ch.Against.Partitions)
	}
	parts := map[int32]bool{}
	for i, t := range ch.Replicas {
		brokers := slices.Clone(t.Replicas)
		slices.Sort(brokers)
		switch {
		case t.Topic != ch.Name:
			return fmt.Sprintf("replicas #%d name topic %q, not the one its name says", i+1, t.Topic)
		case t.Partition < 0 || int(t.Partition) >= ch.Against.Partitions || parts[t.Partition]:
			return fmt.Sprintf("replicas #%d: partition %d is not one of the topic's, or is given twice", i+1, t.Partition)
		case len(t.Replicas) != ch.ReplicationFactor || len(slices.Compact(brokers)) != len(t.Replicas):
			return fmt.Sprintf("replicas #%d: %d distinct brokers, not the replication factor %d", i+1, len(slices.Compact(brokers)), ch.ReplicationFactor)
		}
		parts[t.Partition] = true
	}
	return ""
}

// changeViolations names each policy what a topic change sets breaks: a
// created topic as a row; a config alter by the configs the topic will
// have (a row's configs are whole, so they are the row's); a raised
// partition count; a new replication factor.
func (p Policies) changeViolations(ch Change) []string {
	if ch.Action == ActionCreate {
		if ch.Topic == nil {
			return nil
		}
		return p.violations(*ch.Topic) // its name is the change's (topicPayload)
	}
	var v []string
	if p.TopicName != nil && !p.TopicName.MatchString(ch.Name) {
		v = append(v, fmt.Sprintf("topic_name: %q does not match %q", ch.Name, p.TopicName.String()))
	}
	switch ch.Action {
	case ActionAlter:
		only := Policies{MinInsyncReplicas: p.MinInsyncReplicas, RequiredConfigs: p.RequiredConfigs}
		v = append(v, only.violations(engine.TopicSpec{Name: ch.Name, Configs: afterChanges(ch.Against.Configs, ch.Configs)})...)
	case ActionCreatePartitions:
		if p.MaxPartitions > 0 && ch.Partitions > p.MaxPartitions {
			v = append(v, fmt.Sprintf("max_partitions: partitions %d is above %d", ch.Partitions, p.MaxPartitions))
		}
	case ActionReassign:
		if p.MinReplicationFactor > 0 && ch.ReplicationFactor < int(p.MinReplicationFactor) {
			v = append(v, fmt.Sprintf("min_replication_factor: replication_factor %d is below %d", ch.ReplicationFactor, p.MinReplicationFactor))
		}
	}
	return v
}

// checkCluster refuses, whole, a plan made on another cluster than st:
// another cluster id, another profile, or none of the brokers the plan was
// made on (a copy of the cluster, or a test cluster with a fixed id).
func (p Plan) checkCluster(st *clusterState, profile string) error {
	switch {
	case p.ClusterID != st.clusterID:
		return vocab.Errorf(vocab.CodeInvalidArgument, "", "the plan was made on cluster %q; this is cluster %q: nothing was applied", p.ClusterID, st.clusterID)
	case p.Profile != "" && p.Profile != profile:
		return vocab.Errorf(vocab.CodeInvalidArgument, "", "the plan was made with profile %q; this run uses %s: nothing was applied", p.Profile, profileName(profile))
	case !slices.ContainsFunc(p.Brokers, func(a string) bool { return slices.Contains(st.addrs, a) }):
		return vocab.Errorf(vocab.CodeInvalidArgument, "", "the plan was made on cluster %q at brokers %s; this cluster %q is at %s, none of them: another cluster with the same id; nothing was applied",
			p.ClusterID, strings.Join(p.Brokers, ", "), st.clusterID, strings.Join(st.addrs, ", "))
	}
	return nil
}

func profileName(p string) string {
	if p == "" {
		return "no profile"
	}
	return fmt.Sprintf("profile %q", p)
}
