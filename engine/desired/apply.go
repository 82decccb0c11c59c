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

// The statuses of an applied change.
const (
	StatusApplied = "applied"
	StatusStale   = "stale"   // the resource changed since the plan: refused, nothing sent
	StatusFailed  = "failed"  // Kafka refused it, or it was not reached
	StatusDryRun  = "dry_run" // --dry-run: it would be applied
)

// AppliedChange is one change of a plan and what Apply did with it.
type AppliedChange struct {
	Change
	Status string `json:"status"`
	// Stale says what changed since the plan, for a stale change.
	Stale string       `json:"stale,omitempty"`
	Err   *vocab.Error `json:"error,omitempty"`
	// Note says what an applied change's status does not: a broker that
	// did not show it yet when Apply returned.
	Note string `json:"note,omitempty"`
}

// Key names the change for audit-like output: "topic orders alter".
func (a AppliedChange) Key() string           { return a.Kind + " " + a.Name + " " + a.Action }
func (a AppliedChange) Failure() *vocab.Error { return a.Err }

// Apply carries out plan p exactly. Before anything is asked of the
// cluster the plan is checked: its digest (and o.Digest, the one
// reviewed), and each change against the plan's own rules (Verify); a plan
// that fails is refused whole. The cluster is then read once: a plan made
// on another cluster (id, brokers, profile) is refused whole, and each
// change whose resource is not as recorded (a stale plan) is refused,
// saying what changed, with nothing sent for it. The other changes go,
// batched per action, through the engine's audited methods (CreateTopics,
// AlterConfigs, CreatePartitions, AlterPartitionReassignments,
// CreateACLs, DeleteACLs, DeleteTopics, ...), so the audit log says which
// were applied and undo reverts them. Under dry-run nothing is sent and
// each fresh change is StatusDryRun.
func Apply(ctx context.Context, cl *engine.Client, p Plan, o ApplyOptions) ([]AppliedChange, error) {
	c := client{cl}
	if p.Format != PlanFormat {
		return nil, vocab.Errorf(vocab.CodeInvalidArgument, "", "not a kadmin-lua plan (format %q, want %q): plan again", p.Format, PlanFormat)
	}
	if err := p.checkDigest(o.Digest); err != nil {
		return nil, err
	}
	if err := p.Verify(); err != nil {
		return nil, err
	}
	topics := map[string]bool{}
	withACLs, quotas, scram := false, false, false
	var resources []engine.ConfigResource
	for _, ch := range p.Changes {
		switch ch.Kind {
		case KindQuota:
			quotas = true
		case KindSCRAMUser:
			scram = true
		case KindGroupConfig, KindClientMetrics, KindBrokerConfig:
			resources = append(resources, configResourceOf(ch.Kind, ch.Name))
		case KindTopic:
			// A deletion was planned without the topic's configs
			// (only listed topics are described) and is checked
			// without them.
			topics[ch.Name] = topics[ch.Name] || ch.Action != ActionDelete
		case KindACL:
			withACLs = true
		}
	}
	st, err := c.observe(ctx, func(n string) bool { return topics[n] }, withACLs)
	if err != nil {
		return nil, err
	}
	if err := p.checkCluster(st, c.Config().Profile); err != nil {
		return nil, err
	}
	if err := c.observeKinds(ctx, st, quotas, scram, resources, nil, false); err != nil {
		return nil, err
	}
	out := make([]AppliedChange, len(p.Changes))
	for i, ch := range p.Changes {
		out[i] = AppliedChange{Change: ch}
		if why := staleness(ch, st); why != "" {
			out[i].Status, out[i].Stale = StatusStale, why
			out[i].Err = vocab.Errorf("STALE_PLAN", ch.Kind+" "+ch.Name, "%s: %s since the plan; plan again", ch, why)
		}
	}
	dry := c.DryRun(ctx)
	for _, step := range applySteps {
		kind, action := step[0], step[1]
		var idx []int
		for i := range out {
			if out[i].Status == "" && out[i].Action == action && out[i].Kind == kind {
				idx = append(idx, i)
			}
		}
		switch {
		case len(idx) == 0:
			continue
		case dry:
			for _, i := range idx {
				out[i].Status = StatusDryRun
			}
			continue
		case ctx.Err() != nil:
			for _, i := range idx {
				out[i].Status, out[i].Err = StatusFailed, engine.AsError(ctx.Err(), out[i].Name)
			}
			continue
		}
		errs, err := c.applyBatch(ctx, p, kind, action, out, idx, envOr(o.Env))
		for _, i := range idx {
			e := errs[i]
			if e == nil && err != nil {
				e = engine.AsError(err, out[i].Name)
			}
			switch {
			case e != nil && e.Code == "STALE_PLAN": // a SCRAM password not the one planned
				out[i].Status, out[i].Stale, out[i].Err = StatusStale, e.Message, e
			case e != nil:
				out[i].Status, out[i].Err = StatusFailed, e
			default:
				out[i].Status = StatusApplied
			}
		}
	}
	c.awaitApplied(ctx, st, out)
	return out, nil
}

