package state

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine/alerts"
	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// memRemote is a Remote in memory: one version, whose writer is the last
// store that took it (as a transactional id's newest producer is).
type memRemote struct {
	data    []byte
	epoch   int // the newest taker
	readErr error
	takeErr error
	writes  int
	reads   int
}

type memTaker struct {
	m     *memRemote
	epoch int
}

func (t *memTaker) Take() error {
	if t.m.takeErr != nil {
		return t.m.takeErr
	}
	t.m.epoch++
	t.epoch = t.m.epoch
	return nil
}

func (t *memTaker) Read(limit int64) ([]byte, error) {
	t.m.reads++
	if t.m.readErr != nil {
		return nil, t.m.readErr
	}
	if int64(len(t.m.data)) > limit {
		return nil, fmt.Errorf("%w: larger than %d bytes", ErrUnreadable, limit)
	}
	return t.m.data, nil
}

func (t *memTaker) Write(data []byte) error {
	if t.epoch != t.m.epoch {
		return errors.New("fenced: a newer run took the state")
	}
	t.m.writes++
	t.m.data = append([]byte(nil), data...)
	return nil
}

func (t *memTaker) Close()         {}
func (t *memTaker) String() string { return "kafka:state/default" }

func remoteStore(m *memRemote, warned *[]string) *Store {
	return OpenRemote(&memTaker{m: m}, Options{Warn: func(s string) { *warned = append(*warned, s) }})
}

func TestStateRemoteRoundTripsAndWritesOnlyAChange(t *testing.T) {
	m := &memRemote{}
	var warned []string
	s := remoteStore(m, &warned)
	assert.Equal(t, "kafka:state/default", s.Path(), "lag_status says the samples are kept")
	recordOne(t, s, 10_000, "g", lagRow("t", 0, 5, 10))
	require.NoError(t, s.Notices("profile:a").SaveNotice("k", alerts.Notice{Status: "firing", OpenedMs: 1, SentMs: 1}))
	require.NoError(t, s.Save())
	s.Close()
	assert.Equal(t, 1, m.writes)

	// The next run (another pod: nothing but the remote in common).
	s2 := remoteStore(m, &warned)
	w := recordOne(t, s2, 70_000, "g", lagRow("t", 0, 5, 20))
	assert.Len(t, w[lagRow("t", 0, 0, 0).tp()].Samples, 2, "the sample of the run before is in the window")
	n, ok := s2.Notices("profile:a").LastNotice("k")
	require.True(t, ok)
	assert.Equal(t, "firing", n.Status)
	require.NoError(t, s2.Save())
	require.NoError(t, s2.Save(), "nothing changed since: nothing written")
	assert.Equal(t, 2, m.writes)
	assert.Empty(t, warned)

	// A run that only reads takes nothing and writes nothing.
	s3 := remoteStore(m, &warned)
	assert.Len(t, s3.Window("cluster-a", "g", "t", 0), 2)
	require.NoError(t, s3.Save())
	assert.Equal(t, 2, m.writes)
	assert.Equal(t, 2, m.epoch, "a reader fences no one")
}

func TestStateRemoteOverlappingRunsLeaveOneWritersState(t *testing.T) {
	m := &memRemote{}
	var warned []string
	older, newer := remoteStore(m, &warned), remoteStore(m, &warned)
	recordOne(t, older, 10_000, "older", lagRow("t", 0, 1, 2))
	recordOne(t, newer, 11_000, "newer", lagRow("t", 0, 1, 2))
	require.NoError(t, newer.Save())
	err := older.Save()
	require.Error(t, err, "the older run was fenced: it writes nothing")
	assert.Contains(t, err.Error(), "kafka:state/default")

	after := remoteStore(m, &warned)
	assert.NotNil(t, after.Window("cluster-a", "newer", "t", 0))
	assert.Nil(t, after.Window("cluster-a", "older", "t", 0), "exactly one writer's state")
}

