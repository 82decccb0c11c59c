package repl

import (
	"context"
	"sync"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

// Names from the cluster for completion: asked in the background, kept
// for a while, and never waited for longer than a short bound, so a slow
// or unreachable cluster cannot hold the prompt.

const (
	// DefaultNamesTTL is how long names from the cluster are used without
	// asking again (a line that changes the cluster asks again sooner).
	DefaultNamesTTL = 30 * time.Second
	// DefaultNamesWait is the longest a completion waits for names it has
	// to ask for; past it, it offers what it has and the answer fills the
	// cache for the next Tab.
	DefaultNamesWait = 300 * time.Millisecond
	// namesFetchTimeout bounds one question in the background.
	namesFetchTimeout = 10 * time.Second
)

type nameKey struct {
	src  luaapi.NameSource
	kind luaapi.NameKind
}

type nameEntry struct {
	names    []string
	at       time.Time     // when they were fetched; zero: never, or expired
	fetching chan struct{} // closed when the fetch in flight ends; nil when none
}

// nameCache holds the names completion offers, per cluster and kind.
type nameCache struct {
	ctx        context.Context // the session's: canceled when it ends
	ttl, wait  time.Duration
	now        func() time.Time
	fetchNames func(ctx context.Context, src luaapi.NameSource, kind luaapi.NameKind) ([]string, error)

	mu      sync.Mutex
	entries map[nameKey]*nameEntry
	running sync.WaitGroup // fetches in flight
}

func newNameCache(ctx context.Context, ttl, wait time.Duration) *nameCache {
	if ttl <= 0 {
		ttl = DefaultNamesTTL
	}
	if wait <= 0 {
		wait = DefaultNamesWait
	}
	return &nameCache{ctx: ctx, ttl: ttl, wait: wait, now: time.Now, entries: map[nameKey]*nameEntry{},
		fetchNames: func(ctx context.Context, src luaapi.NameSource, kind luaapi.NameKind) ([]string, error) {
			return src.Names(ctx, kind)
		}}
}

// get returns src's names of kind: at once when they are fresh, else
// after asking the cluster, waiting at most c.wait for the answer (then
// the names it had, possibly none).
func (c *nameCache) get(src luaapi.NameSource, kind luaapi.NameKind) []string {
	key := nameKey{src, kind}
	c.mu.Lock()
	e := c.entries[key]
	if e == nil {
		e = &nameEntry{}
		c.entries[key] = e
	}
	if !e.at.IsZero() && c.now().Sub(e.at) < c.ttl {
		defer c.mu.Unlock()
		return e.names
	}
	done := e.fetching
	if done == nil {
		done = c.fetch(key, e)
	}
	c.mu.Unlock()

	timer := time.NewTimer(c.wait)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
	case <-c.ctx.Done():
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return e.names
}

// fetch asks for key's names in the background; c.mu is held.
func (c *nameCache) fetch(key nameKey, e *nameEntry) chan struct{} {
	done := make(chan struct{})
	e.fetching = done
	c.running.Add(1)
	go func() {
		defer c.running.Done()
		defer close(done)
		ctx, cancel := context.WithTimeout(c.ctx, namesFetchTimeout)
		defer cancel()
		names, err := c.fetchNames(ctx, key.src, key.kind)
		c.mu.Lock()
		defer c.mu.Unlock()
		if err == nil {
			e.names, e.at = names, c.now()
		}
		e.fetching = nil
	}()
	return done
}

// expire makes every entry stale: the next completion asks again (and
// offers the names it had while the answer is late).
func (c *nameCache) expire() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.entries {
		e.at = time.Time{}
	}
}

// close waits for the fetches in flight (the session's context is canceled
// first, so they end soon).
func (c *nameCache) close() { c.running.Wait() }

// names is the Names of a session: the default cluster for global
// functions, a client object's own cluster for its methods.
func (s *session) names(recv lua.LValue, kind luaapi.NameKind) []string {
	src, ok := s.rt.DefaultNames()
	if recv != nil {
		src, ok = s.rt.NamesOf(recv)
	}
	if !ok {
		return nil
	}
	return s.cache.get(src, kind)
}

// clusterName names the default cluster in the prompt: its profile, else
// its cluster id. Without a profile the id is asked for in the background
// when the session starts; the prompt names it once it is known.
func (s *session) clusterName() string {
	src, ok := s.rt.DefaultNames()
	if !ok {
		return ""
	}
	return src.Name()
}

// learnClusterID asks for the default cluster's id when no profile names
// it, waiting at most the names bound for it (the first prompt names the
// cluster when it answers quickly).
func (s *session) learnClusterID() {
	src, ok := s.rt.DefaultNames()
	if !ok || src.Name() != "" {
		return
	}
	done := make(chan struct{})
	s.cache.running.Add(1)
	go func() {
		defer s.cache.running.Done()
		defer close(done)
		ctx, cancel := context.WithTimeout(s.cache.ctx, namesFetchTimeout)
		defer cancel()
		_, _ = src.ClusterID(ctx)
	}()
	timer := time.NewTimer(s.cache.wait)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
	}
}
