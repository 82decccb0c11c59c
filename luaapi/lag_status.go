package luaapi

import (
	"github.com/kadmin-lua/kadmin-lua/engine"
)

func init() {
	register(
		&Func{Name: "lag_status", Area: "groups", Batch: true,
			Params: []Param{{Name: "groups", Type: groupIDs.NonEmpty(), Optional: true, Doc: "the groups (default: every consumer and streams group)"}},
			Options: append([]Field{
				{Name: "max_lag", Type: Int64(1), Doc: "a group lagging more records than this in total is ERR, whatever its trend"},
				{Name: "max_lag_ms", Type: Int64(1), Doc: "a group lagging more than this in time (ms, read from the records as lag{time=true} does) is ERR"},
				{Name: "allowed_lag", Type: Int64(0), Doc: "a partition lagging at most this many records is OK (default 0)"},
				{Name: "worst", Type: Count(1), Doc: "partitions listed per group, worst first (default 5)"},
				{Name: "partitions", Type: Bool(), Doc: "also list every partition's verdict in partitions, by topic and partition (not with summary)"},
				{Name: "time", Type: Bool(), Doc: "add the lag in time (max_lag_ms, and lag_ms per partition); implied by max_lag_ms"},
				{Name: "read_committed", Type: Bool(), Doc: "with time: read as a read_committed consumer does"},
				{Name: "no_commit", Type: Enum(engine.NoCommitStart, engine.NoCommitSkip), Doc: `a partition without a commit: "start" (default) lags from its log start, "skip" is left out of total_lag`},
				{Name: "min_complete", Type: NumberBetween(0, 1), Doc: "a lagging partition whose window covers less than this fraction of --state-window is not judged (rule window_incomplete) and its group counts it in incomplete (Burrow's minimum-complete; default 0: every window is judged)"},
				{Name: "summary", Type: Bool(), Doc: "one row per group without the lists of partitions: the worst partition in worst_topic and worst_partition"},
				iterateOption,
			}, groupFilterOptions...),
			Returns: "{{group=string, state=string, status=string, reason=string?, total_lag=int, max_lag=int, max_lag_ms=duration?, records_lost=int, at_risk=int?, reading_remote=int?, remote_only=int?, remote_unknown=int?, odd_timestamps=int?, consume_rate=rate?, produce_rate=rate?, trend=string, eta_seconds=number?, samples=int, window_ms=duration, complete=number, incomplete=int?, state_file=bool, worst=" + partitionVerdicts + "?, worst_topic=string?, worst_partition=int?, partitions=" + partitionVerdicts + "?, failed_in=string?, error=error?}...}",
			Summary: "Consumer lag judged over time: Burrow's verdicts (OK, WARN, STALL, STOP, REWIND) from samples kept between runs.",
			Doc: `Each call samples every partition's lag now (as lag() does), adds the sample to the state store (--state FILE keeps it between runs; without it the store lives as long as the process: the REPL, a loop) and judges each partition's window of samples with Burrow's rules (see lag_evaluate): OK, WARN (the offset moves but the lag never falls), STALL (the offset never moves and the lag is never zero), STOP (no commit for longer than the window spans, while behind) or REWIND (the offset went back). A group is ERR when any partition is STOP, STALL or REWIND, WARN when any is WARN, else OK; NOTFOUND when it does not exist (its samples are dropped, so a group made again starts afresh).
max_lag and max_lag_ms add thresholds: a group past either is ERR whatever its trend, and reason says which; a group that lost records (deleted before it read them) is ERR under max_lag_ms, since how far behind it is cannot be known. reason also names the worst partition and its rule; worst lists the worst partitions (ERR-making first, then by lag). records_lost, at_risk, reading_remote, remote_only, remote_unknown and odd_timestamps are lag()'s (with time, max_lag_ms leaves out partitions whose first unread record has a negative or future timestamp). A partition's stuck_ms is how long its committed offset has not moved while it lags (from the window), on partitions judged STALL or STOP: nil on the others (a healthy consumer's offset stands still between its commits) and with one sample.
The window is a span of time (--state-window, 45 s by default: Burrow's 10 commits at Java's 5 s auto-commit): a partition's samples taken within it, and the newest one before it, so that from cron (runs further apart than the window) each verdict compares this run with the one before. A partition's window_ms is the time its window covers and complete that over --state-window (at most 1: Burrow's "complete", in time); the group's are its least complete partition's, samples its longest window's. With min_complete, a lagging partition on a part of a window is not judged (rule window_incomplete) and incomplete counts them: the group's status does not speak for them, and reason says so. state_file is true when the samples are kept in a --state file for the next run.
consume_rate and produce_rate are records per second between the oldest and newest samples of the window (summed over the partitions); trend is "falling" (consumed faster than produced), "rising", "steady" or "unknown" (fewer than two samples); eta_seconds is when the lag will be zero at those rates, while it falls.
Samples are kept at least a second apart (Burrow's min-distance: one taken sooner after the newest is merged into it, which keeps its time, and the partition is judged as of it), and at most --state-samples of them a window (a fast loop's window is thinned, not shortened). A partition whose end offset went back (the topic was deleted and made again) or whose samples are newer than now (the clock went back) starts a new window and says so in reset. A partition without a commit is not judged (Burrow sees only commits): OK, rule "no_commit". Changes nothing in the cluster.
At scale, as lag: match, exclude and states choose the groups right after listing; the groups are read a page at a time, each page recorded and judged while the next is read, and the --state file is written once, behind the run. max_lag is the most a partition lags. summary=true leaves out worst and partitions and names the worst partition in worst_topic and worst_partition: one small row per group. iterate=true returns an iterator (for g in lag_status(nil, {summary = true, iterate = true}) do ... end); the file is written once the loop has gone through every row. A group whose read failed (error, failed_in names the phase) is ERR with the error as its reason and is not sampled: nothing is judged from half of it.`,
			Example: `local s = lag_status("orders-processor", {max_lag = 100000})
print(s[1].group, s[1].status, s[1].trend, s[1].reason)
for _, g in ipairs(lag_status()) do
  if g.status ~= "OK" then print(g.group, g.status, g.reason) end
end
for g in lag_status(nil, {summary = true, iterate = true}) do
  if g.status ~= "OK" then print(g.group, g.status, g.total_lag, g.max_lag, g.worst_topic, g.worst_partition) end
end`,
			Run: lagStatusRun},
	)
}

