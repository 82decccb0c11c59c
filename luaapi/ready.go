package luaapi

import (
	"time"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

func init() {
	register(
		&Func{Name: "wait_ready", Area: "cluster",
			Options: []Field{
				{Name: "min_brokers", Type: Count(1).Between(1, 100_000).Named("broker count"), Doc: "how many brokers must be live (default 1)"},
				{Name: "timeout", Type: reassignTimeout, Doc: "how long to wait before raising TIMEOUT (default 5m)"},
				{Name: "interval_ms", Type: Int64(1).Between(1, maxDurationMillis).Named("poll interval in ms"), Doc: "time between looks (default 1000)"},
			},
			Returns: "{brokers=int, under_replicated={string...}, offline={string...}, waited_ms=int}",
			Summary: "Wait until the cluster is ready: enough brokers live and no partition under-replicated or offline.",
			Doc:     `The readiness gate of a provisioning job (a Kubernetes Job or Helm hook that makes topics and ACLs): looks at the cluster's metadata every interval_ms (default 1000) until at least min_brokers brokers are live (registered and unfenced) and every partition has a leader and all its replicas in sync, then returns what it saw (brokers live, and the empty lists of under-replicated and offline partitions as "topic[partition]"; a topic whose metadata is an error, such as one still being made, is offline as "topic: LEADER_NOT_AVAILABLE"). A cluster that cannot be reached yet (still starting) is looked at again; a refused login or authorization is raised at once, since waiting cannot mend it. When timeout passes first (milliseconds or a duration string like "10m", default 5m) it raises TIMEOUT saying what was missing at the last look: "3 of 5 brokers live; 2 partitions under-replicated (orders[0], orders[3])"; from the CLI that is exit 3, which a Job's podFailurePolicy retries. While it waits, progress goes to stderr as wait_reassignments' does. Changes nothing in the cluster.`,
			Example: `local r = wait_ready{min_brokers = 3, timeout = "1m"}
print(r.brokers .. " brokers live after " .. r.waited_ms .. " ms")`,
			Run: waitReady},
	)
}

func waitReady(c *Call) (any, error) {
	o := engine.ReadyOptions{Brokers: 1}
	if c.Given("min_brokers") {
		o.Brokers = param[int](c, "min_brokers")
	}
	if c.Given("timeout") {
		o.Timeout = param[time.Duration](c, "timeout")
	}
	if c.Given("interval_ms") {
		o.Interval = time.Duration(param[int64](c, "interval_ms")) * time.Millisecond
	}
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.WaitReady(c.Ctx(), o)
}
