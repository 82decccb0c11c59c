package luaapi

import (
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

// clientHandle is a cluster connection as Lua sees it: the default client
// behind the globals, or one made by kafka.connect. It connects on first
// use, through its connection: its own, or a SharedClient's (loop mode),
// which the handle borrows and never closes.
type clientHandle struct {
	rt       *Runtime
	cfg      engine.Config
	name     string
	cluster  string // the profile it came from, for plan lines; "" names it by its brokers
	conn     *connection
	borrowed bool // conn is a SharedClient's

	mu     sync.Mutex
	closed bool

	clusterID string // under mu: the cluster's id, once a NameSource has asked (completion_names.go)
	// costBase is what the client had cost when this handle first used it
	// (a shared client carries its earlier runs'), so that Runtime.Cost
	// is this runtime's alone; costSet says it was taken.
	costBase engine.Cost
	costSet  bool

	principalOnce sync.Once
	principalName string // who cfg logs in as, for authorization errors
}

// principal is who the handle logs in as (engine.Config.Principal), worked
// out once: a TLS certificate is read from its file.
func (h *clientHandle) principal() string {
	h.principalOnce.Do(func() { h.principalName = h.cfg.Principal() })
	return h.principalName
}

// newHandle is every clientHandle's constructor. The runtime's audit log
// and dry-run floor (its default configuration's) go into cfg here, so a
// kafka.connect client cannot have less safety than the default one.
func (r *Runtime) newHandle(cfg engine.Config, name, cluster string) *clientHandle {
	cfg.Audit = r.opts.Config.Audit
	cfg.DryRun = cfg.DryRun || r.opts.Config.DryRun
	return &clientHandle{rt: r, cfg: cfg, name: name, cluster: cluster, conn: &connection{cfg: cfg}}
}

func (h *clientHandle) get() (*engine.Client, error) {
	h.mu.Lock()
	closed := h.closed
	h.mu.Unlock()
	if closed {
		return nil, &engine.Error{Code: engine.CodeCanceled, Message: "client is closed"}
	}
	cl, err := h.conn.get()
	if err == nil {
		h.mu.Lock()
		if !h.costSet {
			h.costBase, h.costSet = cl.Cost(), true
		}
		h.mu.Unlock()
	}
	return cl, err
}

// cost is what the handle's client has cost since this handle first used
// it; false when it never connected.
func (h *clientHandle) cost() (engine.Cost, bool) {
	h.mu.Lock()
	set, base := h.costSet, h.costBase
	h.mu.Unlock()
	if !set {
		return engine.Cost{}, false
	}
	h.conn.mu.Lock()
	cl := h.conn.client
	h.conn.mu.Unlock()
	if cl == nil {
		return engine.Cost{}, false
	}
	return cl.Cost().Sub(base), true
}

func (h *clientHandle) close() {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	if !h.borrowed {
		h.conn.close()
	}
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

// Cost is what this runtime's calls cost so far, over its clients (the
// default one and kafka.connect's): requests, bytes and round trips by
// Kafka API, time by phase of the whole-cluster reads. --verbose prints it
// after a run and --metrics-file writes it.
func (r *Runtime) Cost() engine.Cost {
	r.mu.Lock()
	handles := append([]*clientHandle{r.dflt}, r.clients...)
	r.mu.Unlock()
	total := engine.Cost{}
	for _, h := range handles {
		if c, ok := h.cost(); ok {
			total = total.Add(c)
		}
	}
	return total
}
