package luaapi

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

func init() {
	register(
		&Func{Name: "elect_leaders", Area: "leaders", Mutating: true, Destructive: true,
			Args:    `{topics= | partitions={{topic=, partition=}...} | all=true, [type="preferred"|"unclean"], [partial=]}`,
			Returns: "{{topic=, partition=, leader=, not_needed=, error=}...}",
			Summary: "Elect partition leaders: move leadership back to the preferred replica, or (unclean) to any live replica.",
			Doc: `topics (a name or array: all their partitions), partitions ({{topic=, partition=}...}) or all=true (every partition in the cluster) say where; type is "preferred" (the default) or "unclean".
A partition that already has the leader the election would pick comes back with not_needed=true: that is not a failure. leader is the partition's leader afterwards. A topic that does not exist gets a row with partition -1 and UNKNOWN_TOPIC_OR_PARTITION.
Declared destructive because type="unclean" can elect an out-of-sync replica and lose committed records; the REPL asks before any election unless --yes. Kafka has no validate-only election: under --dry-run nothing is elected and each partition's current and preferred leader is planned.`,
			Example: `for _, r in ipairs(elect_leaders{topics = "orders"}) do print(r.topic, r.partition, r.leader, r.not_needed) end`,
			Run:     electLeaders},
	)
}

// topicPartitions reads {{topic=, partition=}...}.
func topicPartitions(v lua.LValue, what string) ([]engine.TopicPartition, error) {
	list, err := recordList(v, what)
	if err != nil {
		return nil, err
	}
	var out []engine.TopicPartition
	for i, item := range list {
		f := newFields(item, fmt.Sprintf("%s #%d", what, i+1), "topic", "partition")
		tp := engine.TopicPartition{Topic: f.str("topic", true), Partition: int32(f.integer("partition", 0, -1))}
		if f.err == nil && !f.has("partition") {
			f.fail("partition", "is required")
		}
		if f.err != nil {
			return nil, f.err
		}
		out = append(out, tp)
	}
	return out, nil
}

func electLeaders(c *Call) (any, error) {
	f := newFields(c.Arg(1), "spec", "topics", "partitions", "all", "type", "partial")
	topics := f.strings("topics")
	all := f.boolean("all")
	typ := engine.ElectionType(f.str("type", false))
	c.partial = f.boolean("partial")
	if f.err != nil {
		return nil, f.err
	}
	switch typ {
	case "":
		typ = engine.ElectPreferred
	case engine.ElectPreferred, engine.ElectUnclean:
	default:
		return nil, argErr("spec: type", `must be "preferred" or "unclean", got %q`, string(typ))
	}
	var parts []engine.TopicPartition
	if f.has("partitions") {
		var err error
		if parts, err = topicPartitions(f.get("partitions"), "partitions"); err != nil {
			return nil, err
		}
	}
	if len(topics)+len(parts) == 0 && !all {
		return nil, argErr("spec", "name topics= or partitions=, or pass all=true for every partition")
	}
	if all && len(topics)+len(parts) > 0 {
		return nil, argErr("spec", "all=true cannot be combined with topics= or partitions=")
	}
	_, cl, err := c.optionsAndClient(2)
	if err != nil {
		return nil, err
	}
	if all {
		ts, err := cl.ListTopics(c.Ctx(), engine.ListTopicsOptions{Internal: true})
		if err != nil {
			return nil, err
		}
		for _, t := range ts {
			topics = append(topics, t.Name)
		}
	}
	if c.DryRun() {
		return planElection(c, cl, typ, topics, parts)
	}
	return cl.ElectLeaders(c.Ctx(), typ, topics, parts)
}

// planElection is elect_leaders under dry-run: where each partition's
// leadership is, and whether a preferred election would move it.
func planElection(c *Call, cl *engine.Client, typ engine.ElectionType, topics []string, parts []engine.TopicPartition) (any, error) {
	tps, missing, leaders, err := cl.ElectionTargets(c.Ctx(), topics, parts)
	if err != nil {
		return nil, err
	}
	var out []engine.ElectedLeader
	for _, n := range missing {
		out = append(out, engine.ElectedLeader{Topic: n, Partition: -1, Leader: -1,
			Err: &engine.Error{Code: "UNKNOWN_TOPIC_OR_PARTITION", Message: "This server does not host this topic-partition.", Resource: n}})
	}
	for _, tp := range tps {
		r := engine.ElectedLeader{Topic: tp.Topic, Partition: tp.Partition, Leader: -1}
		l, ok := leaders[tp]
		switch {
		case !ok:
			r.Err = &engine.Error{Code: "UNKNOWN_TOPIC_OR_PARTITION", Message: "This server does not host this topic-partition.", Resource: tp.String()}
		case typ == engine.ElectPreferred && l[0] == l[1]:
			r.Leader, r.NotNeeded = l[0], true
		default:
			r.Leader = l[0]
			c.Plan("%s election for %s (leader now %d, preferred %d)", typ, tp, l[0], l[1])
		}
		out = append(out, r)
	}
	return out, nil
}
