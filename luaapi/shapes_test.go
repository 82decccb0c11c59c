package luaapi

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/demo"
	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
	"github.com/kadmin-lua/kadmin-lua/engine/schemas"
	"github.com/kadmin-lua/kadmin-lua/luaapi/output"
)

// shapeErrors lists every way v departs from its declared shape s, with
// the path to it: a field of the wrong type, an undeclared field, a
// required field missing.
func shapeErrors(L *lua.LState, s *Shape, v lua.LValue, path string) []string {
	var errs []string
	bad := func(format string, args ...any) {
		errs = append(errs, path+": "+fmt.Sprintf(format, args...))
	}
	if v == lua.LNil {
		if !s.Optional {
			bad("missing (declared %s, not optional)", s.Kind)
		}
		return errs
	}
	t, isTable := v.(*lua.LTable)
	switch s.Kind {
	case KindAny, KindJSON:
	case KindString:
		if _, ok := v.(lua.LString); !ok {
			bad("want a string, got %s", v.Type())
		}
	case KindInt, KindTime, KindDuration:
		if n, ok := v.(lua.LNumber); !ok || float64(n) != math.Trunc(float64(n)) {
			bad("want an integer, got %s %v", v.Type(), v)
		}
	case KindNumber, KindRate:
		if _, ok := v.(lua.LNumber); !ok {
			bad("want a number, got %s", v.Type())
		}
	case KindBool:
		if _, ok := v.(lua.LBool); !ok {
			bad("want a boolean, got %s", v.Type())
		}
	case KindError:
		if _, ok := isErrorValue(L, v); !ok {
			bad("want an error value, got %s", v.Type())
		}
	case KindList:
		if !isTable || !output.IsArray(t) {
			bad("want a list, got %s", v.Type())
			break
		}
		for i := 1; i <= t.Len(); i++ {
			errs = append(errs, shapeErrors(L, s.Elem(), t.RawGetInt(i), fmt.Sprintf("%s[%d]", path, i))...)
		}
	case KindMap, KindRecord:
		if !isTable || (output.IsArray(t) && t.Len() > 0) {
			bad("want a %s, got %s", s.Kind, v.Type())
			break
		}
		t.ForEach(func(k, fv lua.LValue) {
			ks, ok := k.(lua.LString)
			switch {
			case !ok:
				bad("a %s key: %s", k.Type(), k)
			case s.Kind == KindMap:
				errs = append(errs, shapeErrors(L, s.Elem(), fv, path+"."+string(ks))...)
			case s.Field(string(ks)) == nil:
				bad("undeclared field %q (%s)", ks, fv.Type())
			}
		})
		for _, k := range s.Keys() {
			errs = append(errs, shapeErrors(L, s.Field(k), t.RawGetString(k), path+"."+k)...)
		}
	default:
		bad("unknown kind %q", s.Kind)
	}
	return errs
}

// shapeCase is one call whose real result is checked against the
// function's declaration: setup (Go, optional) prepares the cluster, expr
// is Lua returning the result.
type shapeCase struct {
	fn    string
	setup func(e *env)
	expr  string
}

// Functions answered by crafted responses (ControlKey) rather than by
// kfake's own handlers, and why. Their results still go through the real
// request/response mapping and the real conversion.
var craftedShapes = map[string]string{
	"describe_quorum":              "kfake implements no DescribeQuorum",
	"unregister_broker":            "kfake implements no UnregisterBroker",
	"add_raft_voter":               "kfake implements no AddRaftVoter",
	"remove_raft_voter":            "kfake implements no RemoveRaftVoter",
	"create_delegation_token":      "kfake has no delegation tokens",
	"describe_delegation_tokens":   "kfake has no delegation tokens",
	"renew_delegation_token":       "kfake has no delegation tokens",
	"expire_delegation_token":      "kfake has no delegation tokens",
	"list_partition_reassignments": "kfake moves no replica: nothing is ever in progress",
	"wait_reassignments":           "kfake moves no replica: nothing ever finishes",
}

