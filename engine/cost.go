package engine

import (
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// What a client's calls cost: requests, bytes and round-trip time by Kafka
// API, counted by the client's kgo hooks (first_contact.go), and time by
// phase of the whole-cluster reads (listing groups, describing them,
// fetching their commits, listing offsets, judging, ...), so that a slow
// job says which phase is slow. The counts run from the client's making;
// a run takes the difference of two readings (Cost.Sub).

// APICost is what one Kafka API cost: requests sent, bytes written and
// read (the whole requests and responses, headers included), and the
// round trips' time summed (requests in flight at once overlap).
type APICost struct {
	Requests     int64         `json:"requests"`
	BytesWritten int64         `json:"bytes_written"`
	BytesRead    int64         `json:"bytes_read"`
	Time         time.Duration `json:"-"`
	Errors       int64         `json:"errors,omitempty"` // writes or reads that failed (the connection, not a Kafka error code)
}

// PhaseCost is the time spent in one phase of the reads, summed over the
// calls and pages that went through it. Phases that run at once (a page's
// describe and its commits) overlap, so they may add up to more than the
// wall time.
type PhaseCost struct {
	Times int64         `json:"times"` // how often the phase ran (once a page)
	Time  time.Duration `json:"-"`
}

// Cost is a reading of a client's counts.
type Cost struct {
	APIs   map[string]APICost   // by Kafka API name (APIName)
	Phases map[string]PhaseCost // by phase name (Phase* constants)
}

// The phases of the whole-cluster reads.
const (
	PhaseListGroups     = "list_groups"
	PhaseDescribeGroups = "describe_groups"
	PhaseFetchOffsets   = "fetch_offsets"
	PhaseListOffsets    = "list_offsets"
	PhaseFirstRecords   = "first_records"   // lag in time: the first unread records
	PhaseRetention      = "retention"       // lag in time: the topics' retention configs and sizes
	PhaseJudge          = "judge"           // lag_status: recording samples and judging them
	PhaseDescribeTopics = "describe_topics" // a page of the topics' partitions (DescribeTopicPartitions)
	// --state kafka:TOPIC (StateTopic, on its own client): taking the
	// state's writer (making the topic on first use), reading the newest
	// version, writing the run's.
	PhaseStateTake  = "state_take"
	PhaseStateRead  = "state_read"
	PhaseStateWrite = "state_write"
)

// costs counts one client's costs; its methods are safe for concurrent
// use. The API counts are atomics indexed by API key (the hooks run on
// every request); the phases take a mutex, once per phase per page.
type costs struct {
	apis [maxAPIKey + 1]apiCounters

	mu     sync.Mutex
	phases map[string]PhaseCost
}

// maxAPIKey bounds the API keys counted one by one; a larger key (a
// newer Kafka's) is counted under the last slot's name.
const maxAPIKey = 127

type apiCounters struct {
	requests, written, read, nanos, errors atomic.Int64
}

func (k *costs) slot(key int16) *apiCounters {
	if key < 0 || key > maxAPIKey {
		key = maxAPIKey
	}
	return &k.apis[key]
}

// wrote counts a request written (the hook's OnBrokerWrite).
func (k *costs) wrote(key int16, n int, err error) {
	a := k.slot(key)
	if err != nil {
		a.errors.Add(1)
		return
	}
	a.requests.Add(1)
	a.written.Add(int64(n))
}

// read counts a response read (the hook's OnBrokerRead).
func (k *costs) read(key int16, n int, rtt time.Duration, err error) {
	a := k.slot(key)
	if err != nil {
		a.errors.Add(1)
		return
	}
	a.read.Add(int64(n))
	a.nanos.Add(int64(rtt))
}

// phase starts timing a phase; the returned func ends it.
func (k *costs) phase(name string) func() {
	began := time.Now()
	return func() {
		took := time.Since(began)
		k.mu.Lock()
		defer k.mu.Unlock()
		if k.phases == nil {
			k.phases = map[string]PhaseCost{}
		}
		p := k.phases[name]
		p.Times++
		p.Time += took
		k.phases[name] = p
	}
}

func (k *costs) reading() Cost {
	out := Cost{APIs: map[string]APICost{}, Phases: map[string]PhaseCost{}}
	for key := range k.apis {
		a := &k.apis[key]
		c := APICost{Requests: a.requests.Load(), BytesWritten: a.written.Load(), BytesRead: a.read.Load(),
			Time: time.Duration(a.nanos.Load()), Errors: a.errors.Load()}
		if c != (APICost{}) {
			out.APIs[APIName(int16(key))] = c
		}
	}
	k.mu.Lock()
	maps.Copy(out.Phases, k.phases)
	k.mu.Unlock()
	return out
}

// Cost is what the client's calls have cost since it was made.
func (c *Client) Cost() Cost { return c.contact.costs.reading() }

// phase times a phase of a read on this client: defer c.phase(name)().
func (c *Client) phase(name string) func() { return c.contact.costs.phase(name) }

// Sub is c minus an earlier reading of the same client: what was spent
// between them. Entries left at zero are dropped.
func (c Cost) Sub(earlier Cost) Cost {
	out := Cost{APIs: map[string]APICost{}, Phases: map[string]PhaseCost{}}
	for name, a := range c.APIs {
		b := earlier.APIs[name]
		d := APICost{Requests: a.Requests - b.Requests, BytesWritten: a.BytesWritten - b.BytesWritten,
			BytesRead: a.BytesRead - b.BytesRead, Time: a.Time - b.Time, Errors: a.Errors - b.Errors}
		if d != (APICost{}) {
			out.APIs[name] = d
		}
	}
	for name, p := range c.Phases {
		b := earlier.Phases[name]
		if d := (PhaseCost{Times: p.Times - b.Times, Time: p.Time - b.Time}); d != (PhaseCost{}) {
			out.Phases[name] = d
		}
	}
	return out
}

// Add is c plus another reading (a run's clients together).
func (c Cost) Add(other Cost) Cost {
	out := Cost{APIs: maps.Clone(c.APIs), Phases: maps.Clone(c.Phases)}
	if out.APIs == nil {
		out.APIs = map[string]APICost{}
	}
	if out.Phases == nil {
		out.Phases = map[string]PhaseCost{}
	}
	for name, a := range other.APIs {
		b := out.APIs[name]
		out.APIs[name] = APICost{Requests: a.Requests + b.Requests, BytesWritten: a.BytesWritten + b.BytesWritten,
			BytesRead: a.BytesRead + b.BytesRead, Time: a.Time + b.Time, Errors: a.Errors + b.Errors}
	}
	for name, p := range other.Phases {
		b := out.Phases[name]
		out.Phases[name] = PhaseCost{Times: p.Times + b.Times, Time: p.Time + b.Time}
	}
	return out
}

// Requests is the number of requests sent, over every API.
func (c Cost) Requests() int64 {
	var n int64
	for _, a := range c.APIs {
		n += a.Requests
	}
	return n
}

// APINames and PhaseNames are the entries' names, sorted.
func (c Cost) APINames() []string   { return slices.Sorted(maps.Keys(c.APIs)) }
func (c Cost) PhaseNames() []string { return slices.Sorted(maps.Keys(c.Phases)) }
