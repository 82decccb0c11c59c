package engine

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kadmin-lua/kadmin-lua/internal/testtiered"
)

// A group whose first unread record is below the earliest local offset
// reads from remote storage; the unread records below it are only there.
// A group past it does not, and a topic without tiered storage never does.
func TestLagSaysWhichGroupsReadFromRemoteStorage(t *testing.T) {
	cl, c, adm := newTestClient(t, kfake.NumBrokers(1))
	base := time.Now().Add(-time.Hour).UnixMilli()
	retentionTopic(t, c, adm, "tiered", nil, stampsFrom(base, 10)...)
	retentionTopic(t, c, adm, "plain", nil, stampsFrom(base, 10)...)
	commitAt(t, adm, "behind", "tiered", map[int32]int64{0: 2})
	commitAt(t, adm, "ahead", "tiered", map[int32]int64{0: 7})
	commitAt(t, adm, "caught-up", "tiered", map[int32]int64{0: 10})
	commitAt(t, adm, "other", "plain", map[int32]int64{0: 2})
	testtiered.Model{Tiered: map[string]bool{"tiered": true}, Cfg: map[string]string{"retention.ms": "-1"}, Local: map[int32]int64{0: 5}}.Install(c)

	res, err := cl.LagWith(context.Background(), []string{"ahead", "behind", "caught-up", "other"}, LagOptions{Time: true})
	require.NoError(t, err)
	require.Len(t, res, 4)
	ahead, behind, caughtUp, other := partitionOf(t, res[0], 0), partitionOf(t, res[1], 0), partitionOf(t, res[2], 0), partitionOf(t, res[3], 0)

	require.NotNil(t, behind.ReadingRemote, "%+v", behind)
	assert.True(t, *behind.ReadingRemote)
	assert.EqualValues(t, 3, *behind.RemoteOnly, "offsets 2, 3 and 4 are below the earliest local offset 5")
	require.NotNil(t, behind.EarliestLocal)
	assert.EqualValues(t, 5, *behind.EarliestLocal)
	assert.Equal(t, 1, res[1].ReadingRemote)
	assert.EqualValues(t, 3, res[1].RemoteOnly)
	assert.NotNil(t, behind.LagMs, "the record at the committed offset is read (from remote storage, by the broker)")

	require.NotNil(t, ahead.ReadingRemote)
	assert.False(t, *ahead.ReadingRemote)
	assert.Zero(t, *ahead.RemoteOnly)
	assert.Zero(t, res[0].ReadingRemote)

	require.NotNil(t, caughtUp.ReadingRemote, "%+v", caughtUp)
	assert.False(t, *caughtUp.ReadingRemote)
	assert.Zero(t, *caughtUp.RemoteOnly)
	assert.Nil(t, other.ReadingRemote, "a topic without tiered storage: not applicable, no column in a table")
	assert.Nil(t, other.RemoteOnly)
	assert.Empty(t, other.RemoteUnknown)
	assert.Nil(t, other.EarliestLocal, "a topic without tiered storage is not asked")

	plain, err := cl.LagWith(context.Background(), []string{"behind"}, LagOptions{})
	require.NoError(t, err)
	assert.Nil(t, partitionOf(t, plain[0], 0).ReadingRemote, "only with time = true")
}

// When the earliest local offset cannot be listed, or the topic's configs
// read, reading from remote storage is unknown, with why: not false.
func TestLagSaysWhenReadingFromRemoteIsUnknown(t *testing.T) {
	cl, c, adm := newTestClient(t, kfake.NumBrokers(1))
	base := time.Now().Add(-time.Hour).UnixMilli()
	retentionTopic(t, c, adm, "tiered", nil, stampsFrom(base, 10)...)
	commitAt(t, adm, "behind", "tiered", map[int32]int64{0: 2})
	testtiered.Model{Tiered: map[string]bool{"tiered": true}, ErrCode: kerr.UnknownServerError.Code}.Install(c)

	res, err := cl.LagWith(context.Background(), []string{"behind"}, LagOptions{Time: true})
	require.NoError(t, err)
	p := partitionOf(t, res[0], 0)
	assert.Nil(t, p.ReadingRemote)
	assert.Nil(t, p.RemoteOnly)
	assert.Equal(t, RemoteUnknownNoLocal, p.RemoteUnknown)
	assert.Nil(t, res[0].Err, "the lag itself is known")
}

