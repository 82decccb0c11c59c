package repl

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/internal/testnet"
	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

// completer is a session's completion as the line editor calls it, with
// its cache of names from the cluster, outside Run.
func (e *env) completer(ttl, wait time.Duration) (*session, func(line string) ([]string, int)) {
	e.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &session{rt: e.rt, cache: newNameCache(ctx, ttl, wait),
		o: Options{Stdout: e.stdout, Stderr: e.stderr, Output: "table"}}
	e.t.Cleanup(func() { cancel(); s.cache.close() })
	return s, func(line string) ([]string, int) { return CompleteWith(e.rt.L, s.names, line, len(line)) }
}

func (e *env) commitGroup(group, topic string) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	offsets := kadm.Offsets{}
	offsets.Add(kadm.Offset{Topic: topic, Partition: 0, At: 0, LeaderEpoch: -1})
	resp, err := e.adm.CommitOffsets(ctx, group, offsets)
	require.NoError(e.t, err)
	require.NoError(e.t, resp.Error())
}

// count counts the requests of one key the cluster gets (and answers as
// usual).
func count(c *kfake.Cluster, key kmsg.Key) *atomic.Int64 {
	var n atomic.Int64
	c.ControlKey(int16(key), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		n.Add(1)
		return nil, nil, false
	})
	return &n
}

func TestCompleteNamesFromTheCluster(t *testing.T) {
	e := newEnv(t)
	for _, name := range []string{"billing-events", "orders", "orders-v2", "payments"} {
		e.createTopic(name, 1)
	}
	e.commitGroup("billing-consumer", "orders")
	e.commitGroup("billing-audit", "orders")
	e.commitGroup("shipping", "orders")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	acls := kadm.NewACLs().Allow("User:alice", "User:alan").Topics("orders").Operations(kadm.OpRead).ResourcePatternType(kadm.ACLPatternLiteral)
	created, err := e.adm.CreateACLs(ctx, acls)
	require.NoError(t, err)
	for _, c := range created {
		require.NoError(t, c.Err)
	}
	_, err = e.adm.AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{{User: "alba", Mechanism: kadm.ScramSha256, Iterations: 4096, Password: "x"}})
	require.NoError(t, err)

	_, complete := e.completer(time.Minute, 10*time.Second)
	for _, tc := range []struct {
		line string
		want []string
		n    int
	}{
		{`lag("bil`, []string{"billing-audit", "billing-consumer"}, 3},
		{`lag{"billing-c`, []string{"billing-consumer"}, 9},
		{`describe_groups({"sh`, []string{"shipping"}, 2},
		{`describe_topics{"ord`, []string{"orders", "orders-v2"}, 3},
		{`describe_topics({"payments", "ord`, []string{"orders", "orders-v2"}, 3},
		{`describe_topics{'bi`, []string{"billing-events"}, 2},
		{`fetch_offsets("billing-consumer", {"pa`, []string{"payments"}, 2},
		{`describe_configs{{topic = "pay`, []string{"payments"}, 3},
		{`describe_configs({group = "ship`, []string{"shipping"}, 4},
		{`reset_offsets{group = "ship`, []string{"shipping"}, 4},
		{`reset_offsets{group = "shipping", to = "ear`, []string{"earliest"}, 3},
		{`delete_records{{topic = "ord`, []string{"orders", "orders-v2"}, 3},
		{`describe_acls{principal = "User:al`, []string{"User:alan", "User:alba", "User:alice"}, 7},
		{`delete_acls{{principal = "User:ali`, []string{"User:alice"}, 8},
		{`describe_acls{operation = "re`, []string{"read"}, 2},
		{`list_offsets("orders", "ear`, []string{"earliest", "earliest_local", "earliest_pending_upload"}, 3},
		{`describe_configs{broker = "`, []string{"0", "1", "2", "default"}, 0},
		{`describe_configs{broker = `, []string{"0", "1", "2"}, 0},
		{`unregister_broker(`, []string{"0", "1", "2"}, 0},
		{`unregister_broker(1`, []string{"1"}, 1},
		{`describe_log_dirs{brokers = {`, []string{"0", "1", "2"}, 0},
		{`c = kafka.default:describe_topics{"pay`, []string{"payments"}, 3},
		{`lag"bil`, []string{"billing-audit", "billing-consumer"}, 3},
	} {
		got, n := complete(tc.line)
		assert.Equal(t, tc.want, got, tc.line)
		assert.Equal(t, tc.n, n, tc.line)
	}

	for _, line := range []string{
		`create_topics{"ord`,                // a topic to create is a new name
		`create_topics{{name = "ord`,        // the same
		`print("ord`,                        // not a declared function
		`x = "ord`,                          // not in a call
		`describe_topics{["ord`,             // a key in brackets
		`describe_topics{"ord" .. [[ord`,    // a long string
		`describe_topics{"orders"} -- "ord`, // a comment
		`lag("zzz`,
	} {
		got, _ := complete(line)
		assert.Empty(t, got, line)
	}
	// Without a cluster behind it (Complete), only the declared values.
	got, _ := Complete(e.rt.L, `describe_topics{"ord`, len(`describe_topics{"ord`))
	assert.Empty(t, got)
	got, _ = Complete(e.rt.L, `describe_acls{permission = "`, len(`describe_acls{permission = "`))
	assert.Equal(t, []string{"allow", "any", "deny"}, got)
}

