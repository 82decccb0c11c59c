package moves

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// The replication throttle of a run, as kafka-reassign-partitions --throttle
// sets it (engine.PlanThrottles): on each moving topic the replicas copied
// from and to, for the whole plan at once (Kafka throttles only replicas
// out of sync, so listing the partitions still queued slows nothing), and
// on every broker a move touches a rate, which can change while the run
// goes on: only brokers whose rate changes are written, so a rate set by
// hand (kafka-configs) is not set back. The run lifts them when nothing of
// it moves any more.

// throttleStart sets the throttles, when the run has any. A resumed run
// that throttled lifts its throttles at its end even when it sets none
// itself: its moves may all have finished while nothing watched, or it
// ran under a function the audit log cannot hold (the rates it set stay
// until the end, unless throttle is given again).
func (e *executor) throttleStart(rctx context.Context) error {
	resumedThrottled := e.prior != nil && e.prior.throttled
	if !e.o.Throttle.Set() && e.o.Rethrottle == nil {
		if resumedThrottled {
			e.throttled = true
			e.o.logf("info", "reassign: the replication throttles the run set stay as they are until it ends (give throttle to change them)")
		}
		return nil
	}
	var targets []engine.PartitionTarget
	for _, m := range e.s.moves {
		// A new order of the same replicas copies nothing: no throttle.
		if (m.state == StateQueued || m.state == StateMoving) && !m.leaderOnly {
			targets = append(targets, engine.PartitionTarget{Topic: m.Topic, Partition: m.Partition, Replicas: m.Target})
		}
	}
	if len(targets) == 0 {
		e.throttled = resumedThrottled
		return nil
	}
	plan, err := e.c.PlanThrottles(rctx, targets, 1)
	if err != nil {
		return err
	}
	e.throttleBrokers = plan.Brokers
	alts := engine.ThrottlePlan{Topics: plan.Topics}.Alterations()
	alts = append(alts, e.rateAlterations(e.o.Throttle)...)
	e.throttled = true
	if err := e.alter(rctx, alts, "setting the replication throttle"); err != nil {
		return err
	}
	if e.o.Throttle.Set() {
		e.o.logf("info", "reassign: replication throttled on brokers %v (%s) while the moves run", e.throttleBrokers, describeRates(e.o.Throttle))
	}
	return nil
}

// rateAlterations are the changes that bring the brokers' rates to r.
func (e *executor) rateAlterations(r Rates) []engine.ConfigAlteration {
	var alts []engine.ConfigAlteration
	for _, b := range e.throttleBrokers {
		want := r.On(b)
		if want == e.rated[b] {
			continue
		}
		res := engine.ConfigResource{Type: engine.ConfigBroker, Name: strconv.Itoa(int(b))}
		if want > 0 {
			v := strconv.FormatInt(want, 10)
			alts = append(alts, engine.ConfigAlteration{Resource: res, Set: map[string]string{engine.LeaderThrottledRate: v, engine.FollowerThrottledRate: v}})
		} else {
			alts = append(alts, engine.ConfigAlteration{Resource: res, Delete: []string{engine.LeaderThrottledRate, engine.FollowerThrottledRate}})
		}
		e.rated[b] = want
	}
	return alts
}

// rethrottle asks Options.Rethrottle for new rates and applies those that
// changed. A refused rate is said and the old one kept.
func (e *executor) rethrottle(rctx context.Context, st Status) {
	if e.o.Rethrottle == nil || !e.throttled {
		return
	}
	r, ok := e.o.Rethrottle(st)
	if !ok {
		return
	}
	if err := checkRates(r); err != nil {
		e.o.logf("warn", "%v; the throttle stays %s", err, describeRates(e.o.Throttle))
		return
	}
	alts := e.rateAlterations(r)
	e.o.Throttle = r
	if len(alts) == 0 {
		return
	}
	if err := e.alter(rctx, alts, "changing the replication throttle"); err != nil {
		e.o.logf("warn", "reassign: %v", err)
		return
	}
	e.o.logf("info", "reassign: replication throttle now %s", describeRates(r))
}

// throttleEnd lifts the throttles the run's moves needed (what
// wait_reassignments lifts: the topics' lists, and the brokers' rates
// unless another reassignment is in progress in the cluster).
func (e *executor) throttleEnd(rctx context.Context) error {
	found, err := e.c.FindThrottles(rctx, e.topics)
	if err == nil {
		err = e.c.RemoveThrottles(rctx, found)
	}
	if err != nil {
		ee := *engine.AsError(err, "")
		ee.Message = "the moves are done, but the replication throttles could not be removed (wait_reassignments removes them): " + ee.Message
		return &ee
	}
	e.throttled = false
	for _, l := range found.Lines() {
		e.o.logf("info", "reassign: %s", l)
	}
	return nil
}

func (e *executor) alter(rctx context.Context, alts []engine.ConfigAlteration, what string) error {
	if len(alts) == 0 {
		return nil
	}
	res, err := e.c.AlterConfigs(rctx, alts, engine.AlterConfigsOptions{})
	if err != nil {
		return err
	}
	if first, n := vocab.FirstFailure(res); first != nil {
		ee := *first
		ee.Message = fmt.Sprintf("%s: %s (%d of %d resources failed)", what, ee.Message, n, len(res))
		return &ee
	}
	return nil
}

func describeRates(r Rates) string {
	if !r.Set() {
		return "off"
	}
	s := ""
	if r.All > 0 {
		s = engine.HumanBytes(r.All) + "/s"
	}
	for _, b := range slices.Sorted(maps.Keys(r.PerBroker)) {
		if s != "" {
			s += ", "
		}
		s += fmt.Sprintf("broker %d %s/s", b, engine.HumanBytes(r.PerBroker[b]))
	}
	return s
}
