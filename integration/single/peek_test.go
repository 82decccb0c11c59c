package single

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kadmin-lua/kadmin-lua/internal/clientconfig"
	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

// kcatConsume runs kcat -C on topic's partition from offset for n records
// (-e: stop at the end) and returns its lines, one per record, as format
// prints them.
func kcatConsume(t *testing.T, kcat, topic string, partition int32, offset int64, n int, format string) ([]string, time.Duration) {
	t.Helper()
	started := time.Now()
	out, err := exec.CommandContext(ctxT(t, time.Minute), kcat, "-C", "-b", cluster.Bootstrap(),
		"-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanisms=PLAIN",
		"-X", "sasl.username="+kafkatest.AdminUser, "-X", "sasl.password="+kafkatest.AdminPassword,
		"-t", topic, "-p", fmt.Sprint(partition), "-o", fmt.Sprint(offset), "-c", fmt.Sprint(n), "-e", "-q",
		"-f", format).Output()
	took := time.Since(started)
	require.NoError(t, err, "kcat -C: %s", out)
	return strings.Split(strings.TrimSuffix(string(out), "\n"), "\n"), took
}

// TestPeekMatchesKcat: peek and kcat -C read the same records at the same
// offsets: keys, headers, timestamps, values, across a compressed batch
// and a transaction's commit marker; and peek of 1,000 records through
// the binary is timed beside kcat -C -c 1000 (logged, not asserted).
func TestPeekMatchesKcat(t *testing.T) {
	need(t)
	kcat := tool(t, "kcat")
	topic := unique("peek")
	r := adminRT(t, kafkatest.MechScram512)
	r.Run(fmt.Sprintf(`create_topics{{name = %q, partitions = 1}}`, topic))
	waitTopic(t, topic, 1)

	ctx := ctxT(t, 2*time.Minute)
	base := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	plain, err := cluster.Client(kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.DefaultProduceTopic(topic))
	require.NoError(t, err)
	defer plain.Close()
	for i := range 5 { // offsets 0-4: keys, headers, set timestamps, one null key
		rec := &kgo.Record{Key: []byte(fmt.Sprintf("key-%d", i)), Value: []byte(fmt.Sprintf(`{"i":%d}`, i)),
			Timestamp: base.Add(time.Duration(i) * time.Second),
			Headers:   []kgo.RecordHeader{{Key: "trace", Value: []byte(fmt.Sprintf("t%d", i))}, {Key: "src", Value: []byte("it")}}}
		if i == 3 {
			rec.Key = nil
		}
		require.NoError(t, plain.ProduceSync(ctx, rec).FirstErr())
	}
	zipped, err := cluster.Client(kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.DefaultProduceTopic(topic),
		kgo.ProducerBatchCompression(kgo.ZstdCompression()), kgo.ProducerLinger(100*time.Millisecond))
	require.NoError(t, err)
	defer zipped.Close()
	var batch []*kgo.Record
	for i := range 4 { // offsets 5-8: one zstd batch
		batch = append(batch, &kgo.Record{Key: []byte(fmt.Sprintf("z-%d", i)), Value: []byte(strings.Repeat("zz", 50+i)),
			Timestamp: base.Add(time.Minute + time.Duration(i)*time.Millisecond)})
	}
	require.NoError(t, zipped.ProduceSync(ctx, batch...).FirstErr())
	tx, err := cluster.Client(kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.DefaultProduceTopic(topic),
		kgo.TransactionalID(unique("peek-tx")))
	require.NoError(t, err)
	defer tx.Close()
	require.NoError(t, tx.BeginTransaction())
	inTx := tx.ProduceSync(ctx, &kgo.Record{Key: []byte("in-tx"), Value: []byte("committed"), Timestamp: base.Add(2 * time.Minute)})
	require.NoError(t, inTx.FirstErr())
	require.NoError(t, tx.EndTransaction(ctx, kgo.TryCommit))
	// The coordinator writes the commit marker after EndTxn returns: wait
	// for it (the end offset moves past it) before writing on.
	var ends []struct {
		Offset int64 `json:"offset"`
	}
	assert.Eventually(t, func() bool {
		r.json(fmt.Sprintf(`return list_offsets(%q)`, topic), &ends)
		return len(ends) == 1 && ends[0].Offset == inTx[0].Record.Offset+2
	}, 20*time.Second, 50*time.Millisecond, "the commit marker")
	after := plain.ProduceSync(ctx, &kgo.Record{Key: []byte("after"), Value: []byte("tail"), Timestamp: base.Add(3 * time.Minute)})
	require.NoError(t, after.FirstErr())
	txOff, afterOff := inTx[0].Record.Offset, after[0].Record.Offset
	require.Equal(t, txOff+2, afterOff, "one commit marker between them")

	type row struct {
		Offset        int64   `json:"offset"`
		Timestamp     int64   `json:"timestamp"`
		TimestampType string  `json:"timestamp_type"`
		Key           *string `json:"key"`
		Headers       []struct {
			Key   string  `json:"key"`
			Value *string `json:"value"`
		} `json:"headers"`
		Size  int    `json:"size"`
		Value string `json:"value"`
	}
	unhex := func(s string) string {
		b, err := hex.DecodeString(s)
		require.NoError(t, err)
		return string(b)
	}
	// kcat's fields: offset, timestamp, key length (-1: null), key, headers
	// (k=v,...), value; values and keys hold no '|'.
	const format = "%o|%T|%K|%k|%h|%s\n"
	for _, from := range []int64{0, 3, 6, txOff - 1} { // keys and headers, a null key, inside the zstd batch, over the marker
		var rows []row
		r.json(fmt.Sprintf(`return peek(%q, 0, %d, {count = 4, values = true, format = "hex"})`, topic, from), &rows)
		lines, _ := kcatConsume(t, kcat, topic, 0, from, 4, format)
		require.Len(t, rows, len(lines), "from %d: kcat %q", from, lines)
		for i, line := range lines {
			f := strings.SplitN(line, "|", 6)
			require.Len(t, f, 6, line)
			got := rows[i]
			assert.Equal(t, f[0], strconv.FormatInt(got.Offset, 10), "offset, from %d", from)
			assert.Equal(t, f[1], strconv.FormatInt(got.Timestamp, 10), "timestamp at %d", got.Offset)
			assert.Equal(t, "CreateTime", got.TimestampType)
			if f[2] == "-1" {
				assert.Nil(t, got.Key, "a null key at %d", got.Offset)
			} else {
				require.NotNil(t, got.Key, "key at %d", got.Offset)
				assert.Equal(t, f[3], unhex(*got.Key), "key at %d", got.Offset)
			}
			var hs []string
			for _, h := range got.Headers {
				v := ""
				if h.Value != nil {
					v = unhex(*h.Value)
				}
				hs = append(hs, h.Key+"="+v)
			}
			assert.Equal(t, f[4], strings.Join(hs, ","), "headers at %d", got.Offset)
			assert.Equal(t, f[5], unhex(got.Value), "value at %d", got.Offset)
			keyLen := 0
			if got.Key != nil {
				keyLen = len(unhex(*got.Key))
			}
			assert.Equal(t, keyLen+len(f[5]), got.Size, "size at %d", got.Offset)
		}
	}
	var marker []row
	r.json(fmt.Sprintf(`return peek(%q, 0, %d, {count = 3})`, topic, txOff), &marker)
	require.Len(t, marker, 2)
	assert.Equal(t, []int64{txOff, afterOff}, []int64{marker[0].Offset, marker[1].Offset}, "the commit marker is not a record")

	// "latest" is kcat's -o -N: the last N records before the end.
	var last []row
	r.json(fmt.Sprintf(`return peek(%q, 0, "latest", {count = 3})`, topic), &last)
	lines, _ := kcatConsume(t, kcat, topic, 0, -3, 3, "%o\n")
	var lastOffs []string
	for _, l := range last {
		lastOffs = append(lastOffs, strconv.FormatInt(l.Offset, 10))
	}
	assert.Equal(t, lines, lastOffs, "latest as kcat -o -3")

	// 1,000 records: the binary's peek beside kcat, both whole processes.
	many := make([]*kgo.Record, 1000)
	for i := range many {
		many[i] = &kgo.Record{Key: []byte(fmt.Sprintf("m-%04d", i)), Value: []byte(strings.Repeat("v", 200))}
	}
	produced := plain.ProduceSync(ctx, many...)
	require.NoError(t, produced.FirstErr())
	first := produced[0].Record.Offset
	best := func(run func() time.Duration) time.Duration {
		var b time.Duration
		for range 3 {
			if took := run(); b == 0 || took < b {
				b = took
			}
		}
		return b
	}
	// The binary runs as kcat does (exec, output kept in memory), not through
	// runBin, whose logging of the output would be timed too.
	binRun := func(code string, check func(stdout string)) func() time.Duration {
		return func() time.Duration {
			cmd := exec.CommandContext(ctxT(t, time.Minute), bin, "-b", cluster.Bootstrap(), "--sasl-mechanism", kafkatest.MechPlain,
				"--sasl-username", kafkatest.AdminUser, "--timeout", "20s", "-o", "json", "-e", code)
			cmd.Env = append(os.Environ(), clientconfig.PasswordEnv+"="+kafkatest.AdminPassword)
			started := time.Now()
			out, err := cmd.Output()
			took := time.Since(started)
			require.NoError(t, err, "kadmin-lua -e %s: %s", code, out)
			check(string(out))
			return took
		}
	}
	rowsOf := func(n int, values bool) func(string) {
		return func(stdout string) {
			var got []row
			require.NoError(t, json.Unmarshal([]byte(stdout), &got))
			require.Len(t, got, n)
			assert.Equal(t, first+int64(n)-1, got[n-1].Offset)
			if values {
				assert.Equal(t, strings.Repeat("v", 200), got[n-1].Value)
			}
		}
	}
	kcatRun := func(format string) func() time.Duration {
		return func() time.Duration {
			lines, took := kcatConsume(t, kcat, topic, 0, first, 1000, format)
			require.Len(t, lines, 1000)
			return took
		}
	}
	peekValues := best(binRun(fmt.Sprintf(`return peek(%q, 0, %d, {count = 1000, values = true})`, topic, first), rowsOf(1000, true)))
	kcatValues := best(kcatRun("%o %T %k %h %s\n"))
	peekKeys := best(binRun(fmt.Sprintf(`return peek(%q, 0, %d, {count = 1000})`, topic, first), rowsOf(1000, false)))
	kcatKeys := best(kcatRun("%o %T %k %h\n"))
	peekOne := best(binRun(fmt.Sprintf(`return peek(%q, 0, %d, {count = 1})`, topic, first), rowsOf(1, false)))
	connectOnly := best(binRun(`return describe_cluster()`, func(string) {}))
	t.Logf("1,000 records (200-byte values), best of 3 whole-process runs: with values kadmin-lua peek %v, kcat -C -c 1000 %v (%.2fx); "+
		"without values %v, kcat %v (%.2fx); peek of 1 record %v; describe_cluster() %v",
		peekValues, kcatValues, float64(peekValues)/float64(kcatValues), peekKeys, kcatKeys, float64(peekKeys)/float64(kcatKeys),
		peekOne, connectOnly)
}
