package luaapi

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/internal/boundedfile"
)

// The argument types of the groups area (consumer groups, share groups,
// offsets), declared once and shared by its functions.

// topicScope is a set of whole topics and single partitions:
// delete_group_offsets' and reset_offsets' topics.
type topicScope struct {
	Topics     []string
	Partitions []engine.TopicPartition
}

// topicPartition is {topic=, partition=}.
var topicPartition = Record(
	Field{Name: "topic", Type: topicName, Required: true},
	Field{Name: "partition", Type: partitionNum, Doc: "required: give the topic's name alone to mean all its partitions"},
).Then(func(rec Rec, at string) (any, error) {
	if !rec.Has("partition") {
		return nil, argErr(subPath(at, "partition"), "is required (or give the topic's name to mean all its partitions)")
	}
	return engine.TopicPartition{Topic: get[string](rec, "topic"), Partition: get[int32](rec, "partition")}, nil
}).Described("{topic=, partition=}").Sample(`{topic = "t", partition = 0}`)

var topicScopeList = List[any](OneOf(topicName, topicPartition)).NonEmpty()

// topicScopeType reads a topic name, a {topic=, partition=} record, or an
// array mixing both.
var topicScopeType = Custom("topic name or {topic=, partition=}, or an array of them", `"t"`,
	func(r *reader, v lua.LValue, at string) (any, error) {
		xs, err := topicScopeList.read(r, v, at)
		if err != nil {
			return nil, err
		}
		var s topicScope
		for _, x := range xs.([]any) {
			switch x := x.(type) {
			case string:
				s.Topics = append(s.Topics, x)
			case engine.TopicPartition:
				s.Partitions = append(s.Partitions, x)
			}
		}
		return s, nil
	}, lua.LTString, lua.LTTable).Like(topicScopeList)

// givenTwice refuses an argument that names partition tp twice
// (engine.RepeatedPartition finds it).
func givenTwice(at string, tp engine.TopicPartition) error {
	return argErr(at, "%s is given twice", tp)
}

// uniquePartitions reads list (an array of records naming a partition
// each) and refuses a partition given twice: Kafka would apply one of the
// two, and which one is not said.
func uniquePartitions[T any](list *ListType, key func(T) engine.TopicPartition) *ListType {
	return list.Then(func(x any, at string) (any, error) {
		items := x.([]T)
		k, dup := engine.RepeatedPartition(items, key)
		if !dup {
			return items, nil
		}
		// Name the second row that gives it.
		i, n := 0, 0
		for i = range items {
			if key(items[i]) == k {
				if n++; n == 2 {
					break
				}
			}
		}
		return nil, givenTwice(subPath(list.itemAt(at, i+1, false), "partition"), k)
	})
}

// offsetCommits is commit_offsets' offsets.
var offsetCommits = uniquePartitions(List[engine.OffsetCommit](Record(
	Field{Name: "topic", Type: topicName, Required: true},
	Field{Name: "partition", Type: partitionNum, Required: true},
	Field{Name: "offset", Type: offsetNum, Required: true, Doc: "the next offset the group will read"},
	Field{Name: "leader_epoch", Type: leaderEpoch, Doc: "-1 (unknown) when left out"},
	Field{Name: "metadata", Type: Str(), Doc: "stored with the commit"},
).Then(func(rec Rec, _ string) (any, error) {
	o := engine.OffsetCommit{Topic: get[string](rec, "topic"), Partition: get[int32](rec, "partition"),
		Offset: get[int64](rec, "offset"), LeaderEpoch: -1, Metadata: get[string](rec, "metadata")}
	if rec.Has("leader_epoch") {
		o.LeaderEpoch = get[int32](rec, "leader_epoch")
	}
	return o, nil
})).Items("offsets").NonEmpty(), func(o engine.OffsetCommit) engine.TopicPartition {
	return engine.TopicPartition{Topic: o.Topic, Partition: o.Partition}
})

// shareOffsets is alter_share_group_offsets' offsets.
var shareOffsets = uniquePartitions(List[engine.ShareOffsetResult](Record(
	Field{Name: "topic", Type: topicName, Required: true},
	Field{Name: "partition", Type: partitionNum, Required: true},
	Field{Name: "offset", Type: offsetNum, Required: true, Doc: "the new start offset"},
).Then(func(rec Rec, _ string) (any, error) {
	return engine.ShareOffsetResult{Topic: get[string](rec, "topic"), Partition: get[int32](rec, "partition"), Offset: get[int64](rec, "offset")}, nil
})).Items("offsets").NonEmpty(), func(o engine.ShareOffsetResult) engine.TopicPartition {
	return engine.TopicPartition{Topic: o.Topic, Partition: o.Partition}
})

