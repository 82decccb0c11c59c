package desired

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/redact"
	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// The kinds beyond topics and ACLs (docs/reconcile.md): client quotas,
// SCRAM users, and the configs of groups, client-metrics subscriptions and
// brokers. Each is planned as create, alter or (with prune, inside owns)
// delete, checked for staleness at apply and applied through the audited
// AlterClientQuotas, AlterUserSCRAMCredentials and AlterConfigs; a file
// per kind (quotas.go, scram.go,
// configs.go), and here what they share.

// The kinds of resource a plan changes, beyond topics and ACLs.
const (
	KindQuota         = "quota"          // a client-quota entity ("user=alice")
	KindSCRAMUser     = "scram_user"     // a user's credential for one mechanism ("alice/SCRAM-SHA-512")
	KindGroupConfig   = "group_config"   // a group's configs
	KindClientMetrics = "client_metrics" // a client-metrics subscription
	KindBrokerConfig  = "broker_config"  // a broker's dynamic configs ("1", or "default")
)

// of is what a spec owns of a kind (nil: only the rows it lists).
func (o Owns) of(kind string) NameSet {
	switch kind {
	case KindTopic:
		return o.Topics
	case KindACL:
		return o.ACLPrincipals
	case KindQuota:
		return o.Quotas
	case KindSCRAMUser:
		return o.SCRAMUsers
	case KindGroupConfig:
		return o.Groups
	case KindClientMetrics:
		return o.ClientMetrics
	case KindBrokerConfig:
		return o.Brokers
	}
	return nil
}

// ownsKey is the key of owns naming what the spec owns of kind.
var ownsKey = map[string]string{KindTopic: "owns.topics", KindACL: "owns.acls.principals", KindQuota: "owns.quotas",
	KindSCRAMUser: "owns.scram_users", KindGroupConfig: "owns.group_configs", KindClientMetrics: "owns.client_metrics",
	KindBrokerConfig: "owns.broker_configs"}

// checkKinds is Spec.Check for the kinds beyond topics and ACLs.
func (s Spec) checkKinds() []string {
	var errs []string
	outside := func(kind, name, key string) {
		if set := s.Owns.of(kind); set != nil && !set.Contains(name) {
			errs = append(errs, fmt.Sprintf("%s%s %s: outside %s (%s)", s.where(kind, key), kind, key, ownsKey[kind], set))
		}
	}
	for _, q := range s.Quotas {
		outside(KindQuota, q.Entity.String(), q.Entity.String())
	}
	for _, u := range s.SCRAMUsers {
		outside(KindSCRAMUser, u.User, u.Key())
	}
	for _, c := range s.Configs {
		outside(c.Kind, c.Name, c.Name)
		for _, k := range slices.Sorted(maps.Keys(c.Set)) {
			if redact.IsSecretKey(k) {
				errs = append(errs, s.where(c.Kind, c.Name)+sensitiveConfigErr(c.Kind, c.Name, k))
			}
		}
	}
	return errs
}

// wantsKinds says what observe must read for the kinds beyond topics and
// ACLs: quotas, SCRAM credentials, and which config resources.
func (s Spec) wantsKinds(prune bool) (quotas, scram bool, listTypes []string, brokers bool) {
	quotas = len(s.Quotas) > 0 || (prune && s.Owns.Quotas != nil)
	scram = len(s.SCRAMUsers) > 0 || (prune && s.Owns.SCRAMUsers != nil)
	if prune && s.Owns.Groups != nil {
		listTypes = append(listTypes, engine.ConfigGroup)
	}
	if prune && s.Owns.ClientMetrics != nil {
		listTypes = append(listTypes, engine.ConfigClientMetrics)
	}
	return quotas, scram, listTypes, prune && s.Owns.Brokers != nil
}

