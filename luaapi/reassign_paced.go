package luaapi

import (
	"errors"
	"fmt"
	"slices"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/moves"
)

func init() {
	register(&Func{Name: "reassign", Area: "reassign", Batch: true,
		Params: []Param{{Name: "plan", Type: movePlan, Optional: true,
			Doc: "a plan from plan_reassignment, or rows {topic=, partition=, replicas=} (nil with resume: the run's own plan)"}},
		Options: []Field{
			{Name: "max_moves_per_broker", Type: Int32(1).Named("moves"), Doc: "moves in flight a broker takes part in, joining or leaving (default 5)"},
			{Name: "max_moves", Type: Int32(1).Named("moves"), Doc: "partitions moving in the cluster, this run's or not (default 1000)"},
			{Name: "max_leader_moves", Type: Int32(1).Named("moves"), Doc: "leadership-only changes and preferred-leader elections sent at a time (default 1000)"},
			{Name: "throttle", Type: reassignThrottle, Doc: "replication throttle in bytes per second per broker, or a function asked at each poll"},
			{Name: "resume", Type: OneOf(Bool(), NonEmptyStr().Checked("run id", nil).Sample(`"20261130T100001.123456Z-9f3a1c2b"`)), Doc: "true: resume the newest unfinished run of the audit log; a run id: that run"},
			{Name: "order", Type: Enum(moves.Orders...), Doc: `"small_first" (default), "large_first", "urgent_first" or "plan"`},
			{Name: "interval_ms", Type: Int64(1).Between(1, maxDurationMillis).Named("poll interval in ms"), Doc: "time between polls (default 2000)"},
			{Name: "stalled_after", Type: reassignTimeout, Doc: `a move whose bytes do not grow this long is flagged stalled (default "5m")`},
			{Name: "elect_leaders", Type: Bool(), Doc: "elect each moved partition's preferred leader (default true)"},
			{Name: "on_progress", Type: FuncType{}, Doc: "called with the status after each poll"},
		},
		Returns: "{{topic=string, partition=int, current={int...}, target={int...}, state=string, batch=int, bytes=int, copied_bytes=int, stalled=bool, adopted=bool, error=error?}...}",
		Summary: "Move partitions to a plan's replicas, paced under caps, throttled, resumable and undoable.",
		Doc: `Carries a plan out in batches: at most max_moves_per_broker moves in flight that a broker takes part in (as a broker a replica joins or leaves), at most max_moves partitions moving in the cluster (every reassignment in progress counts, this run's or not), and leadership-only changes (the same replicas in another order) max_leader_moves at a time. The next moves are sent as earlier ones finish, smallest first (order = "small_first"; "large_first", "urgent_first": under-replicated partitions first, or "plan": as listed); a move to a broker that is down waits for it. Once a partition is moved its preferred leader is elected (elect_leaders = false leaves leadership as the move leaves it).
The plan is checked first and refused whole, nothing sent, when a partition or broker is unknown, a broker a replica joins is down or fenced (BROKER_NOT_AVAILABLE), a partition's replicas are not those the plan was made against (STALE_PLAN: plan again), or a reassignment to another target is in progress on it (REASSIGNMENT_IN_PROGRESS); one already moving to its target is adopted and not sent again.
throttle = BYTES_PER_SEC sets leader/follower.replication.throttled.rate on every broker a move touches and the throttled-replica lists on each moving topic while the run goes on, and lifts them when nothing of it moves any more. A function instead is called at each poll with the status and returns the rate, a table {[broker_id] = rate, all = rate}, or nil to keep it: the throttle can be raised or lowered while the run goes on. A rate set by hand on a broker (kafka-configs) is not set back unless the function changes it.
Progress goes to stderr (the terminal's line, or a log line every 10 s): done, moving and queued partitions, bytes copied (the log dirs of the joining replicas) against bytes to copy, rate and ETA; a move whose bytes have not grown for stalled_after is flagged stalled by name and stays in flight. on_progress(status) gets the same as a table {run=, partitions=, done=, moving=, queued=, failed=, batches=, total_bytes=, copied_bytes=, rate_bytes=, eta_seconds=, stalled={...}, waiting_for_brokers={...}}.
With --audit-log the run is written ahead: its intent line holds the plan and every partition's replicas before, each batch is an alter_partition_reassignments marked with the run's id, and the outcome line is written when nothing is left to move. After Ctrl-C, kill -9 or a lost connection, resume = true (or the run's id) reads the log and the cluster and finishes the run's own plan: nothing done or in flight is sent again. Ctrl-C stops sending, asks whether to cancel the moves in flight (with --yes, or with no terminal, they go on), and raises CANCELED naming the run to resume. kadmin-lua undo moves what the run completed back to where it was, through the same caps.
Under --dry-run nothing is sent: the result says the batch each move would be in (if every batch finished before the next) and its bytes. The result is a row per partition: state "done", "moving", "queued" or "failed" (with its error). docs/moving-data.md tells more.`,
		Example: `local plan = plan_reassignment{topics = {"orders"}}
local rows = reassign(plan, {max_moves_per_broker = 2, throttle = 50 * 1024 * 1024})
print(#rows .. " partitions moved")`,
		Run: reassignPaced})
}