// memberRefList is remove_group_members' members.
var memberRefList = List[engine.MemberRef](Record(
	Field{Name: "member_id", Type: NonEmptyStr(), Doc: "a member's id, as describe_groups shows it (Kafka 2.6+)"},
	Field{Name: "instance_id", Type: NonEmptyStr(), Doc: "a static member's group.instance.id (KIP-345)"},
).Then(func(rec Rec, at string) (any, error) {
	if !rec.Has("member_id") && !rec.Has("instance_id") {
		return nil, argErr(at, "needs member_id or instance_id")
	}
	return engine.MemberRef{MemberID: get[string](rec, "member_id"), InstanceID: get[string](rec, "instance_id")}, nil
}).Described("{member_id=} or {instance_id=}").Sample(`{member_id = "m"}`)).Items("members").NonEmpty()

var memberRefs = Custom(memberRefList.Doc(), memberRefList.sample(), func(r *reader, v lua.LValue, at string) (any, error) {
	if t, ok := v.(*lua.LTable); ok {
		if k, _ := t.Next(lua.LNil); k == lua.LNil {
			return nil, argErr(at, "must name at least one member (leave members out to remove them all)")
		}
	}
	return memberRefList.read(r, v, at)
}, lua.LTTable)

// ---- reset_offsets' to=

// resetNames are the targets to= names with a string.
var resetNames = []string{engine.ResetToEarliest, engine.ResetToLatest, engine.ResetToCurrent}

// resetTargets names every form of to=, for errors.
const resetTargets = `earliest, latest, current, {offset=}, {shift=}, {timestamp=}, {datetime=}, {duration=}, {group=}, {file=}`

// maxShift bounds a shift to where a Lua number is exact (and the
// committed offset plus the shift cannot overflow an int64).
const maxShift = 1 << 53

var resetTargetType = OneOf(
	Custom(`"earliest", "latest" or "current"`, `"earliest"`, func(_ *reader, v lua.LValue, at string) (any, error) {
		s := strings.ToLower(string(v.(lua.LString)))
		for _, n := range resetNames {
			if s == n {
				return engine.ResetTarget{Kind: n}, nil
			}
		}
		msg := fmt.Sprintf("unknown target %s (want %s)", describe(v), resetTargets)
		if near := suggest(s, resetNames); near != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", near)
		}
		return nil, argErr(at, "%s", msg)
	}, lua.LTString).Like(Enum(resetNames...)),
	Record(
		Field{Name: "offset", Type: offsetNum, Doc: "this offset on every partition"},
		Field{Name: "shift", Type: Int64(-maxShift).Between(-maxShift, maxShift).Named("shift"), Doc: "the committed offset moved by this many (negative goes back)"},
		Field{Name: "timestamp", Type: timestampMs, Doc: "the first offset whose record is at or after this time"},
		Field{Name: "datetime", Type: NonEmptyStr(), Doc: `the same for an RFC 3339 time with a zone: "2026-11-30T10:00:00Z"`},
		Field{Name: "duration", Type: NonEmptyStr(), Doc: `the same for now minus a duration: "-1h30m", "PT1H"`},
		Field{Name: "group", Type: groupID, Doc: "another group's committed offsets"},
		Field{Name: "file", Type: NonEmptyStr(), Doc: "a CSV of topic,partition,offset lines"},
	).Then(readResetTarget),
).Described("one of " + resetTargets)

// readResetTarget turns to={...} into the engine's target; it reads the
// file and works out the time here, so a bad one sends nothing.
func readResetTarget(rec Rec, at string) (any, error) {
	if len(rec) != 1 {
		return nil, argErr(at, "must have exactly one of offset=, shift=, timestamp=, datetime=, duration=, group=, file=, got %d keys", len(rec))
	}
	switch {
	case rec.Has("offset"):
		return engine.ResetTarget{Kind: engine.ResetToOffset, Offset: get[int64](rec, "offset")}, nil
	case rec.Has("shift"):
		return engine.ResetTarget{Kind: engine.ResetShift, Offset: get[int64](rec, "shift")}, nil
	case rec.Has("timestamp"):
		return engine.ResetTarget{Kind: engine.ResetToTimestamp, Timestamp: get[int64](rec, "timestamp")}, nil
	case rec.Has("datetime"):
		s := get[string](rec, "datetime")
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return nil, argErr(subPath(at, "datetime"), "must be an RFC 3339 time with a zone like \"2026-11-30T10:00:00Z\", got %q", s)
		}
		return timeTarget(t, subPath(at, "datetime"))
	case rec.Has("duration"):
		d, err := engine.ParseRelativeDuration(get[string](rec, "duration"))
		if err != nil {
			return nil, argErr(subPath(at, "duration"), "%v", err)
		}
		return timeTarget(time.Now().Add(d), subPath(at, "duration"))
	case rec.Has("group"):
		return engine.ResetTarget{Kind: engine.ResetToGroup, Group: get[string](rec, "group")}, nil
	}
	return readOffsetsFile(get[string](rec, "file"), subPath(at, "file"))
}

func timeTarget(t time.Time, at string) (any, error) {
	if t.Before(time.UnixMilli(0)) {
		return nil, argErr(at, "is before 1970-01-01T00:00:00Z, got %s", t.UTC().Format(time.RFC3339))
	}
	return engine.ResetTarget{Kind: engine.ResetToTimestamp, Timestamp: t.UnixMilli()}, nil
}

