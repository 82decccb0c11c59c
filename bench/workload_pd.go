package bench

import (
	"context"
	"fmt"
	"math/big"
	"os/exec"

	"github.com/hamba/avro/v2"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"
)

// seedPD: one partition of 10,000 records framed for a registry (Avro: a
// string, a decimal, a union; the same at toy sizes: seeding takes a
// fraction of a second); kadmin-lua
// peeks them all with decode="auto" through an in-memory registry and
// prints them as JSON; kcat reads the same records raw, the framed bytes as
// they are (issue 31, item 6: the kcat -C raw comparison, orientation: kcat
// decodes nothing). The in-process comparison with a plain Go program
// decoding with the same libraries is luaapi's BenchmarkPeekDecode.
func seedPD(ctx context.Context, s *seeded, _ Scale) (func(int) ([]string, []string), string, error) {
	kcat, err := exec.LookPath("kcat")
	if err != nil {
		return nil, "", fmt.Errorf("kcat is not installed (make deps installs it): %w", err)
	}
	if _, err := s.topics(ctx, "pd-", 1, 1); err != nil {
		return nil, "", err
	}
	const schema = `{"type":"record","name":"Payment","fields":[
		{"name":"id","type":"string"},
		{"name":"amount","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}},
		{"name":"note","type":["null","string"],"default":null}]}`
	reg := srfake.New()
	s.stops = append(s.stops, reg.Close)
	reg.SeedSchema("pd-00000-value", 1, 1, sr.Schema{Schema: schema})
	type payment struct {
		ID     string   `avro:"id"`
		Amount *big.Rat `avro:"amount"`
		Note   *string  `avro:"note"`
	}
	parsed := avro.MustParse(schema)
	var frame sr.ConfluentHeader
	const n = 10_000
	recs := make([]*kgo.Record, n)
	for i := range recs {
		note := fmt.Sprintf("note %d", i)
		body, err := avro.Marshal(parsed, payment{ID: fmt.Sprintf("p-%05d", i), Amount: big.NewRat(int64(i), 100), Note: &note})
		if err != nil {
			return nil, "", err
		}
		v, err := frame.AppendEncode(nil, 1, nil)
		if err != nil {
			return nil, "", err
		}
		recs[i] = &kgo.Record{Topic: "pd-00000", Value: append(v, body...)}
	}
	if err := s.cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		return nil, "", err
	}
	count := fmt.Sprint(n)
	return func(int) ([]string, []string) {
		return []string{"{kadmin}", "-b", "{brokers}", "--schema-registry", reg.URL(), "-o", "json", "-e",
				fmt.Sprintf(`return peek("pd-00000", 0, 0, {count = %d, decode = "auto", max_bytes = 67108864})`, n)},
			[]string{kcat, "-b", "{brokers}", "-C", "-t", "pd-00000", "-p", "0", "-o", "0", "-c", count, "-e", "-q", "-f", `%s\n`}
	}, "", nil
}
