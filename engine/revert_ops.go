package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/engine/redact"
	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// How each kind of change is reverted (see revert.go).

func showValue(v *string) string {
	if v == nil {
		return "(none at this level)"
	}
	return fmt.Sprintf("%q", *v)
}

// configs sets each touched config back to its value before when that was
// set on the resource itself, and deletes it otherwise.
func (u *undoer) configs(applied map[string]auditlog.ItemOutcome) error {
	var before []struct {
		Type    string                     `json:"type"`
		Name    string                     `json:"name"`
		Configs map[string]json.RawMessage `json:"configs"`
		Error   string                     `json:"error"`
	}
	if err := auditlog.DecodeField(u.ch.Intent.Before, &before); err != nil {
		return err
	}
	for _, b := range before {
		r := ConfigResource{Type: b.Type, Name: b.Name}
		it, ok := applied[r.String()]
		if !ok {
			continue
		}
		var after map[string]json.RawMessage
		if err := auditlog.DecodeField(it.Detail, &after); err != nil {
			return err
		}
		if b.Error != "" || after == nil {
			u.step(r.String(), UndoRefused, "the configs before were not recorded (%s)", b.Error)
			continue
		}
		u.revertConfigs(r, b.Configs, after)
	}
	return nil
}

func (u *undoer) revertConfigs(r ConfigResource, beforeRaw, afterRaw map[string]json.RawMessage) {
	keys := slices.Sorted(maps.Keys(afterRaw))
	cur, errs, err := u.c.currentConfigs(u.ctx, []ConfigResource{r}, keys)
	if err != nil || errs[r.String()] != nil {
		u.step(r.String(), UndoFailed, "describing its configs: %v", cmpErr(err, errs[r.String()]))
		return
	}
	now := cur[r.String()]
	for _, k := range keys {
		if v, ok := simulated[ConfigValue](u, simKey("config", r.String(), k)); ok {
			now[k] = v
		}
	}
	rev := ConfigAlteration{Resource: r, Set: map[string]string{}}
	olds := map[string]ConfigValue{}
	var changed, secret, plan []string
	same := true
	for _, k := range keys {
		var old ConfigValue
		var want *string
		if raw := beforeRaw[k]; raw != nil && json.Unmarshal(raw, &old) != nil ||
			json.Unmarshal(afterRaw[k], &want) != nil || (want != nil && *want == "***" && redact.IsSecretKey(k)) {
			secret = append(secret, k) // redacted in the log: cannot be checked or restored
			continue
		}
		if !matchesAfter(r, want, now[k]) {
			changed = append(changed, fmt.Sprintf("%s is %s (%s), the change left %s", k, showValue(now[k].Value), now[k].Source, showValue(want)))
		}
		same = same && sameConfig(old, now[k])
		olds[k] = old
		if old.Source == DynamicSource(r) && old.Value != nil {
			rev.Set[k] = *old.Value
			plan = append(plan, fmt.Sprintf("set %s=%s", k, *old.Value))
		} else {
			rev.Delete = append(rev.Delete, k)
			plan = append(plan, "delete "+k+" (back to "+showValue(old.Value)+" from "+old.Source+")")
		}
	}
	if len(secret) > 0 {
		u.step(r.String(), UndoImpossible, "secret configs are not in the audit log and cannot be restored: %s", strings.Join(secret, ", "))
	}
	switch {
	case len(plan) == 0:
	case same:
		u.step(r.String(), UndoSkipped, "already as before")
	case len(changed) > 0:
		u.step(r.String(), UndoRefused, "changed since: %s", strings.Join(changed, "; "))
	default:
		for k, v := range olds {
			u.simulate(simKey("config", r.String(), k), v)
		}
		u.revert(r.String(), strings.Join(plan, ", "), func(ctx context.Context) error {
			res, err := u.c.AlterConfigs(ctx, []ConfigAlteration{rev}, AlterConfigsOptions{})
			return itemErr(res, err)
		})
	}
}

func cmpErr(err error, e *Error) error {
	if err != nil {
		return err
	}
	return e
}