// partitionVerdicts is the shape of lag_status's worst and partitions.
const partitionVerdicts = "{{topic=string, partition=int, status=string, rule=string, lag=int, committed=int, end_offset=int, lag_ms=duration?, stuck_ms=duration?, consume_rate=rate?, produce_rate=rate?, samples=int, window_ms=duration, complete=number, reset=string?}...}"

func lagStatusRun(c *Call) (any, error) {
	if param[bool](c, "partitions") && param[bool](c, "summary") {
		return nil, argErr("options: partitions", "lists every partition's verdict: not with summary")
	}
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	o := engine.LagStatusOptions{
		Lag:    engine.LagOptions{Time: param[bool](c, "time"), ReadCommitted: param[bool](c, "read_committed"), NoCommit: param[string](c, "no_commit")},
		MaxLag: param[int64](c, "max_lag"), MaxLagMs: param[int64](c, "max_lag_ms"), AllowedLag: param[int64](c, "allowed_lag"), Worst: param[int](c, "worst"), Partitions: param[bool](c, "partitions"),
		MinComplete: param[float64](c, "min_complete"), Summary: param[bool](c, "summary")}
	groupFilters(c, &o.Lag)
	groups := param[[]string](c, "groups")
	if !param[bool](c, "iterate") {
		return cl.LagStatus(c.Ctx(), groups, o)
	}
	cur, err := cl.OpenLagStatus(c.iterCtx(), groups, o)
	if err != nil {
		return nil, err
	}
	return rowIterator(c, "groups", cur.Next, cur.Close), nil
}
