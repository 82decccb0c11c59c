package luaapi

import (
	"github.com/kadmin-lua/kadmin-lua/engine"
)

func init() {
	register(
		&Func{Name: "elect_leaders", Area: "leaders", TableCall: true, Batch: true,
			Options: []Field{
				{Name: "topics", Type: topicNames, Doc: "every partition of these topics"},
				{Name: "partitions", Type: electPartitions, Doc: "these partitions"},
				{Name: "all", Type: Bool(), Doc: "every partition in the cluster (instead of topics and partitions)"},
				{Name: "type", Type: Enum(string(engine.ElectPreferred), string(engine.ElectUnclean)), Doc: `the election: "preferred" (default) or "unclean"`},
			},
			Returns: "{{topic=string, partition=int, leader=int, not_needed=bool, error=error?}...}",
			Summary: "Elect partition leaders: move leadership back to the preferred replica, or (unclean) to any live replica.",
			Doc: `topics (a name or array: all their partitions), partitions ({{topic=, partition=}...}) or all=true (every partition in the cluster) say where; type is "preferred" (the default) or "unclean".
A partition that already has the leader the election would pick comes back with not_needed=true: that is not a failure. leader is the partition's leader afterwards. A topic that does not exist gets a row with partition -1 and UNKNOWN_TOPIC_OR_PARTITION.
Declared destructive because type="unclean" can elect an out-of-sync replica and lose committed records; the REPL asks before any election unless --yes. Kafka has no validate-only election: under --dry-run nothing is elected and each partition's current and preferred leader is planned.`,
			Example:   `for _, r in ipairs(elect_leaders{topics = "orders"}) do print(r.topic, r.partition, r.leader, r.not_needed) end`,
			CheckArgs: electionScope, Run: electLeaders},
	)
}

// electPartitions is elect_leaders' partitions={{topic=, partition=}...}.
var electPartitions = List[engine.TopicPartition](Record(
	Field{Name: "topic", Type: topicName, Required: true},
	Field{Name: "partition", Type: partitionNum, Required: true},
).Then(func(rec Rec, at string) (any, error) {
	return engine.TopicPartition{Topic: get[string](rec, "topic"), Partition: get[int32](rec, "partition")}, nil
})).NonEmpty()

// electionScope checks which partitions an election names: topics= or
// partitions=, or all=true alone.
func electionScope(c *Call) error {
	named := len(param[[]string](c, "topics")) + len(param[[]engine.TopicPartition](c, "partitions"))
	switch all := param[bool](c, "all"); {
	case all && named > 0:
		return argErr("", "all=true cannot be combined with topics= or partitions=")
	case !all && named == 0:
		return argErr("", "name topics= or partitions=, or pass all=true for every partition")
	}
	return nil
}

func electLeaders(c *Call) (any, error) {
	topics, parts, all := param[[]string](c, "topics"), param[[]engine.TopicPartition](c, "partitions"), param[bool](c, "all")
	typ := engine.ElectPreferred
	if c.Given("type") {
		typ = engine.ElectionType(param[string](c, "type"))
	}
	cl, err := c.Client()
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