// createdACLs deletes the ACLs a create_acls made (not those there before).
func (u *undoer) createdACLs(applied map[string]auditlog.ItemOutcome) error {
	var args struct {
		ACLs []ACL `json:"acls"`
	}
	if err := auditlog.DecodeField(u.ch.Intent.Args, &args); err != nil {
		return err
	}
	var mine []ACL
	for _, a := range args.ACLs {
		it, ok := applied[a.String()]
		if !ok {
			continue
		}
		var d CreatedACLDetail
		if err := auditlog.DecodeField(it.Detail, &d); err != nil {
			return err
		}
		if d.Existed {
			u.step(a.String(), UndoSkipped, "the ACL existed before the change: left as it is")
			continue
		}
		mine = append(mine, a)
	}
	present, err := u.c.presentACLs(u.ctx, mine)
	if err != nil {
		u.step("", UndoFailed, "describing the ACLs: %v", err)
		return nil
	}
	for _, a := range mine {
		if v, ok := simulated[bool](u, simKey("acl", a.String())); ok {
			present[a] = v
		}
		if !present[a] {
			u.step(a.String(), UndoSkipped, "already gone")
			continue
		}
		u.simulate(simKey("acl", a.String()), false)
		u.revert(a.String(), "delete the ACL", func(ctx context.Context) error {
			p, h, n := a.Principal, a.Host, a.ResourceName
			f := ACLFilter{Principal: &p, Host: &h, Operation: a.Operation, Permission: a.Permission,
				ResourceType: a.ResourceType, ResourceName: &n, PatternType: a.PatternType}
			res, err := u.c.DeleteACLs(ctx, []ACLFilter{f})
			return itemErr(res, err)
		})
	}
	return nil
}

// deletedACLs recreates the ACLs a delete_acls deleted.
func (u *undoer) deletedACLs(applied map[string]auditlog.ItemOutcome) error {
	var gone []ACL
	for _, k := range slices.Sorted(maps.Keys(applied)) {
		var d DeletedACLsDetail
		if err := auditlog.DecodeField(applied[k].Detail, &d); err != nil {
			return err
		}
		gone = append(gone, d.Deleted...)
	}
	if len(gone) == 0 {
		u.step("", UndoSkipped, "the filters deleted no ACLs")
		return nil
	}
	present, err := u.c.presentACLs(u.ctx, gone)
	if err != nil {
		u.step("", UndoFailed, "describing the ACLs: %v", err)
		return nil
	}
	for _, a := range sortACLs(gone) {
		if v, ok := simulated[bool](u, simKey("acl", a.String())); ok {
			present[a] = v
		}
		if present[a] {
			u.step(a.String(), UndoSkipped, "already there again")
			continue
		}
		u.simulate(simKey("acl", a.String()), true)
		u.revert(a.String(), "recreate the ACL", func(ctx context.Context) error {
			res, err := u.c.CreateACLs(ctx, []ACL{a})
			return itemErr(res, err)
		})
	}
	return nil
}

// quotas sets each touched quota back, removing those the entity did not
// have.
func (u *undoer) quotas(applied map[string]auditlog.ItemOutcome) error {
	var before []DescribedQuota
	if err := auditlog.DecodeField(u.ch.Intent.Before, &before); err != nil {
		return err
	}
	for _, b := range before {
		key := b.Entity.String()
		it, ok := applied[key]
		if !ok {
			continue
		}
		var after QuotasAfter
		if err := auditlog.DecodeField(it.Detail, &after); err != nil {
			return err
		}
		now, err := u.c.quotasOf(u.ctx, []QuotaAlteration{{Entity: b.Entity}})
		if err != nil {
			u.step(key, UndoFailed, "describing its quotas: %v", err)
			continue
		}
		if v, ok := simulated[map[string]float64](u, simKey("quota", key)); ok {
			now[0].Quotas = v
		}
		old := beforeAsAfter(b, after)
		rev := QuotaAlteration{Entity: b.Entity, Set: map[string]float64{}}
		left := maps.Clone(now[0].Quotas)
		var plan []string
		for _, k := range slices.Sorted(maps.Keys(old)) {
			if v := old[k]; v != nil {
				rev.Set[k], left[k] = *v, *v
				plan = append(plan, fmt.Sprintf("set %s=%v", k, *v))
			} else {
				rev.Remove = append(rev.Remove, k)
				delete(left, k)
				plan = append(plan, "remove "+k)
			}
		}
		switch {
		case quotasMatch(old, now[0].Quotas):
			u.step(key, UndoSkipped, "already as before")
		case !quotasMatch(after, now[0].Quotas):
			u.step(key, UndoRefused, "changed since: its quotas are %v", now[0].Quotas)
		default:
			u.simulate(simKey("quota", key), left)
			u.revert(key, strings.Join(plan, ", "), func(ctx context.Context) error {
				res, err := u.c.AlterClientQuotas(ctx, []QuotaAlteration{rev}, false)
				return itemErr(res, err)
			})
		}
	}
	return nil
}

