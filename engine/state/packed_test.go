package state

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine/alerts"
	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// mixedStore holds groups of several topics, partitions out of order in
// the readings, commits unknown (-1), lags unknown, and offsets far apart.
func mixedStore(t *testing.T) *Store {
	t.Helper()
	s := New(Options{MinDistance: -1, Window: 10 * time.Minute})
	for k := range int64(4) {
		var seen []Group[row]
		for g := range 6 {
			var parts []row
			for _, topic := range []string{"zeta", "alpha", "m-" + strconv.Itoa(g)} {
				for p := int32(g + 2); p >= 0; p-- {
					parts = append(parts, lagRow(topic, p, int64(g)*1_000_000_000+k*int64(p)*977, int64(g)*1_000_000_000+k*5_000+int64(p)))
				}
			}
			parts[0].committed, parts[0].lag = -1, parts[0].end
			parts[1].lag = -1
			seen = append(seen, Group[row]{Name: "group-" + strconv.Itoa(g), Parts: parts})
		}
		require.NoError(t, s.record("cluster-a", "profile:a", 1_700_000_000_000+k*60_000, seen, nil))
	}
	require.NoError(t, s.Notices("profile:a").SaveNotice("lag:group-1", alerts.Notice{Status: "firing", OpenedMs: 1, SentMs: 2, Labels: map[string]string{"team": "a"}}))
	return s
}

// A group unpacked and packed again is the same bytes, and holds what was
// recorded in it.
func TestPackedGroupRoundTrips(t *testing.T) {
	s := mixedStore(t)
	for name, gs := range s.clusters["cluster-a"].groups {
		var u unpacked
		require.NoError(t, u.unpack(gs.packed, stateVersion), name)
		require.Len(t, u.parts, gs.count)
		for i := range u.parts {
			u.parts[i].seen = true
		}
		out, n := u.pack()
		assert.Equal(t, gs.packed, out, name)
		assert.Equal(t, gs.count, n)
	}
	w := s.Window("cluster-a", "group-3", "alpha", 5)
	require.Len(t, w, 4)
	assert.Equal(t, Sample{TimeMs: 1_700_000_000_000 + 180_000, Committed: 3_000_000_000 + 3*5*977, End: 3_000_000_000 + 15_000 + 5, Lag: 15_005 - 3*5*977}, w[3])
	assert.Equal(t, int64(-1), s.Window("cluster-a", "group-3", "zeta", 5)[0].Committed)
	assert.Equal(t, int64(-1), s.Window("cluster-a", "group-3", "zeta", 4)[0].Lag)
	assert.Nil(t, s.Window("cluster-a", "group-3", "alpha", 6))
}

// A state loaded and saved with nothing touched is the same file, byte
// for byte (each group's bytes written as they were read); touching one
// group leaves every other group's bytes as they were, in memory the same
// allocation.
func TestStateFileUntouchedGroupsKeepTheirBytes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state")
	mixed := mixedStore(t)
	before := encodeState(mixed.clusters, mixed.notices)
	require.NoError(t, os.WriteFile(path, before, 0o600))

	s, err := OpenFile(path, Options{MinDistance: -1, Window: 10 * time.Minute})
	require.NoError(t, err)
	require.NoError(t, s.BeginChange())
	require.NoError(t, s.Save())
	again, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, before, again, "loaded and saved, nothing touched")

	groups := s.clusters["cluster-a"].groups
	held := map[string]*byte{}
	for g, gs := range groups {
		held[g] = &gs.packed[0]
	}
	recordOne(t, s, 1_700_000_000_000+240_000, "group-2", lagRow("alpha", 0, 5, 10))
	for g, gs := range groups {
		if g != "group-2" {
			assert.Same(t, held[g], &gs.packed[0], "%s: not packed again", g)
		}
	}
	require.NoError(t, s.Save())
	s.Close()
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	old, _, err := decodeState(before)
	require.NoError(t, err)
	now, _, err := decodeState(after)
	require.NoError(t, err)
	require.Len(t, now["cluster-a"].groups, 6)
	for g, gs := range now["cluster-a"].groups {
		if g == "group-2" {
			assert.Equal(t, 1, gs.count, "the partitions no longer the group's are dropped")
			continue
		}
		assert.Equal(t, old["cluster-a"].groups[g].packed, gs.packed, g)
		assert.Equal(t, old["cluster-a"].groups[g].seenMs, gs.seenMs, g)
	}
}

