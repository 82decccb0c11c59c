package engine

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// PartitionLag is one partition of a group's lag. Committed is -1 when the
// group has no commit for the partition; Lag is then counted from the log
// start offset (what the group would read from "earliest"), as kadm does.
// Lag is -1 when it could not be computed (Err says why). MemberID and
// ClientID are empty for partitions no member is assigned.
type PartitionLag struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Committed int64  `json:"committed"`
	EndOffset int64  `json:"end_offset"`
	Lag       int64  `json:"lag"`
	MemberID  string `json:"member_id,omitempty"`
	ClientID  string `json:"client_id,omitempty"`
	// With LagOptions.Time (lag_time.go): OldestUnconsumed is the
	// timestamp (ms) of the first record not yet read, LagMs now minus it
	// (0 when caught up), BehindHeadMs the partition's newest timestamp
	// minus it; TimeUnknown says why a lagging partition has none.
	OldestUnconsumed *int64 `json:"oldest_unconsumed,omitempty"`
	LagMs            *int64 `json:"lag_ms,omitempty"`
	BehindHeadMs     *int64 `json:"behind_head_ms,omitempty"`
	TimestampType    string `json:"timestamp_type,omitempty"` // CreateTime or LogAppendTime
	TimeUnknown      string `json:"time_unknown,omitempty"`
	// RecordsLost is how many records were deleted before the group read
	// them: the log start minus the committed offset, when positive.
	RecordsLost int64 `json:"records_lost"`
	// AtRisk (with LagOptions.Time): the unread records will soon be
	// deleted: the lag in time has reached LagOptions.AtRisk of the
	// topic's retention.ms, or, for a topic with retention.bytes, the
	// partition has reached that fraction of it and the committed offset
	// is in its oldest segment (the next to go). AtRiskBy names the
	// config that decided.
	AtRisk   bool   `json:"at_risk,omitempty"`
	AtRiskBy string `json:"at_risk_by,omitempty"`
	// With AtRisk, estimates (lag_retention.go): the ms until retention
	// next deletes the oldest segment (0: due), by which config, how many
	// of the group's unread records go (0: none); Unknown: why one is nil.
	NextDeletionMs      *int64 `json:"next_deletion_ms,omitempty"`
	NextDeletionRecords *int64 `json:"next_deletion_records,omitempty"`
	NextDeletionBy      string `json:"next_deletion_by,omitempty"`
	NextDeletionUnknown string `json:"next_deletion_unknown,omitempty"`
	// StuckMs (with LagOptions.Time): how long the committed offset has
	// not moved while the partition lags, by the state store's samples
	// (lag_status's, in this process or in the --state file); nil when
	// the store has no earlier sample at this offset.
	StuckMs *int64 `json:"stuck_ms,omitempty"`
	// Tiered storage (with LagOptions.Time, lag_tiered.go): ReadingRemote
	// is true when the first unread record is no longer on the brokers'
	// disks, only in remote storage (below EarliestLocal, set for tiered
	// topics); RemoteOnly counts the unread records only there. Both are
	// nil for a topic without tiered storage, and with RemoteUnknown
	// saying why when it cannot be known.
	ReadingRemote *bool  `json:"reading_remote,omitempty"`
	RemoteOnly    *int64 `json:"remote_only,omitempty"`
	EarliestLocal *int64 `json:"earliest_local,omitempty"`
	RemoteUnknown string `json:"remote_unknown,omitempty"`
	Err           *Error `json:"error,omitempty"`

	logStart int64 // the log start offset, -1 unknown (for retention.bytes)
}

// firstUnread is the first offset the group has not read that is still in
// the log: its committed offset (the log start without a commit), or the
// log start when the records from the committed offset on were deleted
// unread (RecordsLost): their age is then a floor of the lag in time.
func (p PartitionLag) firstUnread() int64 {
	return max(p.EndOffset-p.Lag, p.logStart)
}

