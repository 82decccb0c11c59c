package luaapi

import (
	"strings"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

// throttleReassignment sets the replication throttle for rows before they
// are reassigned (alter_partition_reassignments{..., throttle=}), as
// kafka-reassign-partitions --throttle does. Under dry-run the brokers only
// validate it and the plan says what would be set.
func throttleReassignment(c *Call, cl *engine.Client, rows []engine.PartitionTarget) error {
	plan, err := cl.PlanThrottles(c.Ctx(), rows, param[int64](c, "throttle"))
	if err != nil {
		return err
	}
	if c.DryRun() {
		for _, l := range plan.Lines() {
			c.Plan("%s", l)
		}
		return cl.SetThrottles(c.Ctx(), plan, true)
	}
	if err := cl.SetThrottles(c.Ctx(), plan, false); err != nil {
		return err
	}
	c.logLine("info", c.Fn.Name+": "+plan.Lines()[0]+" until wait_reassignments sees the moves done")
	return nil
}

// removeThrottles is wait_reassignments' clean-up once nothing it waited
// for is moving: the throttles kafka-reassign-partitions --verify removes.
func removeThrottles(c *Call, cl *engine.Client, topics []string) error {
	found, err := cl.FindThrottles(c.Ctx(), topics)
	if e := engine.AsError(err, ""); e != nil && strings.HasSuffix(e.Code, "_AUTHORIZATION_FAILED") {
		// A user allowed to watch reassignments but not to read configs
		// has set no throttle either: say so, and the wait succeeds.
		c.logLine("warn", c.Fn.Name+": cannot look for replication throttles to remove ("+e.Code+"); keep_throttles=true skips the look")
		return nil
	}
	if err != nil {
		return throttleCleanupErr(err)
	}
	if c.DryRun() {
		for _, l := range found.Lines() {
			c.Plan("%s", l)
		}
		return nil
	}
	if err := cl.RemoveThrottles(c.Ctx(), found); err != nil {
		return throttleCleanupErr(err)
	}
	// One line per broker or topic: joined, a cluster's worth was a
	// single line of a thousand characters.
	for _, l := range found.Lines() {
		c.logLine("info", c.Fn.Name+": "+l)
	}
	return nil
}

func throttleCleanupErr(err error) error {
	e := *engine.AsError(err, "")
	e.Message = "the reassignments are done, but the replication throttles could not be removed (run wait_reassignments again): " + e.Message
	return &e
}

// demoNote says, on the embedded demo cluster, that the reassignment it
// accepted moves nothing (kfake keeps every partition where it is).
func demoNote(c *Call) {
	if c.rt.opts.Demo && c.h == c.rt.dflt {
		c.logLine("warn", c.Fn.Name+": the demo cluster (--embedded) accepts reassignments but moves no replica: "+
			"describe_topics keeps showing the old replicas and nothing is ever in progress (docs/demo.md)")
	}
}