// uncoveredShapes: admin functions whose results this test cannot produce
// non-empty, and why. Empty: every admin function is covered.
var uncoveredShapes = map[string]string{}

// TestResultsMatchDeclaredShapes calls every admin function against a
// seeded demo cluster and checks each real, non-empty result against the
// function's declared shape: every field present has the declared type,
// no field is undeclared, no required field is missing.
func TestResultsMatchDeclaredShapes(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := demo.Start(ctx)
	require.NoError(t, err)
	defer c.Close()
	e := newEnvOn(t, c.Fake(), Options{Config: engine.Config{Registry: &schemas.Config{URLs: []string{c.RegistryURL}}}})
	// kfake has no streams groups: FakeStreams answers for one (and
	// advertises the requests kfake does not have, as advertise would).
	kafkatest.NewFakeStreams(t, e.cluster, []kmsg.Key{kmsg.DescribeQuorum, kmsg.UnregisterBroker, kmsg.AddRaftVoter, kmsg.RemoveRaftVoter,
		kmsg.CreateDelegationToken, kmsg.RenewDelegationToken, kmsg.ExpireDelegationToken, kmsg.DescribeDelegationToken},
		kafkatest.RecordedStreamsGroup(t, "stable", "shape-streams"))
	craftQuorumAndTokens(e)
	txnID := exactTxnID("shape-tx")
	var share *kgo.Client

	cases := []shapeCase{
		{fn: "describe_cluster", expr: `describe_cluster()`},
		{fn: "list_topics", expr: `list_topics{internal = true}`},
		{fn: "describe_topics", expr: `describe_topics{"orders", "payments"}`},
		{fn: "create_topics", expr: `create_topics{{name = "shape-t", partitions = 2}, "shape-del", "shape-q", "shape-tx"}`},
		{fn: "create_partitions", expr: `create_partitions{["shape-t"] = 3}`},
		{fn: "delete_topics", expr: `delete_topics({"shape-del", "shape-gone"}, {if_exists = true})`},
		{fn: "list_config_resources", expr: `list_config_resources()`},
		{fn: "alter_configs", expr: `alter_configs{{topic = "orders", set = {["retention.ms"] = 86400000}}}`},
		{fn: "describe_configs", expr: `describe_configs({{topic = "orders"}, {broker = 1}}, {synonyms = true})`},
		{fn: "api_versions", expr: `api_versions()`},
		{fn: "describe_features", expr: `describe_features()`},
		{fn: "update_features", expr: `update_features({{feature = "transaction.version", max_version_level = 1, upgrade_type = "safe_downgrade"}}, {validate_only = true})`},
		{fn: "list_groups", expr: `list_groups()`},
		{fn: "describe_groups", expr: `describe_groups{"orders-processor", "billing"}`},
		{fn: "describe_streams_groups", expr: `describe_streams_groups("shape-streams")`},
		{fn: "fetch_offsets", expr: `fetch_offsets("billing", {"payments"})`},
		{fn: "lag", expr: `lag()`},
		{fn: "lag_evaluate", expr: `local p = lag("orders-processor")[1].partitions[1]
			return lag_evaluate({{offset = p.committed, time = 0, lag = p.lag}, {offset = p.committed, time = 1000, lag = p.lag}}, {now = 5000})`},

		{fn: "lag_status", expr: `lag_status(nil, {partitions = true, time = true})`},
		{fn: "commit_offsets", expr: `commit_offsets("shape-g", {{topic = "payments", partition = 0, offset = 1}})`},
		{fn: "delete_groups", expr: `delete_groups({"shape-g", "shape-nope"}, {if_exists = true})`},
		{fn: "reset_offsets", expr: `reset_offsets{group = "billing", to = "earliest", topics = {"payments"}}`},
		{fn: "delete_group_offsets", expr: `delete_group_offsets("billing", "payments")`},
		{fn: "elect_leaders", expr: `elect_leaders{all = true}`},
		{fn: "describe_log_dirs", expr: `describe_log_dirs{topics = "orders"}`},
		{fn: "alter_replica_log_dirs", expr: `alter_replica_log_dirs{{topic = "orders", partition = 1, broker = 0, dir = "/mem/other"}}`},
		{fn: "list_offsets", expr: `list_offsets({"orders", "payments"}, {timestamp = 0})`},
		{fn: "alter_client_quotas", expr: `alter_client_quotas{
			{entity = {user = "alice", client_id = "app"}, set = {consumer_byte_rate = 2048, producer_byte_rate = 1024}},
			{entity = {ip = "10.0.0.1"}, set = {connection_creation_rate = 5.5}}}`},
		{fn: "describe_client_quotas", expr: `describe_client_quotas()`},
		{fn: "create_acls", expr: `create_acls{{principal = "User:bob", operation = "read", resource_type = "topic", resource_name = "orders"},
			{principal = "User:bob", operation = "write", resource_type = "topic", resource_name = "pay", pattern_type = "prefixed"}}`},
		{fn: "describe_acls", expr: `describe_acls()`},
		{fn: "topic_sizes", expr: `topic_sizes()`},
		{fn: "topic_sizes", expr: `topic_sizes("orders", {per = "partition"})`},
		{fn: "broker_sizes", expr: `broker_sizes(nil, {per = "dir"})`},
		{fn: "describe_tiered_storage", expr: `describe_tiered_storage{"orders", "payments"}`},
		{fn: "skew", expr: `skew{"orders", "payments"}`},
		{fn: "produce", expr: `produce("orders", {{key = "k", value = "v", headers = {h = "1"}}, {value = "x", partition = 1}})`},
		{fn: "probe", expr: `probe()`},
		{fn: "acl_bundle", expr: `acl_bundle{producer = "User:p", consumer = "User:c", topics = "orders", group = "g", idempotent = true, transactional_id = "tx"}`},
		{fn: "delete_acls", expr: `delete_acls{{principal = "User:bob", operation = "write"}}`},
		{fn: "alter_user_scram_credentials", expr: `alter_user_scram_credentials{upsert = {{user = "carol", password = "s3cret-pw-0123"}}}`},
		{fn: "describe_user_scram_credentials", expr: `describe_user_scram_credentials()`},
		{fn: "plan_reassignment", expr: `plan_reassignment{topics = {"orders", "payments"}}`},
		{fn: "alter_partition_reassignments", expr: `alter_partition_reassignments{{topic = "orders", partition = 0, replicas = {1, 0}}}`},
		{fn: "cancel_partition_reassignments", expr: `cancel_partition_reassignments({{topic = "orders", partition = 0}}, {partial = true})`},
		{fn: "list_partition_reassignments", expr: `list_partition_reassignments()`, setup: func(e *env) {
			// Listed twice as moving (this call and wait's first poll), then
			// done. Its final replicas are the ones kfake has, so wait's
			// check that the brokers show them ends at once (kfake moves
			// nothing: a replica being removed would be waited on 10 s).
			craftListing(e, 2, moving("orders", 1, []int32{0, 1, 2}, []int32{2}, nil))
		}},
		{fn: "wait_reassignments", expr: `wait_reassignments{interval_ms = 10, timeout = 10000}`},
		{fn: "wait_ready", expr: `wait_ready{min_brokers = 3, timeout = "1m"}`},
		// kfake takes the move and never makes it: the row ends failed,
		// with its error (partial: returned, not raised).
		{fn: "reassign", expr: `reassign({{topic = "orders", partition = 0, replicas = {1, 0}}}, {interval_ms = 1, partial = true})`},
		{fn: "delete_records", expr: `delete_records{{topic = "audit-log", partition = 0, offset = 1}}`},
		{fn: "peek", expr: `peek("orders", 0, "earliest", {count = 3, values = true, format = "json"})`},
		{fn: "describe_share_groups", expr: `describe_share_groups("shape-queue")`, setup: func(e *env) {
			share = shareConsumer(e, "shape-queue", "shape-q")
		}},
		// Kafka changes a share group's offsets only without members.
		{fn: "alter_share_group_offsets", expr: `alter_share_group_offsets("shape-queue", {{topic = "shape-q", partition = 0, offset = 0}})`,
			setup: func(*env) { share.Close() }},
		{fn: "describe_share_group_offsets", expr: `describe_share_group_offsets("shape-queue")`},
		{fn: "delete_share_group_offsets", expr: `delete_share_group_offsets("shape-queue", "shape-q")`},
		{fn: "list_transactions", expr: `list_transactions()`, setup: func(e *env) {
			openTxn(e, txnID, "shape-tx")
			e.run(`shape_txn = "` + txnID + `"`)
		}},
		{fn: "describe_transactions", expr: `describe_transactions(shape_txn)`},
		{fn: "describe_producers", expr: `describe_producers("shape-tx")`},
		{fn: "find_hanging_transactions", expr: `find_hanging_transactions{max_age_ms = 0, topics = {"shape-tx"}}`, setup: func(e *env) {
			// The coordinators forget the producer: its open transaction hangs.
			e.cluster.ControlKey(int16(kmsg.ListTransactions), func(r kmsg.Request) (kmsg.Response, error, bool) {
				e.cluster.KeepControl()
				return r.(*kmsg.ListTransactionsRequest).ResponseKind(), nil, true
			})
		}},
		{fn: "abort_transaction", expr: `abort_transaction{topic = "shape-tx", partition = 0, producer_id = describe_producers("shape-tx")[1].producer_id}`},
		{fn: "fence_producers", expr: `fence_producers(shape_txn)`},
		{fn: "remove_group_members", expr: `remove_group_members("orders-processor")`},
		{fn: "describe_quorum", expr: `describe_quorum()`},
		{fn: "unregister_broker", expr: `unregister_broker(7)`},
		{fn: "add_raft_voter", expr: `add_raft_voter{id = 3002, directory_id = "pbvuBlaTTwKRxS5NLJwRFQ", endpoints = {{listener = "CONTROLLER", host = "c2", port = 9093}}}`},
		{fn: "remove_raft_voter", expr: `remove_raft_voter{id = 3002, directory_id = "pbvuBlaTTwKRxS5NLJwRFQ"}`},
		{fn: "create_delegation_token", expr: `create_delegation_token{owner = "alice"}`},
		{fn: "describe_delegation_tokens", expr: `describe_delegation_tokens()`},
		{fn: "renew_delegation_token", expr: `renew_delegation_token("c2VjcmV0")`},
		{fn: "expire_delegation_token", expr: `expire_delegation_token("c2VjcmV0")`},
		// A dry run's rows say so: dry_run is declared for mutating functions.
		{fn: "delete_acls", expr: `kafka.dry_run(true); local r = delete_acls{{principal = "User:bob"}}; kafka.dry_run(false); return r`},
		{fn: "list_subjects", expr: `list_subjects{deleted = true}`},
		{fn: "list_schema_versions", expr: `list_schema_versions("orders-value", {deleted = true})`},
		{fn: "describe_schema", expr: `describe_schema("orders-value", 1, {deleted = true})`},
		{fn: "describe_schema_id", expr: `describe_schema_id(1)`},
		{fn: "check_compatibility", expr: `check_compatibility("orders-value", {type = "AVRO", schema = [[{"type":"string"}]]})`},
		{fn: "describe_schema_compatibility", expr: `describe_schema_compatibility{"orders-value"}`},
		{fn: "set_schema_compatibility", expr: `set_schema_compatibility{subject = "orders-value", level = "FULL"}`},
		{fn: "delete_schema_version", expr: `register_schema("shape-value", "\"long\""); register_schema("shape-value", "\"int\""); return delete_schema_version("shape-value", 1)`},
		{fn: "delete_subject", expr: `delete_subject("shape-value", {permanent = true})`},
		{fn: "register_schema", expr: `register_schema("shape2-value", "\"long\"")`},
	}

	// One test, not subtests: what a setup opens (a transaction, a share
	// consumer) must outlive its case.
	covered := map[string]bool{}
	for _, sc := range cases {
		f := Lookup(sc.fn)
		require.NotNil(t, f, sc.fn)
		if sc.setup != nil {
			sc.setup(e)
		}
		src := sc.expr
		if !strings.Contains(src, "return ") {
			src = "return " + src
		}
		vals, err := e.rt.DoString(context.Background(), sc.fn, src)
		if !assert.NoError(t, err, "%s", src) || !assert.NotEmpty(t, vals, src) {
			continue
		}
		v := vals[0]
		s := f.resultShape()
		require.NotNil(t, s, "%s declares no structured result", sc.fn)
		if _, scalar := v.(lua.LNumber); !scalar { // a number carries no mark
			assert.Same(t, s, shapeOf(v), "the result is marked as %s's", sc.fn)
		}
		if tb, ok := v.(*lua.LTable); ok && output.IsArray(tb) && !assert.Positive(t, tb.Len(), "%s returned no rows: seed the cluster so that it does", sc.fn) {
			continue
		}
		assert.Empty(t, shapeErrors(e.rt.L, s, v, sc.fn+"()"), "declared: %s", f.Returns)
		covered[sc.fn] = true
	}

	var missing []string
	for _, f := range adminFuncs() {
		if !covered[f.Name] && uncoveredShapes[f.Name] == "" {
			missing = append(missing, f.Name)
		}
	}
	assert.Empty(t, missing, "admin functions whose results no case checks")
	for name := range craftedShapes {
		assert.True(t, covered[name], "%s is listed as crafted but no case calls it", name)
	}
	for name := range uncoveredShapes {
		assert.False(t, covered[name], "%s is listed as uncovered but a case covers it", name)
	}
}

