package undo

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// What undo checks of an audited change before it acts on it: that the
// reader trusts it (its hash chain holds, the key vouches for it), that it
// says which cluster it was recorded on, and that its outcome agrees with
// its intent. A hand-written intent+outcome pair must not make undo revert
// something the call never did: the hash chain with a key is the strong
// defence, these checks are the cheap one.

// verifyChange says why ch cannot be trusted for undo, or nil.
func verifyChange(ch auditlog.Change) error {
	in, out := ch.Intent, ch.Outcome
	switch {
	case ch.Untrusted != "":
		return fmt.Errorf("not trusted: %s", ch.Untrusted)
	case in.ClusterID == "":
		return fmt.Errorf("no cluster_id: the cluster it was recorded on is unknown (every intent kadmin-lua writes has one)")
	case out == nil:
		return nil // undo refuses it itself: nothing to compare
	case out.Op != in.Op:
		return fmt.Errorf("its outcome is for %s, its intent for %s", out.Op, in.Op)
	}
	seen := map[string]bool{}
	for _, it := range out.Items {
		if seen[it.Key] {
			return fmt.Errorf("its outcome has item %q twice", it.Key)
		}
		seen[it.Key] = true
	}
	switch in.Op {
	case "create_topics":
		return verifyCreatedTopics(in, *out)
	case "alter_configs":
		return verifyAlteredConfigs(in, *out)
	case "reassign":
		return verifyRun(in, *out)
	}
	return nil
}

// verifyCreatedTopics: every outcome item is a topic the arguments name,
// and a created topic's id is only on an item that applied, for a topic the
// state before says did not exist.
func verifyCreatedTopics(in, out auditlog.Record) error {
	var args struct {
		Specs []struct {
			Name string `json:"name"`
		} `json:"specs"`
	}
	if err := auditlog.DecodeField(in.Args, &args); err != nil {
		return fmt.Errorf("its arguments: %v", err)
	}
	named := map[string]bool{}
	for _, s := range args.Specs {
		named[s.Name] = true
	}
	var before engine.TopicsBefore
	if err := auditlog.DecodeField(in.Before, &before); err != nil {
		return fmt.Errorf("its state before: %v", err)
	}
	for _, it := range out.Items {
		if !named[it.Key] {
			return fmt.Errorf("its outcome names topic %q, which its arguments do not create", it.Key)
		}
		var d engine.CreatedTopicDetail
		if err := auditlog.DecodeField(it.Detail, &d); err != nil {
			return fmt.Errorf("topic %q: detail: %v", it.Key, err)
		}
		if d.ID == "" || d.Existed {
			continue
		}
		if !it.Applied() {
			return fmt.Errorf("topic %q has a created topic's id, but its outcome is %s", it.Key, it.Outcome)
		}
		if b, ok := before[it.Key]; !ok || b.Exists {
			return fmt.Errorf("topic %q has a created topic's id, but the state before does not say it was missing", it.Key)
		}
	}
	return nil
}

// verifyAlteredConfigs: every outcome item is a resource the arguments
// alter, and its detail has only configs that alteration touches.
func verifyAlteredConfigs(in, out auditlog.Record) error {
	var args struct {
		Alterations []engine.ConfigAlteration `json:"alterations"`
	}
	if err := auditlog.DecodeField(in.Args, &args); err != nil {
		return fmt.Errorf("its arguments: %v", err)
	}
	touched := map[string]map[string]bool{}
	for _, a := range args.Alterations {
		keys := touched[a.Resource.String()]
		if keys == nil {
			keys = map[string]bool{}
			touched[a.Resource.String()] = keys
		}
		for _, m := range []map[string]string{a.Set, a.Append, a.Subtract} {
			for k := range m {
				keys[k] = true
			}
		}
		for _, k := range a.Delete {
			keys[k] = true
		}
	}
	for _, it := range out.Items {
		keys, ok := touched[it.Key]
		if !ok {
			return fmt.Errorf("its outcome names %s, which its arguments do not alter", it.Key)
		}
		var after map[string]json.RawMessage
		if err := auditlog.DecodeField(it.Detail, &after); err != nil {
			return fmt.Errorf("%s: detail: %v", it.Key, err)
		}
		for _, k := range slices.Sorted(maps.Keys(after)) {
			if !keys[k] {
				return fmt.Errorf("%s: its outcome has config %s, which its arguments do not touch", it.Key, k)
			}
		}
	}
	return nil
}

// verifyRun: every outcome item of a reassign run is a partition its
// plan moves.
func verifyRun(in, out auditlog.Record) error {
	var args engine.ReassignRunArgs
	if err := auditlog.DecodeField(in.Args, &args); err != nil {
		return fmt.Errorf("its arguments: %v", err)
	}
	planned := make(map[string]bool, len(args.Moves))
	for _, m := range args.Moves {
		planned[vocab.PartitionKey(m.Topic, m.Partition)] = true
	}
	for _, it := range out.Items {
		if !planned[it.Key] {
			return fmt.Errorf("its outcome names %s, which its plan does not move", it.Key)
		}
	}
	return nil
}

// ProblemSteps are the problems auditlog.Read found, as refused undo steps
// (resource "line N"): a bad line does not stop undo, and is not hidden.
func ProblemSteps(problems []auditlog.Problem) []engine.UndoStep {
	var steps []engine.UndoStep
	for _, p := range problems {
		steps = append(steps, engine.UndoStep{Resource: fmt.Sprintf("line %d", p.Line), Action: engine.UndoRefused, Message: p.Reason})
	}
	return steps
}
