package snapshot

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/desired"
	"github.com/kadmin-lua/kadmin-lua/fixture"
	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

// Change is one difference between two snapshots of a cluster, as a row
// of the plan table (`kadmin-lua plan`): ACTION KIND NAME CHANGE. Topics,
// ACLs and quotas are described by the plan's own words (desired.Change);
// what a plan never changes (records, group offsets) in the same form.
type Change struct {
	Action string `json:"action"`
	Kind   string `json:"kind"`
	Name   string `json:"name"`
	Change string `json:"change"`
}

// The kinds and actions a diff has beyond the plan's.
const (
	KindRecords = "records"
	KindGroup   = "group"

	ActionWrite  = "write"  // records written (the end offset moved on)
	ActionCommit = "commit" // a group's committed offsets changed
)

// Diff is what changed from before to after, in the order a plan lists
// changes: topics, then groups, ACLs, quotas and SCRAM users, each kind by
// name. Both must be snapshots of one cluster (or of one copy).
func Diff(before, after *fixture.Fixture) []Change {
	var out []Change
	add := func(ch desired.Change) {
		out = append(out, Change{Action: ch.Action, Kind: ch.Kind, Name: ch.Name, Change: ch.String()})
	}
	bt, at := byName(before.Topics, topicName), byName(after.Topics, topicName)
	for _, name := range unionKeys(bt, at) {
		b, a := bt[name], at[name]
		switch {
		case b == nil:
			add(desired.Change{Kind: desired.KindTopic, Action: desired.ActionCreate, Name: name,
				Topic: &engine.TopicSpec{Name: name, Partitions: int32(a.PartitionCount()), ReplicationFactor: int16(a.ReplicationFactor), Configs: a.Configs}})
		case a == nil:
			add(desired.Change{Kind: desired.KindTopic, Action: desired.ActionDelete, Name: name})
		default:
			if cs := valueChanges(b.Configs, a.Configs); len(cs) > 0 {
				add(desired.Change{Kind: desired.KindTopic, Action: desired.ActionAlter, Name: name, Configs: cs})
			}
			if a.ReplicationFactor != b.ReplicationFactor {
				add(desired.Change{Kind: desired.KindTopic, Action: desired.ActionReassign, Name: name, ReplicationFactor: a.ReplicationFactor,
					Replicas: make([]engine.PartitionTarget, a.PartitionCount()), Against: desired.Observed{ReplicationFactor: b.ReplicationFactor}})
			} else if moved := movedPartitions(b, a); len(moved) > 0 {
				out = append(out, Change{Action: desired.ActionReassign, Kind: desired.KindTopic, Name: name,
					Change: fmt.Sprintf("move topic %s partitions %s", name, strings.Join(moved, ", "))})
			}
			if a.PartitionCount() > b.PartitionCount() {
				add(desired.Change{Kind: desired.KindTopic, Action: desired.ActionCreatePartitions, Name: name,
					Partitions: int32(a.PartitionCount()), Against: desired.Observed{Partitions: b.PartitionCount()}})
			}
		}
		if b != nil && a != nil {
			out = append(out, recordChanges(b, a)...)
		}
	}
	out = append(out, groupChanges(before.Groups, after.Groups)...)
	ba, aa := byName(before.ACLs, engine.ACL.String), byName(after.ACLs, engine.ACL.String)
	for _, name := range unionKeys(ba, aa) {
		switch {
		case ba[name] == nil:
			add(desired.Change{Kind: desired.KindACL, Action: desired.ActionCreate, Name: name})
		case aa[name] == nil:
			add(desired.Change{Kind: desired.KindACL, Action: desired.ActionDelete, Name: name})
		}
	}
	bq, aq := byName(before.Quotas, quotaName), byName(after.Quotas, quotaName)
	for _, name := range unionKeys(bq, aq) {
		var bv, av map[string]float64
		if bq[name] != nil {
			bv = bq[name].Quotas
		}
		if aq[name] != nil {
			av = aq[name].Quotas
		}
		if cs := valueChanges(bv, av); len(cs) > 0 {
			action := desired.ActionAlter
			switch {
			case bq[name] == nil:
				action = desired.ActionCreate
			case aq[name] == nil:
				action = desired.ActionDelete
			}
			add(desired.Change{Kind: desired.KindQuota, Action: action, Name: name, Quotas: cs})
		}
	}
	bs, as := byName(before.SCRAMUsers, scramName), byName(after.SCRAMUsers, scramName)
	for _, name := range unionKeys(bs, as) {
		b, a := bs[name], as[name]
		switch {
		case b == nil:
			out = append(out, Change{desired.ActionCreate, desired.KindSCRAMUser, name, fmt.Sprintf("create scram_user %s (iterations %d)", name, a.Iterations)})
		case a == nil:
			out = append(out, Change{desired.ActionDelete, desired.KindSCRAMUser, name, "delete scram_user " + name})
		case a.Iterations != b.Iterations:
			out = append(out, Change{desired.ActionAlter, desired.KindSCRAMUser, name, fmt.Sprintf("alter scram_user %s iterations %d -> %d", name, b.Iterations, a.Iterations)})
		}
	}
	return out
}

func topicName(t fixture.Topic) string     { return t.Name }
func quotaName(q fixture.Quota) string     { return q.Entity.String() }
func scramName(u fixture.SCRAMUser) string { return u.User + "/" + u.Mechanism }

