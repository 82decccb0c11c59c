package engine

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// Where ResetOffsets moves a group's offsets.
const (
	ResetToEarliest  = "earliest"  // the log start offset
	ResetToLatest    = "latest"    // the high watermark
	ResetToCurrent   = "current"   // the committed offset (latest where none)
	ResetToOffset    = "offset"    // Offset
	ResetShift       = "shift"     // the committed offset + Offset
	ResetToTimestamp = "timestamp" // the first offset at or after Timestamp
	ResetToGroup     = "group"     // another group's committed offsets
	ResetToExplicit  = "explicit"  // Offsets (a file's rows)
)

// ResetTarget says where to move offsets.
type ResetTarget struct {
	Kind      string // one of the ResetTo* constants
	Offset    int64  // ResetToOffset: the offset; ResetShift: how far (negative moves back)
	Timestamp int64  // ResetToTimestamp: milliseconds since the epoch
	Group     string // ResetToGroup: the group whose commits are copied
	Source    string // ResetToExplicit: where Offsets came from, for messages ("offsets.csv")
	Offsets   map[TopicPartition]int64
}

// ResetOptions say which group, which partitions, and where.
type ResetOptions struct {
	Group string
	// Topics are reset on all their partitions, Partitions one by one.
	// With neither: the partitions the source has offsets for (the other
	// group for ResetToGroup, the rows for ResetToExplicit), else those the
	// group has committed offsets for.
	Topics     []string
	Partitions []TopicPartition
	To         ResetTarget
	DryRun     bool // plan only: nothing is removed or committed
	// Force resets a group that still has members: they are removed first
	// (as RemoveGroupMembers with no members does), then the offsets are
	// committed once the group is empty (see ResetOffsets).
	Force bool
}

// ResetOffset is one row of ResetOffsets' plan and outcome.
type ResetOffset struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Current   int64  `json:"current"` // the committed offset before; -1 where none
	Target    int64  `json:"target"`  // -1 when no target could be worked out (see Err)
	Clamped   bool   `json:"clamped,omitempty"`
	Err       *Error `json:"error,omitempty"`
}

func (r ResetOffset) Key() string     { return vocab.PartitionKey(r.Topic, r.Partition) }
func (r ResetOffset) Failure() *Error { return r.Err }

// ResetResult is ResetOffsets' outcome: the rows, the group's live member
// count beforehand, the members Force removed, and whether the targets were
// committed (false for a dry run and when a row has no target).
type ResetResult struct {
	Rows      []ResetOffset
	Members   int
	Removed   []RemovedMember
	Committed bool
}