func readOffsetsFile(name, at string) (any, error) {
	b, err := boundedfile.Read(name, boundedfile.Offsets)
	if err != nil {
		return nil, argErr(at, "%v", err)
	}
	offsets, err := engine.ParseOffsetsCSV(bytes.NewReader(b), name)
	if err != nil {
		if e, ok := err.(*engine.Error); ok {
			return nil, argErr(at, "%s: %s", name, e.Message)
		}
		return nil, argErr(at, "%s: %v", name, err)
	}
	return engine.ResetTarget{Kind: engine.ResetToExplicit, Source: name, Offsets: offsets}, nil
}

// ---- list_offsets' at

// offsetAt is list_offsets' at: the query, and partial when given inside
// at ({timestamp=ms, partial=true}, as the options table's partial).
type offsetAt struct {
	Query   engine.OffsetQuery
	Partial bool
}

// offsetAtDoc names every form of at, for docs and errors.
var offsetAtDoc = "one of " + strings.Join(quoted(engine.OffsetKinds), ", ") + " or {timestamp=ms}"

var offsetAtType = OneOf(
	Custom(strings.Join(quoted(engine.OffsetKinds), ", "), `"latest"`, func(_ *reader, v lua.LValue, at string) (any, error) {
		s := strings.ToLower(string(v.(lua.LString)))
		for _, k := range engine.OffsetKinds {
			if s == k {
				return offsetAt{Query: engine.OffsetQuery{Kind: k}}, nil
			}
		}
		msg := fmt.Sprintf("must be %s, got %s", offsetAtDoc, describe(v))
		if near := suggest(s, engine.OffsetKinds); near != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", near)
		}
		return nil, argErr(at, "%s", msg)
	}, lua.LTString).Like(Enum(engine.OffsetKinds...)),
	Record(
		Field{Name: "timestamp", Type: timestampMs, Required: true, Doc: "the first offset whose record timestamp is at or after this time"},
		Field{Name: "partial", Type: Bool(), Doc: "as the options' partial: {timestamp=ms, partial=true}"},
	).Then(func(rec Rec, _ string) (any, error) {
		return offsetAt{Query: engine.OffsetQuery{Kind: engine.OffsetAtTimestamp, Timestamp: get[int64](rec, "timestamp")},
			Partial: get[bool](rec, "partial")}, nil
	}),
).Described(offsetAtDoc)

// ---- list_offsets' topics, or one time per partition

// offsetTargets is list_offsets' first argument: topic names (every
// partition at one query), or per partition its own time
// ({orders = {[0] = ms, [3] = ms}}).
type offsetTargets struct {
	Topics []string
	Times  map[engine.TopicPartition]int64
}

var offsetTargetsType = Custom(
	"topic name, array of names, or {topic = {[partition] = timestamp in ms}}", `"orders"`,
	func(r *reader, v lua.LValue, at string) (any, error) {
		t, isT := v.(*lua.LTable)
		if !isT || looksLikeArray(t) {
			x, err := topicNames.NonEmpty().read(r, v, at)
			if err != nil {
				return nil, err
			}
			return offsetTargets{Topics: x.([]string)}, nil
		}
		if err := r.enter(t, at); err != nil {
			return nil, err
		}
		defer r.leave(t)
		times := map[engine.TopicPartition]int64{}
		var ferr error
		t.ForEach(func(k, pv lua.LValue) {
			if ferr != nil {
				return
			}
			name, ok := k.(lua.LString)
			if !ok {
				ferr = argErr(at, "mixes topic names and array items: give {topic = {[partition] = ms}} or an array of names")
				return
			}
			tat := r.sub(at, string(name))
			if _, err := topicName.read(r, name, tat); err != nil {
				ferr = err
				return
			}
			pt, ok := pv.(*lua.LTable)
			if !ok {
				ferr = argErr(tat, "must be a table {[partition] = timestamp in ms}, got %s", describe(pv))
				return
			}
			if err := r.enter(pt, tat); err != nil {
				ferr = err
				return
			}
			defer r.leave(pt)
			n := 0
			pt.ForEach(func(pk, tv lua.LValue) {
				if ferr != nil {
					return
				}
				n++
				pat := tat + "[" + pk.String() + "]"
				p, err := partitionNum.read(r, pk, pat)
				if err != nil {
					ferr = err
					return
				}
				ms, err := timestampMs.read(r, tv, pat)
				if err != nil {
					ferr = err
					return
				}
				times[engine.TopicPartition{Topic: string(name), Partition: p.(int32)}] = ms.(int64)
			})
			if ferr == nil && n == 0 {
				ferr = argErr(tat, "names no partition")
			}
		})
		if ferr != nil {
			return nil, ferr
		}
		return offsetTargets{Times: times}, nil
	}, lua.LTString, lua.LTTable).Like(topicNames.NonEmpty())