// A method call completes names from its own client's cluster.
func TestCompleteNamesOfAClientsCluster(t *testing.T) {
	e := newEnv(t)
	e.createTopic("orders", 1)
	other := newEnv(t)
	other.createTopic("orders-elsewhere", 1)
	_, err := e.rt.DoString(context.Background(), "t", `c = kafka.connect{brokers = "`+other.cluster.ListenAddrs()[0]+`"}`)
	require.NoError(t, err)
	_, complete := e.completer(time.Minute, 10*time.Second)

	got, _ := complete(`c:describe_topics{"ord`)
	assert.Equal(t, []string{"orders-elsewhere"}, got)
	got, _ = complete(`c.describe_topics{"ord`)
	assert.Equal(t, []string{"orders-elsewhere"}, got)
	got, _ = complete(`describe_topics{"ord`)
	assert.Equal(t, []string{"orders"}, got)
	got, _ = complete(`kafka.json.encode("ord`)
	assert.Empty(t, got)
}

// Names from the cluster reach the line escaped for the quote they are
// in: a quote, a backslash or a control character neither ends the
// literal nor drives the terminal.
func TestCompletedNamesAreQuoted(t *testing.T) {
	e := newEnv(t)
	e.createTopic("t", 1)
	e.commitGroup("we\"ird\\\x1b[31m", "t")
	e.commitGroup("it's", "t")
	_, complete := e.completer(time.Minute, 10*time.Second)

	got, n := complete(`lag("we`)
	assert.Equal(t, []string{`we\"ird\\\027[31m`}, got)
	assert.Equal(t, 2, n)
	got, _ = complete(`lag('we`)
	assert.Equal(t, []string{`we"ird\\\027[31m`}, got)
	got, _ = complete(`lag('it`)
	assert.Equal(t, []string{`it\'s`}, got)
	got, _ = complete(`lag("it`)
	assert.Equal(t, []string{`it's`}, got)

	// What is completed is what the cluster has.
	v, err := e.rt.DoString(context.Background(), "t", `return "`+got[0]+`", "we\"ird\\\027[31m"`)
	require.NoError(t, err)
	assert.Equal(t, "it's", v[0].String())
	assert.Equal(t, "we\"ird\\\x1b[31m", v[1].String())
}