// testdata/mixed.state is mixedStore's file as kadmin-lua wrote it before
// groups were kept packed: the same records give the same bytes, and the
// file read and saved untouched is the same file.
func TestStateFileSameBytesAsBeforePacking(t *testing.T) {
	golden, err := os.ReadFile(filepath.Join("testdata", "mixed.state"))
	require.NoError(t, err)
	mixed := mixedStore(t)
	assert.Equal(t, golden, encodeState(mixed.clusters, mixed.notices))

	path := filepath.Join(t.TempDir(), "state")
	require.NoError(t, os.WriteFile(path, golden, 0o600))
	s, err := OpenFile(path, Options{})
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.BeginChange())
	assert.Equal(t, mixed.Window("cluster-a", "group-4", "m-4", 3), s.Window("cluster-a", "group-4", "m-4", 3))
	require.NoError(t, s.Save())
	again, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, golden, again)
}

// The file is read a piece at a time: a reader that gives one byte at a
// time, and a group larger than a piece read, give what one buffer gave.
func TestStateFileReadInPieces(t *testing.T) {
	big := filledStore(t, 2, 6_000) // groups larger than a piece
	data := encodeState(big.clusters, nil)
	require.Greater(t, len(data)/2, readChunk)
	whole, _, err := decodeState(data)
	require.NoError(t, err)
	pieces, _, err := readState(iotest.OneByteReader(bytes.NewReader(data)), int64(len(data)))
	require.NoError(t, err)
	assert.Equal(t, whole, pieces)
	assert.Equal(t, data, encodeState(whole, nil))
}

// withCRC puts a good checksum on a payload: damage the checksum cannot see.
func withCRC(data []byte) []byte {
	head := len(stateMagic) + 1
	payload := data[head : len(data)-4]
	return binary.BigEndian.AppendUint32(append([]byte(nil), data[:len(data)-4]...), crc32.ChecksumIEEE(payload))
}

// A group's bytes are checked whole at load, though they are not decoded:
// a file whose checksum holds but whose group is corrupt is set aside at
// once, with what is wrong; a damaged file still says its checksum first.
func TestStateFileCorruptGroupFoundAtLoad(t *testing.T) {
	one := New(Options{})
	recordOne(t, one, 5, "g", lagRow("t", 0, 1, 2), lagRow("t", 1, 1, 2))
	good := encodeState(one.clusters, nil)
	// ... g, seen 5, then topics: 1, "t", 2 partitions: 0, changed, pause, 1 sample ...
	at := bytes.Index(good, []byte("\x01\x01t\x02")) + 4
	require.Greater(t, at, 4)
	sampleCount := at + 3 // partition 0, changed 5 (one byte each), pause 0
	require.Equal(t, byte(1), good[sampleCount])
	tooMany := append([]byte(nil), good...)
	tooMany[sampleCount] = 0x7f
	cases := map[string]struct {
		data []byte
		want string
	}{
		"sample count":    {withCRC(tooMany), "corrupt: bad sample count"},
		"overlong varint": {withCRC(append(append(append([]byte(nil), good[:at]...), bytes.Repeat([]byte{0xff}, 10)...), good[at+1:]...)), "corrupt: bad partition"},
		"topic name":      {withCRC(append(append(append([]byte(nil), good[:at-3]...), 0xff, 0x7f), good[at-2:]...)), "corrupt: bad topic name"},
		"damaged":         {tooMany, "corrupt: checksum mismatch (truncated or damaged)"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, _, err := decodeState(c.data)
			require.Error(t, err)
			assert.Equal(t, c.want, err.Error())

			path := filepath.Join(t.TempDir(), "state")
			require.NoError(t, os.WriteFile(path, c.data, 0o600))
			var warned []string
			s, err := OpenFile(path, Options{Warn: func(m string) { warned = append(warned, m) }})
			require.NoError(t, err)
			defer s.Close()
			recordOne(t, s, 1_000, "g", lagRow("t", 0, 1, 2))
			require.Len(t, warned, 1)
			assert.Contains(t, warned[0], "("+c.want+"): set aside as "+path+".corrupt-")
		})
	}
}

