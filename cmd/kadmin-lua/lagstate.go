package main

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/state"
	"github.com/kadmin-lua/kadmin-lua/internal/topicname"
)

// The state store (--state FILE or kafka:TOPIC[/KEY], KADMIN_STATE) is, like the audit log, part
// of every engine configuration the command makes (engineConfig), so that
// lag_status and kafka.notify remember between calls in every run mode.
// Without a file the store lives in memory for the process: the REPL and
// loop mode still see a trend across their calls and runs.

type stateFlags struct {
	path       string
	window     time.Duration
	samples    int
	maxEntries int
	expire     time.Duration
	wait       time.Duration
}

type stateHolder struct {
	// mu guards the rest: a fleet's runs make their kafka.connect clients'
	// configurations (engineConfig) at once.
	mu     sync.Mutex
	opened bool
	store  *state.Store
	err    error
	// --state kafka:TOPIC[/KEY]: each cluster's store is kept in that
	// cluster's own topic, read and written with that cluster's own
	// credentials, so a run's state never goes to another cluster. The
	// stores, by the name the run calls their cluster (state.Name), made
	// as each cluster's configuration is (engineConfig).
	topic, key string
	inTopic    map[string]*state.Store
	topics     map[string]*engine.StateTopic // inTopic's, for what they cost
}

// stateTopicPrefix starts a --state that is a topic, not a file.
const stateTopicPrefix = "kafka:"

// defaultStateKey is a state's key in its topic when --state names none.
const defaultStateKey = "default"

// parseStateTopic reads kafka:TOPIC or kafka:TOPIC/KEY.
func parseStateTopic(loc string) (topic, key string, err error) {
	rest := strings.TrimPrefix(loc, stateTopicPrefix)
	topic, key, _ = strings.Cut(rest, "/")
	if key == "" {
		key = defaultStateKey
	}
	if err := topicname.Check(topic); err != nil {
		return "", "", fmt.Errorf("--state %s: the topic: %w", loc, err)
	}
	if len(key) > 200 || strings.ContainsFunc(key, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-')
	}) {
		return "", "", fmt.Errorf("--state %s: the key must be 1 to 200 of a-z, A-Z, 0-9, '.', '_' and '-', got %q", loc, key)
	}
	return topic, key, nil
}

// stateOptions are the store's bounds from the flags.
func (a *app) stateOptions() state.Options {
	o := state.Options{
		Window: a.flags.state.window, MaxSamples: a.flags.state.samples, MaxEntries: a.flags.state.maxEntries, ExpireAfter: a.flags.state.expire, LockWait: a.flags.state.wait,
		Warn: a.stateWarn,
	}
	// The store holds about its file's size in memory (groups packed as
	// the file's bytes): bounded by a quarter of --max-memory, it never
	// takes a run past the limit.
	if m := int64(a.flags.maxMemory) / 4; m > 0 && m < state.DefaultMaxFile {
		o.MaxFileBytes = m
	}
	return o
}

func (a *app) stateWarn(msg string) { fmt.Fprintf(a.st.Stderr, "kadmin-lua: WARN %s\n", msg) }

// stateStore opens the store the first time it is asked. With --state
// kafka:... there is no store for the whole process (nil): each
// cluster's is stateStoreFor's.
func (a *app) stateStore() (*state.Store, error) {
	s := &a.state
	s.mu.Lock()
	defer s.mu.Unlock()
	return a.stateStoreLocked()
}

func (a *app) stateStoreLocked() (*state.Store, error) {
	s := &a.state
	if s.opened {
		return s.store, s.err
	}
	s.opened = true
	path := a.flags.state.path
	if path == "" {
		path = a.st.Env("KADMIN_STATE")
	}
	o := a.stateOptions()
	if path == "" {
		s.store = state.New(o)
		return s.store, nil
	}
	if strings.HasPrefix(path, stateTopicPrefix) {
		s.topic, s.key, s.err = parseStateTopic(path)
		if s.err != nil {
			s.err = usageErr(s.err)
		}
		return nil, s.err
	}
	s.store, s.err = state.OpenFile(path, o)
	if e := (*engine.Error)(nil); errors.As(s.err, &e) && e.Code == engine.CodeInvalidArgument {
		s.err = usageErr(fmt.Errorf("--state: %w", s.err)) // not a file it can keep
	} else if s.err != nil {
		s.err = withCode(ExitScript, fmt.Errorf("--state %s: %w", path, s.err))
	}
	return s.store, s.err
}

