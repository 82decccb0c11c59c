package engine

import (
	"context"
	"maps"
	"math"
	"slices"
	"strconv"
)

// topicRetention is what deletes a topic's records: retention.ms (-1:
// kept forever), retention.bytes (-1: no limit), and the segments they
// delete whole: segment.bytes and segment.ms (a segment rolls when it
// reaches either).
type topicRetention struct {
	ms, bytes, segment, segmentMs int64
}

// retentions are the lagging topics', and the size of each partition of
// those with retention.bytes.
type retentions struct {
	topics map[string]topicRetention
	sizes  map[TopicPartition]int64
	// tiered: the topics with remote.storage.enable; unread: those whose
	// configs could not be read; local: the earliest local offset of
	// their lagging partitions, -1 when it could not be listed
	// (lag_tiered.go).
	tiered, unread map[string]bool
	local          map[TopicPartition]int64
}

// atRisk names the config by which p's unread records will soon be
// deleted, "" when they will not: the lag in time has reached risk of
// retention.ms; or the partition has reached risk of retention.bytes and
// the committed offset is in its oldest segment (the next one deleted):
// its place in the log, at the partition's mean record size, is within
// segment.bytes of the start. (Segments are not visible through the
// admin API: the mean size is the one estimate, and it is said in docs.)
func (r retentions) atRisk(p *PartitionLag, lagMs int64, risk float64) string {
	t, ok := r.topics[p.Topic]
	if !ok {
		return ""
	}
	if t.ms > 0 && float64(lagMs) >= risk*float64(t.ms) {
		return "retention.ms"
	}
	size, ok := r.sizes[TopicPartition{Topic: p.Topic, Partition: p.Partition}]
	if t.bytes <= 0 || !ok || size <= 0 || p.logStart < 0 || p.EndOffset <= p.logStart || float64(size) < risk*float64(t.bytes) {
		return ""
	}
	unread := p.EndOffset - p.Lag
	perRecord := float64(size) / float64(p.EndOffset-p.logStart)
	segment := min(t.segment, size)
	if t.segment <= 0 {
		segment = size
	}
	if float64(unread-p.logStart)*perRecord < float64(segment) {
		return "retention.bytes"
	}
	return ""
}

// retention reads the retention of each topic with a lagging partition,
// from one DescribeConfigs request, and for those with retention.bytes the
// partitions' sizes (DescribeLogDirs, the largest replica). A topic whose
// configs or sizes cannot be read (not authorized) is left out: its
// partitions are not judged at risk, rather than the call failing.
func (c *Client) retention(ctx context.Context, out []GroupLag) (retentions, error) {
	var r retentions
	seen := map[string]bool{}
	var rs []ConfigResource
	for _, g := range out {
		for _, p := range g.Partitions {
			if p.Lag > 0 && p.Err == nil && !seen[p.Topic] {
				seen[p.Topic] = true
				rs = append(rs, ConfigResource{Type: ConfigTopic, Name: p.Topic})
			}
		}
	}
	if len(rs) == 0 {
		return r, nil
	}
	keys := append([]string{"retention.ms", "retention.bytes", "segment.bytes", "segment.ms"}, tieredConfigKeys...)
	described, err := c.DescribeConfigs(ctx, rs, DescribeConfigsOptions{Keys: keys})
	if err != nil {
		return r, err
	}
	r.topics, r.tiered, r.unread = map[string]topicRetention{}, map[string]bool{}, map[string]bool{}
	var bySize []string
	for _, d := range described {
		if d.Err != nil {
			r.unread[d.Name] = true
			continue
		}
		if e, ok := d.Configs["remote.storage.enable"]; ok && e.Value != nil && *e.Value == "true" {
			r.tiered[d.Name] = true
		}
		v := func(key string) int64 {
			if e, ok := d.Configs[key]; ok && e.Value != nil {
				if n, perr := strconv.ParseInt(*e.Value, 10, 64); perr == nil {
					return n
				}
			}
			return -1
		}
		t := topicRetention{ms: v("retention.ms"), bytes: v("retention.bytes"), segment: v("segment.bytes"), segmentMs: v("segment.ms")}
		r.topics[d.Name] = t
		if t.bytes > 0 {
			bySize = append(bySize, d.Name)
		}
	}
	if len(r.tiered) > 0 {
		if r.local, err = c.earliestLocal(ctx, out, r.tiered); err != nil {
			return r, err
		}
	}
	if len(bySize) == 0 {
		return r, nil
	}
	r.sizes = c.partitionSizes(ctx, bySize, nil) // nil when unreadable: judged by time only
	totalSizes(r.sizes, out, r.local, r.tiered)
	return r, nil
}

