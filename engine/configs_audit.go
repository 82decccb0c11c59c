package engine

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/engine/redact"
)

// What alter_configs records: each touched config as it was before (value
// and source), and as the alteration leaves it. Undo sets a config back to
// its old value when that value was set at the resource's own level, and
// deletes it (back to the default) otherwise.

// ConfigsBefore is one resource's touched configs before alter_configs.
type ConfigsBefore struct {
	Type    string                 `json:"type"`
	Name    string                 `json:"name"`
	Configs map[string]ConfigValue `json:"configs"`
	Error   string                 `json:"error,omitempty"` // the resource could not be described
}

// ConfigValue is a config's value and where it came from (Kafka's source
// name: DYNAMIC_TOPIC_CONFIG, DEFAULT_CONFIG, ...; "" when Kafka did not
// describe it). Value is nil for a sensitive config.
type ConfigValue struct {
	Value     *string `json:"value"`
	Source    string  `json:"source"`
	Sensitive bool    `json:"sensitive,omitempty"`
}

// ConfigsAfter is what an applied alteration leaves: per touched config,
// its value at the resource's own level, or nil for none (deleted: the
// default or a broker-wide value applies).
type ConfigsAfter map[string]*string

// Touched lists the configs the alteration changes, sorted.
func (a ConfigAlteration) Touched() []string {
	keys := append(slices.Sorted(maps.Keys(a.Set)), a.Delete...)
	keys = append(append(keys, slices.Sorted(maps.Keys(a.Append))...), slices.Sorted(maps.Keys(a.Subtract))...)
	slices.Sort(keys)
	return slices.Compact(keys)
}

// DynamicSource is the source Kafka reports for a config set on r itself.
func DynamicSource(r ConfigResource) string {
	switch r.Type {
	case ConfigTopic:
		return "DYNAMIC_TOPIC_CONFIG"
	case ConfigBroker:
		if r.Name == "" {
			return "DYNAMIC_DEFAULT_BROKER_CONFIG"
		}
		return "DYNAMIC_BROKER_CONFIG"
	case ConfigBrokerLogger:
		return "DYNAMIC_BROKER_LOGGER_CONFIG"
	case ConfigGroup:
		return "DYNAMIC_GROUP_CONFIG"
	case ConfigClientMetrics:
		return "DYNAMIC_CLIENT_METRICS_CONFIG"
	}
	return ""
}

// alterConfigsArgs are alter_configs' arguments as the intent line records
// them. The audit log hides values by their config's name (redact.Value); a
// config Kafka marks sensitive (a PASSWORD-type config whose name says
// nothing, e.g. ssl.truststore.certificates) is hidden too, by what the
// before-state read says, which is read before the intent line is written.
type alterConfigsArgs struct {
	Alterations []ConfigAlteration `json:"alterations"`
	AlterConfigsOptions
}

// hide replaces the values given for the configs before marks sensitive.
func (a *alterConfigsArgs) hide(before []ConfigsBefore) {
	sensitive := map[ConfigResource]map[string]bool{}
	for _, b := range before {
		for k, v := range b.Configs {
			if v.Sensitive {
				r := ConfigResource{Type: b.Type, Name: b.Name}
				if sensitive[r] == nil {
					sensitive[r] = map[string]bool{}
				}
				sensitive[r][k] = true
			}
		}
	}
	if len(sensitive) == 0 {
		return
	}
	hidden := make([]ConfigAlteration, len(a.Alterations))
	for i, alt := range a.Alterations {
		keys := sensitive[alt.Resource]
		mask := func(m map[string]string) map[string]string {
			if len(keys) == 0 || m == nil {
				return m
			}
			out := make(map[string]string, len(m))
			for k, v := range m {
				if keys[k] {
					v = redact.Redacted
				}
				out[k] = v
			}
			return out
		}
		alt.Set, alt.Append, alt.Subtract = mask(alt.Set), mask(alt.Append), mask(alt.Subtract)
		hidden[i] = alt
	}
	a.Alterations = hidden
}

// currentConfigs describes the given configs of resources: resource key ->
// config -> value. A resource that cannot be described is left out.
func (c *Client) currentConfigs(ctx context.Context, resources []ConfigResource, keys []string) (map[string]map[string]ConfigValue, map[string]*Error, error) {
	ds, err := c.DescribeConfigs(ctx, resources, DescribeConfigsOptions{Keys: keys})
	if err != nil {
		return nil, nil, err
	}
	out := map[string]map[string]ConfigValue{}
	errs := map[string]*Error{}
	for _, d := range ds {
		if d.Err != nil {
			errs[d.Key()] = d.Err
			continue
		}
		m := map[string]ConfigValue{}
		for _, k := range keys {
			if e, ok := d.Configs[k]; ok {
				m[k] = ConfigValue{Value: e.Value, Source: e.Source, Sensitive: e.Sensitive}
			} else {
				m[k] = ConfigValue{}
			}
		}
		out[d.Key()] = m
	}
	return out, errs, nil
}