// moveRow is a reassignment row as the executor takes it: the plan's
// current replicas kept, to tell a stale plan.
var moveRow = Record(reassignFields...).Then(func(rec Rec, at string) (any, error) {
	key, err := rowTarget(rec, at)
	if err != nil {
		return nil, err
	}
	m := moves.Move{Topic: get[string](rec, "topic"), Partition: get[int32](rec, "partition"), Target: get[[]int32](rec, key)}
	if rec.Has("current") {
		m.Current = get[[]int32](rec, "current")
	}
	return m, nil
}).Sample(`{topic = "t", partition = 0, replicas = {1}}`)

var moveRows = List[moves.Move](moveRow).ArrayOnly()

// movePlan is reassign's plan: a plan_reassignment result (its partitions
// are moved; the rest of it, counts and summaries, is not read), or rows.
var movePlan = Custom("a plan from plan_reassignment, or an array of {topic=, partition=, replicas=}", `{{topic = "t", partition = 0, replicas = {1}}}`,
	func(r *reader, v lua.LValue, at string) (any, error) {
		rows := v
		if t, ok := v.(*lua.LTable); ok && t.RawGetString("partitions") != lua.LNil && t.RawGetString("topic") == lua.LNil {
			rows, at = t.RawGetString("partitions"), subPath(at, "partitions")
		}
		x, err := moveRows.read(r, rows, at)
		if err != nil {
			return nil, err
		}
		plan := x.([]moves.Move)
		for i, m := range plan {
			if slices.ContainsFunc(plan[:i], func(o moves.Move) bool { return o.Topic == m.Topic && o.Partition == m.Partition }) {
				return nil, givenTwice(at, engine.TopicPartition{Topic: m.Topic, Partition: m.Partition})
			}
		}
		return plan, nil
	}, lua.LTTable).Like(moveRows)

// reassignThrottle is a rate in bytes per second, or a function asked at
// each poll.
var reassignThrottle = OneOf(Int64(1).Named("bytes per second"), FuncType{})

func reassignPaced(c *Call) (any, error) {
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	o := moves.Options{MaxMovesPerBroker: int(param[int32](c, "max_moves_per_broker")), MaxMoves: int(param[int32](c, "max_moves")),
		MaxLeaderMoves: int(param[int32](c, "max_leader_moves")), Order: param[string](c, "order"),
		NoElect: c.Given("elect_leaders") && !param[bool](c, "elect_leaders"),
		Log:     func(level, msg string) { c.logLine(level, msg) }, Ask: c.rt.ask()}
	if c.Given("interval_ms") {
		o.Interval = time.Duration(param[int64](c, "interval_ms")) * time.Millisecond
	}
	if c.Given("stalled_after") {
		o.StallAfter = param[time.Duration](c, "stalled_after")
	}
	switch v := param[any](c, "resume").(type) {
	case bool:
		if v {
			o.Resume = moves.ResumeLatest
		}
	case string:
		o.Resume = v
	}
	switch v := param[any](c, "throttle").(type) {
	case int64:
		o.Throttle = moves.Rates{All: v}
	case *lua.LFunction:
		o.Rethrottle = c.rethrottle(v)
	}
	if fn, ok := param[any](c, "on_progress").(*lua.LFunction); ok {
		said := onceInARow(c)
		o.Progress = func(st moves.Status) {
			_, err := c.callLua(fn, st)
			said(err, "reassign: on_progress: %v")
		}
	}
	plan := param[[]moves.Move](c, "plan")
	if len(plan) == 0 && o.Resume == "" {
		c.Plan("the plan changes nothing")
		return []moves.Result{}, nil
	}
	res, err := moves.Execute(c.Ctx(), cl, plan, o)
	if c.DryRun() {
		planLines(c, res)
	} else if err == nil && len(res) > 0 {
		demoNote(c)
	}
	return res, err
}