// GroupLag is one result of Lag.
type GroupLag struct {
	Group    string `json:"group"`
	State    string `json:"state"`
	TotalLag int64  `json:"total_lag"`
	// MaxLagMs (with LagOptions.Time): the largest lag_ms; nil when the
	// only lagging partitions with a record to read have odd timestamps.
	MaxLagMs *int64 `json:"max_lag_ms,omitempty"`
	// MaxLag is the largest lag of a partition (0 when none lags),
	// PartitionCount how many partitions the group has, Lagging how many
	// of them lag; WorstTopic and WorstPartition name the partition with
	// the most lag (the first in topic order among equals), nil when none
	// lags. Like the totals, they count every partition, whatever the
	// shaping options leave in Partitions.
	MaxLag         int64   `json:"max_lag"`
	PartitionCount int     `json:"partition_count"`
	Lagging        int     `json:"lagging"`
	WorstTopic     *string `json:"worst_topic,omitempty"`
	WorstPartition *int32  `json:"worst_partition,omitempty"`
	// RecordsLost sums the partitions'; AtRisk counts those at risk.
	RecordsLost int64 `json:"records_lost"`
	AtRisk      int   `json:"at_risk,omitempty"`
	// ReadingRemote (with Time) counts the partitions reading from remote
	// storage; RemoteOnly sums their unread records only there.
	ReadingRemote int   `json:"reading_remote,omitempty"`
	RemoteOnly    int64 `json:"remote_only,omitempty"`
	// RemoteUnknown counts the lagging partitions of which it is not known
	// (their remote_unknown says why): ReadingRemote does not speak for them.
	RemoteUnknown int `json:"remote_unknown,omitempty"`
	// Partitions is nil in a summary (LagSummary, Summary).
	Partitions []PartitionLag `json:"partitions,omitempty"`
	Err        *Error         `json:"error,omitempty"`
	// FailedIn names the phase whose failure Err is (PhaseDescribeGroups,
	// PhaseFetchOffsets, PhaseListOffsets, PhaseFirstRecords): nothing
	// of the group is judged from what the other phases read.
	FailedIn string `json:"failed_in,omitempty"`

	// OddTimestamps (with Time): lagging partitions whose first unread
	// record's timestamp is negative or ahead (lag_time.go): no lag in time.
	OddTimestamps int `json:"odd_timestamps,omitempty"`
}

func (g GroupLag) Key() string { return g.Group }

func (g GroupLag) Failure() *Error { return g.Err }

// FailurePhase is the phase the group's error came from (FailedIn).
func (g GroupLag) FailurePhase() string { return g.FailedIn }

// Lag computes groups' lag (all consumer groups, classic and KIP-848, and
// streams groups when groups is empty), sorted by group then topic and
// partition. A group's partitions are those assigned to its members, those
// it committed to, and every other partition of those topics (a consumer of
// a topic is expected to read all of it); a streams group's are those of
// every topic its topology consumes (source and repartition topics), its
// members' being those their active tasks consume. A failed partition (no end offset) gets lag -1 and its
// error, and fails its group; partitions of topics that no longer exist keep
// their UNKNOWN_TOPIC_OR_PARTITION error without failing the group (stale
// commits are common and harmless).
//
// kadm.Client.Lag is not used because it describes groups with the classic
// DescribeGroups only, which shows no members for KIP-848 groups; the
// computation is the same as kadm's CalculateGroupLagWithStartOffsets.
func (c *Client) Lag(ctx context.Context, groups []string) ([]GroupLag, error) {
	return c.LagWith(ctx, groups, LagOptions{})
}

// LagWith is Lag with options: with Time, the lag in time of each
// partition (lag_time.go). It reads the groups page by page (OpenLag) and
// keeps every row; LagSummary keeps one per group.
func (c *Client) LagWith(ctx context.Context, groups []string, o LagOptions) ([]GroupLag, error) {
	began := time.Now()
	cur, err := c.OpenLag(ctx, groups, o)
	if err != nil {
		return nil, err
	}
	defer cur.Close()
	out := make([]GroupLag, 0, cur.Groups())
	for {
		rows, err := cur.Next()
		if err != nil {
			return nil, err
		}
		if rows == nil {
			break
		}
		out = append(out, rows...)
	}
	if o.Observe > 0 {
		if err := c.observeCommits(ctx, out, began, o.Observe); err != nil {
			return nil, err
		}
	}
	return shapeLag(out, o), nil
}

// lagsByDefault says which listed groups lag() with no groups covers:
// consumer groups (KIP-848, and classic ones of protocol type consumer or
// none) and streams groups; not share groups (no committed offsets) nor
// Connect's and other classic protocols.
func lagsByDefault(g GroupSummary) bool {
	switch g.Type {
	case GroupTypeConsumer, GroupTypeStreams:
		return true
	case GroupTypeClassic:
		return g.ProtocolType == "consumer" || g.ProtocolType == ""
	}
	return false
}

