package luaapi

import (
	"fmt"
	"maps"
	"regexp"
	"slices"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/luaapi/output"
)

func init() {
	register(
		&Func{Name: "list_topics", Area: "topics",
			Options: []Field{
				{Name: "internal", Type: Bool(), Doc: "include internal topics (__consumer_offsets, ...)"},
				{Name: "match", Type: regexpType, Doc: "keep names matching this RE2 regular expression (unanchored)"},
			},
			Returns: "{{name=string, id=string, partitions=int, replication_factor=int, internal=bool}...}",
			Summary: "List topics, sorted by name.",
			Doc:     "Internal topics (__consumer_offsets, ...) are left out unless internal=true. match keeps names matching an RE2 regular expression (unanchored: use ^...$ for a whole name).",
			Example: `for _, t in ipairs(list_topics{match = "^orders"}) do print(t.name, t.partitions) end`,
			Run:     listTopics},
		&Func{Name: "describe_topics", Area: "topics", Batch: true,
			Params:  []Param{{Name: "names", Type: topicNames.NonEmpty(), Optional: true, Doc: "the topics to describe (default: every topic, internal ones included)"}},
			Options: append([]Field{iterateOption}, topicFilterOptions...),
			Returns: "{" + topicDescriptionShape + "...}",
			Summary: "Describe topics' partitions: leaders, replicas, ISR, eligible leader replicas.",
			Doc: `names is a topic name or an array of names; without it every topic is described, internal ones included (as kafka-topics --describe does).
elr and last_known_elr are the eligible leader replicas and the last known ones (KIP-966), the Elr and LastKnownElr columns of kafka-topics 4.1: empty while the cluster's eligible.leader.replicas.version is 0, nil where the broker does not report them (before Kafka 3.8).
Kafka 3.8+ is asked with DescribeTopicPartitions in pages of at most 2000 partitions, so no single answer from a large cluster is held at once; older brokers with one Metadata request.
A missing topic fails with UNKNOWN_TOPIC_OR_PARTITION (the other topics are still described: see err.results, or pass {partial=true}).
At scale: iterate=true returns an iterator over the topics (for t in describe_topics(nil, {iterate = true}) do ... end), handed over in pages of about 20,000 partitions as the broker's pages come, the next read while the loop handles one: a script that keeps none holds one page, however many partitions the cluster has. match and exclude (RE2 on the name, unanchored) leave topics out as they come, before they are made into rows. Topics caught half made (no leaders yet) are asked again by name and come last.`,
			Example: `local t = describe_topics("orders")[1]
print(t.name, #t.partitions, t.partitions[1].leader)
local partitions = 0
for _, t in ipairs(describe_topics()) do partitions = partitions + #t.partitions end
print(partitions)
local n = 0
for t in describe_topics(nil, {iterate = true, exclude = "^__"}) do n = n + #t.partitions end
print(n)`,
			Run: describeTopics},
		&Func{Name: "create_topics", Area: "topics", Batch: true,
			Params:  []Param{{Name: "specs", Type: topicSpecs, Doc: "a topic name (broker defaults), a spec table, or an array of them"}},
			Options: []Field{{Name: "if_not_exists", Type: Bool(), Doc: "an existing topic is a success (existed=true)"}},
			Returns: "{{name=string, id=string, partitions=int, replication_factor=int, existed=bool?, error=error?}...}",
			Summary: "Create topics, each with its own partitions, replication factor, configs or explicit assignment.",
			Doc: `A spec is a name (broker defaults) or {name=, partitions=, replication_factor=, configs={k=v}, assignment={[p]={brokers}}}; partition numbers in an assignment start at 0.
if_not_exists=true makes an existing topic a success (existed=true). validate_only=true asks the broker to check without creating (as does --dry-run).
If any topic fails the call raises after creating all the others; err.results says exactly which were created.`,
			Example: `create_topics({{name = "payments", partitions = 6, configs = {["cleanup.policy"] = "compact"}}}, {if_not_exists = true})`,
			Run:     createTopics},
		&Func{Name: "delete_topics", Area: "topics", Batch: true,
			Params:  []Param{{Name: "names", Type: topicNames, Doc: "the topics to delete"}},
			Options: []Field{{Name: "if_exists", Type: Bool(), Doc: "a missing topic is a success (missing=true)"}},
			Returns: "{{name=string, missing=bool?, error=error?}...}",
			Summary: "Delete topics and all their data.",
			Doc:     "if_exists=true makes a missing topic a success (missing=true). Under --dry-run nothing is deleted; each topic is checked to exist.",
			Example: `create_topics({"scratch"}, {if_not_exists = true})
delete_topics("scratch")`,
			Run: deleteTopics},
		&Func{Name: "create_partitions", Area: "topics", Batch: true,
			Params: []Param{{Name: "totals", Type: MapOf[string, int32](topicName, partitionCount).NonEmpty().Described("{topic = total_count, ...}"),
				Doc: "each topic's new total partition count"}},
			Returns: "{{name=string, partitions=int, error=error?}...}",
			Summary: "Raise topics' partition counts to the given totals.",
			Doc:     "Counts are totals, not increments; Kafka cannot lower a partition count (INVALID_PARTITIONS).",
			Example: `create_topics({{name = "growing", partitions = 2}}, {if_not_exists = true})
create_partitions{growing = 4}`,
			Run: createPartitions},
	)
}

