package engine

import (
	"context"
	"maps"
	"slices"
)

// Tiered storage (KIP-405) in lag. A topic with remote.storage.enable keeps
// its older segments in remote storage (object storage): its log start is
// the oldest record anywhere, and the earliest local offset (ListOffsets
// -4, Kafka 3.4+... answered for tiered topics since 3.6) the oldest still
// on the brokers' disks. A group whose first unread record is below the
// earliest local offset reads from remote storage: slower and costlier, and
// long before it loses anything; retention.ms and retention.bytes still
// bound the whole log (the total horizon data at risk is judged against),
// while local.retention.ms/.bytes only decide what stays on disk.
//
// Only lagging partitions of topics whose remote.storage.enable is true
// are asked for their earliest local offset (one ListOffsets request per
// leader), so a cluster without tiered storage pays nothing.

// RemoteUnknownNoLocal: the earliest local offset of a tiered partition
// could not be listed; whether the group reads from remote storage is not
// known (reading_remote and remote_only are nil).
const (
	RemoteUnknownNoLocal   = "the earliest local offset (list_offsets earliest_local) could not be listed: whether the group reads from remote storage is not known"
	RemoteUnknownNoConfigs = "the topic's configs could not be read (describe_configs): whether it is in tiered storage is not known"
)

// tieredConfigKeys are the configs read to know a topic is tiered and its
// horizons.
var tieredConfigKeys = []string{"remote.storage.enable", "local.retention.ms", "local.retention.bytes"}

// earliestLocal lists the earliest local offset of the lagging partitions
// of out whose topics are tiered; a partition that could not be listed is
// -1.
func (c *Client) earliestLocal(ctx context.Context, out []GroupLag, tiered map[string]bool) (map[TopicPartition]int64, error) {
	want := map[TopicPartition]bool{}
	for _, g := range out {
		for _, p := range g.Partitions {
			if p.Err == nil && p.Lag > 0 && tiered[p.Topic] {
				want[TopicPartition{Topic: p.Topic, Partition: p.Partition}] = true
			}
		}
	}
	if len(want) == 0 {
		return nil, nil
	}
	tps := slices.SortedFunc(maps.Keys(want), compareTP)
	listed, err := c.listOffsets(ctx, tps, OffsetQuery{Kind: OffsetAtEarliestLocal})
	if err != nil {
		return nil, err
	}
	local := make(map[TopicPartition]int64, len(listed))
	for _, l := range listed {
		tp := TopicPartition{Topic: l.Topic, Partition: l.Partition}
		local[tp] = -1
		if l.Err == nil && l.Offset >= 0 {
			local[tp] = l.Offset
		}
	}
	return local, nil
}

// totalSizes turns the local sizes of tiered partitions (DescribeLogDirs
// counts only the segments on disk) into estimates of their whole log's,
// which retention.bytes bounds: the local size over the local records,
// times all the records. A partition whose local records cannot be counted
// is left out (judged by time alone), never judged by its local size.
func totalSizes(sizes map[TopicPartition]int64, out []GroupLag, local map[TopicPartition]int64, tiered map[string]bool) {
	for _, g := range out {
		for _, p := range g.Partitions {
			tp := TopicPartition{Topic: p.Topic, Partition: p.Partition}
			size, ok := sizes[tp]
			if !ok || !tiered[p.Topic] {
				continue
			}
			l, known := local[tp]
			if !known || l < 0 || p.logStart < 0 || p.EndOffset <= l || l < p.logStart {
				delete(sizes, tp)
				continue
			}
			sizes[tp] = int64(float64(size) * float64(p.EndOffset-p.logStart) / float64(p.EndOffset-l))
		}
	}
}

// setRemote sets p's tiered fields (with LagOptions.Time): for a tiered
// topic, the earliest local offset, whether the first unread record is
// below it (reading_remote) and how many unread records are only in
// remote storage (remote_only); for any other topic, nothing.
func (r retentions) setRemote(p *PartitionLag) {
	no, zero := false, int64(0)
	if r.unread[p.Topic] && p.Lag > 0 {
		p.RemoteUnknown = RemoteUnknownNoConfigs
		return
	}
	if !r.tiered[p.Topic] {
		return // nil: not in tiered storage (a table shows no column for it)
	}
	if p.Lag == 0 {
		p.ReadingRemote, p.RemoteOnly = &no, &zero
		return
	}
	l, ok := r.local[TopicPartition{Topic: p.Topic, Partition: p.Partition}]
	if !ok || l < 0 {
		p.RemoteUnknown = RemoteUnknownNoLocal
		return
	}
	el := l
	p.EarliestLocal = &el
	from := p.firstUnread()
	reading := from < l
	only := max(min(l, p.EndOffset)-from, 0)
	p.ReadingRemote, p.RemoteOnly = &reading, &only
}
