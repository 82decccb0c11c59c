package desired

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// The quotas of a spec: an entity's quotas, whole (docs/reconcile.md).

// QuotaSpec is an entity's quotas, whole: a quota it has that Set does not
// give is removed.
type QuotaSpec struct {
	Entity engine.QuotaEntity `json:"entity"`
	Set    map[string]float64 `json:"set"`
}

// QuotaChange is one quota of a change.
type QuotaChange = ValueChange[float64]

func planQuotas(spec Spec, st *clusterState, prune bool) []Change {
	var out []Change
	listed := map[string]bool{}
	for _, q := range spec.Quotas {
		k := q.Entity.String()
		listed[k] = true
		cur, ok := st.quotas[k]
		if chs := quotaChanges(cur, q.Set); len(chs) > 0 {
			action := ActionAlter
			if !ok {
				action = ActionCreate
			}
			out = append(out, Change{Kind: KindQuota, Name: k, Action: action, Entity: q.Entity, Quotas: chs,
				Against: Observed{Exists: ok, Quotas: cur}})
		}
	}
	if prune && spec.Owns.Quotas != nil {
		for _, e := range st.quotaEntities {
			k := e.String()
			if listed[k] || !spec.Owns.Quotas.Contains(k) {
				continue
			}
			out = append(out, Change{Kind: KindQuota, Name: k, Action: ActionDelete, Entity: e, Quotas: quotaChanges(st.quotas[k], nil),
				Against: Observed{Exists: true, Quotas: st.quotas[k]}})
		}
	}
	return out
}

// quotaChanges is the diff of an entity's quotas; want is whole.
func quotaChanges(cur, want map[string]float64) []QuotaChange { return valueChanges(cur, want) }

// quotasAfterChange is an entity's quotas once ch is applied.
func quotasAfterChange(ch Change) map[string]float64 {
	return afterChanges(ch.Against.Quotas, ch.Quotas)
}

// applyQuotas sends one step of quota changes: one AlterClientQuotas.
func (c client) applyQuotas(ctx context.Context, chs []AppliedChange, idx []int, note func(string, *vocab.Error)) error {
	alts := make([]engine.QuotaAlteration, 0, len(idx))
	for _, i := range idx {
		a := engine.QuotaAlteration{Entity: chs[i].Entity, Set: map[string]float64{}}
		for _, q := range chs[i].Quotas {
			if q.After == nil {
				a.Remove = append(a.Remove, q.Key)
			} else {
				a.Set[q.Key] = *q.After
			}
		}
		alts = append(alts, a)
	}
	res, err := c.AlterClientQuotas(ctx, alts, false)
	for _, r := range res {
		note(r.Key(), r.Err)
	}
	return err
}

// awaitQuotas waits until every broker describes each entity of want with
// the quotas want gives it (none: the entity is gone), and returns the
// brokers that did not before ctx ended. A broker answers
// DescribeClientQuotas from its own copy of the cluster's metadata, which
// follows the controller's a moment behind, and kgo sends the request to
// any broker: without this wait a plan made right after an apply could be
// answered by a broker that had not seen the apply yet, and plan again the
// changes just made (issue 27).
func (c client) awaitQuotas(ctx context.Context, brokers []int32, want map[string]map[string]float64) []int32 {
	return awaitBrokers(ctx, brokers, func(b int32) bool { return c.brokerHasQuotas(ctx, b, want) })
}

// brokerHasQuotas reports whether broker b describes want's entities as
// want says (false when it cannot be asked).
func (c client) brokerHasQuotas(ctx context.Context, b int32, want map[string]map[string]float64) bool {
	described, err := c.DescribeClientQuotasOn(ctx, b)
	if err != nil {
		return false
	}
	seen := map[string]map[string]float64{}
	for _, d := range described {
		seen[d.Entity.String()] = d.Quotas
	}
	for k, w := range want {
		if !maps.Equal(seen[k], w) {
			return false
		}
	}
	return true
}

// quotaDiffs names each quota that differs between was and now.
func quotaDiffs(was, now map[string]float64) []string {
	var diffs []string
	for _, k := range slices.Compact(slices.Sorted(slices.Values(append(slices.Collect(maps.Keys(was)), slices.Collect(maps.Keys(now))...)))) {
		w, wok := was[k]
		n, nok := now[k]
		if w != n || wok != nok {
			diffs = append(diffs, fmt.Sprintf("%s %s, now %s", k, showQuota(optionalF(w, wok)), showQuota(optionalF(n, nok))))
		}
	}
	return diffs
}

func optionalF(f float64, ok bool) *float64 {
	if !ok {
		return nil
	}
	return &f
}

func showQuota(v *float64) string {
	if v == nil {
		return "(none)"
	}
	return strconv.FormatFloat(*v, 'f', -1, 64)
}

// quotaString is Change.String for a quota change.
func (ch Change) quotaString() string {
	parts := make([]string, len(ch.Quotas))
	for i, q := range ch.Quotas {
		parts[i] = fmt.Sprintf("%s: %s -> %s", q.Key, showQuota(q.Before), showQuota(q.After))
	}
	return fmt.Sprintf("%s quota %s: %s", ch.Action, ch.Name, strings.Join(parts, ", "))
}
