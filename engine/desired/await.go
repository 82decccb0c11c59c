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

// Eventual visibility after an apply (issue 27's ghost quota change, and
// the same for topic configs, ACLs and SCRAM credentials): the controller commits a change before every
// broker has replayed it, and reads go to any broker, so a plan made right
// after an apply can be answered by a broker that has not seen it yet and
// list the change again (a false drift for `plan --exit-code` in a
// pipeline). Apply asks every broker directly until each shows it.

// awaitApplied waits, within the call's timeout, until every broker shows
// the applied quota, topic config, ACL and SCRAM credential changes, and
// notes on a change the
// brokers that did not.
func (c client) awaitApplied(ctx context.Context, st *clusterState, out []AppliedChange) {
	quotas := map[string]map[string]float64{}
	configs := map[string][]ConfigChange{}
	acls := map[string]bool{}   // an ACL created (true) or deleted (false), by its String
	scram := map[string]int32{} // user/mechanism: its iterations, 0 when deleted
	for _, a := range out {
		if a.Status != StatusApplied {
			continue
		}
		switch {
		case a.Kind == KindQuota:
			quotas[a.Name] = quotasAfterChange(a.Change)
		case a.Kind == KindTopic && a.Action == ActionAlter && len(a.Configs) > 0:
			configs[a.Name] = a.Configs
		case a.Kind == KindSCRAMUser && a.SCRAM != nil:
			scram[a.Name] = 0
			if a.Action != ActionDelete {
				scram[a.Name] = a.SCRAM.iterations()
			}
		case a.Kind == KindACL && a.ACL != nil:
			acls[a.ACL.String()] = a.Action == ActionCreate
		case a.Kind == KindTopic && a.Action == ActionCreate && a.Topic != nil && len(a.Topic.Configs) > 0:
			for _, k := range slices.Sorted(maps.Keys(a.Topic.Configs)) {
				v := a.Topic.Configs[k]
				configs[a.Name] = append(configs[a.Name], ConfigChange{Key: k, After: &v})
			}
		}
	}
	if len(quotas) == 0 && len(configs) == 0 && len(acls) == 0 && len(scram) == 0 {
		return
	}
	ctx, cancel := c.CallContext(ctx)
	defer cancel()
	var lateQuotas, lateConfigs, lateACLs, lateSCRAM []int32
	if len(quotas) > 0 {
		lateQuotas = c.awaitQuotas(ctx, st.brokers, quotas)
	}
	if len(configs) > 0 {
		lateConfigs = c.awaitTopicConfigs(ctx, st.brokers, configs)
	}
	if len(acls) > 0 {
		lateACLs = c.awaitACLs(ctx, st.brokers, acls)
	}
	if len(scram) > 0 {
		lateSCRAM = c.awaitSCRAM(ctx, st.brokers, scram)
	}
	for i := range out {
		var late []int32
		_, q := quotas[out[i].Name]
		_, t := configs[out[i].Name]
		switch {
		case out[i].Kind == KindQuota && q:
			late = lateQuotas
		case out[i].Kind == KindTopic && t && out[i].Status == StatusApplied:
			late = lateConfigs
		case out[i].Kind == KindACL && out[i].ACL != nil && out[i].Status == StatusApplied:
			late = lateACLs
		case out[i].Kind == KindSCRAMUser && out[i].Status == StatusApplied:
			late = lateSCRAM
		}
		if len(late) > 0 {
			out[i].Note = fmt.Sprintf("brokers %v did not show it yet: a plan made now may still list it", late)
		}
	}
}

// awaitBrokers asks each of brokers whether it shows what was applied
// (shows), again with backoff until all do or ctx ends, and returns those
// that did not.
func awaitBrokers(ctx context.Context, brokers []int32, shows func(b int32) bool) []int32 {
	pending := slices.Clone(brokers)
	for attempt := 0; ; attempt++ {
		pending = slices.DeleteFunc(pending, shows)
		if len(pending) == 0 || !vocab.Backoff(ctx, attempt) {
			return pending
		}
	}
}

// awaitTopicConfigs waits until every broker describes each topic of want
// with its configs as want leaves them, and returns the brokers that did
// not before ctx ended.
func (c client) awaitTopicConfigs(ctx context.Context, brokers []int32, want map[string][]ConfigChange) []int32 {
	topics := slices.Sorted(maps.Keys(want))
	return awaitBrokers(ctx, brokers, func(b int32) bool { return c.brokerHasTopicConfigs(ctx, b, topics, want) })
}

// brokerHasTopicConfigs reports whether broker b describes want's topics
// with each config set to its new value, or, for one removed, no longer
// set on the topic (false when it cannot be asked). A sensitive config's
// value is never returned: that it is set is what can be seen.
func (c client) brokerHasTopicConfigs(ctx context.Context, b int32, topics []string, want map[string][]ConfigChange) bool {
	described, err := c.DescribeTopicConfigsOn(ctx, b, topics)
	if err != nil {
		return false
	}
	seen := map[string]engine.DescribedConfigs{}
	for _, d := range described {
		seen[d.Name] = d
	}
	for _, t := range topics {
		d, ok := seen[t]
		if !ok || d.Err != nil {
			return false
		}
		for _, ch := range want[t] {
			e, onTopic := d.Configs[ch.Key] // the configs set on the topic only
			switch {
			case ch.After == nil && onTopic:
				return false
			case ch.After != nil && !onTopic:
				return false
			case ch.After != nil && !e.Sensitive && (e.Value == nil || *e.Value != *ch.After):
				return false
			}
		}
	}
	return true
}

// awaitACLs waits until every broker lists each ACL of want created and
// none deleted, and returns the brokers that did not before ctx ended.
func (c client) awaitACLs(ctx context.Context, brokers []int32, want map[string]bool) []int32 {
	return awaitBrokers(ctx, brokers, func(b int32) bool { return c.brokerHasACLs(ctx, b, want) })
}

// brokerHasACLs reports whether broker b lists want's ACLs as want says
// (false when it cannot be asked).
func (c client) brokerHasACLs(ctx context.Context, b int32, want map[string]bool) bool {
	listed, err := c.DescribeACLsOn(ctx, b, engine.ACLFilter{})
	if err != nil {
		return false
	}
	has := make(map[string]bool, len(listed))
	for _, a := range listed {
		has[a.String()] = true
	}
	for k, created := range want {
		if has[k] != created {
			return false
		}
	}
	return true
}

// awaitSCRAM waits until every broker describes each credential of want
// with its iterations (0: gone), and returns the brokers that did not
// before ctx ended.
func (c client) awaitSCRAM(ctx context.Context, brokers []int32, want map[string]int32) []int32 {
	var users []string
	for k := range want {
		user, _, _ := strings.Cut(k, "/")
		users = append(users, user)
	}
	users = slices.Compact(slices.Sorted(slices.Values(users)))
	return awaitBrokers(ctx, brokers, func(b int32) bool {
		listed, err := c.DescribeUserSCRAMCredentialsOn(ctx, b, users)
		if err != nil {
			return false
		}
		seen := map[string]int32{}
		for _, cr := range listed {
			seen[cr.Key()] = cr.Iterations
		}
		for k, iters := range want {
			if seen[k] != iters {
				return false
			}
		}
		return true
	})
}