// partitionSizes adds to into the size of each partition of topics, its
// largest replica's (DescribeLogDirs), and returns it; nil when the log
// dirs could not be read.
func (c *Client) partitionSizes(ctx context.Context, topics []string, into map[TopicPartition]int64) map[TopicPartition]int64 {
	dirs, err := c.DescribeLogDirs(ctx, LogDirsQuery{Topics: topics})
	if err != nil {
		return into
	}
	if into == nil {
		into = map[TopicPartition]int64{}
	}
	for _, d := range dirs {
		for _, p := range d.Partitions {
			if tp := (TopicPartition{Topic: p.Topic, Partition: p.Partition}); !p.IsFuture && p.Size > into[tp] {
				into[tp] = p.Size
			}
		}
	}
	return into
}

// When and how many: for each partition at risk, an estimate of the next
// deletion of its oldest records, and how many of the group's unread
// records it takes. Kafka deletes whole segments, and the admin API shows
// no segment; the oldest segment is placed from what is visible:
//
//   - its records: segment.bytes over the partition's mean record size
//     (its size, DescribeLogDirs, over its offsets), and no further than
//     the first record stamped segment.ms after the oldest one
//     (ListOffsets by timestamp), a segment rolling at either;
//   - its newest timestamp: the record at its last offset (one Fetch);
//   - retention.ms deletes it at that timestamp plus retention.ms;
//   - retention.bytes deletes it once the partition holds retention.bytes
//     besides it, at the pace the partition grew: its size over the span
//     of its timestamps (oldest to newest record).
//
// Which comes first is the next deletion. Kafka runs it at its next
// retention check (log.retention.check.interval.ms, 5 minutes by
// default), so a due one (0) happens within minutes. What cannot be read
// leaves the estimate nil, with why: never 0.

// Why there is no estimate of the next deletion (NextDeletionUnknown).
const (
	deletionNoSegment = "the oldest segment cannot be placed: neither the partition's size (describe_log_dirs) nor its oldest record's timestamp could be read"
	deletionNoTime    = "no time can be estimated: the oldest segment's newest timestamp could not be read (or is negative or in the future)"
	deletionNoRate    = "no time can be estimated: retention.bytes deletes it once the partition grows, and its records span no time to measure a pace by"
)

// segmentEstimate is what is estimated of one partition's oldest segment
// and its deletion.
type segmentEstimate struct {
	takesEnd int64 // the next deletion takes the records below this offset; -1 unknown
	dueMs    int64 // ms from now; -1 unknown
	by       string
	why      string
}