// offsets commits a group's offsets back (and deletes those it had none
// for); the group must be empty, as for reset_offsets. deleted: the change
// was delete_group_offsets, which left no offset.
func (u *undoer) offsets(applied map[string]auditlog.ItemOutcome, deleted bool) error {
	var before GroupOffsetsBefore
	if err := auditlog.DecodeField(u.ch.Intent.Before, &before); err != nil {
		return err
	}
	var args struct {
		Offsets []OffsetCommit `json:"offsets"`
	}
	if err := auditlog.DecodeField(u.ch.Intent.Args, &args); err != nil {
		return err
	}
	group := before.Group
	ds, err := u.c.describeGroups(u.ctx, []string{group})
	switch {
	case err != nil:
		u.step(group, UndoFailed, "describing the group: %v", err)
		return nil
	case ds[0].Err == nil && len(ds[0].Members) > 0:
		u.step(group, UndoRefused, "group %s has %d live member(s): stop its consumers first", group, len(ds[0].Members))
		return nil
	}
	var tps []TopicPartition
	for _, b := range before.Offsets {
		tps = append(tps, TopicPartition{Topic: b.Topic, Partition: b.Partition})
	}
	now, err := u.c.committedOf(u.ctx, group, tps)
	if err != nil {
		u.step(group, UndoFailed, "fetching its offsets: %v", err)
		return nil
	}
	var commits []OffsetCommit
	var drop []TopicPartition
	for i, b := range before.Offsets {
		tp := TopicPartition{Topic: b.Topic, Partition: b.Partition}
		if _, ok := applied[tp.String()]; !ok {
			continue
		}
		left := int64(-1)
		if j := slices.IndexFunc(args.Offsets, func(o OffsetCommit) bool { return o.Topic == b.Topic && o.Partition == b.Partition }); j >= 0 && !deleted {
			left = args.Offsets[j].Offset
		}
		res := group + ": " + tp.String()
		cur := now[i].Offset
		if v, ok := simulated[int64](u, simKey("offset", group, tp.String())); ok {
			cur = v
		}
		if cur == left && cur != b.Offset {
			u.simulate(simKey("offset", group, tp.String()), b.Offset)
		}
		switch {
		case cur == b.Offset:
			u.step(res, UndoSkipped, "already as before (%d)", cur)
		case cur != left:
			u.step(res, UndoRefused, "changed since: committed %d, the change left %d", cur, left)
		case b.Offset < 0:
			drop = append(drop, tp)
		default:
			commits = append(commits, OffsetCommit{Topic: b.Topic, Partition: b.Partition, Offset: b.Offset, LeaderEpoch: -1})
		}
	}
	if len(commits) > 0 {
		u.revert(group, offsetPlan("commit", commits), func(ctx context.Context) error {
			res, err := u.c.CommitOffsets(ctx, group, commits)
			return itemErr(res, err)
		})
	}
	if len(drop) > 0 {
		u.revert(group, fmt.Sprintf("delete the offsets of %v (none were committed before)", drop), func(ctx context.Context) error {
			res, err := u.c.DeleteGroupOffsets(ctx, group, nil, drop, DeleteOffsetsOptions{})
			return itemErr(res, err)
		})
	}
	return nil
}

func offsetPlan(verb string, os []OffsetCommit) string {
	var parts []string
	for _, o := range os {
		parts = append(parts, fmt.Sprintf("%s=%d", vocab.PartitionKey(o.Topic, o.Partition), o.Offset))
	}
	return verb + " " + strings.Join(parts, ", ")
}