func TestNamesAreCachedAndRefreshedAfterAChange(t *testing.T) {
	e := newEnv(t)
	e.createTopic("orders", 1)
	e.commitGroup("billing", "orders")
	listGroups := count(e.cluster, kmsg.ListGroups)
	s, complete := e.completer(time.Hour, 10*time.Second)
	var now atomic.Int64
	now.Store(time.Now().UnixNano())
	s.cache.now = func() time.Time { return time.Unix(0, now.Load()) }

	got, _ := complete(`lag("bil`)
	assert.Equal(t, []string{"billing"}, got)
	asked := listGroups.Load()
	require.Positive(t, asked)

	e.commitGroup("billing-v2", "orders") // behind the REPL's back
	got, _ = complete(`lag("bi`)
	assert.Equal(t, []string{"billing"}, got, "fresh names are not asked again")
	got, _ = complete(`describe_topics{"x`) // another kind is asked on its own
	assert.Empty(t, got)
	assert.Equal(t, asked, listGroups.Load())

	now.Add(int64(2 * time.Hour))
	got, _ = complete(`lag("bil`)
	assert.Equal(t, []string{"billing", "billing-v2"}, got, "stale names are asked again")

	// A line that changes the cluster makes them stale at once.
	assert.False(t, s.eval(context.Background(), `commit_offsets("billing-v3", {{topic = "orders", partition = 0, offset = 0}})`))
	require.Empty(t, e.stderr.String())
	got, _ = complete(`lag("bil`)
	assert.Equal(t, []string{"billing", "billing-v2", "billing-v3"}, got)
	// A line that only reads does not.
	e.commitGroup("billing-v4", "orders")
	assert.False(t, s.eval(context.Background(), `x = list_groups()`))
	got, _ = complete(`lag("bil`)
	assert.Equal(t, []string{"billing", "billing-v2", "billing-v3"}, got)
}

// A cluster that does not answer holds a completion no longer than the
// bound; the question goes on in the background, one at a time.
func TestNamesNeverHoldThePromptLongerThanTheBound(t *testing.T) {
	e := &env{t: t}
	e.rt = luaapi.New(luaapi.Options{Config: engine.Config{Brokers: []string{testnet.SilentBroker(t)}, Timeout: 30 * time.Second}})
	t.Cleanup(e.rt.Close)
	const bound = 200 * time.Millisecond
	s, complete := e.completer(time.Minute, bound)
	var fetches atomic.Int64
	fetch := s.cache.fetchNames
	s.cache.fetchNames = func(ctx context.Context, src luaapi.NameSource, kind luaapi.NameKind) ([]string, error) {
		fetches.Add(1)
		return fetch(ctx, src, kind)
	}

	for range 3 {
		start := time.Now()
		got, _ := complete(`describe_topics{"ord`)
		took := time.Since(start)
		assert.Empty(t, got)
		assert.GreaterOrEqual(t, took, bound)
		assert.Less(t, took, bound+time.Second, "completion waits at most the bound")
	}
	assert.Equal(t, int64(1), fetches.Load(), "one question in flight at a time")

	// Lua completion does not wait for the cluster at all.
	start := time.Now()
	got, _ := complete(`describe_to`)
	assert.Equal(t, []string{"describe_topics"}, got)
	assert.Less(t, time.Since(start), bound)
}

// An answer later than the bound fills the cache for the next Tab.
func TestLateAnswerServesTheNextCompletion(t *testing.T) {
	e := newEnv(t)
	s, complete := e.completer(time.Minute, 50*time.Millisecond)
	release := make(chan struct{})
	s.cache.fetchNames = func(ctx context.Context, src luaapi.NameSource, kind luaapi.NameKind) ([]string, error) {
		select {
		case <-release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return []string{"late-topic"}, nil
	}
	got, _ := complete(`describe_topics{"la`)
	assert.Empty(t, got, "nothing cached yet, and the answer is late")
	close(release)
	assert.Eventually(t, func() bool {
		got, _ := complete(`describe_topics{"la`)
		return len(got) == 1 && got[0] == "late-topic"
	}, 10*time.Second, 10*time.Millisecond)
}