// ResetOffsets moves a group's committed offsets, as kafka-consumer-groups
// --reset-offsets does. Every target is clamped to the partition's
// [log start, high watermark] (Clamped says so). The plan is worked out
// completely before anything changes: when any partition has no target
// (a shift without a commit, a partition the source does not have, a
// partition whose offsets cannot be listed) nothing is committed and the
// rows carry the errors. Otherwise, unless DryRun, the targets are
// committed (CommitOffsets) and each row carries its commit's error.
//
// A group with members is refused with NON_EMPTY_GROUP before anything is
// worked out, because Kafka refuses admin commits to it (UNKNOWN_MEMBER_ID),
// classic and KIP-848 groups alike. Force removes the members first (as
// RemoveGroupMembers with no members), waits until the group is empty and
// commits. Consumers still running learn of their removal at their next
// heartbeat, their commits under the old member id are refused, and they
// rejoin and resume from the committed (reset) offsets; one that rejoins
// before the commit makes the wait end in TIMEOUT or the commit fail with
// UNKNOWN_MEMBER_ID. Stopping the consumers first remains the safe way.
// A group that does not exist is created by the commit.
func (c *Client) ResetOffsets(ctx context.Context, o ResetOptions) (ResetResult, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	res := ResetResult{}
	if err := o.To.check(); err != nil {
		return res, err
	}
	ds, err := c.describeGroups(ctx, []string{o.Group})
	if err != nil {
		return res, err
	}
	members := 0
	if d := ds[0]; d.Err == nil {
		members = len(d.Members)
	} else if d.Err.Code != kerr.GroupIDNotFound.Message {
		return res, d.Err
	}
	res.Members = members
	if members > 0 && ds[0].typ == GroupTypeStreams {
		// Kafka has no admin request removing a streams group's members,
		// and kafka-streams-groups.sh --reset-offsets refuses too.
		return res, &Error{Code: kerr.NonEmptyGroup.Message, Resource: o.Group,
			Message: fmt.Sprintf("streams group %s has %d live member(s): stop the application's instances first (force cannot remove a streams group's members)", o.Group, members)}
	}
	if members > 0 && !o.Force {
		return res, &Error{Code: kerr.NonEmptyGroup.Message, Resource: o.Group,
			Message: fmt.Sprintf("group %s has %d live member(s): stop its consumers first (or force it: force=true in reset_offsets, --force in the runbooks, removes the members)", o.Group, members)}
	}

	commits, ferr := c.fetchOffsets(ctx, o.Group)
	if ferr != nil {
		return res, ferr
	}
	current := map[TopicPartition]int64{}
	for _, r := range commits.Sorted() {
		if r.Err == nil {
			current[TopicPartition{Topic: r.Topic, Partition: r.Partition}] = r.At
		}
	}
	source, err := c.resetSource(ctx, o.To)
	if err != nil {
		return res, err
	}
	tps, err := c.resetScope(ctx, o, current, source)
	if err != nil {
		return res, err
	}
	rows, err := c.planReset(ctx, o.To, tps, current, source)
	if err != nil {
		return res, err
	}
	res.Rows = rows
	if o.DryRun || slices.ContainsFunc(rows, func(r ResetOffset) bool { return r.Err != nil }) {
		return res, nil
	}

	if members > 0 {
		removed, err := c.RemoveGroupMembers(ctx, o.Group, nil, RemoveMembersOptions{})
		if err != nil {
			return res, err
		}
		res.Removed = removed
		if f, _ := FirstFailure(removed); f != nil {
			return res, f
		}
		if err := c.waitEmpty(ctx, o.Group); err != nil {
			return res, err
		}
	}
	commitsToMake := make([]OffsetCommit, 0, len(rows))
	for _, r := range rows {
		commitsToMake = append(commitsToMake, OffsetCommit{Topic: r.Topic, Partition: r.Partition, Offset: r.Target, LeaderEpoch: -1})
	}
	committed, err := c.commitOffsets(ctx, "reset_offsets", o.Group, commitsToMake)
	if err != nil {
		return res, err
	}
	res.Committed = true
	for i := range res.Rows {
		res.Rows[i].Err = committed[i].Err // both sorted by topic and partition
	}
	return res, nil
}

func (t ResetTarget) check() *Error {
	switch t.Kind {
	case ResetToEarliest, ResetToLatest, ResetToCurrent, ResetShift:
	case ResetToOffset:
		if t.Offset < 0 {
			return Errorf(CodeInvalidArgument, "", "offset must be >= 0, got %d", t.Offset)
		}
	case ResetToTimestamp:
		if t.Timestamp < 0 {
			return Errorf(CodeInvalidArgument, "", "timestamp must be >= 0 (milliseconds since the epoch), got %d", t.Timestamp)
		}
	case ResetToGroup:
		if t.Group == "" {
			return Errorf(CodeInvalidArgument, "", "the group to copy from is empty")
		}
	case ResetToExplicit:
		if len(t.Offsets) == 0 {
			return Errorf(CodeInvalidArgument, "", "%s has no offsets", orStr(t.Source, "the offsets list"))
		}
	default:
		return Errorf(CodeInvalidArgument, "", "unknown reset target %q", t.Kind)
	}
	return nil
}

func orStr(s, def string) string {
	if s != "" {
		return s
	}
	return def
}

// resetSource returns the offsets a group copy or a file gives, else nil.
func (c *Client) resetSource(ctx context.Context, t ResetTarget) (map[TopicPartition]int64, error) {
	switch t.Kind {
	case ResetToExplicit:
		return t.Offsets, nil
	case ResetToGroup:
		fetched, err := c.fetchOffsets(ctx, t.Group)
		if err != nil {
			return nil, err
		}
		out := map[TopicPartition]int64{}
		for _, r := range fetched.Sorted() {
			if r.Err == nil && r.At >= 0 {
				out[TopicPartition{Topic: r.Topic, Partition: r.Partition}] = r.At
			}
		}
		if len(out) == 0 {
			return nil, &Error{Code: CodeNotFound, Resource: t.Group, Message: fmt.Sprintf("group %s has no committed offsets to copy", t.Group)}
		}
		return out, nil
	}
	return nil, nil
}

