package main

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// describeAllPaged counts the partitions of every topic, described as
// kadm describes them (a kadm.TopicDetail a topic) but paged by hand, as
// kadm has no paged describe: DescribeTopicPartitions with Kafka's page
// size, following the cursor, each topic's details let go once counted.
func describeAllPaged(ctx context.Context, cl *kgo.Client) {
	req := kmsg.NewPtrDescribeTopicPartitionsRequest()
	req.ResponsePartitionLimit = 2000
	n := 0
	var cur *kadm.TopicDetail // a topic may go on in the next page
	done := func() {
		if cur != nil {
			check(cur.Err)
			n += len(cur.Partitions)
			cur = nil
		}
	}
	for {
		resp, err := req.RequestWith(ctx, cl)
		check(err)
		for _, t := range resp.Topics {
			if cur == nil || cur.Topic != *t.Topic {
				done()
				cur = &kadm.TopicDetail{Topic: *t.Topic, ID: t.TopicID, IsInternal: t.IsInternal,
					Partitions: make(kadm.PartitionDetails, len(t.Partitions)), Err: kerr.ErrorForCode(t.ErrorCode)}
			}
			for _, p := range t.Partitions {
				cur.Partitions[p.Partition] = kadm.PartitionDetail{Topic: cur.Topic, Partition: p.Partition, Leader: p.LeaderID,
					LeaderEpoch: p.LeaderEpoch, Replicas: p.Replicas, ISR: p.ISR, OfflineReplicas: p.OfflineReplicas,
					Err: kerr.ErrorForCode(p.ErrorCode)}
			}
		}
		if resp.NextCursor == nil {
			break
		}
		cursor := kmsg.NewDescribeTopicPartitionsRequestCursor()
		cursor.Topic, cursor.Partition = resp.NextCursor.Topic, resp.NextCursor.Partition
		req.Cursor = &cursor
	}
	done()
	fmt.Println(n)
}
