package engine

import (
	"context"
	"slices"

	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
)

// What alter_client_quotas records: each entity's quotas before (undo sets
// them back, and removes the quotas it did not have), and the touched
// quotas as the alteration leaves them.

// QuotasAfter is an applied alteration's touched quotas: the value set, or
// nil for removed.
type QuotasAfter map[string]*float64

// quotasOf describes each altered entity's quotas (exactly that entity).
func (c *Client) quotasOf(ctx context.Context, alts []QuotaAlteration) ([]DescribedQuota, error) {
	out := make([]DescribedQuota, 0, len(alts))
	for _, a := range alts {
		f := QuotaFilter{}
		for k, v := range a.Entity {
			f[k] = v
		}
		ds, err := c.DescribeClientQuotas(ctx, []QuotaFilter{f}, true)
		if err != nil {
			return nil, err
		}
		d := DescribedQuota{Entity: a.Entity, Quotas: map[string]float64{}}
		for _, got := range ds {
			if got.Entity.String() == a.Entity.String() {
				d.Quotas = got.Quotas
			}
		}
		out = append(out, d)
	}
	return out, nil
}

// quotasAfter is what the alteration of the entity named key leaves.
func quotasAfter(_ []DescribedQuota, alts []QuotaAlteration, key string) QuotasAfter {
	for _, a := range alts {
		if a.Entity.String() != key {
			continue
		}
		out := QuotasAfter{}
		for k, v := range a.Set {
			out[k] = &v
		}
		for _, k := range a.Remove {
			out[k] = nil
		}
		return out
	}
	return nil
}

// quotasMatch reports whether now has the touched quotas as want says.
func quotasMatch(want QuotasAfter, now map[string]float64) bool {
	for k, v := range want {
		got, ok := now[k]
		if (v == nil) == ok || (v != nil && *v != got) {
			return false
		}
	}
	return true
}

// lookAlteredQuotas resolves alterations whose outcome stayed unknown.
func (c *Client) lookAlteredQuotas(alts []QuotaAlteration) func(context.Context, []DescribedQuota, []AlteredQuota, error, map[string]bool) ([]AlteredQuota, error, map[string]string) {
	return func(ctx context.Context, before []DescribedQuota, res []AlteredQuota, err error, unknown map[string]bool) ([]AlteredQuota, error, map[string]string) {
		found := map[string]string{}
		var ask []QuotaAlteration
		for _, a := range alts {
			if unknown[a.Entity.String()] {
				ask = append(ask, a)
			}
		}
		now, qerr := c.quotasOf(ctx, ask)
		if qerr != nil {
			return res, err, found
		}
		for _, n := range now {
			key := n.Entity.String()
			i := slices.IndexFunc(res, func(r AlteredQuota) bool { return r.Key() == key })
			old := slices.IndexFunc(before, func(b DescribedQuota) bool { return b.Entity.String() == key })
			switch {
			case quotasMatch(quotasAfter(nil, alts, key), n.Quotas):
				found[key], res[i].Err = auditlog.FoundApplied, nil
			case old >= 0 && quotasMatch(beforeAsAfter(before[old], quotasAfter(nil, alts, key)), n.Quotas):
				found[key] = auditlog.FoundNotApplied
			}
		}
		return res, err, found
	}
}

// beforeAsAfter is the touched quotas of after as they were in before.
func beforeAsAfter(before DescribedQuota, after QuotasAfter) QuotasAfter {
	out := QuotasAfter{}
	for k := range after {
		if v, ok := before.Quotas[k]; ok {
			out[k] = &v
		} else {
			out[k] = nil
		}
	}
	return out
}
