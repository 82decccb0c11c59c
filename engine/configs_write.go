package engine

import (
	"context"
	"maps"
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine/redact"
	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// alter_configs: incremental changes to configs (IncrementalAlterConfigs);
// describe_configs and the resource types are configs.go.

// ConfigAlteration is an incremental change to one resource's configs.
type ConfigAlteration struct {
	Resource ConfigResource    `json:"resource"`
	Set      map[string]string `json:"set,omitempty"`      // set to a value
	Delete   []string          `json:"delete,omitempty"`   // back to the default
	Append   map[string]string `json:"append,omitempty"`   // add to a list config (comma-separated values)
	Subtract map[string]string `json:"subtract,omitempty"` // remove from a list config
}

// AlterConfigsOptions modify AlterConfigs.
type AlterConfigsOptions struct {
	ValidateOnly bool `json:"validate_only,omitempty"`
}

// AlteredConfigs is one resource's outcome of AlterConfigs.
type AlteredConfigs struct {
	Type string `json:"type"`
	Name string `json:"name"`
	Err  *Error `json:"error,omitempty"`
}

func (a AlteredConfigs) Key() string     { return ConfigResource{a.Type, a.Name}.String() }
func (a AlteredConfigs) Failure() *Error { return a.Err }

// Ops lists the alteration as "set k=v", "delete k", ... lines, values of
// secret-looking keys hidden.
func (a ConfigAlteration) Ops() []string {
	var out []string
	show := func(k, v string) string {
		if redact.IsSecretKey(k) {
			return k + "=***"
		}
		return k + "=" + v
	}
	for _, k := range slices.Sorted(maps.Keys(a.Set)) {
		out = append(out, "set "+show(k, a.Set[k]))
	}
	for _, k := range slices.Sorted(slices.Values(a.Delete)) {
		out = append(out, "delete "+k)
	}
	for _, k := range slices.Sorted(maps.Keys(a.Append)) {
		out = append(out, "append "+show(k, a.Append[k]))
	}
	for _, k := range slices.Sorted(maps.Keys(a.Subtract)) {
		out = append(out, "subtract "+show(k, a.Subtract[k]))
	}
	return out
}

// Check validates the alteration: a known resource, at least one change,
// no config in two operations.
func (a ConfigAlteration) Check() *Error {
	if err := a.Resource.validate(); err != nil {
		return err
	}
	if a.fine() {
		return nil
	}
	seen := map[string]string{}
	add := func(op, k string) *Error {
		if k == "" {
			return Errorf(CodeInvalidArgument, "", "%s: config names must not be empty", op)
		}
		if prev, dup := seen[k]; dup {
			return Errorf(CodeInvalidArgument, "", "config %q given in both %s and %s", k, prev, op)
		}
		seen[k] = op
		return nil
	}
	for _, ops := range []struct {
		op   string
		keys []string
	}{{"set", vocab.SortedKeys(a.Set)}, {"delete", a.Delete}, {"append", vocab.SortedKeys(a.Append)}, {"subtract", vocab.SortedKeys(a.Subtract)}} {
		for _, k := range ops.keys {
			if err := add(ops.op, k); err != nil {
				return err
			}
		}
	}
	if len(seen) == 0 {
		return Errorf(CodeInvalidArgument, "", "%s: nothing to change (give set, delete, append or subtract)", a.Resource)
	}
	return nil
}

// fine reports, without allocating, that Check has nothing to say about
// the changes: some given, no empty name, no name in two operations. Check
// runs on every alter_configs call (twice from Lua); sorting the keys to
// say which one is wrong is left to the calls that have an error.
func (a ConfigAlteration) fine() bool {
	n := 0
	clash := func(k string, later ...map[string]string) bool {
		n++
		for _, m := range later {
			if _, dup := m[k]; dup {
				return true
			}
		}
		return k == ""
	}
	for k := range a.Set {
		if clash(k, a.Append, a.Subtract) {
			return false
		}
	}
	for i, k := range a.Delete {
		if clash(k, a.Set, a.Append, a.Subtract) || slices.Contains(a.Delete[:i], k) {
			return false
		}
	}
	for k := range a.Append {
		if clash(k, a.Subtract) {
			return false
		}
	}
	for k := range a.Subtract {
		if clash(k) {
			return false
		}
	}
	return n > 0
}

func (a ConfigAlteration) request() kmsg.IncrementalAlterConfigsRequestResource {
	rr := kmsg.NewIncrementalAlterConfigsRequestResource()
	rr.ResourceType, rr.ResourceName = configTypeCodes[a.Resource.Type], a.Resource.Name
	add := func(op kmsg.IncrementalAlterConfigOp, k string, v *string) {
		rc := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		rc.Name, rc.Op, rc.Value = k, op, v
		rr.Configs = append(rr.Configs, rc)
	}
	rr.Configs = make([]kmsg.IncrementalAlterConfigsRequestResourceConfig, 0, len(a.Set)+len(a.Delete)+len(a.Append)+len(a.Subtract))
	for _, k := range vocab.SortedKeys(a.Set) {
		v := a.Set[k]
		add(kmsg.IncrementalAlterConfigOpSet, k, &v)
	}
	for _, k := range a.Delete {
		add(kmsg.IncrementalAlterConfigOpDelete, k, nil)
	}
	for _, k := range vocab.SortedKeys(a.Append) {
		v := a.Append[k]
		add(kmsg.IncrementalAlterConfigOpAppend, k, &v)
	}
	for _, k := range vocab.SortedKeys(a.Subtract) {
		v := a.Subtract[k]
		add(kmsg.IncrementalAlterConfigOpSubtract, k, &v)
	}
	return rr
}

// AlterConfigs changes configs incrementally (IncrementalAlterConfigs): keys
// not named keep their values. One result per resource, sorted by type then
// name. Broker resources go to that broker, as Kafka requires.
//
// Every incremental operation is idempotent (set and delete trivially;
// Kafka's append skips values already in the list, subtract removes what is
// there), so a retriable failure, even REQUEST_TIMED_OUT whose outcome is
// unknown, is safely sent again until the deadline.
func (c *Client) AlterConfigs(ctx context.Context, alts []ConfigAlteration, o AlterConfigsOptions) ([]AlteredConfigs, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	for _, a := range alts {
		if err := a.Check(); err != nil {
			return nil, err
		}
	}
	sorted := alterations(alts)
	if len(alts) > 1 {
		sorted = slices.Clone(sorted)
		slices.SortStableFunc(sorted, func(a, b ConfigAlteration) int { return compareExact(a.Resource, b.Resource) })
		for i := 1; i < len(sorted); i++ {
			if sorted[i].Resource == sorted[i-1].Resource {
				return nil, Errorf(CodeInvalidArgument, "", "%s given twice", sorted[i].Resource)
			}
		}
	}
	resources := make([]ConfigResource, len(sorted))
	keys := make([]string, len(sorted))
	for i, a := range sorted {
		resources[i], keys[i] = a.Resource, a.Resource.String()
	}
	ask, missing, err := c.checkBrokers(ctx, resources)
	if err != nil {
		return nil, err
	}
	args := &alterConfigsArgs{Alterations: sorted, AlterConfigsOptions: o}
	return mutate(ctx, c, mutation[[]ConfigsBefore, []AlteredConfigs]{
		op: "alter_configs", keys: keys, validateOnly: o.ValidateOnly,
		args: args,
		before: func(ctx context.Context) ([]ConfigsBefore, error) {
			before, err := c.configsBefore(ctx, sorted)
			args.hide(before)
			return before, err
		},
		send: func(ctx context.Context, _ []ConfigsBefore) ([]AlteredConfigs, error) {
			return c.alterConfigs(ctx, resources, ask, missing, sorted, o), nil
		},
		items: asItems[AlteredConfigs],
		look:  c.lookAlteredConfigs(sorted),
		detail: func(before []ConfigsBefore, _ []AlteredConfigs, key string) any {
			return configsAfter(before, sorted, key)
		},
	})
}

func (c *Client) alterConfigs(ctx context.Context, resources, ask []ConfigResource, missing map[ConfigResource]*Error, alts alterations, o AlterConfigsOptions) []AlteredConfigs {
	errs := retryItems(ctx, ask, ConfigResource.String, func(ctx context.Context, pending []ConfigResource) (map[ConfigResource]*Error, error) {
		req := kmsg.NewPtrIncrementalAlterConfigsRequest()
		req.ValidateOnly = o.ValidateOnly
		req.Resources = make([]kmsg.IncrementalAlterConfigsRequestResource, 0, len(pending))
		for _, r := range pending {
			req.Resources = append(req.Resources, alts.of(r).request())
		}
		answers := make(map[ConfigResource]*Error, len(pending))
		for _, shard := range c.kgo.RequestSharded(ctx, req) {
			if shard.Err != nil {
				for _, rr := range shard.Req.(*kmsg.IncrementalAlterConfigsRequest).Resources {
					r := ConfigResource{configTypeName(rr.ResourceType), rr.ResourceName}
					answers[r] = AsError(shard.Err, r.String())
				}
				continue
			}
			for _, rr := range shard.Resp.(*kmsg.IncrementalAlterConfigsResponse).Resources {
				r := ConfigResource{configTypeName(rr.ResourceType), rr.ResourceName}
				answers[r] = nil
				if rr.ErrorCode != 0 { // r.String() allocates
					answers[r] = kafkaErr(rr.ErrorCode, rr.ErrorMessage, r.String())
				}
			}
		}
		return answers, nil
	})
	out := make([]AlteredConfigs, 0, len(resources))
	for _, r := range resources {
		e := errs[r]
		if m, bad := missing[r]; bad {
			e = m
		}
		out = append(out, AlteredConfigs{Type: r.Type, Name: r.Name, Err: e})
	}
	return out
}
