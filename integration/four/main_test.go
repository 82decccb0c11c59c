// Package four runs kadmin-lua against one real Apache Kafka 4-node KRaft
// cluster (internal/kafkatest.StartFour: three brokers that are also the
// controller quorum, and broker 4 alone): enough brokers to drain one and
// keep every replication factor, which is what moving data needs. Kafka
// copies the data here, as kfake does not.
//
// One cluster serves the whole package, started in TestMain. The tests are
// skipped only with -short or KADMIN_SKIP_KAFKA=1; otherwise a missing java,
// mvn or jar fails the run.
package four

import (
	"context"
	"crypto/rand"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

var (
	cluster *kafkatest.Cluster
	binary  string // the kadmin-lua binary, built once
)

func TestMain(m *testing.M) {
	os.Exit(kafkatest.RunSuite(m, "integration/four", startFour,
		func(c *kafkatest.Cluster, bin string) { cluster, binary = c, bin }))
}

// startFour gives the four JVMs 4 minutes, more than
// kafkatest.DefaultStartTimeout: they start together on 2 cores.
func startFour(ctx context.Context) (*kafkatest.Cluster, error) {
	ctx, cancel := context.WithTimeout(ctx, 4*time.Minute)
	defer cancel()
	return kafkatest.StartFour(ctx)
}

// need skips t when the suite is skipped; otherwise the cluster is there
// (TestMain failed the run if it could not start).
func need(t *testing.T) *kafkatest.Cluster {
	t.Helper()
	if cluster == nil {
		t.Skipf("real Kafka tests skipped (%s)", kafkatest.SkipReason())
	}
	return cluster
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// runBinary runs the kadmin-lua binary against the cluster.
func runBinary(ctx context.Context, t *testing.T, args ...string) kafkatest.BinResult {
	t.Helper()
	return kafkatest.RunBinary(ctx, t, binary, nil, "", append([]string{"-b", need(t).Bootstrap()}, args...)...)
}

// produce writes n incompressible records of size bytes to every partition
// of topic (acks=all), so that moving a replica copies real bytes.
func produce(t *testing.T, topic string, partitions int32, n, size int) {
	t.Helper()
	cl, err := need(t).Client(kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerBatchCompression(kgo.NoCompression()), kgo.ProducerBatchMaxBytes(1_000_000))
	require.NoError(t, err)
	defer cl.Close()
	var rs []*kgo.Record
	for p := int32(0); p < partitions; p++ {
		for i := 0; i < n; i++ {
			value := make([]byte, size)
			_, _ = rand.Read(value)
			rs = append(rs, &kgo.Record{Topic: topic, Partition: p, Value: value})
		}
	}
	require.NoError(t, cl.ProduceSync(ctxFor(t, 2*time.Minute), rs...).FirstErr())
}