// planLines say, under dry-run, what each batch would move.
func planLines(c *Call, res []moves.Result) {
	byBatch := map[int][]moves.Result{}
	for _, r := range res {
		byBatch[r.Batch] = append(byBatch[r.Batch], r)
	}
	for b := 1; len(byBatch[b]) > 0; b++ {
		var bytes int64
		for _, r := range byBatch[b] {
			bytes += max(r.Bytes, 0)
		}
		c.Plan("batch %d: %d partition(s), %s to copy", b, len(byBatch[b]), engine.HumanBytes(bytes))
		for _, r := range byBatch[b] {
			c.Plan("  move %s[%d] from %v to %v (%s)", r.Topic, r.Partition, r.Current, r.Target, engine.HumanBytes(max(r.Bytes, 0)))
		}
	}
	if done := len(byBatch[0]); done > 0 {
		c.Plan("%d partition(s) already where the plan puts them, or moving there", done)
	}
}

// rethrottle turns reassign's throttle function into the executor's:
// called with the status, it returns a rate, {[broker_id] = rate, all =
// rate}, or nil to keep the throttle. An error, or a value of another
// shape, keeps it and says why.
func (c *Call) rethrottle(fn *lua.LFunction) func(moves.Status) (moves.Rates, bool) {
	said := onceInARow(c)
	return func(st moves.Status) (moves.Rates, bool) {
		v, err := c.callLua(fn, st)
		said(err, "reassign: throttle function: %v; the throttle stays")
		if err != nil {
			return moves.Rates{}, false
		}
		r, ok, why := ratesOf(v)
		if why != "" {
			c.logLine("warn", "reassign: throttle function returned "+why+"; the throttle stays")
		}
		return r, ok
	}
}

// onceInARow says a callback's error in a warn line, once while it keeps
// failing the same way: a broken on_progress in a run of hours is one
// line, not one per poll.
func onceInARow(c *Call) func(err error, format string) {
	last := ""
	return func(err error, format string) {
		if err == nil {
			last = ""
			return
		}
		if msg := fmt.Sprintf(format, err); msg != last {
			last = msg
			c.logLine("warn", msg)
		}
	}
}

// ratesOf reads a throttle function's answer.
func ratesOf(v lua.LValue) (r moves.Rates, ok bool, why string) {
	switch v := v.(type) {
	case *lua.LNilType:
		return r, false, ""
	case lua.LNumber:
		if n, exact := exactInt(v); exact && n > 0 {
			return moves.Rates{All: n}, true, ""
		}
	case *lua.LTable:
		r.PerBroker = map[int32]int64{}
		bad := ""
		v.ForEach(func(k, x lua.LValue) {
			n, exact := exactInt(x)
			if !exact || n <= 0 {
				bad = fmt.Sprintf("%s for %s (a rate is a positive number of bytes per second)", describe(x), k)
				return
			}
			if ks, isStr := k.(lua.LString); isStr && ks == "all" {
				r.All = n
				return
			}
			if b, exact := exactInt(k); exact && b >= 0 && b <= 1<<31-1 {
				r.PerBroker[int32(b)] = n
				return
			}
			bad = fmt.Sprintf("the key %s (a broker id or \"all\")", describe(k))
		})
		if bad == "" {
			return r, true, ""
		}
		return moves.Rates{}, false, bad
	}
	return r, false, describe(v)
}

// callLua calls a Lua function given to a call with a Go value (as a Lua
// table) and returns its first result. An error it raises comes back as
// its message, as a failed run reports it (a kadmin-lua error by its code
// and message), without the traceback: it is said in a log line.
func (c *Call) callLua(fn *lua.LFunction, arg any) (lua.LValue, error) {
	L := c.L
	top := L.GetTop()
	defer L.SetTop(top)
	L.Push(fn)
	L.Push(c.rt.conv.toLua(arg))
	if err := L.PCall(1, 1, nil); err != nil {
		return nil, errors.New(classify(L, c.Ctx(), err).Message)
	}
	return L.Get(-1), nil
}
