package single

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

// TestLagStatusAcrossRunsOnARealBroker: what a cron job sees, one binary
// run at a time with a --state file, while the test drives the group's
// commits through an independent kadm client: the first run has one sample
// (OK), a progressing consumer is OK and falling, one that stopped
// committing is STOP, one that went back is REWIND; check-lag then exits 4.
func TestLagStatusAcrossRunsOnARealBroker(t *testing.T) {
	need(t)
	topic, group := unique("lagstatus"), unique("lagstatus-g")
	state := filepath.Join(t.TempDir(), "lag.state")
	r := adminRT(t, kafkatest.MechScram512)
	r.Run(fmt.Sprintf(`create_topics{{name = %q, partitions = 1}}`, topic))
	produce(t, topic, 1, 50)
	adm := admin(t)
	commit := func(at int64) {
		offs := kadm.Offsets{}
		offs.Add(kadm.Offset{Topic: topic, Partition: 0, At: at, LeaderEpoch: -1})
		_, err := adm.CommitOffsets(ctxT(t, 20*time.Second), group, offs)
		require.NoError(t, err)
	}
	type verdict struct {
		Status  string   `json:"status"`
		Reason  string   `json:"reason"`
		Trend   string   `json:"trend"`
		Samples int      `json:"samples"`
		Eta     *float64 `json:"eta_seconds"`
		Worst   []struct {
			Status string `json:"status"`
			Rule   string `json:"rule"`
			Lag    int64  `json:"lag"`
		} `json:"worst"`
	}
	status := func() verdict {
		t.Helper()
		res := runBin(t, kafkatest.MechScram512, kafkatest.AdminUser, kafkatest.AdminPassword,
			"--state", state, "-o", "json", "-e", fmt.Sprintf("lag_status(%q)", group))
		require.Equal(t, 0, res.Code, res.Stderr)
		var got []verdict
		require.NoError(t, json.Unmarshal([]byte(res.Stdout), &got), res.Stdout)
		require.Len(t, got, 1)
		return got[0]
	}

	commit(10)
	v := status()
	assert.Equal(t, "OK", v.Status)
	assert.Equal(t, 1, v.Samples)
	assert.Equal(t, "unknown", v.Trend)

	time.Sleep(1200 * time.Millisecond)
	commit(30)
	v = status()
	assert.Equal(t, "OK", v.Status, v.Reason)
	assert.Equal(t, "falling", v.Trend)
	require.NotNil(t, v.Eta)
	assert.Positive(t, *v.Eta)
	assert.EqualValues(t, 20, v.Worst[0].Lag)

	time.Sleep(3 * time.Second) // longer than the window spans: stopped
	v = status()
	assert.Equal(t, "ERR", v.Status)
	assert.Equal(t, "STOP", v.Worst[0].Status)
	assert.Contains(t, v.Reason, topic+"[0] is STOP")

	commit(5)
	v = status()
	assert.Equal(t, "ERR", v.Status)
	assert.Equal(t, "REWIND", v.Worst[0].Status, v.Reason)

	// check-lag judges whole windows: --state-window 2s is whole by now.
	res := runBin(t, kafkatest.MechScram512, kafkatest.AdminUser, kafkatest.AdminPassword,
		"--state", state, "--state-window", "2s", "run", "check-lag", group)
	assert.Equal(t, 4, res.Code, res.Stderr)
	assert.Contains(t, res.Stderr, group+": ERR: "+topic+"[0] is REWIND")
}