// craftQuorumAndTokens answers the requests kfake does not implement
// (craftedShapes) with what a real broker would.
func craftQuorumAndTokens(e *env) {
	answer(e, kmsg.DescribeQuorum, func(req *kmsg.DescribeQuorumRequest, r kmsg.Response) {
		resp := r.(*kmsg.DescribeQuorumResponse)
		rt := kmsg.NewDescribeQuorumResponseTopic()
		rt.Topic = "__cluster_metadata"
		p := kmsg.NewDescribeQuorumResponseTopicPartition()
		p.LeaderID, p.LeaderEpoch, p.HighWatermark = 3001, 7, 1000
		v := kmsg.NewDescribeQuorumResponseTopicPartitionReplicaState()
		v.ReplicaID, v.LogEndOffset, v.LastFetchTimestamp, v.LastCaughtUpTimestamp = 3001, 1000, -1, -1
		v.ReplicaDirectoryID = [16]byte{1}
		p.CurrentVoters = append(p.CurrentVoters, v)
		o := kmsg.NewDescribeQuorumResponseTopicPartitionReplicaState()
		o.ReplicaID, o.LogEndOffset, o.LastFetchTimestamp, o.LastCaughtUpTimestamp = 1, 990, 1700000000200, 1700000000100
		p.Observers = append(p.Observers, o)
		rt.Partitions = append(rt.Partitions, p)
		resp.Topics = append(resp.Topics, rt)
	})
	answer(e, kmsg.UnregisterBroker, func(*kmsg.UnregisterBrokerRequest, kmsg.Response) {})
	answer(e, kmsg.AddRaftVoter, func(*kmsg.AddRaftVoterRequest, kmsg.Response) {})
	answer(e, kmsg.RemoveRaftVoter, func(*kmsg.RemoveRaftVoterRequest, kmsg.Response) {})
	answer(e, kmsg.CreateDelegationToken, func(_ *kmsg.CreateDelegationTokenRequest, r kmsg.Response) {
		resp := r.(*kmsg.CreateDelegationTokenResponse)
		resp.PrincipalType, resp.PrincipalName = "User", "alice"
		resp.TokenRequesterPrincipalType, resp.TokenRequesterPrincipalName = "User", "admin"
		resp.IssueTimestamp, resp.ExpiryTimestamp, resp.MaxTimestamp = 1700000000000, 1700086400000, 1700604800000
		resp.TokenID, resp.HMAC = "tok-1", []byte("secret")
	})
	answer(e, kmsg.DescribeDelegationToken, func(_ *kmsg.DescribeDelegationTokenRequest, r kmsg.Response) {
		d := kmsg.NewDescribeDelegationTokenResponseTokenDetail()
		d.PrincipalType, d.PrincipalName, d.TokenID, d.HMAC = "User", "alice", "tok-1", []byte("secret")
		d.TokenRequesterPrincipalType, d.TokenRequesterPrincipalName = "User", "admin"
		d.IssueTimestamp, d.ExpiryTimestamp, d.MaxTimestamp = 1700000000000, 1700086400000, 1700604800000
		rn := kmsg.NewDescribeDelegationTokenResponseTokenDetailRenewer()
		rn.PrincipalType, rn.PrincipalName = "User", "ops"
		d.Renewers = append(d.Renewers, rn)
		r.(*kmsg.DescribeDelegationTokenResponse).TokenDetails = append(r.(*kmsg.DescribeDelegationTokenResponse).TokenDetails, d)
	})
	answer(e, kmsg.RenewDelegationToken, func(_ *kmsg.RenewDelegationTokenRequest, r kmsg.Response) {
		r.(*kmsg.RenewDelegationTokenResponse).ExpiryTimestamp = 1700172800000
	})
	answer(e, kmsg.ExpireDelegationToken, func(_ *kmsg.ExpireDelegationTokenRequest, r kmsg.Response) {
		r.(*kmsg.ExpireDelegationTokenResponse).ExpiryTimestamp = 1700000001000
	})
}