// ApplyOptions modify Apply.
type ApplyOptions struct {
	// Env reads the environment variables SCRAM passwords come from
	// (os.Getenv when nil).
	Env func(string) string
	// Digest, when set, is the digest of the plan that was reviewed: a
	// plan with another is refused whole.
	Digest string
}

// applySteps is the order of an apply: topics exist before their ACLs,
// a replication factor changes before new partitions copy it, configs,
// quotas and users before the ACLs naming them, ACLs go before the
// topics they name, and deletions come last, in the reverse order.
var applySteps = [][2]string{
	{KindTopic, ActionCreate}, {KindTopic, ActionAlter}, {KindTopic, ActionReassign}, {KindTopic, ActionCreatePartitions},
	{KindBrokerConfig, ActionCreate}, {KindBrokerConfig, ActionAlter}, {KindGroupConfig, ActionCreate}, {KindGroupConfig, ActionAlter},
	{KindClientMetrics, ActionCreate}, {KindClientMetrics, ActionAlter}, {KindQuota, ActionCreate}, {KindQuota, ActionAlter},
	{KindSCRAMUser, ActionCreate}, {KindSCRAMUser, ActionAlter},
	{KindACL, ActionCreate}, {KindACL, ActionDelete},
	{KindSCRAMUser, ActionDelete}, {KindQuota, ActionDelete}, {KindClientMetrics, ActionDelete}, {KindGroupConfig, ActionDelete},
	{KindBrokerConfig, ActionDelete}, {KindTopic, ActionDelete},
}

// applyBatch sends the changes idx (one kind, one action) in one call and
// says each one's error. A change missing from errs with err nil applied.
func (c client) applyBatch(ctx context.Context, p Plan, kind, action string, chs []AppliedChange, idx []int, env func(string) string) (map[int]*vocab.Error, error) {
	errs := map[int]*vocab.Error{}
	byName := map[string]int{}
	for _, i := range idx {
		byName[chs[i].Name] = i
	}
	note := func(name string, e *vocab.Error) {
		if i, ok := byName[name]; ok && e != nil {
			errs[i] = e
		}
	}
	if kind != KindTopic && kind != KindACL {
		return errs, c.applyKinds(ctx, p, kind, action, chs, idx, errs, note, env)
	}
	switch kind + " " + action {
	case "topic create":
		specs := make([]engine.TopicSpec, 0, len(idx))
		for _, i := range idx {
			specs = append(specs, *chs[i].Topic)
		}
		res, err := c.CreateTopics(ctx, specs, engine.CreateTopicsOptions{})
		for _, r := range res {
			note(r.Name, r.Err)
		}
		return errs, err
	case "topic alter":
		alts := make([]engine.ConfigAlteration, 0, len(idx))
		for _, i := range idx {
			alts = append(alts, configAlteration(engine.ConfigResource{Type: engine.ConfigTopic, Name: chs[i].Name}, chs[i].Configs))
		}
		res, err := c.AlterConfigs(ctx, alts, engine.AlterConfigsOptions{})
		for _, r := range res {
			note(r.Name, r.Err)
		}
		return errs, err
	case "topic create_partitions":
		totals := map[string]int32{}
		for _, i := range idx {
			totals[chs[i].Name] = chs[i].Partitions
		}
		res, err := c.CreatePartitions(ctx, totals, engine.CreatePartitionsOptions{})
		for _, r := range res {
			note(r.Name, r.Err)
		}
		return errs, err
	case "topic reassign":
		var targets []engine.PartitionTarget
		for _, i := range idx {
			targets = append(targets, chs[i].Replicas...)
		}
		res, err := c.AlterPartitionReassignments(ctx, targets)
		for _, r := range res {
			if r.Err != nil {
				if _, seen := errs[byName[r.Topic]]; !seen {
					note(r.Topic, r.Err)
				}
			}
		}
		return errs, err
	case "topic delete":
		names := make([]string, 0, len(idx))
		for _, i := range idx {
			names = append(names, chs[i].Name)
		}
		res, err := c.DeleteTopics(ctx, names, engine.DeleteTopicsOptions{})
		for _, r := range res {
			note(r.Name, r.Err)
		}
		return errs, err
	case "acl create":
		acls := make([]engine.ACL, 0, len(idx))
		for _, i := range idx {
			acls = append(acls, *chs[i].ACL)
		}
		res, err := c.CreateACLs(ctx, acls)
		for _, r := range res {
			note(r.Key(), r.Err)
		}
		return errs, err
	case "acl delete":
		filters := make([]engine.ACLFilter, 0, len(idx))
		for _, i := range idx {
			filters = append(filters, onlyACL(*chs[i].ACL))
		}
		res, err := c.DeleteACLs(ctx, filters)
		for j, r := range res {
			if j < len(idx) && r.Err != nil {
				errs[idx[j]] = r.Err
			}
		}
		return errs, err
	}
	return nil, vocab.Errorf(vocab.CodeInvalidArgument, "", "plan: cannot %s a %s", action, kind)
}