// retention.bytes bounds the whole log of a tiered topic, and the broker's
// log dirs hold only the local part: the partition's size is the local
// size over the local records, times all of them. Here half the records
// are local, so the whole is twice what describe_log_dirs says: at risk
// at 1.5 times that size, where the local size alone says it is not.
func TestAtRiskOfATieredTopicIsJudgedOnItsWholeLog(t *testing.T) {
	cl, c, adm := newTestClient(t, kfake.NumBrokers(1))
	base := time.Now().Add(-time.Hour).UnixMilli()
	size := retentionTopic(t, c, adm, "tiered", nil, stampsFrom(base, 10)...)
	retentionTopic(t, c, adm, "plain", nil, stampsFrom(base, 10)...)
	commitAt(t, adm, "g", "tiered", map[int32]int64{0: 0})
	commitAt(t, adm, "h", "plain", map[int32]int64{0: 0})
	limit := strconv.FormatInt(size*3/2, 10)
	testtiered.Model{Tiered: map[string]bool{"tiered": true}, Local: map[int32]int64{0: 5},
		Cfg: map[string]string{"retention.ms": "-1", "retention.bytes": limit, "segment.bytes": limit}}.Install(c)

	res, err := cl.LagWith(context.Background(), []string{"g", "h"}, LagOptions{Time: true})
	require.NoError(t, err)
	tiered, plain := partitionOf(t, res[0], 0), partitionOf(t, res[1], 0)
	assert.True(t, tiered.AtRisk, "%+v", tiered)
	assert.Equal(t, "retention.bytes", tiered.AtRiskBy)
	assert.False(t, plain.AtRisk, "the same size without tiered storage is within the limit: %+v", plain)
}

// describe_tiered_storage's view of a topic: the records only in remote
// storage, the local part, the horizons (-2 is the whole log's), and the
// whole log's size estimated at the local part's mean record size.
func TestTieredStorageDescribesTopics(t *testing.T) {
	cl, c, adm := newTestClient(t, kfake.NumBrokers(1))
	size := retentionTopic(t, c, adm, "tiered", nil, stampsFrom(time.Now().Add(-time.Hour).UnixMilli(), 10)...)
	retentionTopic(t, c, adm, "plain", nil, 1)
	testtiered.Model{Tiered: map[string]bool{"tiered": true}, Local: map[int32]int64{0: 4},
		Cfg: map[string]string{"retention.ms": "604800000", "retention.bytes": "-1", "local.retention.ms": "-2", "local.retention.bytes": "1000"}}.Install(c)

	all, err := cl.TieredStorage(context.Background(), nil)
	require.NoError(t, err)
	require.Len(t, all, 1, "without names: the tiered topics")
	tt := all[0]
	assert.Equal(t, "tiered", tt.Topic)
	assert.True(t, tt.RemoteStorage)
	assert.EqualValues(t, 604800000, tt.LocalRetentionMs, "-2: as the whole log's")
	assert.EqualValues(t, 1000, tt.LocalRetentionBytes)
	assert.Equal(t, AtRiskAgainstWholeLog, tt.AtRiskAgainst)
	require.Len(t, tt.Partitions, 1)
	p := tt.Partitions[0]
	assert.EqualValues(t, 0, p.LogStart)
	assert.EqualValues(t, 4, p.EarliestLocal)
	assert.EqualValues(t, 10, p.EndOffset)
	assert.EqualValues(t, 4, p.RemoteOnly)
	assert.EqualValues(t, 6, p.LocalRecords)
	assert.Equal(t, size, p.LocalBytes)
	require.NotNil(t, p.TotalBytes)
	assert.Equal(t, int64(float64(size)/6*10), *p.TotalBytes)
	assert.Nil(t, p.PendingUpload, "kfake reports nothing pending (-1)")
	assert.EqualValues(t, 4, tt.RemoteOnly)
	assert.Equal(t, *p.TotalBytes, *tt.TotalBytes)

	named, err := cl.TieredStorage(context.Background(), []string{"plain", "tiered", "missing"})
	require.NoError(t, err)
	require.Len(t, named, 3)
	assert.Equal(t, "missing", named[0].Topic)
	require.NotNil(t, named[0].Err)
	assert.Equal(t, "UNKNOWN_TOPIC_OR_PARTITION", named[0].Err.Code)
	assert.Equal(t, "plain", named[1].Topic)
	assert.False(t, named[1].RemoteStorage)
	assert.Empty(t, named[1].Partitions)
	assert.True(t, named[2].RemoteStorage)
}
