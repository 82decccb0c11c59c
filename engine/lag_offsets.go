package engine

import (
	"context"
	"errors"
	"sync"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The offsets lag reads: the groups' commits, and the start and end
// offsets of their partitions, in as few requests as possible.

// fetchManyOffsets fetches several groups' commits in one request per
// coordinator, retrying per group. A group without commits (or that does not
// exist) gets an empty map.
func (c *Client) fetchManyOffsets(ctx context.Context, groups []string) (map[string]kadm.OffsetResponses, map[string]*Error) {
	commits := map[string]kadm.OffsetResponses{}
	errs := retryItems(ctx, groups, func(g string) string { return g }, func(ctx context.Context, pending []string) (map[string]*Error, error) {
		answers := map[string]*Error{}
		for g, f := range c.adm.FetchManyOffsets(ctx, pending...) {
			if errors.Is(f.Err, kerr.GroupIDNotFound) {
				commits[g], answers[g] = kadm.OffsetResponses{}, nil
				continue
			}
			e := AsError(f.Err, g)
			if e == nil {
				f.Fetched.EachError(func(o kadm.OffsetResponse) {
					if pe := AsError(o.Err, g); pe.Retriable && e == nil {
						e = pe
					}
				})
			}
			if e == nil {
				commits[g] = f.Fetched
			}
			answers[g] = e
		}
		return answers, nil
	})
	return commits, errs
}

// listStartEnd lists the start and end offsets of topics: one Metadata
// request names each partition's leader, then each leader gets one
// ListOffsets request for the starts and one for the ends, all at once.
// (kadm's ListStartOffsets and ListEndOffsets ask for the metadata once
// each, and kgo's sharding asks again when its cache is older than the
// client's MetadataMinAge, 100 ms: for 100,000 partitions the metadata was
// decoded three times.) A retriable failure (no leader, a leader that
// moved, a broker that did not answer) asks again, metadata included,
// until ctx ends; what still fails then stays on its partitions.
func (c *Client) listStartEnd(ctx context.Context, topics []string) (start, end kadm.ListedOffsets, err error) {
	rerr := retryCall(ctx, "", func(ctx context.Context) error {
		meta, err := c.rawMetadata(ctx, topics...)
		if err != nil {
			return err
		}
		start, end = kadm.ListedOffsets{}, kadm.ListedOffsets{}
		var retry error
		fail := func(topic string, p int32, err error) {
			for _, dst := range []kadm.ListedOffsets{start, end} {
				if dst[topic] == nil {
					dst[topic] = map[int32]kadm.ListedOffset{}
				}
				dst[topic][p] = kadm.ListedOffset{Topic: topic, Partition: p, Err: err}
			}
			if e := AsError(err, ""); e != nil && e.Retriable && retry == nil {
				retry = err
			}
		}
		byLeader := map[int32]*kmsg.ListOffsetsRequest{}
		for _, t := range meta.Topics {
			if t.Topic == nil {
				continue
			}
			if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
				fail(*t.Topic, -1, err) // the topic does not exist (any more)
				continue
			}
			for _, p := range t.Partitions {
				if err := kerr.ErrorForCode(p.ErrorCode); err != nil || p.Leader < 0 {
					fail(*t.Topic, p.Partition, orErr(err, kerr.LeaderNotAvailable))
					continue
				}
				req := byLeader[p.Leader]
				if req == nil {
					req = kmsg.NewPtrListOffsetsRequest()
					req.ReplicaID = -1
					req.TimeoutMillis = int32(c.cfg.timeout().Milliseconds())
					byLeader[p.Leader] = req
				}
				if n := len(req.Topics); n == 0 || req.Topics[n-1].Topic != *t.Topic {
					rt := kmsg.NewListOffsetsRequestTopic()
					rt.Topic = *t.Topic
					req.Topics = append(req.Topics, rt)
				}
				rp := kmsg.NewListOffsetsRequestTopicPartition()
				rp.Partition = p.Partition
				rt := &req.Topics[len(req.Topics)-1]
				rt.Partitions = append(rt.Partitions, rp)
			}
		}

		type listing struct {
			leader int32
			req    *kmsg.ListOffsetsRequest
			dst    kadm.ListedOffsets
			resp   *kmsg.ListOffsetsResponse
			err    error
		}
		var lists []*listing
		for leader, req := range byLeader {
			lists = append(lists, &listing{leader: leader, req: withTimestamp(req, -2), dst: start},
				&listing{leader: leader, req: withTimestamp(req, -1), dst: end})
		}
		var wg sync.WaitGroup
		for _, l := range lists {
			wg.Go(func() { l.resp, l.err = l.req.RequestWith(ctx, c.kgo.Broker(int(l.leader))) })
		}
		wg.Wait()
		for _, l := range lists {
			if l.err != nil {
				for _, t := range l.req.Topics {
					for _, p := range t.Partitions {
						fail(t.Topic, p.Partition, l.err)
					}
				}
				continue
			}
			for _, t := range l.resp.Topics {
				lt := l.dst[t.Topic]
				if lt == nil {
					lt = make(map[int32]kadm.ListedOffset, len(t.Partitions))
					l.dst[t.Topic] = lt
				}
				for _, p := range t.Partitions {
					err := kerr.ErrorForCode(p.ErrorCode)
					lt[p.Partition] = kadm.ListedOffset{Topic: t.Topic, Partition: p.Partition, Timestamp: p.Timestamp,
						Offset: p.Offset, LeaderEpoch: p.LeaderEpoch, Err: err}
					if e := AsError(err, ""); e != nil && e.Retriable && retry == nil {
						retry = err
					}
				}
			}
		}
		return retry
	})
	if (start == nil || end == nil) && rerr != nil {
		return nil, nil, rerr
	}
	return start, end, nil
}

// withTimestamp is a copy of req listing every partition at timestamp
// (-2 the start, -1 the end).
func withTimestamp(req *kmsg.ListOffsetsRequest, timestamp int64) *kmsg.ListOffsetsRequest {
	out := *req
	out.Topics = make([]kmsg.ListOffsetsRequestTopic, len(req.Topics))
	for i, t := range req.Topics {
		out.Topics[i] = t
		out.Topics[i].Partitions = make([]kmsg.ListOffsetsRequestTopicPartition, len(t.Partitions))
		for j, p := range t.Partitions {
			p.Timestamp = timestamp
			out.Topics[i].Partitions[j] = p
		}
	}
	return &out
}
