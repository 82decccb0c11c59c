package luaapi

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// produce writes n records to one partition of topic through a separate kgo
// client (the topic must exist). Records are "<topic>-<partition>-<i>".
func produce(t *testing.T, e *env, topic string, partition int32, n int) {
	t.Helper()
	produceAt(t, e, topic, partition, n, time.Time{})
}

// produceAt is produce with every record's timestamp set to ts (now when
// zero).
func produceAt(t *testing.T, e *env, topic string, partition int32, n int, ts time.Time) {
	t.Helper()
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(e.cluster.ListenAddrs()...),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
	)
	require.NoError(t, err)
	defer cl.Close()
	recs := make([]*kgo.Record, 0, n)
	for i := range n {
		recs = append(recs, &kgo.Record{Topic: topic, Partition: partition, Timestamp: ts,
			Value: fmt.Appendf(nil, "%s-%d-%d", topic, partition, i)})
	}
	require.NoError(t, cl.ProduceSync(e.ctx(), recs...).FirstErr())
}

func offsetsOf(topic string, partition int32, at int64) kadm.Offsets {
	o := kadm.Offsets{}
	o.Add(kadm.Offset{Topic: topic, Partition: partition, At: at})
	return o
}

func join(s []string) string { return strings.Join(s, ",") }
