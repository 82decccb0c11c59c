package luaapi

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	lua "github.com/yuin/gopher-lua"
)

// A script that calls lag(), describe_topics() and alter_configs() in a
// loop keeps its memory flat: nothing a call makes outlives it (workload
// M of docs/benchmarks.md runs 10,000 iterations as a whole process).
func TestMemoryFlatOverCallsInALoop(t *testing.T) {
	if testing.Short() {
		t.Skip("a few thousand calls")
	}
	e := newEnv(t)
	_, err := e.adm.CreateTopics(e.ctx(), 6, 1, nil, "m")
	require.NoError(t, err)
	os := kadm.Offsets{}
	for p := range int32(6) {
		os.Add(kadm.Offset{Topic: "m", Partition: p, At: 0, LeaderEpoch: -1})
	}
	_, err = e.adm.CommitOffsets(e.ctx(), "mg", os)
	require.NoError(t, err)

	var heap []uint64 // live heap at each sample
	e.rt.L.SetGlobal("sample_heap", e.rt.L.NewFunction(func(L *lua.LState) int {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		heap = append(heap, ms.HeapAlloc)
		return 0
	}))
	e.run(`
		for i = 1, 1200 do
			local lags = lag({"mg"})
			local topics = describe_topics({"m"})
			alter_configs({{topic = "m", set = {["retention.ms"] = tostring(86400000 + i % 7)}}})
			assert(#lags[1].partitions == 6 and #topics[1].partitions == 6)
			if i == 200 or i == 1200 then sample_heap() end
		end`)
	require.Len(t, heap, 2)
	grown := int64(heap[1]) - int64(heap[0])
	t.Logf("live heap after 200 iterations %d KiB, after 1,200 %d KiB", heap[0]>>10, heap[1]>>10)
	assert.Less(t, grown, int64(256<<10), "1,000 more iterations (3,000 calls) keep less than 256 KiB")
}
