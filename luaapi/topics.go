package luaapi

import (
	"fmt"
	"regexp"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

func init() {
	register(
		&Func{Name: "list_topics", Area: "topics", Args: "([{internal=bool, match=\"RE2 regexp\"}])",
			Returns: "{{name=, id=, partitions=, replication_factor=, internal=}...}",
			Summary: "List topics, sorted by name.",
			Doc:     "Internal topics (__consumer_offsets, ...) are left out unless internal=true. match keeps names matching an RE2 regular expression (unanchored: use ^...$ for a whole name).",
			Example: `for _, t in ipairs(list_topics{match = "^orders"}) do print(t.name, t.partitions) end`,
			Run:     listTopics},
		&Func{Name: "describe_topics", Area: "topics", Args: "(names)",
			Returns: "{{name=, id=, internal=, partitions={{partition=, leader=, leader_epoch=, replicas=, isr=, offline_replicas=}...}}...}",
			Summary: "Describe topics' partitions: leaders, replicas, ISR.",
			Doc:     "names is a topic name or an array of names. A missing topic fails with UNKNOWN_TOPIC_OR_PARTITION (the other topics are still described: see err.results, or pass {partial=true}).",
			Example: `local t = describe_topics("orders")[1]
print(t.name, #t.partitions, t.partitions[1].leader)`,
			Run: describeTopics},
		&Func{Name: "create_topics", Area: "topics", Mutating: true,
			Args:    "(specs[, {validate_only=, if_not_exists=, partial=}])",
			Returns: "{{name=, id=, partitions=, replication_factor=, error=}...}",
			Summary: "Create topics, each with its own partitions, replication factor, configs or explicit assignment.",
			Doc: `A spec is a name (broker defaults) or {name=, partitions=, replication_factor=, configs={k=v}, assignment={[p]={brokers}}}; partition numbers in an assignment start at 0.
if_not_exists=true makes an existing topic a success (existed=true). validate_only=true asks the broker to check without creating (as does --dry-run).
If any topic fails the call raises after creating all the others; err.results says exactly which were created.`,
			Example: `create_topics({{name = "payments", partitions = 6, configs = {["cleanup.policy"] = "compact"}}}, {if_not_exists = true})`,
			Run:     createTopics},
		&Func{Name: "delete_topics", Area: "topics", Mutating: true, Destructive: true,
			Args:    "(names[, {if_exists=, partial=}])",
			Returns: "{{name=, error=}...}",
			Summary: "Delete topics and all their data.",
			Doc:     "if_exists=true makes a missing topic a success (missing=true). Under --dry-run nothing is deleted; each topic is checked to exist.",
			Example: `create_topics({"scratch"}, {if_not_exists = true})
delete_topics("scratch")`,
			Run: deleteTopics},
		&Func{Name: "create_partitions", Area: "topics", Mutating: true,
			Args:    "({topic=total_count, ...}[, {validate_only=, partial=}])",
			Returns: "{{name=, partitions=, error=}...}",
			Summary: "Raise topics' partition counts to the given totals.",
			Doc:     "Counts are totals, not increments; Kafka cannot lower a partition count (INVALID_PARTITIONS).",
			Example: `create_topics({{name = "growing", partitions = 2}}, {if_not_exists = true})
create_partitions{growing = 4}`,
			Run: createPartitions},
	)
}

func listTopics(c *Call) (any, error) {
	f, err := c.Options(1, "internal", "match")
	if err != nil {
		return nil, err
	}
	o := engine.ListTopicsOptions{Internal: f.boolean("internal")}
	if m := f.str("match", false); m != "" {
		re, rerr := regexp.Compile(m)
		if rerr != nil {
			return nil, argErr("options: match", "invalid regular expression: %v", rerr)
		}
		o.Match = re
	}
	if f.err != nil {
		return nil, f.err
	}
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.ListTopics(c.Ctx(), o)
}

func describeTopics(c *Call) (any, error) {
	names, err := c.Strings(1, "names", true)
	if err != nil {
		return nil, err
	}
	cl, err := c.clientAfterOptions(2)
	if err != nil {
		return nil, err
	}
	return cl.DescribeTopics(c.Ctx(), names)
}

func createTopics(c *Call) (any, error) {
	specs, err := topicSpecs(c.Arg(1))
	if err != nil {
		return nil, err
	}
	f, err := c.Options(2, "validate_only", "if_not_exists")
	if err != nil {
		return nil, err
	}
	o := engine.CreateTopicsOptions{ValidateOnly: f.boolean("validate_only") || c.DryRun(), IfNotExists: f.boolean("if_not_exists")}
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	for _, s := range specs {
		c.Plan("create topic %s (partitions %s, replication factor %s, %d configs)", s.Name,
			orDefault(int64(s.Partitions)), orDefault(int64(s.ReplicationFactor)), len(s.Configs))
	}
	return cl.CreateTopics(c.Ctx(), specs, o)
}

func orDefault(n int64) string {
	if n <= 0 {
		return "broker default"
	}
	return fmt.Sprint(n)
}

// topicSpecs reads create_topics' first argument: a name, a spec table, or
// an array of either.
func topicSpecs(v lua.LValue) ([]engine.TopicSpec, error) {
	var list []lua.LValue
	switch t := v.(type) {
	case lua.LString:
		list = []lua.LValue{t}
	case *lua.LTable:
		if t.RawGetString("name") != lua.LNil {
			list = []lua.LValue{t} // a single spec
			break
		}
		if err := onlyArray(t, "specs"); err != nil {
			return nil, err
		}
		for i := 1; i <= t.Len(); i++ {
			list = append(list, t.RawGetInt(i))
		}
	default:
		return nil, argErr("specs", "must be a topic name, a spec table or an array of them, got %s", describe(v))
	}
	if len(list) == 0 {
		return nil, argErr("specs", "must name at least one topic")
	}
	out := make([]engine.TopicSpec, 0, len(list))
	for i, item := range list {
		where := fmt.Sprintf("spec #%d", i+1)
		if s, ok := item.(lua.LString); ok {
			if s == "" {
				return nil, argErr(where, "topic name must not be empty")
			}
			out = append(out, engine.TopicSpec{Name: string(s)})
			continue
		}
		f := newFields(item, where, "name", "partitions", "replication_factor", "configs", "assignment")
		s := engine.TopicSpec{Name: f.str("name", true)}
		s.Partitions = int32(f.integer("partitions", 1, 0))
		s.ReplicationFactor = int16(f.integer("replication_factor", 1, 0))
		s.Configs = f.strMap("configs")
		if f.has("assignment") {
			s.Assignment = assignment(f, "assignment")
			if f.has("partitions") || f.has("replication_factor") {
				f.fail("assignment", "cannot be combined with partitions or replication_factor")
			}
		}
		if f.err == nil && s.Name == "" {
			f.fail("name", "must not be empty")
		}
		if f.err != nil {
			return nil, f.err
		}
		out = append(out, s)
	}
	return out, nil
}

// assignment reads {[p]={brokers}} (Lua arrays are 1-based, so a plain
// array {{1,2},{2,3}} means partitions 0 and 1).
func assignment(f *fields, key string) map[int32][]int32 {
	t, ok := f.get(key).(*lua.LTable)
	if !ok {
		f.fail(key, "must be a table of partition = {broker ids}, got %s", describe(f.get(key)))
		return nil
	}
	out := map[int32][]int32{}
	shift := int64(0)
	if isArray(t) {
		shift = 1
	}
	t.ForEach(func(k, v lua.LValue) {
		p, ok := toInt(k)
		if !ok || p-shift < 0 {
			f.fail(key, "keys must be partition numbers, got %s", describe(k))
			return
		}
		brokers, ok := v.(*lua.LTable)
		if !ok || brokers.Len() == 0 {
			f.fail(fmt.Sprintf("%s[%d]", key, p-shift), "must be a non-empty array of broker ids, got %s", describe(v))
			return
		}
		for i := 1; i <= brokers.Len(); i++ {
			b, ok := toInt(brokers.RawGetInt(i))
			if !ok || b < 0 {
				f.fail(fmt.Sprintf("%s[%d]", key, p-shift), "broker ids must be non-negative integers, got %s", describe(brokers.RawGetInt(i)))
				return
			}
			out[int32(p-shift)] = append(out[int32(p-shift)], int32(b))
		}
	})
	return out
}

func deleteTopics(c *Call) (any, error) {
	names, err := c.Strings(1, "names", false)
	if err != nil {
		return nil, err
	}
	f, err := c.Options(2, "if_exists")
	if err != nil {
		return nil, err
	}
	o := engine.DeleteTopicsOptions{IfExists: f.boolean("if_exists")}
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	if c.DryRun() {
		return planDeleteTopics(c, cl, names, o)
	}
	return cl.DeleteTopics(c.Ctx(), names, o)
}

// planDeleteTopics is delete_topics under dry-run: Kafka has no
// validate-only delete, so check that each topic exists and change nothing.
func planDeleteTopics(c *Call, cl *engine.Client, names []string, o engine.DeleteTopicsOptions) (any, error) {
	exists, err := cl.TopicsExist(c.Ctx(), names)
	if err != nil {
		return nil, err
	}
	var out []engine.DeletedTopic
	for _, n := range dedup(names) {
		d := engine.DeletedTopic{Name: n}
		switch {
		case exists[n]:
			c.Plan("delete topic %s", n)
		case o.IfExists:
			d.Missing = true
		default:
			d.Err = &engine.Error{Code: "UNKNOWN_TOPIC_OR_PARTITION", Message: "This server does not host this topic-partition.", Resource: n}
		}
		out = append(out, d)
	}
	return out, nil
}

func createPartitions(c *Call) (any, error) {
	t, err := c.Table(1, "totals")
	if err != nil {
		return nil, err
	}
	totals := map[string]int32{}
	var ferr error
	t.ForEach(func(k, v lua.LValue) {
		name, ok := k.(lua.LString)
		if !ok {
			ferr = argErr("totals", "keys must be topic names, got %s (write {orders = 12})", describe(k))
			return
		}
		n, ok := toInt(v)
		if !ok || n < 1 {
			ferr = argErr("totals: "+string(name), "must be a positive integer (the new total), got %s", describe(v))
			return
		}
		totals[string(name)] = int32(n)
	})
	if ferr != nil {
		return nil, ferr
	}
	if len(totals) == 0 {
		return nil, argErr("totals", "must name at least one topic")
	}
	f, err := c.Options(2, "validate_only")
	if err != nil {
		return nil, err
	}
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	for _, n := range sortedNames(totals) {
		c.Plan("raise %s to %d partitions", n, totals[n])
	}
	return cl.CreatePartitions(c.Ctx(), totals, engine.CreatePartitionsOptions{ValidateOnly: f.boolean("validate_only") || c.DryRun()})
}
