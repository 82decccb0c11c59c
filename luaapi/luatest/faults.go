package luatest

import (
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

// fault{api = "CreatePartitions", error = "NOT_CONTROLLER", times = 2,
//       topic =, group =, resource =, broker =}
// fault{api = "Metadata", latency_ms = 500, times = 3}
//
// An error answers the next `times` matching requests (1 when left out,
// "always" until removed) with that Kafka error, through kfake's faults; a
// latency delays them instead. api is Kafka's request name, in any case,
// with or without underscores (CreatePartitions, create_partitions). The
// handle returned has hits() (requests matched so far) and remove().

var (
	apiKeys = sync.OnceValue(func() map[string]int16 {
		m := map[string]int16{}
		for k := int16(0); k < 100; k++ {
			if n := engine.APIName(k); !strings.HasPrefix(n, "Unknown") {
				m[normalizeName(n)] = k
			}
		}
		return m
	})
	kafkaErrors = sync.OnceValue(func() map[string]*kerr.Error {
		m := map[string]*kerr.Error{}
		for code := int16(-1); code < 200; code++ {
			if e, ok := kerr.ErrorForCode(code).(*kerr.Error); ok {
				m[engine.ErrorName(e)] = e
				m[e.Message] = e // kerr's own spelling too (NOT_LEADER_FOR_PARTITION)
			}
		}
		return m
	})
)

func normalizeName(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "")) }

func (t *testEnv) luaFault(L *lua.LState) int {
	t.needTest(L, "fault")
	opts := L.CheckTable(1)
	var (
		f       kfake.Fault
		latency time.Duration
		bad     string
		times   = 1
	)
	opts.ForEach(func(k, v lua.LValue) {
		key := lua.LVAsString(k)
		switch key {
		case "api":
			name := lua.LVAsString(v)
			apiKey, ok := apiKeys()[normalizeName(name)]
			if !ok {
				bad = "api: unknown Kafka request " + name + " (Kafka's names: CreateTopics, Metadata, OffsetCommit, ...)"
				return
			}
			f.Keys = []kmsg.Key{kmsg.Key(apiKey)}
		case "error":
			e, ok := kafkaErrors()[strings.ToUpper(lua.LVAsString(v))]
			if !ok {
				bad = "error: unknown Kafka error " + lua.LVAsString(v) + " (Kafka's names: NOT_CONTROLLER, REQUEST_TIMED_OUT, ...)"
				return
			}
			f.Err = e
		case "times":
			switch {
			case v == lua.LString("always"):
				times = -1
			case v.Type() == lua.LTNumber && float64(v.(lua.LNumber)) >= 1:
				times = int(v.(lua.LNumber))
			default:
				bad = `times must be a positive count or "always"`
			}
		case "latency_ms":
			ms, ok := v.(lua.LNumber)
			if !ok || ms <= 0 || ms > 600_000 {
				bad = "latency_ms must be from 1 to 600000"
				return
			}
			latency = time.Duration(ms) * time.Millisecond
		case "topic":
			f.Topic = lua.LVAsString(v)
		case "group":
			f.Group = lua.LVAsString(v)
		case "resource":
			f.Resource = lua.LVAsString(v)
		case "broker":
			n, ok := v.(lua.LNumber)
			if !ok {
				bad = "broker must be a broker id"
				return
			}
			f.Nodes = []int32{int32(n)}
		default:
			bad = "unknown option " + key + " (api, error, latency_ms, times, topic, group, resource, broker)"
		}
	})
	switch {
	case bad != "":
		L.RaiseError("fault: %s", bad)
	case f.Keys == nil:
		L.RaiseError("fault: api is required (the Kafka request to fail or delay)")
	case f.Err != nil && latency > 0:
		L.RaiseError("fault: give an error or a latency_ms, not both")
	case f.Err == nil && latency == 0:
		L.RaiseError("fault: give an error (a Kafka error name) or a latency_ms")
	case latency > 0 && (f.Topic != "" || f.Group != "" || f.Resource != ""):
		L.RaiseError("fault: a latency applies to whole requests: it takes api, broker and times")
	}
	var hits func() int
	var remove func()
	if latency > 0 {
		hits, remove = t.delay(f.Keys[0], f.Nodes, latency, times)
	} else {
		f.Count = times
		h := t.cluster.Fake().Fault(f)
		hits, remove = h.Hits, h.Remove
	}
	handle := L.NewTable()
	handle.RawSetString("hits", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(hits()))
		return 1
	}))
	handle.RawSetString("remove", L.NewFunction(func(*lua.LState) int {
		remove()
		return 0
	}))
	L.Push(handle)
	return 1
}

// delay holds the next `times` requests of key (on brokers nodes, when
// given) for d each, then lets the cluster answer them as usual.
func (t *testEnv) delay(key kmsg.Key, nodes []int32, d time.Duration, times int) (hits func() int, remove func()) {
	var mu sync.Mutex
	n, removed := 0, false
	fake := t.cluster.Fake()
	fake.ControlKey(int16(key), func(kmsg.Request) (kmsg.Response, error, bool) {
		mu.Lock()
		over := removed || (times >= 0 && n >= times)
		if over {
			mu.Unlock()
			fake.DropControl()
			return nil, nil, false
		}
		if len(nodes) > 0 && nodes[0] != fake.CurrentNode() {
			mu.Unlock()
			return nil, nil, false
		}
		n++
		mu.Unlock()
		fake.SleepControl(func() { time.Sleep(d) })
		return nil, nil, false // answered as usual, late
	})
	return func() int {
			mu.Lock()
			defer mu.Unlock()
			return n
		}, func() {
			mu.Lock()
			removed = true
			mu.Unlock()
		}
}
