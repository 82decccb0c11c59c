package kafkatest

import (
	"context"
	"os"
	"testing"
	"time"
)

// SkipReason says why real-Kafka tests are skipped: KADMIN_SKIP_KAFKA=1 or
// `go test -short`. It returns "" when they must run. It calls
// testing.Short, so in TestMain call flag.Parse first.
func SkipReason() string {
	if os.Getenv(EnvSkip) == "1" {
		return EnvSkip + "=1"
	}
	if testing.Short() {
		return "go test -short"
	}
	return ""
}

// Require skips t if SkipReason says so and otherwise fails it unless
// Available: a missing java, mvn or jar is a failure, never a silent skip.
func Require(t testing.TB) {
	t.Helper()
	if r := SkipReason(); r != "" {
		t.Skipf("real Kafka tests skipped (%s)", r)
	}
	if err := Available(); err != nil {
		t.Fatalf("real Kafka is not available (set %s=1 to skip these tests): %v", EnvSkip, err)
	}
}

// Single is StartSingle for one test: it calls Require, logs the banner and
// closes the cluster in t.Cleanup (logging the broker log tail if t failed).
func Single(t testing.TB) *Cluster {
	t.Helper()
	return startT(t, StartSingle)
}

// Three is StartThree for one test, like Single.
func Three(t testing.TB) *Cluster {
	t.Helper()
	return startT(t, StartThree)
}

func startT(t testing.TB, start func(context.Context) (*Cluster, error)) *Cluster {
	t.Helper()
	Require(t)
	ctx := context.Background()
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if dl, ok := d.Deadline(); ok {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, dl.Add(-5*time.Second))
			defer cancel()
		}
	}
	began := time.Now()
	c, err := start(ctx)
	if err != nil {
		t.Fatalf("start Kafka: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			for _, id := range c.NodeIDs() {
				t.Logf("--- kafka node %d log tail (%s) ---\n%s", id, c.Dir, c.LogTail(id, 30))
			}
		}
		if err := c.Close(); err != nil {
			t.Errorf("close Kafka: %v", err)
		}
	})
	t.Logf("%s (started in %s)", c.Banner(), time.Since(began).Round(10*time.Millisecond))
	return c
}
