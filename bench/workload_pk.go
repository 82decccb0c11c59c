package bench

import (
	"context"
	"fmt"
	"os/exec"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"
)

// seedPK: one partition of 1,000 records (6-byte keys, 200-byte values);
// kadmin-lua peeks them all, values included, as JSON; kcat reads the same
// records and prints offset, key and value (issue 18: within 1.5x).
func seedPK(ctx context.Context, s *seeded, _ Scale) (func(int) ([]string, []string), string, error) {
	kcat, err := exec.LookPath("kcat")
	if err != nil {
		return nil, "", fmt.Errorf("kcat is not installed (make deps installs it): %w", err)
	}
	if _, err := s.topics(ctx, "pk-", 1, 1); err != nil {
		return nil, "", err
	}
	recs := make([]*kgo.Record, 1000)
	value := strings.Repeat("v", 200)
	for i := range recs {
		recs[i] = &kgo.Record{Topic: "pk-00000", Key: fmt.Appendf(nil, "k%05d", i), Value: []byte(value)}
	}
	if err := s.cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		return nil, "", err
	}
	return func(int) ([]string, []string) {
		return []string{"{kadmin}", "-b", "{brokers}", "-o", "json", "-e", `return peek("pk-00000", 0, 0, {count = 1000, values = true})`},
			[]string{kcat, "-b", "{brokers}", "-C", "-t", "pk-00000", "-p", "0", "-o", "0", "-c", "1000", "-e", "-q", "-f", `%o %k %s\n`}
	}, "", nil
}