// configsBefore reads the touched configs of each alteration (sorted by
// resource).
func (c *Client) configsBefore(ctx context.Context, alts []ConfigAlteration) ([]ConfigsBefore, error) {
	var resources []ConfigResource
	var keys []string
	for _, a := range alts {
		resources = append(resources, a.Resource)
		keys = append(keys, a.Touched()...)
	}
	keys = slices.Compact(slices.Sorted(slices.Values(keys)))
	cur, errs, err := c.currentConfigs(ctx, resources, keys)
	if err != nil {
		return nil, err
	}
	out := make([]ConfigsBefore, 0, len(alts))
	for _, a := range alts {
		b := ConfigsBefore{Type: a.Resource.Type, Name: a.Resource.Name, Configs: map[string]ConfigValue{}}
		if e := errs[a.Resource.String()]; e != nil {
			b.Error = e.Error()
		}
		for _, k := range a.Touched() {
			if v, ok := cur[a.Resource.String()][k]; ok {
				b.Configs[k] = v
			}
		}
		out = append(out, b)
	}
	return out, nil
}

// configsAfter is what the alteration of the resource named key leaves.
func configsAfter(before []ConfigsBefore, alts alterations, key string) ConfigsAfter {
	for _, a := range alts {
		r := a.Resource
		if r.String() != key {
			continue
		}
		var old map[string]ConfigValue
		for _, b := range before {
			if b.Type == r.Type && b.Name == r.Name {
				old = b.Configs
			}
		}
		return expectedAfter(a, old)
	}
	return nil
}

// expectedAfter works out each touched config's value after a: appends
// and subtracts apply to the value before, as Kafka's list operations do.
func expectedAfter(a ConfigAlteration, old map[string]ConfigValue) ConfigsAfter {
	out := ConfigsAfter{}
	for k, v := range a.Set {
		out[k] = &v
	}
	for _, k := range a.Delete {
		out[k] = nil
	}
	base := func(k string) []string {
		if v := old[k].Value; v != nil {
			return splitList(*v)
		}
		return nil
	}
	for k, v := range a.Append {
		list := base(k)
		for _, x := range splitList(v) {
			if !slices.Contains(list, x) {
				list = append(list, x)
			}
		}
		s := strings.Join(list, ",")
		out[k] = &s
	}
	for k, v := range a.Subtract {
		drop := splitList(v)
		list := slices.DeleteFunc(base(k), func(x string) bool { return slices.Contains(drop, x) })
		s := strings.Join(list, ",")
		out[k] = &s
	}
	return out
}

func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// matchesAfter reports whether cur is what after says: the value set at
// r's own level, or no value at that level.
func matchesAfter(r ConfigResource, want *string, cur ConfigValue) bool {
	own := cur.Source == DynamicSource(r)
	if want == nil {
		return !own
	}
	return own && cur.Value != nil && *cur.Value == *want
}

func sameConfig(a, b ConfigValue) bool {
	return a.Source == b.Source && (a.Value == nil) == (b.Value == nil) && (a.Value == nil || *a.Value == *b.Value)
}

// lookAlteredConfigs resolves alterations whose outcome stayed unknown by
// describing the configs again.
func (c *Client) lookAlteredConfigs(alts alterations) func(context.Context, []ConfigsBefore, []AlteredConfigs, error, map[string]bool) ([]AlteredConfigs, error, map[string]string) {
	return func(ctx context.Context, before []ConfigsBefore, res []AlteredConfigs, err error, unknown map[string]bool) ([]AlteredConfigs, error, map[string]string) {
		found := map[string]string{}
		var resources []ConfigResource
		var keys []string
		for _, a := range alts {
			if r := a.Resource; unknown[r.String()] {
				resources = append(resources, r)
				keys = append(keys, a.Touched()...)
			}
		}
		cur, _, derr := c.currentConfigs(ctx, resources, slices.Compact(slices.Sorted(slices.Values(keys))))
		if derr != nil {
			return res, err, found
		}
		for _, r := range resources {
			now, ok := cur[r.String()]
			if !ok {
				continue
			}
			after := configsAfter(before, alts, r.String())
			var old map[string]ConfigValue
			for _, b := range before {
				if b.Type == r.Type && b.Name == r.Name {
					old = b.Configs
				}
			}
			applied, unchanged := true, old != nil
			for k, want := range after {
				applied = applied && matchesAfter(r, want, now[k])
				unchanged = unchanged && sameConfig(old[k], now[k])
			}
			switch {
			case applied:
				found[r.String()] = auditlog.FoundApplied
				for i := range res {
					if res[i].Key() == r.String() {
						res[i].Err = nil
					}
				}
			case unchanged:
				found[r.String()] = auditlog.FoundNotApplied
			}
		}
		return res, err, found
	}
}