// resetScope works out which partitions to reset, sorted.
func (c *Client) resetScope(ctx context.Context, o ResetOptions, current, source map[TopicPartition]int64) ([]TopicPartition, error) {
	if len(o.Topics) > 0 || len(o.Partitions) > 0 {
		tps, missing, err := c.resolvePartitions(ctx, o.Topics, o.Partitions)
		if err != nil {
			return nil, err
		}
		if len(missing) > 0 {
			return nil, missing[0].Err
		}
		return tps, nil
	}
	from := current
	if source != nil {
		from = source
	}
	if len(from) == 0 {
		return nil, Errorf(CodeInvalidArgument, o.Group, "group %s has no committed offsets: name the topics to reset", o.Group)
	}
	tps := make([]TopicPartition, 0, len(from))
	topics := map[string]bool{}
	for tp := range from {
		tps = append(tps, tp)
		topics[tp.Topic] = true
	}
	// The partitions must exist: a file's typo or a copied group's deleted
	// topic is caught before anything is committed.
	if _, missing, err := c.resolvePartitions(ctx, nil, tps); err != nil {
		return nil, err
	} else if len(missing) > 0 {
		return nil, missing[0].Err
	}
	sortTPs(tps)
	return tps, nil
}

// planReset computes each partition's target, clamped to its range.
func (c *Client) planReset(ctx context.Context, t ResetTarget, tps []TopicPartition, current, source map[TopicPartition]int64) ([]ResetOffset, error) {
	starts, err := c.listOffsets(ctx, tps, OffsetQuery{Kind: OffsetAtEarliest})
	if err != nil {
		return nil, err
	}
	ends, err := c.listOffsets(ctx, tps, OffsetQuery{Kind: OffsetAtLatest})
	if err != nil {
		return nil, err
	}
	var at []ListedOffset
	if t.Kind == ResetToTimestamp {
		if at, err = c.listOffsets(ctx, tps, OffsetQuery{Kind: OffsetAtTimestamp, Timestamp: t.Timestamp}); err != nil {
			return nil, err
		}
	}
	rows := make([]ResetOffset, 0, len(tps))
	for i, tp := range tps {
		r := ResetOffset{Topic: tp.Topic, Partition: tp.Partition, Current: -1, Target: -1}
		cur, hasCur := current[tp]
		if hasCur {
			r.Current = cur
		}
		start, end := starts[i], ends[i]
		if r.Err = orE(start.Err, end.Err); r.Err != nil {
			rows = append(rows, r)
			continue
		}
		var target int64
		switch t.Kind {
		case ResetToEarliest:
			target = start.Offset
		case ResetToLatest:
			target = end.Offset
		case ResetToCurrent:
			target = end.Offset
			if hasCur {
				target = cur
			}
		case ResetToOffset:
			target = t.Offset
		case ResetShift:
			if !hasCur {
				r.Err = &Error{Code: CodeNotFound, Resource: tp.String(), Message: "no committed offset to shift from"}
				rows = append(rows, r)
				continue
			}
			target = cur + t.Offset
		case ResetToTimestamp:
			if r.Err = at[i].Err; r.Err != nil {
				rows = append(rows, r)
				continue
			}
			target = at[i].Offset
		case ResetToGroup, ResetToExplicit:
			off, ok := source[tp]
			if !ok {
				r.Err = &Error{Code: CodeNotFound, Resource: tp.String(), Message: fmt.Sprintf("%s has no offset for this partition", sourceName(t))}
				rows = append(rows, r)
				continue
			}
			target = off
		}
		r.Target = min(max(target, start.Offset), end.Offset)
		r.Clamped = r.Target != target
		rows = append(rows, r)
	}
	return rows, nil
}

func sourceName(t ResetTarget) string {
	if t.Kind == ResetToGroup {
		return "group " + t.Group
	}
	return orStr(t.Source, "the offsets list")
}

func orE(a, b *Error) *Error {
	if a != nil {
		return a
	}
	return b
}

// waitEmpty polls until the group has no members (classic groups pass
// through PreparingRebalance after their members are removed).
func (c *Client) waitEmpty(ctx context.Context, group string) error {
	for attempt := 0; ; attempt++ {
		ds, err := c.describeGroups(ctx, []string{group})
		if err != nil {
			return err
		}
		d := ds[0]
		if d.Err != nil && d.Err.Code != kerr.GroupIDNotFound.Message {
			return d.Err
		}
		if d.Err != nil || (len(d.Members) == 0 && d.State != "PreparingRebalance" && d.State != "CompletingRebalance") {
			return nil
		}
		progressf(ctx, "waiting for group %s to empty: %d member(s), state %s", group, len(d.Members), d.State)
		if !vocab.Backoff(ctx, attempt) {
			return ctxError(ctx, group, &Error{Code: kerr.NonEmptyGroup.Message,
				Message: fmt.Sprintf("group %s still has %d member(s) (state %s) after they were removed: are its consumers still running?", group, len(d.Members), d.State)})
		}
	}
}