// nextDeletions sets the Next* fields of out's partitions at risk.
func (c *Client) nextDeletions(ctx context.Context, out []GroupLag, r retentions, heads map[TopicPartition]ListedOffset, nowMs int64) error {
	type span struct{ start, end int64 }
	spans := map[TopicPartition]span{}
	var noSize []string
	for _, g := range out {
		for _, p := range g.Partitions {
			tp := TopicPartition{Topic: p.Topic, Partition: p.Partition}
			if !p.AtRisk || p.logStart < 0 || p.EndOffset <= p.logStart {
				continue
			}
			spans[tp] = span{p.logStart, p.EndOffset}
			if _, ok := r.sizes[tp]; !ok && !slices.Contains(noSize, p.Topic) {
				noSize = append(noSize, p.Topic)
			}
		}
	}
	if len(spans) == 0 {
		return nil
	}
	tps := slices.SortedFunc(maps.Keys(spans), compareTP)
	sizes := r.sizes
	if len(noSize) > 0 {
		sizes = c.partitionSizes(ctx, noSize, maps.Clone(sizes))
	}
	sane := func(ts int64) bool { return ts >= 0 && oddTimestamp(firstRecord{Timestamp: ts}, nowMs) == "" }

	// The oldest record of each, then where segment.ms rolled its segment.
	want := make([]RecordWant, 0, len(tps))
	for _, tp := range tps {
		want = append(want, RecordWant{tp, spans[tp].start})
	}
	oldest, err := c.firstRecords(ctx, want, 0)
	if err != nil {
		return err
	}
	first := func(tp TopicPartition, at int64, recs map[RecordWant]firstRecord) (int64, bool) {
		rec, ok := recs[RecordWant{tp, at}]
		return rec.Timestamp, ok && rec.Err == nil && rec.Found && sane(rec.Timestamp)
	}
	var byTime []TopicPartition
	for _, tp := range tps {
		if _, ok := first(tp, spans[tp].start, oldest); ok && r.topics[tp.Topic].segmentMs > 0 {
			byTime = append(byTime, tp)
		}
	}
	rolled := map[TopicPartition]ListedOffset{}
	if len(byTime) > 0 {
		listed, err := c.listOffsetsBy(ctx, byTime, func(tp TopicPartition) int64 {
			t0, _ := first(tp, spans[tp].start, oldest)
			return t0 + r.topics[tp.Topic].segmentMs
		}, 0)
		if err != nil {
			return err
		}
		for i, tp := range byTime {
			rolled[tp] = listed[i]
		}
	}

	// The oldest segment's records: the fewer of the two bounds.
	ends := map[TopicPartition]int64{}
	want = want[:0]
	for _, tp := range tps {
		sp, t := spans[tp], r.topics[tp.Topic]
		n := sp.end - sp.start
		records := int64(-1)
		if size := sizes[tp]; size > 0 && t.segment > 0 {
			records = max(1, int64(float64(t.segment)*float64(n)/float64(size))) // segment.bytes over the mean record size
		}
		if l, ok := rolled[tp]; ok && l.Err == nil {
			byMs := n // no record stamped that late: the segment has not rolled
			if l.Offset >= sp.start && l.Timestamp >= 0 {
				byMs = max(1, l.Offset-sp.start)
			}
			if records < 0 || byMs < records {
				records = byMs
			}
		}
		if records < 0 {
			continue
		}
		ends[tp] = sp.start + min(records, n)
		if ends[tp] < sp.end {
			want = append(want, RecordWant{tp, ends[tp] - 1})
		}
	}
	last, err := c.firstRecords(ctx, want, 0)
	if err != nil {
		return err
	}

	est := make(map[TopicPartition]segmentEstimate, len(tps))
	for _, tp := range tps {
		sp, t := spans[tp], r.topics[tp.Topic]
		end, ok := ends[tp]
		if !ok {
			est[tp] = segmentEstimate{takesEnd: -1, dueMs: -1, why: deletionNoSegment}
			continue
		}
		t0, t0ok := first(tp, sp.start, oldest)
		// The segment's newest timestamp: its last record's, or the
		// partition's newest while it is the segment being written (later
		// records put it later still).
		tmax, tmaxOK := first(tp, end-1, last)
		if end >= sp.end {
			h, hok := heads[tp]
			tmax, tmaxOK = h.Timestamp, hok && h.Err == nil && sane(h.Timestamp)
		}
		if tmaxOK && t0ok {
			tmax = max(tmax, t0)
		}
		e := segmentEstimate{takesEnd: end, dueMs: -1}
		if t.ms > 0 && tmaxOK {
			e.dueMs, e.by = max(0, tmax+t.ms-nowMs), "retention.ms"
		}
		if size := sizes[tp]; t.bytes > 0 && size > 0 {
			n := sp.end - sp.start
			segBytes := int64(float64(size) * float64(end-sp.start) / float64(n))
			switch over := size - t.bytes; {
			case over >= segBytes && segBytes > 0:
				// Due: every whole segment over the limit goes at once
				// (not the one being written).
				k := over / segBytes
				e.takesEnd = max(e.takesEnd, min(sp.start+k*(end-sp.start), sp.end))
				e.dueMs, e.by = 0, "retention.bytes"
			default:
				h, hok := heads[tp]
				if !t0ok || !hok || h.Err != nil || !sane(h.Timestamp) || h.Timestamp <= t0 {
					if e.dueMs < 0 {
						e.why = deletionNoRate
					}
					break
				}
				perMs := float64(size) / float64(h.Timestamp-t0)
				due := int64(math.Ceil(float64(t.bytes+segBytes-size) / perMs))
				if e.dueMs < 0 || due < e.dueMs {
					e.dueMs, e.by = due, "retention.bytes"
				}
			}
		}
		if e.dueMs < 0 && e.why == "" {
			e.why = deletionNoTime
		}
		est[tp] = e
	}

	for gi := range out {
		for pi := range out[gi].Partitions {
			p := &out[gi].Partitions[pi]
			e, ok := est[TopicPartition{Topic: p.Topic, Partition: p.Partition}]
			if !p.AtRisk || !ok {
				continue
			}
			p.NextDeletionBy, p.NextDeletionUnknown = e.by, e.why
			if e.dueMs >= 0 {
				due := e.dueMs
				p.NextDeletionMs = &due
			}
			if e.takesEnd >= 0 {
				unread := p.EndOffset - p.Lag
				records := min(max(e.takesEnd-unread, 0), p.Lag)
				p.NextDeletionRecords = &records
			}
		}
	}
	return nil
}
