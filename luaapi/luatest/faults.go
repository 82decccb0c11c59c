package luatest

import (
	"fmt"
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

// maxLatencyMillis bounds a latency fault: ten minutes.
const maxLatencyMillis = 600_000

// apiKey is the Kafka request a fault names; fault's declaration and the
// fault itself read the name with it.
func apiKey(name string) (kmsg.Key, error) {
	k, ok := apiKeys()[normalizeName(name)]
	if !ok {
		return 0, fmt.Errorf("unknown Kafka request %s (Kafka's names: CreateTopics, Metadata, OffsetCommit, ...)", name)
	}
	return kmsg.Key(k), nil
}

// kafkaError is the Kafka error a fault answers with.
func kafkaError(name string) (*kerr.Error, error) {
	e, ok := kafkaErrors()[strings.ToUpper(name)]
	if !ok {
		return nil, fmt.Errorf("unknown Kafka error %s (Kafka's names: NOT_CONTROLLER, REQUEST_TIMED_OUT, ...)", name)
	}
	return e, nil
}

func checkAPIName(name string) error   { _, err := apiKey(name); return err }
func checkErrorName(name string) error { _, err := kafkaError(name); return err }

func (t *testEnv) luaFault(L *lua.LState) int {
	t.needTest(L, "fault")
	opts := L.CheckTable(1)
	var (
		f       kfake.Fault
		latency time.Duration
		bad     string
		times   = 1
	)
	// The declaration (Globals) has read every key and value: unknown keys,
	// names and ranges are refused before this runs.
	opts.ForEach(func(k, v lua.LValue) {
		switch lua.LVAsString(k) {
		case "api":
			key, err := apiKey(lua.LVAsString(v))
			if err != nil {
				bad = "api: " + err.Error()
				return
			}
			f.Keys = []kmsg.Key{key}
		case "error":
			e, err := kafkaError(lua.LVAsString(v))
			if err != nil {
				bad = "error: " + err.Error()
				return
			}
			f.Err = e
		case "times":
			if v == lua.LString("always") {
				times = -1
			} else {
				times = int(lua.LVAsNumber(v))
			}
		case "latency_ms":
			latency = time.Duration(float64(lua.LVAsNumber(v)) * float64(time.Millisecond))
		case "topic":
			f.Topic = lua.LVAsString(v)
		case "group":
			f.Group = lua.LVAsString(v)
		case "resource":
			f.Resource = lua.LVAsString(v)
		case "broker":
			f.Nodes = []int32{int32(lua.LVAsNumber(v))}
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
