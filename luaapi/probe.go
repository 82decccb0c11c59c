package luaapi

import (
	"math"
	"strconv"
	"time"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

const probePartitionShape = "{partition=int, broker=int, offset=int, produce_ms=number?, end_to_end_ms=number?, error=error?}"

func init() {
	register(
		&Func{Name: "probe", Area: "records",
			Params: []Param{{Name: "topic", Type: topicName, Optional: true, Doc: `the topic to probe (default "` + engine.ProbeTopic + `", created on first use)`}},
			Options: []Field{
				{Name: "group", Type: groupID, Doc: `the group the probe commits to (default "` + engine.ProbeGroup + `")`},
				{Name: "timeout", Type: reassignTimeout, Doc: "how long the whole probe may take (default: --timeout)"},
			},
			Returns: "{topic=string, group=string, created=bool, ok=bool, partitions={" + probePartitionShape + "...}, produce_ms_max=number?, end_to_end_ms_max=number?, commit_ms=number?, commit_error=error?, failures={string...}}",
			Summary: "Check the cluster end to end: write a record to each partition of a probe topic, read it back, commit; timed.",
			Doc: `After KMinion's end-to-end probe. A record goes to each partition of the probe topic (idempotent, acks=all), a consumer of its own reads each back from where the partition ended before, and the offsets are committed to the probe group. Per partition (with broker, its leader): produce_ms (until the write is acknowledged), end_to_end_ms (from the write until the record is read back) and the error of a step that failed; commit_ms times the commit. failures names each failure in words ("kadmin-lua-probe[2] (leader 3): produce: NOT_ENOUGH_REPLICAS: ..."), ok is true when there is none. A failure is in the result, not raised: the probe raises only when it cannot start (the topic is missing, the cluster cannot be reached).
The probe topic, "` + engine.ProbeTopic + `", is created on first use with one partition per broker, partition i led by the i-th broker (so each broker is probed as a leader), replication factor min(3, brokers), and cleanup.policy=delete, retention.ms=3600000 (an hour), segment.ms=600000. A topic that is named must exist; every partition of it is probed. The first probe on a client includes connecting to the brokers in its figures; later ones (a loop, the REPL) reuse its producer and consumer.
Its writes are changes like any other, each audited as its own operation: create_topics (once), produce and commit_offsets. Under --dry-run nothing is written: the plan says what would be, and the partitions come back unprobed.
With --metrics-file the figures are written for Prometheus: kadmin_lua_probe_ok{topic}, kadmin_lua_probe_failures{topic}, kadmin_lua_probe_produce_seconds{topic,partition,broker}, kadmin_lua_probe_end_to_end_seconds{topic,partition,broker} and kadmin_lua_probe_commit_seconds{topic,group} (docs/scheduling.md).`,
			Example: `local p = probe()
print(p.ok, p.produce_ms_max, p.end_to_end_ms_max, p.commit_ms)
for _, f in ipairs(p.failures) do print(f) end
return p.ok and #p.partitions == 3`,
			Run: probeRun},
	)
}

func probeOptions(c *Call) engine.ProbeOptions {
	return engine.ProbeOptions{Topic: param[string](c, "topic"), Group: param[string](c, "group"), Timeout: param[time.Duration](c, "timeout")}
}

func probeRun(c *Call) (any, error) {
	o := probeOptions(c)
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	if c.DryRun() {
		create, parts, err := cl.ProbePlan(c.Ctx(), o)
		if err != nil {
			return nil, err
		}
		res := &engine.ProbeResult{Topic: o.Topic, Group: o.Group, Partitions: parts, Failures: []string{}}
		if res.Topic == "" {
			res.Topic, res.Group = engine.ProbeTopic, engine.ProbeGroup
		}
		if res.Group == "" {
			res.Group = engine.ProbeGroup
		}
		if create != nil {
			c.Plan("create topic %s (%d partitions, one led by each broker)", create.Name, len(create.Assignment))
		}
		c.Plan("write a record to each of the %d partitions of %s, read them back, commit to group %s", len(parts), res.Topic, res.Group)
		return res, nil
	}
	res, err := cl.Probe(c.Ctx(), o)
	if err != nil {
		return nil, err
	}
	c.rt.probeMetrics(res)
	return res, nil
}

// probeSeconds is a probe's milliseconds in seconds, to the microsecond.
func probeSeconds(ms float64) float64 { return math.Round(ms*1000) / 1e6 }

// probeMetrics records a probe's figures for --metrics-file.
func (r *Runtime) probeMetrics(p *engine.ProbeResult) {
	ok := 0.0
	if p.OK {
		ok = 1
	}
	topic := map[string]string{"topic": p.Topic}
	_ = r.setMetric("kadmin_lua_probe_ok", "1 when the last probe wrote, read back and committed on every partition", ok, topic)
	_ = r.setMetric("kadmin_lua_probe_failures", "Steps of the last probe that failed", float64(len(p.Failures)), topic)
	for _, pp := range p.Partitions {
		labels := map[string]string{"topic": p.Topic, "partition": strconv.Itoa(int(pp.Partition)), "broker": strconv.Itoa(int(pp.Broker))}
		if pp.ProduceMs != nil {
			_ = r.setMetric("kadmin_lua_probe_produce_seconds", "Time until the probe record was acknowledged (acks=all)", probeSeconds(*pp.ProduceMs), labels)
		}
		if pp.EndToEndMs != nil {
			_ = r.setMetric("kadmin_lua_probe_end_to_end_seconds", "Time from writing the probe record until it was read back", probeSeconds(*pp.EndToEndMs), labels)
		}
	}
	if p.CommitMs != nil {
		_ = r.setMetric("kadmin_lua_probe_commit_seconds", "Time to commit the probe group's offsets", probeSeconds(*p.CommitMs),
			map[string]string{"topic": p.Topic, "group": p.Group})
	}
}