func byName[T any](list []T, name func(T) string) map[string]*T {
	m := make(map[string]*T, len(list))
	for i := range list {
		m[name(list[i])] = &list[i]
	}
	return m
}

func unionKeys[V any](a, b map[string]V) []string {
	keys := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// valueChanges are the keys whose values differ from before to after:
// configs (desired.ConfigChange) or quotas (desired.QuotaChange).
func valueChanges[V comparable](before, after map[string]V) []desired.ValueChange[V] {
	var out []desired.ValueChange[V]
	for _, k := range unionKeys(before, after) {
		b, bok := before[k]
		a, aok := after[k]
		if bok == aok && b == a {
			continue
		}
		c := desired.ValueChange[V]{Key: k}
		if bok {
			c.Before = &b
		}
		if aok {
			c.After = &a
		}
		out = append(out, c)
	}
	return out
}

// movedPartitions lists the partitions whose replicas changed:
// "3 [1 2] -> [2 3]".
func movedPartitions(b, a *fixture.Topic) []string {
	var out []string
	for p := range min(len(b.Replicas), len(a.Replicas)) {
		if !slices.Equal(b.Replicas[p], a.Replicas[p]) {
			out = append(out, fmt.Sprintf("%d %v -> %v", p, b.Replicas[p], a.Replicas[p]))
		}
	}
	return out
}

// recordChanges: records written (an end offset moved) and records deleted
// (a log start moved), per topic.
func recordChanges(b, a *fixture.Topic) []Change {
	bo, ao := offsetsOf(b), offsetsOf(a)
	var written int64
	var parts, deleted []string
	for p := range ao {
		var was [2]int64 // a partition added since had nothing
		if p < len(bo) {
			was = bo[p]
		}
		if n := ao[p][1] - was[1]; n > 0 {
			written += n
			parts = append(parts, fmt.Sprint(p))
		}
		if ao[p][0] > was[0] {
			deleted = append(deleted, fmt.Sprintf("%d below offset %d", p, ao[p][0]))
		}
	}
	var out []Change
	if written > 0 {
		out = append(out, Change{ActionWrite, KindRecords, a.Name, fmt.Sprintf("write %d records to topic %s (partitions %s)", written, a.Name, strings.Join(parts, ", "))})
	}
	if len(deleted) > 0 {
		out = append(out, Change{desired.ActionDelete, KindRecords, a.Name, fmt.Sprintf("delete records of topic %s: partition %s", a.Name, strings.Join(deleted, ", partition "))})
	}
	return out
}

// offsetsOf is each partition's [start, end].
func offsetsOf(t *fixture.Topic) [][2]int64 {
	out := make([][2]int64, max(t.PartitionCount(), len(t.Replicas)))
	for _, o := range t.Offsets {
		if int(o.Partition) < len(out) {
			out[o.Partition] = [2]int64{o.Start, o.End}
		}
	}
	return out
}

// groupChanges: groups created (first commit), deleted, and committed
// offsets moved.
func groupChanges(before, after []fixture.Group) []Change {
	bg, ag := byName(before, groupName), byName(after, groupName)
	var out []Change
	for _, name := range unionKeys(bg, ag) {
		b, a := bg[name], ag[name]
		switch {
		case b == nil && len(a.Offsets) > 0:
			out = append(out, Change{desired.ActionCreate, KindGroup, name, fmt.Sprintf("create group %s (%d committed offsets)", name, len(a.Offsets))})
		case a == nil:
			out = append(out, Change{desired.ActionDelete, KindGroup, name, "delete group " + name})
		case b != nil:
			if moved := offsetMoves(b.Offsets, a.Offsets); len(moved) > 0 {
				out = append(out, Change{ActionCommit, KindGroup, name, fmt.Sprintf("commit group %s offsets: %s", name, strings.Join(moved, ", "))})
			}
		}
	}
	return out
}

func groupName(g fixture.Group) string { return g.Name }

func offsetMoves(before, after fixture.GroupOffsets) []string {
	key := func(o fixture.GroupOffset) string { return fmt.Sprintf("%s[%d]", o.Topic, o.Partition) }
	b, a := byName(before, key), byName(after, key)
	var out []string
	for _, k := range unionKeys(b, a) {
		switch {
		case b[k] == nil:
			out = append(out, fmt.Sprintf("%s (none) -> %d", k, a[k].Offset))
		case a[k] == nil:
			out = append(out, fmt.Sprintf("%s %d -> (none)", k, b[k].Offset))
		case a[k].Offset != b[k].Offset:
			out = append(out, fmt.Sprintf("%s %d -> %d", k, b[k].Offset, a[k].Offset))
		}
	}
	return out
}

// Print writes changes as the plan table does, with a closing count.
func Print(w io.Writer, changes []Change, what string) error {
	if len(changes) == 0 {
		_, err := fmt.Fprintf(w, "No changes: %s changed nothing.\n", what)
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ACTION\tKIND\tNAME\tCHANGE")
	for _, ch := range changes {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", ch.Action, ch.Kind, luaapi.CellText(ch.Name), luaapi.CellText(ch.Change))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	n := "1 change"
	if len(changes) != 1 {
		n = fmt.Sprintf("%d changes", len(changes))
	}
	_, err := fmt.Fprintf(w, "%s: %s.\n", what, n)
	return err
}