// groupLag computes one group's per-partition lag, sorted by topic and
// partition: the partitions assigned to its members, those it committed
// to, and every other partition of those topics.
func groupLag(d GroupDescription, commits kadm.OffsetResponses, start, end kadm.ListedOffsets) []PartitionLag {
	type owner struct{ member, client string }
	var owners map[TopicPartition]owner
	// Each topic's partitions as a set of numbers: marked in a slice
	// indexed by partition, read back in order (no sort; a topic's
	// partitions are 0..n-1, give or take a deleted topic's commits).
	byTopic := map[string][]bool{}
	var sparse map[string][]int32 // partitions past denseLimit, if a broker says so
	mark := func(t string, p int32) {
		if p < 0 {
			return
		}
		if p >= denseLimit {
			if sparse == nil {
				sparse = map[string][]int32{}
			}
			if _, ok := byTopic[t]; !ok {
				byTopic[t] = nil
			}
			sparse[t] = append(sparse[t], p)
			return
		}
		s := byTopic[t]
		if int(p) >= len(s) {
			s = append(s, make([]bool, int(p)+1-len(s))...)
			byTopic[t] = s
		}
		s[p] = true
	}
	assigned := 0
	for _, m := range d.Members {
		assigned += len(m.Assignment)
	}
	if assigned > 0 {
		// Sized once: a running streams group's members own every
		// partition of its topology, hundreds per group.
		owners = make(map[TopicPartition]owner, assigned)
	}
	for _, m := range d.Members {
		for _, a := range m.Assignment {
			owners[a] = owner{m.MemberID, m.ClientID}
			mark(a.Topic, a.Partition)
		}
	}
	for t, ps := range commits {
		if _, ok := byTopic[t]; !ok {
			byTopic[t] = make([]bool, 0, len(end[t]))
		}
		for p := range ps {
			mark(t, p)
		}
	}
	for _, t := range d.inputs { // a streams group's topology: read, commit or not
		if _, ok := byTopic[t]; !ok {
			byTopic[t] = nil
		}
	}
	for t := range byTopic {
		for p := range end[t] {
			mark(t, p)
		}
	}
	n := 0
	for t, s := range byTopic {
		for _, in := range s {
			if in {
				n++
			}
		}
		if ps := sparse[t]; ps != nil {
			slices.Sort(ps)
			sparse[t] = slices.Compact(ps)
			n += len(sparse[t])
		}
	}

	out := make([]PartitionLag, 0, n)
	for _, t := range slices.Sorted(maps.Keys(byTopic)) {
		topicEnd, topicStart := end[t], start[t]
		var topicCommits map[int32]kadm.OffsetResponse
		if commits != nil {
			topicCommits = commits[t]
		}
		parts := make([]int32, 0, len(byTopic[t])+len(sparse[t]))
		for i, in := range byTopic[t] {
			if in {
				parts = append(parts, int32(i))
			}
		}
		for _, part := range append(parts, sparse[t]...) {
			p := PartitionLag{Topic: t, Partition: part, Committed: -1, Lag: -1, EndOffset: -1}
			if o, ok := owners[TopicPartition{Topic: t, Partition: part}]; ok {
				p.MemberID, p.ClientID = o.member, o.client
			}
			var err error
			if o, ok := topicCommits[part]; ok {
				p.Committed, err = o.At, o.Err
			}
			e, ok := topicEnd[part]
			switch {
			case err != nil:
			case ok:
				err = e.Err
			default:
				err = errNoEndOffset
				if missing, gone := topicEnd[-1]; gone && missing.Err != nil {
					err = missing.Err // the topic does not exist (any more)
				}
			}
			if err != nil {
				p.Err = AsError(err, d.Group+": "+vocab.PartitionKey(t, part))
				out = append(out, p)
				continue
			}
			p.EndOffset = e.Offset
			lag := e.Offset
			p.logStart = -1
			if s, ok := topicStart[part]; ok && s.Err == nil {
				lag = e.Offset - s.Offset
				p.logStart = s.Offset
				if p.Committed >= 0 && s.Offset > p.Committed {
					p.RecordsLost = s.Offset - p.Committed
				}
			}
			if p.Committed >= 0 {
				lag = e.Offset - p.Committed
			}
			p.Lag = max(lag, 0)
			out = append(out, p)
		}
	}
	return out
}

// denseLimit bounds the partition numbers groupLag marks in a slice.
const denseLimit = 1 << 20

var errNoEndOffset = &Error{Code: "LEADER_NOT_AVAILABLE", Message: "no end offset could be listed for this partition", Retriable: true}