// createdTopics deletes the topics a create_topics created, after
// confirmation; a topic with another id now was recreated since.
func (u *undoer) createdTopics(applied map[string]auditlog.ItemOutcome) error {
	names := slices.Sorted(maps.Keys(applied))
	exist, err := u.c.topicStates(u.ctx, names)
	if err != nil {
		u.step("", UndoFailed, "looking the topics up: %v", err)
		return nil
	}
	for _, n := range names {
		var d CreatedTopicDetail
		if err := auditlog.DecodeField(applied[n].Detail, &d); err != nil {
			return err
		}
		now := exist[n]
		switch {
		case d.Existed:
			u.step(n, UndoSkipped, "the topic existed before the change (if_not_exists): left as it is")
		case now.Hidden != "":
			u.step(n, UndoRefused, "cannot compare with the change: describing the topic was refused (%s)", now.Hidden)
		case !now.Exists:
			u.step(n, UndoSkipped, "already gone")
		case d.ID == "" || now.ID != d.ID:
			u.step(n, UndoRefused, "changed since: the topic now has id %s, the change created id %s", now.ID, d.ID)
		case !u.o.DryRun && (u.o.Confirm == nil || !u.o.Confirm(fmt.Sprintf("delete topic %s (created by %s) and all its data?", n, u.ch.Intent.ID))):
			u.step(n, UndoRefused, "deleting a topic needs confirmation (--yes)")
		default:
			u.revert(n, "delete the topic", func(ctx context.Context) error {
				res, err := u.c.DeleteTopics(ctx, []string{n}, DeleteTopicsOptions{})
				return itemErr(res, err)
			})
		}
	}
	return nil
}

// reassignments moves partitions back to their replicas before.
func (u *undoer) reassignments(applied map[string]auditlog.ItemOutcome) error {
	var before []ReplicasBefore
	if err := auditlog.DecodeField(u.ch.Intent.Before, &before); err != nil {
		return err
	}
	var args struct {
		Partitions []PartitionTarget `json:"partitions"`
	}
	if err := auditlog.DecodeField(u.ch.Intent.Args, &args); err != nil {
		return err
	}
	var parts []PartitionTarget
	for _, b := range before {
		if _, ok := applied[vocab.PartitionKey(b.Topic, b.Partition)]; ok {
			parts = append(parts, PartitionTarget{Topic: b.Topic, Partition: b.Partition})
		}
	}
	now, err := u.c.replicasNow(u.ctx, parts)
	if err != nil {
		u.step("", UndoFailed, "reading the replicas: %v", err)
		return nil
	}
	for i, p := range parts {
		key := vocab.PartitionKey(p.Topic, p.Partition)
		b := before[slices.IndexFunc(before, func(b ReplicasBefore) bool { return b.Topic == p.Topic && b.Partition == p.Partition })]
		target := args.Partitions[slices.IndexFunc(args.Partitions, func(t PartitionTarget) bool { return t.Topic == p.Topic && t.Partition == p.Partition })].Replicas
		cur := now[i]
		if v, ok := simulated[[]int32](u, simKey("replicas", key)); ok {
			cur.Replicas = v
		}
		switch {
		case cur.Missing:
			u.step(key, UndoSkipped, "the partition does not exist any more")
		case len(cur.Adding) > 0 || len(cur.Removing) > 0:
			u.step(key, UndoRefused, "a reassignment is in progress (replicas %v, adding %v, removing %v): wait for it (wait_reassignments) or cancel it first", cur.Replicas, cur.Adding, cur.Removing)
		case slices.Equal(cur.Replicas, b.Original()):
			u.step(key, UndoSkipped, "already as before (%v)", cur.Replicas)
		case !slices.Equal(cur.Replicas, target):
			u.step(key, UndoRefused, "changed since: replicas are %v, the change left %v", cur.Replicas, target)
		default:
			orig := b.Original()
			u.simulate(simKey("replicas", key), orig)
			u.revert(key, fmt.Sprintf("reassign back to %v", orig), func(ctx context.Context) error {
				res, err := u.c.AlterPartitionReassignments(ctx, []PartitionTarget{{Topic: p.Topic, Partition: p.Partition, Replicas: orig}})
				return itemErr(res, err)
			})
		}
	}
	return nil
}