// stateStoreFor is the store of the cluster cfg reaches: the process's,
// or with --state kafka:TOPIC that cluster's own, kept in its topic and
// reached with cfg itself (its credentials, --dry-run and audit log).
func (a *app) stateStoreFor(cfg engine.Config) (*state.Store, error) {
	s := &a.state
	s.mu.Lock()
	defer s.mu.Unlock()
	store, err := a.stateStoreLocked()
	if err != nil || s.topic == "" {
		return store, err
	}
	name := state.Name(cfg.Profile, cfg.Brokers)
	if store := s.inTopic[name]; store != nil {
		return store, nil
	}
	cfg.State, cfg.Notices = nil, nil
	st, err := engine.NewStateTopic(cfg, s.topic, s.key, a.stateWarn)
	if err != nil {
		return nil, err
	}
	store = state.OpenRemote(st, a.stateOptions())
	if s.inTopic == nil {
		s.inTopic, s.topics = map[string]*state.Store{}, map[string]*engine.StateTopic{}
	}
	s.inTopic[name], s.topics[name] = store, st
	return store, nil
}

// stateTopicCost is what the state topics cost since they were made: the
// state of cfg's cluster, or with all every cluster's. Their requests are
// made on clients of their own (engine.StateTopic), not the run's.
func (a *app) stateTopicCost(cfg engine.Config, all bool) engine.Cost {
	s := &a.state
	s.mu.Lock()
	defer s.mu.Unlock()
	total := engine.Cost{}
	for name, st := range s.topics {
		if all || name == state.Name(cfg.Profile, cfg.Brokers) {
			total = total.Add(st.Cost())
		}
	}
	return total
}

// saveStateTopics writes the states kept in topics (of cfg's cluster, or
// with all every one) now, so that their writes are the run's to account
// for; the store is not written again at the end (it did not change).
func (a *app) saveStateTopics(cfg engine.Config, all bool) {
	s := &a.state
	s.mu.Lock()
	var stores []*state.Store
	for _, name := range slices.Sorted(maps.Keys(s.inTopic)) {
		if all || name == state.Name(cfg.Profile, cfg.Brokers) {
			stores = append(stores, s.inTopic[name])
		}
	}
	s.mu.Unlock()
	for _, store := range stores {
		if err := store.Save(); err != nil {
			fmt.Fprintf(a.st.Stderr, "kadmin-lua: WARN state: %v\n", err)
		}
	}
}

// stores is every store the run opened.
func (s *stateHolder) stores() []*state.Store {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*state.Store, 0, 1+len(s.inTopic))
	if s.store != nil {
		out = append(out, s.store)
	}
	for _, name := range slices.Sorted(maps.Keys(s.inTopic)) {
		out = append(out, s.inTopic[name])
	}
	return out
}

// noStateFile is for commands that never sample lag nor send alerts
// (undo, plan, apply): their clients get a store in memory, so that an
// operator's undo never waits for, or fails on, the lock a loop holds on
// the --state file.
func (a *app) noStateFile() {
	a.state.mu.Lock()
	defer a.state.mu.Unlock()
	if !a.state.opened {
		a.state.opened = true
		a.state.store = state.New(state.Options{})
	}
}

// saveState writes the stores to their files or topics, if they have one
// and were used. A failure (a full disk, a run fenced by a newer one) is a
// warning: the run's result stands, and loop mode's next save tries again.
func (a *app) saveState() {
	for _, s := range a.state.stores() {
		if s.Path() == "" {
			continue
		}
		if err := s.Save(); err != nil {
			fmt.Fprintf(a.st.Stderr, "kadmin-lua: WARN state: %v\n", err)
		}
	}
}

// closeState saves the stores and lets go of their locks and producers.
func (a *app) closeState() {
	a.saveState()
	for _, s := range a.state.stores() {
		s.Close()
	}
}
