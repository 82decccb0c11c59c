package luaapi

import (
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

// clientHandle is a cluster connection as Lua sees it: the default client
// behind the globals, or one made by kafka.connect. It connects on first use.
type clientHandle struct {
	rt      *Runtime
	cfg     engine.Config
	name    string
	cluster string        // the profile it came from, for plan lines; "" names it by its brokers
	shared  *SharedClient // the connection, when it outlives the runtime (loop mode)

	mu     sync.Mutex
	client *engine.Client
	closed bool

	clusterID string // under mu: the cluster's id, once a NameSource has asked (names.go)
}

func (h *clientHandle) get() (*engine.Client, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, &engine.Error{Code: engine.CodeCanceled, Message: "client is closed"}
	}
	if h.shared != nil {
		return h.shared.get()
	}
	if h.client == nil {
		cl, err := engine.New(h.cfg)
		if err != nil {
			return nil, err
		}
		cl.SetAudit(h.rt.opts.Audit) // every mutation is written ahead there
		h.client = cl
	}
	return h.client, nil
}

func (h *clientHandle) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.client != nil {
		h.client.Close()
		h.client = nil
	}
	h.closed = true
}

// clientObject builds the Lua table for a client: every declared function
// as a method (callable as c:fn() or c.fn()), plus close().
func (r *Runtime) clientObject(h *clientHandle) *lua.LTable {
	obj, _ := r.clientObjectMethods(h)
	return obj
}

// clientObjectMethods is clientObject, also giving its methods table.
func (r *Runtime) clientObjectMethods(h *clientHandle) (obj, methods *lua.LTable) {
	L := r.L
	obj = L.CreateTable(0, 0)
	methods = L.CreateTable(0, len(registry)+2)
	for name, f := range registry {
		if !f.IsAdmin() {
			continue
		}
		methods.RawSetString(name, r.bind(h, f, obj))
	}
	methods.RawSetString("close", L.NewFunction(func(L *lua.LState) int {
		h.close()
		return 0
	}))
	methods.RawSetString("brokers", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString(strings.Join(h.cfg.Brokers, ",")))
		return 1
	}))
	mt := L.NewTable()
	mt.RawSetString("__index", methods)
	mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString("kafka client (" + h.name + ": " + strings.Join(h.cfg.Brokers, ",") + ")"))
		return 1
	}))
	r.guardClientObject(obj, mt, methods) // builtins.go: methods cannot be replaced
	obj.Metatable = mt
	r.mu.Lock()
	if r.objects == nil {
		r.objects = map[*lua.LTable]*clientHandle{}
	}
	r.objects[obj] = h
	r.mu.Unlock()
	return obj, methods
}