// A group the file holds out of order (a file written otherwise than
// kadmin-lua writes it) is read as the decoder read it, the last of a
// partition held twice kept, and kept in order.
func TestStateFileGroupOutOfOrderIsKeptInOrder(t *testing.T) {
	b := []byte(stateMagic)
	b = binary.AppendUvarint(b, stateVersion)
	start := len(b)
	str := func(s string) { b = binary.AppendUvarint(b, uint64(len(s))); b = append(b, s...) }
	b = append(b, 1) // clusters
	str("c")
	str("n")
	b = append(b, 1) // groups
	str("g")
	b = binary.AppendVarint(b, 5)
	b = append(b, 2) // topics: "u" before "t", "t" with 1 before 0, and 1 twice
	str("u")
	b = append(b, 1)
	b = binary.AppendVarint(b, 0)
	b = append(b, 10, 0, 1, 10, 2, 4, 2)
	str("t")
	b = append(b, 3)
	for i, p := range []int64{1, 0, 1} {
		b = binary.AppendVarint(b, p)
		b = append(b, 10, 0, 1, 10, byte(2*i+2), 4, 2) // committed i+1
	}
	b = append(b, 0) // notices
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[start:]))

	clusters, _, err := decodeState(b)
	require.NoError(t, err)
	gs := clusters["c"].groups["g"]
	assert.Equal(t, 3, gs.count)
	var u unpacked
	require.NoError(t, u.unpack(gs.packed, stateVersion))
	assert.True(t, u.sorted)
	var tps []vocab.TopicPartition
	for _, p := range u.parts {
		tps = append(tps, p.tp)
	}
	assert.Equal(t, []vocab.TopicPartition{{Topic: "t", Partition: 0}, {Topic: "t", Partition: 1}, {Topic: "u", Partition: 0}}, tps)
	assert.Equal(t, int64(3), u.parts[1].samples[0].Committed, "the last of t[1] kept")
	assert.Equal(t, int64(2), u.parts[0].samples[0].Committed)
}

// Expiry and MaxEntries count a packed group's partitions without
// unpacking it: groups loaded from a file and never recorded this run go
// as they did decoded.
func TestStateFileExpiryAndBoundOnPackedGroups(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state")
	s, err := OpenFile(path, Options{})
	require.NoError(t, err)
	hour := time.Hour.Milliseconds()
	recordOne(t, s, 1_000, "oldest", lagRow("t", 0, 1, 2), lagRow("t", 1, 1, 2), lagRow("t", 2, 1, 2))
	recordOne(t, s, 2*hour, "older", lagRow("t", 0, 1, 2), lagRow("t", 1, 1, 2))
	recordOne(t, s, 3*hour, "newer", lagRow("t", 0, 1, 2), lagRow("t", 1, 1, 2))
	require.NoError(t, s.Save())
	s.Close()

	var warned []string
	s, err = OpenFile(path, Options{ExpireAfter: 2 * time.Hour, MaxEntries: 4, Warn: func(m string) { warned = append(warned, m) }})
	require.NoError(t, err)
	defer s.Close()
	assert.Equal(t, 7, s.Partitions(), "counted packed")
	// The oldest has not been seen for 2 hours and a bit: it expires; the
	// three partitions left plus the new one's two pass MaxEntries (4):
	// the older goes.
	recordOne(t, s, 3*hour+1_001, "new", lagRow("t", 0, 1, 2), lagRow("t", 1, 1, 2))
	assert.Nil(t, s.Window("cluster-a", "oldest", "t", 0))
	assert.Nil(t, s.Window("cluster-a", "older", "t", 0))
	assert.Len(t, s.Window("cluster-a", "newer", "t", 1), 1)
	assert.Equal(t, 4, s.Partitions())
	require.Len(t, warned, 1)
	assert.Contains(t, warned[0], "more than 4 partitions: dropped the 1 groups sampled longest ago")
}

// Issue 32: the store holds about its file's size in memory, not the
// 400 to 600 bytes a partition its windows took decoded; a record holds
// one group decoded at a time.
func TestStateStoreHoldsAboutItsFileInMemory(t *testing.T) {
	const groups, topics, parts = 1_000, 4, 10
	path := filepath.Join(t.TempDir(), "state")
	require.NoError(t, writeScaleState(path, groups, topics, parts, 10, 1_700_000_000_000, 60_000))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s, err := OpenFile(path, Options{Window: 10 * time.Minute, MaxSamples: 10, MinDistance: -1})
	require.NoError(t, err)
	defer s.Close()
	rows := make([]row, 0, topics*parts)
	for tp := range topics {
		for p := range parts {
			rows = append(rows, lagRow(scaleTopic(tp), int32(p), 2_000_000, 2_000_400))
		}
	}
	seen := make([]Group[row], 0, 200)
	for g := range 200 {
		seen = append(seen, Group[row]{Name: scaleGroup(g), Parts: rows})
	}
	require.NoError(t, RecordPage(s, "cluster", "", 1_700_000_000_000+600_000, seen, readRow, nil))
	runtime.GC()
	runtime.ReadMemStats(&after)
	require.Equal(t, groups*topics*parts, s.Partitions())
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d partitions: file %d bytes, store %d bytes", groups*topics*parts, fi.Size(), held)
	assert.Less(t, held, fi.Size()*3/2, "about the file's size (decoded: %d bytes a partition)", held/(groups*topics*parts))
	runtime.KeepAlive(s)
}