// ParseOffsetsCSV reads offsets in kafka-consumer-groups' --from-file
// format: lines "topic,partition,offset" (with or without a header line
// starting with "topic"; blank lines and lines starting with # are
// skipped). The group column of the --export format with several groups,
// "group,topic,partition,offset", is not accepted: one group per file.
func ParseOffsetsCSV(r io.Reader, name string) (map[TopicPartition]int64, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.Comment = '#'
	cr.TrimLeadingSpace = true
	out := map[TopicPartition]int64{}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, Errorf(CodeInvalidArgument, name, "%v", err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if len(out) == 0 && strings.EqualFold(strings.TrimSpace(rec[0]), "topic") {
			continue // header
		}
		if len(rec) != 3 {
			return nil, Errorf(CodeInvalidArgument, name, "line %d: want topic,partition,offset, got %d field(s)", line, len(rec))
		}
		topic := strings.TrimSpace(rec[0])
		p, perr := strconv.ParseInt(strings.TrimSpace(rec[1]), 10, 32)
		off, oerr := strconv.ParseInt(strings.TrimSpace(rec[2]), 10, 64)
		switch {
		case topic == "":
			return nil, Errorf(CodeInvalidArgument, name, "line %d: empty topic", line)
		case perr != nil || p < 0:
			return nil, Errorf(CodeInvalidArgument, name, "line %d: partition must be a non-negative integer, got %q", line, rec[1])
		case oerr != nil || off < 0:
			return nil, Errorf(CodeInvalidArgument, name, "line %d: offset must be a non-negative integer, got %q", line, rec[2])
		}
		tp := TopicPartition{Topic: topic, Partition: int32(p)}
		if _, dup := out[tp]; dup {
			return nil, Errorf(CodeInvalidArgument, name, "line %d: %s is given twice", line, tp)
		}
		out[tp] = off
	}
	if len(out) == 0 {
		return nil, Errorf(CodeInvalidArgument, name, "no offsets in the file")
	}
	return out, nil
}

// ParseRelativeDuration reads a duration for a reset relative to now: Go's
// syntax ("-1h30m", "90s"; a leading '-' goes back) or ISO-8601's
// ("PT1H", "-P1DT2H", "P2D"; days are 24 hours, no years or months). A
// duration without a sign goes back too: "1h" and "-1h" both mean an hour
// ago, as kafka-consumer-groups --by-duration PT1H does; "+1h" is refused.
func ParseRelativeDuration(s string) (time.Duration, error) {
	in := strings.TrimSpace(s)
	if strings.HasPrefix(in, "+") {
		return 0, fmt.Errorf("%q: a reset cannot go into the future", s)
	}
	in = strings.TrimPrefix(in, "-")
	var d time.Duration
	var err error
	if strings.HasPrefix(strings.ToUpper(in), "P") {
		d, err = parseISODuration(strings.ToUpper(in))
	} else {
		d, err = time.ParseDuration(in)
	}
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not a duration (want Go syntax like \"-1h30m\" or ISO-8601 like \"PT1H\")", s)
	}
	return -d, nil
}

func parseISODuration(s string) (time.Duration, error) {
	rest := strings.TrimPrefix(s, "P")
	if rest == "" {
		return 0, errors.New("empty")
	}
	var d time.Duration
	inTime := false
	units := map[bool]map[byte]time.Duration{
		false: {'D': 24 * time.Hour, 'W': 7 * 24 * time.Hour},
		true:  {'H': time.Hour, 'M': time.Minute, 'S': time.Second},
	}
	for rest != "" {
		if rest[0] == 'T' {
			if inTime {
				return 0, errors.New("two T")
			}
			inTime, rest = true, rest[1:]
			continue
		}
		i := strings.IndexFunc(rest, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
		if i <= 0 {
			return 0, errors.New("bad number")
		}
		n, err := strconv.ParseFloat(rest[:i], 64)
		if err != nil {
			return 0, err
		}
		unit, ok := units[inTime][rest[i]]
		if !ok {
			return 0, fmt.Errorf("unit %c", rest[i])
		}
		d += time.Duration(n * float64(unit))
		rest = rest[i+1:]
	}
	return d, nil
}
