package desired

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

// The topics and ACLs of a spec: a listed topic created, its configs
// altered (whole), its partitions raised, its replication factor changed
// by a reassignment; a listed ACL created; with prune, owned topics and
// ACLs not listed deleted.

// planTopic is one listed topic's changes, or why it cannot be reconciled.
func planTopic(spec Spec, t engine.TopicSpec, st *clusterState) ([]Change, []string) {
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

// afterChanges is cur once chs are applied (valueChanges' inverse): a
// new map, cur is left as it is.
func afterChanges[V any](cur map[string]V, chs []ValueChange[V]) map[string]V {
	out := make(map[string]V, len(cur)+len(chs))
	maps.Copy(out, cur)
	for _, ch := range chs {
		if ch.After == nil {
			delete(out, ch.Key)
		} else {
			out[ch.Key] = *ch.After
		}
	}
	return out
}

// replicationTargets gives each partition rf replicas: a lower factor
// keeps the first replicas (the preferred leader stays), a higher one adds
// the brokers holding the fewest replicas, preferring racks the partition
// is not on yet.
func replicationTargets(topic string, replicas map[int32][]int32, rf int, st *clusterState) ([]engine.PartitionTarget, error) {
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
	var out []engine.PartitionTarget
	for _, p := range slices.Sorted(maps.Keys(replicas)) {
		cur := replicas[p]
		if len(cur) >= rf {
			for _, b := range cur[rf:] {
				load[b]--
			}
			out = append(out, engine.PartitionTarget{Topic: topic, Partition: p, Replicas: slices.Clone(cur[:rf])})
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
		out = append(out, engine.PartitionTarget{Topic: topic, Partition: p, Replicas: target})
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
