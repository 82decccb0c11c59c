package desired

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// The config rows of a spec (group_configs, client_metrics,
// broker_configs): a resource's dynamic configs, whole
// (docs/reconcile.md). A topic's configs are part of its topic row
// (topics.go).

// configKinds maps the config kinds to their config resource types.
var configKinds = map[string]string{KindGroupConfig: engine.ConfigGroup, KindClientMetrics: engine.ConfigClientMetrics, KindBrokerConfig: engine.ConfigBroker}

// ConfigSpec is a group's, a client-metrics subscription's or a broker's
// dynamic configs, whole: one set on it that Set does not give goes back
// to its default.
type ConfigSpec struct {
	Kind string            `json:"kind"` // KindGroupConfig, KindClientMetrics or KindBrokerConfig
	Name string            `json:"name"` // the group, the subscription, the broker id or "default"
	Set  map[string]string `json:"set"`
}

// Resource is the config resource a row names.
func (s ConfigSpec) Resource() engine.ConfigResource { return configResourceOf(s.Kind, s.Name) }

func configResourceOf(kind, name string) engine.ConfigResource {
	r := engine.ConfigResource{Type: configKinds[kind], Name: name}
	if kind == KindBrokerConfig && name == "default" {
		r.Name = ""
	}
	return r
}

// configKindName is a config resource's name in a plan ("default" for the
// cluster-wide broker default).
func configKindName(r engine.ConfigResource) string {
	if r.Type == engine.ConfigBroker && r.Name == "" {
		return "default"
	}
	return r.Name
}

// planConfigs is the plan of the config rows: each listed resource's
// configs set or removed; with prune, the owned resources not listed
// emptied.
func planConfigs(spec Spec, st *clusterState, prune bool) ([]Change, []string) {
	var out []Change
	var errs []string
	listed := map[string]bool{}
	for _, cs := range spec.Configs {
		r := cs.Resource()
		listed[r.String()] = true
		cur := st.configs[r.String()]
		if cur == nil {
			cur = &Observed{}
		}
		var bad []string
		for _, k := range cur.Sensitive {
			if _, ok := cs.Set[k]; ok {
				bad = append(bad, spec.where(cs.Kind, cs.Name)+sensitiveConfigErr(cs.Kind, cs.Name, k))
			}
		}
		if errs = append(errs, bad...); len(bad) > 0 {
			continue
		}
		if cfgs := configChanges(cur.Configs, cs.Set); len(cfgs) > 0 {
			action := ActionAlter
			if !cur.Exists {
				action = ActionCreate
			}
			out = append(out, Change{Kind: cs.Kind, Name: cs.Name, Action: action, Configs: cfgs, Against: *cur})
		}
	}
	if prune {
		for _, key := range slices.Sorted(maps.Keys(st.configs)) {
			cur := st.configs[key]
			typ, name, _ := strings.Cut(key, ":")
			kind := ""
			for k, t := range configKinds {
				if t == typ {
					kind = k
				}
			}
			if listed[key] || !cur.Exists || len(cur.Configs) == 0 || !spec.Owns.of(kind).Contains(name) {
				continue
			}
			out = append(out, Change{Kind: kind, Name: name, Action: ActionDelete, Configs: configChanges(cur.Configs, nil), Against: *cur})
		}
	}
	return out, errs
}

// applyConfigs sends one step of config changes: one AlterConfigs.
func (c client) applyConfigs(ctx context.Context, kind string, chs []AppliedChange, idx []int, note func(string, *vocab.Error)) error {
	alts := make([]engine.ConfigAlteration, 0, len(idx))
	for _, i := range idx {
		alts = append(alts, configAlteration(configResourceOf(kind, chs[i].Name), chs[i].Configs))
	}
	res, err := c.AlterConfigs(ctx, alts, engine.AlterConfigsOptions{})
	for _, r := range res {
		note(configKindName(engine.ConfigResource{Type: r.Type, Name: r.Name}), r.Err)
	}
	return err
}

// configAlteration is the AlterConfigs alteration of a change's configs.
func configAlteration(r engine.ConfigResource, cfgs []ConfigChange) engine.ConfigAlteration {
	a := engine.ConfigAlteration{Resource: r}
	for _, cc := range cfgs {
		if cc.After == nil {
			a.Delete = append(a.Delete, cc.Key)
			continue
		}
		if a.Set == nil {
			a.Set = map[string]string{}
		}
		a.Set[cc.Key] = *cc.After
	}
	return a
}

// configsString is Change.String for a config change.
func (ch Change) configsString() string {
	parts := make([]string, len(ch.Configs))
	for i, c := range ch.Configs {
		parts[i] = fmt.Sprintf("%s: %s -> %s", c.Key, showConfig(c.Key, c.Before), showConfig(c.Key, c.After))
	}
	return fmt.Sprintf("%s %s %s configs: %s", ch.Action, ch.Kind, ch.Name, strings.Join(parts, ", "))
}