// regexpType is an RE2 regular expression, compiled once here.
var regexpType = Custom("RE2 regular expression", `"^a"`, func(r *reader, v lua.LValue, at string) (any, error) {
	x, err := Str().read(r, v, at)
	if err != nil {
		return nil, err
	}
	re, rerr := regexp.Compile(x.(string))
	if rerr != nil {
		return nil, argErr(at, "invalid regular expression: %v", rerr)
	}
	return re, nil
}, lua.LTString)

func listTopics(c *Call) (any, error) {
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.ListTopics(c.Ctx(), engine.ListTopicsOptions{Internal: param[bool](c, "internal"), Match: param[*regexp.Regexp](c, "match")})
}

func describeTopics(c *Call) (any, error) {
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	names := param[[]string](c, "names")
	o := engine.TopicsOptions{Match: param[*regexp.Regexp](c, "match"), Exclude: param[*regexp.Regexp](c, "exclude")}
	switch {
	case param[bool](c, "iterate"):
		cur := cl.OpenTopics(c.iterCtx(), names, o)
		return rowIterator(c, "topics", cur.Next, cur.Close), nil
	case o.Match == nil && o.Exclude == nil:
		return cl.DescribeTopics(c.Ctx(), names)
	}
	cur := cl.OpenTopics(c.Ctx(), names, o)
	return readAll(cur.Next, cur.Close)
}

// topicFilterOptions choose the topics of a whole-cluster read by name.
var topicFilterOptions = []Field{
	{Name: "match", Type: regexpType, Doc: "keep topics whose name matches this RE2 regular expression (unanchored)"},
	{Name: "exclude", Type: regexpType, Doc: "leave out topics whose name matches this RE2 regular expression (unanchored)"},
}

func createTopics(c *Call) (any, error) {
	specs := param[[]engine.TopicSpec](c, "specs")
	o := engine.CreateTopicsOptions{ValidateOnly: c.ValidateOnly(), IfNotExists: param[bool](c, "if_not_exists")}
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	for _, s := range specs {
		if !c.DryRun() {
			break
		}
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

// configMap is {name = value} of topic or broker configs.
var configMap = MapOf[string, string](configName, ConfigValueType{}).Described("{name = value, ...}")

// topicSpec is create_topics' spec: a name, or a table.
var topicSpec = OneOf(
	Custom("topic name", `"t"`, func(r *reader, v lua.LValue, at string) (any, error) {
		name, err := topicName.read(r, v, at)
		if err != nil {
			return nil, err
		}
		return engine.TopicSpec{Name: name.(string)}, nil
	}, lua.LTString),
	Record(
		Field{Name: "name", Type: newTopicName, Required: true},
		Field{Name: "partitions", Type: partitionCount, Doc: "broker default when left out"},
		Field{Name: "replication_factor", Type: replicationFactor, Doc: "broker default when left out"},
		Field{Name: "configs", Type: configMap},
		Field{Name: "assignment", Type: assignmentType, Doc: "{[partition] = {broker ids}}, partitions from 0; instead of partitions and replication_factor"},
	).Then(func(rec Rec, at string) (any, error) {
		if rec.Has("assignment") && (rec.Has("partitions") || rec.Has("replication_factor")) {
			return nil, argErr(subPath(at, "assignment"), "cannot be combined with partitions or replication_factor")
		}
		return engine.TopicSpec{Name: get[string](rec, "name"), Partitions: get[int32](rec, "partitions"),
			ReplicationFactor: get[int16](rec, "replication_factor"), Configs: get[map[string]string](rec, "configs"),
			Assignment: get[map[int32][]int32](rec, "assignment")}, nil
	}),
).Described("topic name or {name=, [partitions=], [replication_factor=], [configs=], [assignment=]}")

var topicSpecs = List[engine.TopicSpec](topicSpec).Items("spec").NonEmpty()

// assignmentType reads {[p]={brokers}}. Lua arrays are 1-based, so a plain
// array {{1,2},{2,3}} means partitions 0 and 1.
var assignmentType = Custom("{[partition] = {broker ids}}", "{[0] = {0}}", func(r *reader, v lua.LValue, at string) (any, error) {
	t := v.(*lua.LTable)
	shift := int32(0)
	if output.IsArray(t) {
		shift = 1
	}
	m, err := MapOf[int32, []int32](Int32(int64(shift)).Named("partition"), List[int32](brokerID).ArrayOnly().NonEmpty()).read(r, v, at)
	if err != nil {
		return nil, err
	}
	out := map[int32][]int32{}
	for p, brokers := range m.(map[int32][]int32) {
		out[p-shift] = brokers
	}
	return out, nil
}, lua.LTTable).Like(MapOf[int32, []int32](partitionNum, List[int32](brokerID).ArrayOnly()))

func deleteTopics(c *Call) (any, error) {
	names := param[[]string](c, "names")
	o := engine.DeleteTopicsOptions{IfExists: param[bool](c, "if_exists")}
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
	for _, n := range slices.Compact(slices.Sorted(slices.Values(names))) {
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
	totals := param[map[string]int32](c, "totals")
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	for _, n := range slices.Sorted(maps.Keys(totals)) {
		c.Plan("raise %s to %d partitions", n, totals[n])
	}
	return cl.CreatePartitions(c.Ctx(), totals, engine.CreatePartitionsOptions{ValidateOnly: c.ValidateOnly()})
}

// topicDescriptionShape is one topic as describe_topics returns it (and
// describe_cluster{with_topics=true} in its topics).
const topicDescriptionShape = "{name=string, id=string, internal=bool, partitions={{partition=int, leader=int, leader_epoch=int, replicas={int...}, isr={int...}, offline_replicas={int...}, elr={int...}?, last_known_elr={int...}?, error=error?}...}, error=error?}"
