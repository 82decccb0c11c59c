package luaapi

import (
	"context"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/bufbuild/protocompile"
	"github.com/hamba/avro/v2"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/schemas"
)

// Decoding 10,000 records in peek (issue 31, item 6), beside a plain Go
// program with the same libraries: a kgo consumer reading the same
// records and decoding each with hamba/avro (into map[string]any) or
// dynamicpb (the .proto compiled once by protocompile). Both read from the
// same in-process cluster; the schema is fetched once per id.

const benchProto = `syntax = "proto3";
message Payment { string id = 1; int64 cents = 2; string note = 3; repeated string tags = 4; }`

const benchDecodeCount = 10_000

type benchDecodeEnv struct {
	cluster *kfake.Cluster
	reg     *srfake.Registry
	md      protoreflect.MessageDescriptor
}

func newBenchDecodeEnv(b *testing.B) *benchDecodeEnv {
	b.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "avro", "proto"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	reg := srfake.New()
	b.Cleanup(reg.Close)
	reg.SeedSchema("avro-value", 1, 1, sr.Schema{Schema: testPaymentSchema})
	reg.SeedSchema("proto-value", 1, 2, sr.Schema{Schema: benchProto, Type: sr.TypeProtobuf})
	fds, err := (&protocompile.Compiler{Resolver: &protocompile.SourceResolver{Accessor: protocompile.SourceAccessorFromMap(map[string]string{"p.proto": benchProto})}}).Compile(context.Background(), "p.proto")
	if err != nil {
		b.Fatal(err)
	}
	e := &benchDecodeEnv{cluster: c, reg: reg, md: fds[0].Messages().Get(0)}
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	schema := avro.MustParse(testPaymentSchema)
	var recs []*kgo.Record
	for i := range benchDecodeCount {
		note := fmt.Sprintf("note %d", i)
		body, err := avro.Marshal(schema, testPayment{ID: fmt.Sprintf("p-%05d", i), Amount: big.NewRat(int64(i), 100), Note: &note})
		if err != nil {
			b.Fatal(err)
		}
		recs = append(recs, &kgo.Record{Topic: "avro", Value: schemas.Frame(1, nil, body)})
		m := dynamicpb.NewMessage(e.md)
		m.Set(e.md.Fields().ByName("id"), protoreflect.ValueOfString(fmt.Sprintf("p-%05d", i)))
		m.Set(e.md.Fields().ByName("cents"), protoreflect.ValueOfInt64(int64(i)))
		m.Set(e.md.Fields().ByName("note"), protoreflect.ValueOfString(note))
		m.Mutable(e.md.Fields().ByName("tags")).List().Append(protoreflect.ValueOfString("t"))
		pb, err := proto.Marshal(m)
		if err != nil {
			b.Fatal(err)
		}
		recs = append(recs, &kgo.Record{Topic: "proto", Value: schemas.Frame(2, []int{0}, pb)})
	}
	if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		b.Fatal(err)
	}
	return e
}

// BenchmarkPeekDecode is peek(topic, 0, 0, {count = 10000, decode =
// "auto"}) in a runtime with the registry, each iteration a new runtime
// (a run: the schema is fetched once in it).
func BenchmarkPeekDecode(b *testing.B) {
	e := newBenchDecodeEnv(b)
	for _, topic := range []string{"avro", "proto"} {
		b.Run(topic, func(b *testing.B) {
			src := fmt.Sprintf(`local rows = peek(%q, 0, 0, {count = %d, decode = "auto", max_bytes = 67108864})
				assert(#rows == %d and rows[%d].value.id == "p-09999", rows[#rows].value)`, topic, benchDecodeCount, benchDecodeCount, benchDecodeCount)
			b.ReportAllocs()
			for b.Loop() {
				rt := New(Options{Config: engine.Config{Brokers: e.cluster.ListenAddrs(), Timeout: 30 * time.Second,
					Registry: &schemas.Config{URLs: []string{e.reg.URL()}}}})
				if _, err := rt.DoString(context.Background(), "bench", src); err != nil {
					b.Fatal(err)
				}
				rt.Close()
			}
		})
	}
}

// BenchmarkPlainDecode is the yardstick: a kgo consumer reads the same
// 10,000 records and decodes each with the same libraries.
func BenchmarkPlainDecode(b *testing.B) {
	e := newBenchDecodeEnv(b)
	schema := avro.MustParse(testPaymentSchema)
	var serde sr.ConfluentHeader
	decode := map[string]func([]byte) (any, error){
		"avro": func(v []byte) (any, error) {
			_, body, err := serde.DecodeID(v)
			if err != nil {
				return nil, err
			}
			var out any
			return out, avro.Unmarshal(schema, body, &out)
		},
		"proto": func(v []byte) (any, error) {
			_, rest, err := serde.DecodeID(v)
			if err != nil {
				return nil, err
			}
			if _, rest, err = serde.DecodeIndex(rest, 8); err != nil {
				return nil, err
			}
			m := dynamicpb.NewMessage(e.md)
			return m, proto.Unmarshal(rest, m)
		},
	}
	for _, topic := range []string{"avro", "proto"} {
		b.Run(topic, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				cl, err := kgo.NewClient(kgo.SeedBrokers(e.cluster.ListenAddrs()...),
					kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().At(0)}}))
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for n < benchDecodeCount {
					fs := cl.PollFetches(context.Background())
					if err := fs.Err0(); err != nil {
						b.Fatal(err)
					}
					for _, r := range fs.Records() {
						if _, err := decode[topic](r.Value); err != nil {
							b.Fatal(err)
						}
						n++
					}
				}
				cl.Close()
			}
		})
	}
}
