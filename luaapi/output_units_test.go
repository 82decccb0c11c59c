package luaapi

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/luaapi/output"
)

// Declared durations and rates read as a person reads them in tables:
// lag_status printed rates as 11.356151627336526 and lag_ms, stuck_ms as
// raw milliseconds. JSON keeps the numbers.
func TestTablesShowDurationsAndRates(t *testing.T) {
	e := newEnv(t)
	vals, err := e.rt.DoString(context.Background(), "test", `return {{group = "g", state = "Stable", status = "ERR", total_lag = 90,
		max_lag_ms = 185250, records_lost = 0, consume_rate = 11.356151627336526, produce_rate = 0.0123456, trend = "rising",
		samples = 3, complete = 0.3, worst = {{topic = "t", partition = 0, status = "STALL", rule = "stalled", lag = 90,
		committed = 10, end_offset = 100, lag_ms = 950, stuck_ms = 7384000, consume_rate = 0, produce_rate = 2.25, samples = 3}}}}`)
	require.NoError(t, err)
	e.rt.tagResult(Lookup("lag_status"), vals[0])
	table, err := e.rt.Format(vals, "table")
	require.NoError(t, err)
	assert.Contains(t, table, "MAX_LAG_MS")
	assert.Contains(t, table, "3m05s")
	assert.Contains(t, table, "11.4 ")
	assert.Contains(t, table, "0.012 ")
	assert.NotContains(t, table, "11.356")
	assert.NotContains(t, table, "185250")
	assert.Contains(t, table, "950ms")
	assert.Contains(t, table, "2h03m")
	assert.Contains(t, table, " 2.2") // 2.25 to one decimal
	js, err := e.rt.Format(vals, "json")
	require.NoError(t, err)
	assert.Contains(t, js, `"max_lag_ms": 185250`)
	assert.Contains(t, js, `"consume_rate": 11.356151627336526`)

	for d, want := range map[time.Duration]string{
		0: "0s", 450 * time.Millisecond: "450ms", 12340 * time.Millisecond: "12.3s", 250 * time.Second: "4m10s",
		2*time.Hour + 5*time.Minute: "2h05m", 76 * time.Hour: "3d04h",
	} {
		assert.Equal(t, want, output.Duration(d), d.String())
	}
	for r, want := range map[float64]string{0: "0.0", 11.356151627336526: "11.4", 0.0123456: "0.012", 1234.56: "1234.6", -3.04: "-3.0"} {
		assert.Equal(t, want, output.Rate(r), "%v", r)
	}
}

// A real lag in time prints its lag_ms as a duration.
func TestLagInTimeTableShowsDurations(t *testing.T) {
	e := demoEnv(t)
	out := e.format(`return lag("orders-processor", {time = true})`, "table")
	dur := `(\d+m\d\ds|\d+h\d\dm|\d+d\d\dh|\d+\.\ds)`
	assert.Regexp(t, `MAX_LAG_MS[^\n]*\norders-processor\s+Stable\s+56\s+`+dur+`\s`, out)
	assert.Regexp(t, `\n\s+orders\s+4\s+29\s+54\s+25\s+\S+\s+\S+\s+\S+\s+`+dur+`\s+`+dur+`\s+CreateTime`, out, "lag_ms and behind_head_ms")
	assert.Regexp(t, `\n\s+orders\s+0\s+40\s+40\s+0\s+\S+\s+\S+\s+0s\s+0s\s`, out, "a caught-up partition: 0s")
}
