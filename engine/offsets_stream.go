package engine

import (
	"context"
	"slices"
)

// list_offsets of every partition, streamed: the partitions come from a
// streamed describe (OpenTopics) and each page of topics is listed as it
// comes, so a million partitions are never held at once.

// OffsetCursor hands over a streamed ListOffsets a page of topics at a
// time (OpenOffsets). Not safe for concurrent use; Close it when done.
type OffsetCursor struct {
	c      *Client
	ctx    context.Context
	q      OffsetQuery
	topics *TopicCursor
}

// OpenOffsets lists q for every partition of topics (every topic, internal
// ones included, when empty), chosen by o's filters, a page of topics at a
// time in topic then partition order. A topic that cannot be described is
// a row with partition -1 and its error, as in ListOffsets.
func (c *Client) OpenOffsets(ctx context.Context, topics []string, q OffsetQuery, o TopicsOptions) (*OffsetCursor, error) {
	if _, _, err := q.request(); err != nil {
		return nil, err
	}
	return &OffsetCursor{c: c, ctx: ctx, q: q, topics: c.OpenTopics(ctx, topics, o)}, nil
}

// Next returns the next page of offsets, nil (and no error) after the last.
func (cur *OffsetCursor) Next() ([]ListedOffset, error) {
	page, err := cur.topics.Next()
	if err != nil || page == nil {
		return nil, err
	}
	var (
		tps []TopicPartition
		out []ListedOffset
	)
	for _, d := range page {
		if d.Err != nil {
			out = append(out, ListedOffset{Topic: d.Name, Partition: -1, Offset: -1, Timestamp: -1, LeaderEpoch: -1, Err: d.Err})
			continue
		}
		for _, p := range d.Partitions {
			tps = append(tps, TopicPartition{Topic: d.Name, Partition: p.Partition})
		}
	}
	if len(tps) > 0 {
		// Each page within a call's timeout of its own, as its describe
		// was: a million partitions take longer than one call.
		ctx, cancel := cur.c.callCtx(cur.ctx)
		done := cur.c.phase(PhaseListOffsets)
		listed, err := cur.c.listOffsets(ctx, tps, cur.q)
		done()
		cancel()
		if err != nil {
			cur.Close()
			return nil, err
		}
		out = append(out, listed...)
	}
	slices.SortFunc(out, func(a, b ListedOffset) int {
		return compareTP(TopicPartition{Topic: a.Topic, Partition: a.Partition}, TopicPartition{Topic: b.Topic, Partition: b.Partition})
	})
	return out, nil
}

// Close stops the read.
func (cur *OffsetCursor) Close() { cur.topics.Close() }