// onlyACL is the filter matching a alone.
func onlyACL(a engine.ACL) engine.ACLFilter {
	return engine.ACLFilter{Principal: &a.Principal, Host: &a.Host, Operation: a.Operation, Permission: a.Permission,
		ResourceType: a.ResourceType, ResourceName: &a.ResourceName, PatternType: a.PatternType}
}

// staleness says how a change's resource differs now from the state it
// was planned against ("" when it does not).
func staleness(ch Change, st *clusterState) string {
	if ch.Kind != KindTopic && ch.Kind != KindACL {
		return stalenessKinds(ch, st)
	}
	if ch.Kind == KindACL {
		_, now := st.acls[ch.Name]
		switch {
		case now && !ch.Against.Exists:
			return "the ACL was created"
		case !now && ch.Against.Exists:
			return "the ACL was deleted"
		}
		return ""
	}
	var now Observed
	if t := st.topics[ch.Name]; t != nil {
		now = t.Observed
	}
	was := ch.Against
	switch {
	case !was.Exists && now.Exists:
		return "the topic was created"
	case was.Exists && !now.Exists:
		return "the topic was deleted"
	case !now.Exists:
		return ""
	case was.ID != "" && was.ID != now.ID:
		return fmt.Sprintf("the topic was recreated (id %s, now %s)", was.ID, now.ID)
	}
	if ch.Action == ActionDelete {
		now.Configs, now.Sensitive = was.Configs, was.Sensitive
	}
	var diffs []string
	if was.Partitions != now.Partitions {
		diffs = append(diffs, fmt.Sprintf("partitions %d, now %d", was.Partitions, now.Partitions))
	}
	if was.ReplicationFactor != now.ReplicationFactor {
		diffs = append(diffs, fmt.Sprintf("replication factor %d, now %d", was.ReplicationFactor, now.ReplicationFactor))
	}
	diffs = append(diffs, configDiffs(was, now)...)
	if len(diffs) == 0 {
		return ""
	}
	return "was " + strings.Join(diffs, "; ")
}

// configDiffs names each config that differs between was and now (a
// sensitive one by its key alone).
func configDiffs(was, now Observed) []string {
	var diffs []string
	keys := slices.Sorted(maps.Keys(was.Configs))
	for _, k := range slices.Sorted(maps.Keys(now.Configs)) {
		if _, ok := was.Configs[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		w, wok := was.Configs[k]
		n, nok := now.Configs[k]
		if w != n || wok != nok {
			diffs = append(diffs, fmt.Sprintf("%s %s, now %s", k, showConfig(k, optional(w, wok)), showConfig(k, optional(n, nok))))
		}
	}
	if !slices.Equal(was.Sensitive, now.Sensitive) {
		diffs = append(diffs, fmt.Sprintf("sensitive configs set [%s], now [%s]", strings.Join(was.Sensitive, ", "), strings.Join(now.Sensitive, ", ")))
	}
	return diffs
}

func optional(s string, ok bool) *string {
	if !ok {
		return nil
	}
	return &s
}