func TestStateRemoteTakesBeforeItReadsForAChange(t *testing.T) {
	m := &memRemote{}
	var warned []string
	first := remoteStore(m, &warned)
	recordOne(t, first, 10_000, "g", lagRow("t", 0, 1, 2))
	require.NoError(t, first.Save())

	// A run reads first (no take), then another run writes, then the
	// first run changes: it reads again after taking, so it starts from
	// the other's version, not from what it read before.
	s := remoteStore(m, &warned)
	assert.Len(t, s.Window("cluster-a", "g", "t", 0), 1)
	other := remoteStore(m, &warned)
	recordOne(t, other, 20_000, "g", lagRow("t", 0, 1, 3))
	require.NoError(t, other.Save())
	w := recordOne(t, s, 30_000, "g", lagRow("t", 0, 1, 4))
	assert.Len(t, w[lagRow("t", 0, 0, 0).tp()].Samples, 3)
}

func TestStateRemoteUnreadableVersionsAreNotUsed(t *testing.T) {
	for _, tc := range []struct {
		name   string
		data   []byte
		err    error
		warns  string
		writes bool
	}{
		{name: "corrupt", data: []byte(stateMagic + "\x02garbage"), warns: "cannot be read as a state (corrupt", writes: true},
		{name: "foreign", data: []byte(`{"not":"ours"}`), warns: "not a kadmin-lua state file", writes: true},
		{name: "a part compacted away", err: fmt.Errorf("%w: part 2 of 3 is missing", ErrUnreadable), warns: "part 2 of 3 is missing", writes: true},
		{name: "newer", data: []byte(stateMagic + "\x09rest"), warns: "a newer format: format version 9", writes: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &memRemote{data: tc.data, readErr: tc.err}
			var warned []string
			s := remoteStore(m, &warned)
			w := recordOne(t, s, 10_000, "g", lagRow("t", 0, 1, 2))
			assert.Len(t, w[lagRow("t", 0, 0, 0).tp()].Samples, 1, "nothing judged from what could not be read")
			require.NotEmpty(t, warned)
			assert.Contains(t, warned[0], tc.warns)
			assert.Contains(t, warned[0], "kafka:state/default")
			m.readErr = nil
			err := s.Save()
			if tc.writes {
				require.NoError(t, err)
				assert.Equal(t, 1, m.writes, "the next write replaces it")
			} else {
				require.Error(t, err)
				assert.Equal(t, 0, m.writes, "a newer kadmin-lua's state is never overwritten")
				assert.Equal(t, tc.data, m.data)
			}
		})
	}
}

func TestStateRemoteThatCannotBeReadFailsTheChange(t *testing.T) {
	m := &memRemote{}
	var warned []string
	s := remoteStore(m, &warned)
	recordOne(t, s, 10_000, "g", lagRow("t", 0, 1, 2))
	require.NoError(t, s.Save())
	writes := m.writes

	// Unauthorized, or down: the change fails rather than start empty and
	// write over the state it could not read.
	denied := errors.New("TOPIC_AUTHORIZATION_FAILED: state")
	s2 := remoteStore(m, &warned)
	m.readErr = denied
	err := s2.record("cluster-a", "profile:a", 20_000, []Group[row]{{Name: "g", Parts: []row{lagRow("t", 0, 1, 3)}}}, nil)
	require.ErrorIs(t, err, denied)
	require.NoError(t, s2.Save())
	assert.Equal(t, writes, m.writes, "nothing written")

	m.takeErr = errors.New("TRANSACTIONAL_ID_AUTHORIZATION_FAILED")
	s3 := remoteStore(m, &warned)
	require.ErrorIs(t, s3.BeginChange(), m.takeErr)

	// The next change tries again.
	m.readErr, m.takeErr = nil, nil
	w := recordOne(t, s2, 30_000, "g", lagRow("t", 0, 1, 4))
	assert.Len(t, w[lagRow("t", 0, 0, 0).tp()].Samples, 2)
}

func TestStateRemoteIsBounded(t *testing.T) {
	m := &memRemote{}
	var warned []string
	s := OpenRemote(&memTaker{m: m}, Options{MaxFileBytes: 300, Warn: func(s string) { warned = append(warned, s) }})
	for i := range 20 {
		recordOne(t, s, int64(10_000+i), fmt.Sprintf("group-%02d", i), lagRow("topic", 0, 1, 2), lagRow("topic", 1, 1, 2))
	}
	require.NoError(t, s.Save())
	assert.LessOrEqual(t, len(m.data), 300)
	assert.Contains(t, warned[len(warned)-1], "dropped the")
}

func (r row) tp() vocab.TopicPartition {
	return vocab.TopicPartition{Topic: r.topic, Partition: r.partition}
}