// The checker itself: it finds each kind of departure.
func TestShapeErrorsFindsDepartures(t *testing.T) {
	e := newEnv(t)
	s, err := output.ParseShape(`{{name=string, n=int, at=time?, tags={string...}, m={[string]=number}, err=error?}...}`)
	require.NoError(t, err)
	check := func(src string) []string { return shapeErrors(e.rt.L, s, e.run("return "+src), "r") }
	assert.Empty(t, check(`{{name = "a", n = 1, tags = {"x"}, m = {a = 1.5}}, {name = "b", n = 2, at = 5, tags = {}, m = {}}}`))
	assert.Equal(t, []string{"r[1].n: want an integer, got number 1.5"}, check(`{{name = "a", n = 1.5, tags = {}, m = {}}}`))
	assert.Equal(t, []string{"r[1].name: missing (declared string, not optional)"}, check(`{{n = 1, tags = {}, m = {}}}`))
	assert.Equal(t, []string{`r[1]: undeclared field "extra" (boolean)`}, check(`{{name = "a", n = 1, tags = {}, m = {}, extra = true}}`))
	assert.Equal(t, []string{"r[1].m.k: want a number, got string"}, check(`{{name = "a", n = 1, tags = {}, m = {k = "v"}}}`))
	assert.Equal(t, []string{"r[1].err: want an error value, got string"}, check(`{{name = "a", n = 1, tags = {}, m = {}, err = "x"}}`))
	assert.Equal(t, []string{"r[1].tags[1]: want a string, got number"}, check(`{{name = "a", n = 1, tags = {1}, m = {}}}`))
	assert.True(t, slices.Contains(check(`{name = "a"}`), "r: want a list, got table"))
}
