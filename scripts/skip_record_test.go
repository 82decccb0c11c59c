package scripts_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/internal/testbomb"
)

// A consumer stuck on a decompression bomb (8 MiB of zeros in 8 KiB of
// gzip, past a bound of 1 MiB per batch: 64 MiB by default) behind a
// record without a timestamp: skip-record shows the first
// as "no timestamp" (not 1969) and the bomb by its offsets and
// DECOMPRESS_LIMIT, without decompressing it whole, and skips both.
func TestSkipRecordPastABombAndAMissingTimestamp(t *testing.T) {
	e := newEnv(t)
	e.decompress = engine.DecompressLimits{Batch: 1 << 20}
	_, err := e.adm.CreateTopic(e.ctx(), 1, 1, nil, "poison")
	require.NoError(t, err)
	kc, err := kgo.NewClient(kgo.SeedBrokers(e.c.Addrs...))
	require.NoError(t, err)
	defer kc.Close()
	off, err := testbomb.Produce(e.ctx(), kc, "poison", 0, 5, -1)
	require.NoError(t, err)
	require.EqualValues(t, 0, off)
	off, err = testbomb.Produce(e.ctx(), kc, "poison", 0, 8<<20, 1_780_000_000_000)
	require.NoError(t, err)
	require.EqualValues(t, 1, off)
	_, err = e.adm.CommitOffsets(e.ctx(), "stuck", kadm.Offsets{"poison": {0: {Topic: "poison", Partition: 0, At: 0, LeaderEpoch: -1}}})
	require.NoError(t, err)

	r := e.ok(true, "skip-record.lua", "stuck", "poison", "0", "--count", "2")
	require.Len(t, r.rows, 2)
	assert.Equal(t, -1.0, r.rows[0]["timestamp"])
	assert.Contains(t, r.stderr, "dry-run: stuck: would skip poison[0] offset 0: key null, 5 bytes, 0 headers, CreateTime no timestamp (-1)")
	assert.Equal(t, 1.0, r.rows[1]["offset"])
	assert.Contains(t, r.rows[1]["error"], "DECOMPRESS_LIMIT: poison[0]: the record batch at offsets 1 to 1 decompresses to more than 1.0 MiB")
	assert.Contains(t, r.stderr, "dry-run: stuck: would skip poison[0] offset 1, not read: DECOMPRESS_LIMIT: poison[0]")

	e.ok(false, "skip-record.lua", "stuck", "poison", "0", "--count", "2")
	assert.Equal(t, map[int32]int64{0: 2}, e.committed("stuck", "poison"))
}

// The NON_EMPTY_GROUP error tells to use --force "in the runbooks":
// skip-record has it (it was refused as an unknown flag), and under
// --dry-run it says it would remove the live member first and commits
// nothing.
func TestSkipRecordForce(t *testing.T) {
	e := newEnv(t)
	before := e.committed("orders-processor", "orders")
	r := e.run(false, "skip-record.lua", "orders-processor", "orders", "1")
	require.NotNil(t, r.err)
	assert.Equal(t, "NON_EMPTY_GROUP", r.err.Code)
	assert.Contains(t, r.err.Message, "--force in the runbooks")

	r = e.ok(true, "skip-record.lua", "orders-processor", "orders", "1", "--force")
	require.Len(t, r.rows, 1)
	assert.Contains(t, r.stderr, "remove the 1 live member(s) of group orders-processor first (force=true)")
	assert.Contains(t, r.stderr, "dry-run: orders-processor: would move orders[1]")
	assert.Equal(t, before, e.committed("orders-processor", "orders"))
}