// observeKinds reads quotas (all, one request), SCRAM credentials (all,
// one request) and the configs of resources, plus for prune the config
// resources of listTypes (one ListConfigResources) and every broker.
func (c client) observeKinds(ctx context.Context, st *clusterState, quotas, scram bool, resources []engine.ConfigResource, listTypes []string, brokers bool) error {
	if quotas {
		qs, err := c.DescribeClientQuotas(ctx, nil, false)
		if err != nil {
			return err
		}
		st.quotas = make(map[string]map[string]float64, len(qs))
		for _, q := range qs {
			st.quotas[q.Entity.String()] = q.Quotas
			st.quotaEntities = append(st.quotaEntities, q.Entity)
		}
	}
	if scram {
		creds, err := c.DescribeUserSCRAMCredentials(ctx, nil)
		if err != nil {
			return err
		}
		st.scram = make(map[string]int32, len(creds))
		for _, cr := range creds {
			if cr.Err == nil && cr.Mechanism != "" {
				st.scram[cr.Key()] = cr.Iterations
			}
		}
	}
	if len(listTypes) > 0 {
		listed, err := c.ListConfigResources(ctx, listTypes)
		if err != nil {
			return err
		}
		for _, l := range listed {
			resources = append(resources, engine.ConfigResource{Type: l.Type, Name: l.Name})
		}
	}
	if brokers {
		resources = append(resources, engine.ConfigResource{Type: engine.ConfigBroker})
		for _, b := range st.brokers {
			resources = append(resources, engine.ConfigResource{Type: engine.ConfigBroker, Name: strconv.Itoa(int(b))})
		}
	}
	st.configs = map[string]*Observed{}
	resources = slices.CompactFunc(engine.SortedResources(resources), func(a, b engine.ConfigResource) bool { return a == b })
	if len(resources) == 0 {
		return nil
	}
	ds, err := c.DescribeConfigs(ctx, resources, engine.DescribeConfigsOptions{Dynamic: true})
	if err != nil {
		return err
	}
	for _, d := range ds {
		if d.Err != nil {
			return d.Err
		}
		cfgs, sensitive := observedConfigs(d)
		st.configs[engine.ConfigResource{Type: d.Type, Name: d.Name}.String()] = &Observed{Exists: len(cfgs)+len(sensitive) > 0, Configs: cfgs, Sensitive: sensitive}
	}
	return nil
}

// planKinds is PlanSpec for the kinds beyond topics and ACLs.
func planKinds(spec Spec, st *clusterState, prune bool, salt []byte, env func(string) string) ([]Change, []string) {
	var out []Change
	var errs []string
	if st.quotas != nil {
		out = append(out, planQuotas(spec, st, prune)...)
	}
	if st.scram != nil {
		chs, problems := planSCRAM(spec, st, prune, salt, env)
		out, errs = append(out, chs...), append(errs, problems...)
	}
	chs, problems := planConfigs(spec, st, prune)
	return append(out, chs...), append(errs, problems...)
}

// stalenessKinds is staleness for the kinds beyond topics and ACLs.
func stalenessKinds(ch Change, st *clusterState) string {
	var was, now Observed
	was = ch.Against
	switch ch.Kind {
	case KindQuota:
		q, ok := st.quotas[ch.Name]
		now = Observed{Exists: ok, Quotas: q}
	case KindSCRAMUser:
		it, ok := st.scram[ch.Name]
		now = Observed{Exists: ok, Iterations: it}
	default:
		if o := st.configs[configResourceOf(ch.Kind, ch.Name).String()]; o != nil {
			now = *o
		}
	}
	switch {
	case !was.Exists && now.Exists:
		return "it was created"
	case was.Exists && !now.Exists:
		return "it was deleted"
	}
	var diffs []string
	if was.Iterations != now.Iterations {
		diffs = append(diffs, fmt.Sprintf("iterations %d, now %d", was.Iterations, now.Iterations))
	}
	diffs = append(diffs, quotaDiffs(was.Quotas, now.Quotas)...)
	diffs = append(diffs, configDiffs(was, now)...)
	if len(diffs) == 0 {
		return ""
	}
	return "was " + strings.Join(diffs, "; ")
}

// applyKinds sends one step of the kinds beyond topics and ACLs.
func (c client) applyKinds(ctx context.Context, p Plan, kind, action string, chs []AppliedChange, idx []int, errs map[int]*vocab.Error, note func(string, *vocab.Error), env func(string) string) error {
	switch kind {
	case KindQuota:
		return c.applyQuotas(ctx, chs, idx, note)
	case KindSCRAMUser:
		return c.applySCRAM(ctx, p, action, chs, idx, errs, env)
	}
	return c.applyConfigs(ctx, kind, chs, idx, note)
}

// kindString is Change.String for the kinds beyond topics and ACLs.
func (ch Change) kindString() string {
	switch ch.Kind {
	case KindQuota:
		return ch.quotaString()
	case KindSCRAMUser:
		return ch.scramString()
	}
	return ch.configsString()
}
