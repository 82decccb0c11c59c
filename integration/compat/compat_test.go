package compat

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr/srfake"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/login"
	"github.com/kadmin-lua/kadmin-lua/engine/schemas"
	"github.com/kadmin-lua/kadmin-lua/integration/internal/itlua"
	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

// call is one function's call on the fixture (topic compat with records,
// group compat-group with commits, transactional id compat-tx with an open
// transaction on compat-tx-topic). Answers are Kafka error codes that
// count as working: the broker understood the request and answered as
// Kafka does where the fixture cannot make the call succeed (no
// reassignment to cancel, an unknown share group).
type call struct {
	fn      string
	lua     string
	answers []string
}

// calls covers every admin function once, in an order where each finds
// what it needs (abort before fence, create before delete).
var calls = []call{
	{fn: "api_versions", lua: `assert(#api_versions() > 10)`},
	{fn: "describe_cluster", lua: `assert(describe_cluster().brokers[1].id == 1)`},
	{fn: "wait_ready", lua: `assert(wait_ready{min_brokers = 1, timeout = "1m"}.brokers >= 1)`},
	{fn: "describe_features", lua: `describe_features()`},
	{fn: "update_features", lua: `local fs = describe_features()
		local f = fs[1]
		for _, x in ipairs(fs) do if x.finalized_level > 0 then f = x end end
		if f == nil then
			-- No features at all (ZooKeeper mode): ask for one the broker does not know.
			update_features({{feature = "kadmin.compat", max_version_level = 1}}, {validate_only = true})
		else
			update_features({{feature = f.feature, max_version_level = math.max(f.finalized_level, f.supported_min)}}, {validate_only = true})
		end`,
		answers: []string{"INVALID_UPDATE_VERSION", "INVALID_REQUEST"}},
	{fn: "describe_configs", lua: `for _, r in ipairs(describe_configs{{topic = "compat"}, {broker = 1}}) do
			if r.type == "topic" then assert(r.configs["cleanup.policy"].value == "delete") end
		end`},
	{fn: "alter_configs", lua: `alter_configs{{topic = "compat", set = {["retention.ms"] = "3600000"}}}`},
	{fn: "list_config_resources", lua: `list_config_resources("topic")`},
	{fn: "create_topics", lua: `create_topics{{name = "compat-new", partitions = 1}}`},
	{fn: "create_partitions", lua: `create_partitions{["compat-new"] = 2}`},
	{fn: "list_topics", lua: `assert(#list_topics{match = "^compat"} >= 2)`},
	{fn: "describe_topics", lua: `assert(#describe_topics{"compat"}[1].partitions == 2)`},
	{fn: "delete_topics", lua: `delete_topics{"compat-new"}`},
	{fn: "list_offsets", lua: `assert(list_offsets("compat")[1].offset == 5); list_offsets("compat", "max_timestamp")`},
	{fn: "peek", lua: `assert(#peek("compat", 0, "earliest", {count = 2}) == 2)`},
	{fn: "delete_records", lua: `delete_records{{topic = "compat", partition = 1, offset = 1}}`},
	{fn: "commit_offsets", lua: `commit_offsets("compat-group2", {{topic = "compat", partition = 0, offset = 1}})`},
	{fn: "fetch_offsets", lua: `assert(#fetch_offsets("compat-group") == 2)`},
	{fn: "list_groups", lua: `list_groups(); list_groups{states = {"Empty"}}`},
	{fn: "describe_groups", lua: `assert(describe_groups("compat-group")[1].state == "Empty")`},
	{fn: "describe_streams_groups", lua: `describe_streams_groups("compat-streams")`, answers: []string{"GROUP_ID_NOT_FOUND"}},
	{fn: "lag", lua: `assert(lag("compat-group")[1].total_lag > 0)`},
	{fn: "lag_status", lua: `assert(lag_status("compat-group", {time = true})[1].status == "OK")`},
	{fn: "lag_evaluate", lua: `assert(lag_evaluate({{offset = 1, time = 0, lag = 3}, {offset = 2, time = 1000, lag = 2}}, {now = 1000}).status == "OK")`},
	{fn: "reset_offsets", lua: `reset_offsets{group = "compat-group", to = "earliest"}`},
	{fn: "remove_group_members", lua: `remove_group_members("compat-group")`},
	{fn: "delete_group_offsets", lua: `delete_group_offsets("compat-group2", "compat")`},
	// Its own group: a 3.9 coordinator drops an empty group once
	// delete_group_offsets removed its last offsets (4.x keeps it).
	{fn: "delete_groups", lua: `commit_offsets("compat-group3", {{topic = "compat", partition = 0, offset = 1}})
		delete_groups("compat-group3")`},
	{fn: "create_acls", lua: `create_acls{{principal = "User:alice", operation = "read", resource_type = "topic", resource_name = "compat"}}`},
	{fn: "describe_acls", lua: `describe_acls()`},
	{fn: "delete_acls", lua: `delete_acls{principal = "User:alice"}`},
	{fn: "alter_client_quotas", lua: `alter_client_quotas{{entity = {user = "alice"}, set = {producer_byte_rate = 1048576}}}`},
	{fn: "describe_client_quotas", lua: `describe_client_quotas()`},
	{fn: "alter_user_scram_credentials", lua: `alter_user_scram_credentials{upsert = {{user = "compat-user", mechanism = "SCRAM-SHA-256", password = "compat-secret"}}}`},
	{fn: "describe_user_scram_credentials", lua: `describe_user_scram_credentials()`},
	{fn: "create_delegation_token", lua: `compat_token = create_delegation_token()`},
	// The token reaches the broker through the metadata log a moment
	// after the controller committed it: poll until it is listed.
	{fn: "describe_delegation_tokens", lua: `for _ = 1, 100 do
			for _, t in ipairs(describe_delegation_tokens()) do if t.token_id == compat_token.token_id then return end end
			kafka.sleep(200)
		end
		error("token not listed after 20 s")`},
	{fn: "renew_delegation_token", lua: `renew_delegation_token(compat_token.hmac)`},
	{fn: "expire_delegation_token", lua: `expire_delegation_token(compat_token.hmac)`},
	{fn: "describe_log_dirs", lua: `assert(#describe_log_dirs() == 1)`},
	{fn: "alter_replica_log_dirs", lua: `local d = describe_log_dirs{topics = "compat"}[1]
		alter_replica_log_dirs{{topic = "compat", partition = 0, broker = 1, dir = d.dir}}`},
	{fn: "elect_leaders", lua: `elect_leaders{topics = "compat"}`},
	{fn: "list_partition_reassignments", lua: `list_partition_reassignments()`},
	{fn: "plan_reassignment", lua: `plan_reassignment{topics = {"compat"}}`},
	{fn: "alter_partition_reassignments", lua: `alter_partition_reassignments{{topic = "compat", partition = 0, replicas = {1}}}`},
	{fn: "wait_reassignments", lua: `wait_reassignments{topics = {"compat"}, timeout = "30s"}`},
	// One broker: the partition is where the row puts it, so the run
	// reads the layout and sizes, begins and ends.
	{fn: "reassign", lua: `assert(reassign{{topic = "compat", partition = 1, replicas = {1}}}[1].state == "done")`},
	{fn: "cancel_partition_reassignments", lua: `cancel_partition_reassignments{{topic = "compat", partition = 0}}`,
		answers: []string{"NO_REASSIGNMENT_IN_PROGRESS"}},
	{fn: "describe_quorum", lua: `assert(describe_quorum().leader == 1)`},
	{fn: "unregister_broker", lua: `unregister_broker(99)`, answers: []string{"BROKER_ID_NOT_REGISTERED"}},
	{fn: "describe_share_groups", lua: `describe_share_groups("compat-share")`, answers: []string{"GROUP_ID_NOT_FOUND"}},
	{fn: "describe_share_group_offsets", lua: `describe_share_group_offsets("compat-share")`, answers: []string{"GROUP_ID_NOT_FOUND"}},
	{fn: "alter_share_group_offsets", lua: `alter_share_group_offsets("compat-share", {{topic = "compat", partition = 0, offset = 0}})`,
		answers: []string{"GROUP_ID_NOT_FOUND"}},
	{fn: "delete_share_group_offsets", lua: `delete_share_group_offsets("compat-share", "compat")`, answers: []string{"GROUP_ID_NOT_FOUND"}},
	{fn: "list_transactions", lua: `assert(#list_transactions{pattern = "^compat-tx$"} == 1)`},
	{fn: "describe_transactions", lua: `assert(describe_transactions("compat-tx")[1].state == "Ongoing")`},
	{fn: "describe_producers", lua: `assert(#describe_producers("compat-tx-topic") == 1)`},
	{fn: "find_hanging_transactions", lua: `find_hanging_transactions{topics = {"compat-tx-topic"}, max_age_ms = 0}`},
	{fn: "abort_transaction", lua: `local pid = list_transactions{pattern = "^compat-tx$"}[1].producer_id
		abort_transaction{topic = "compat-tx-topic", partition = 0, producer_id = pid}`},
	{fn: "fence_producers", lua: `fence_producers("compat-tx")`},
	{fn: "acl_bundle", lua: `local rows = acl_bundle{producer = "User:compat-p", topics = {"compat"}}
		create_acls(rows); delete_acls(rows)`},
	{fn: "topic_sizes", lua: `assert(#topic_sizes("compat") == 1)`},
	{fn: "broker_sizes", lua: `assert(#broker_sizes() == 1)`},
	{fn: "skew", lua: `assert(#skew().brokers == 1)`},
	{fn: "describe_tiered_storage", lua: `local t = describe_tiered_storage("compat")[1]
		assert(t.remote_storage == false and #t.partitions == 0)`},
	// Single-node brokers here are formatted with a static quorum: the
	// table says kraft.version is needed, and the call is refused.
	{fn: "add_raft_voter", lua: `add_raft_voter{id = 3004, directory_id = "pbvuBlaTTwKRxS5NLJwRFQ",
		endpoints = {{listener = "CONTROLLER", host = "localhost", port = 1}}}`},
	{fn: "remove_raft_voter", lua: `remove_raft_voter{id = 3004, directory_id = "pbvuBlaTTwKRxS5NLJwRFQ"}`},
	// Last: they add records to compat, which the calls above count.
	{fn: "produce", lua: `assert(produce("compat", {{key = "k", value = "v", partition = 0}})[1].offset >= 0)`},
	{fn: "probe", lua: `assert(probe().ok)`},
	// The Schema Registry's functions ask no broker: an in-memory
	// registry on loopback answers them on every Kafka.
	{fn: "register_schema", lua: `assert(register_schema("compat-value", [[{"type":"record","name":"C","fields":[{"name":"n","type":"long"}]}]]) > 0)`},
	{fn: "list_subjects", lua: `assert(list_subjects()[1].subject == "compat-value")`},
	{fn: "list_schema_versions", lua: `assert(#list_schema_versions("compat-value") == 1)`},
	{fn: "describe_schema", lua: `assert(describe_schema("compat-value").type == "AVRO")`},
	{fn: "describe_schema_id", lua: `assert(describe_schema_id(describe_schema("compat-value").id).subjects[1].subject == "compat-value")`},
	{fn: "check_compatibility", lua: `assert(check_compatibility("compat-value", [["long"]]).compatible ~= nil)`},
	{fn: "describe_schema_compatibility", lua: `assert(describe_schema_compatibility()[1].global)`},
	{fn: "set_schema_compatibility", lua: `set_schema_compatibility{subject = "compat-value", level = "NONE"}`},
	{fn: "delete_schema_version", lua: `register_schema("compat-value", [["long"]]); delete_schema_version("compat-value", 2)`},
	{fn: "delete_subject", lua: `delete_subject("compat-value", {permanent = true})`},
}

// TestEveryFunctionOnThisKafka runs calls on this package's broker and
// checks each outcome against the compatibility table's column.
func TestEveryFunctionOnThisKafka(t *testing.T) {
	if cluster == nil {
		t.Skipf("real Kafka tests skipped (%s)", kafkatest.SkipReason())
	}
	col := luaapi.LookupColumn(cluster.Version, cluster.Mode)
	require.NotNil(t, col, "Kafka %s (%s) is no column of docs/compatibility.md (luaapi.KafkaColumns)", cluster.Version, cluster.Mode)
	var admin, called []string
	for _, f := range luaapi.Funcs() {
		if f.IsAdmin() {
			admin = append(admin, f.Name)
		}
	}
	for _, c := range calls {
		called = append(called, c.fn)
	}
	slices.Sort(admin)
	slices.Sort(called)
	require.Equal(t, admin, called, "calls covers every admin function exactly once")

	fixture(t)
	reg := srfake.New()
	t.Cleanup(reg.Close)
	cfg := engine.Config{Brokers: cluster.Brokers(), Timeout: 30 * time.Second,
		SASL:     &login.SASLConfig{Mechanism: kafkatest.MechPlain, Username: kafkatest.AdminUser, Password: engine.Secret(kafkatest.AdminPassword)},
		Registry: &schemas.Config{URLs: []string{reg.URL()}}}
	e := itlua.New(t, cfg, map[string]string{}, time.Minute)
	var report strings.Builder
	began := time.Now()
	for _, c := range calls {
		f := luaapi.Lookup(c.fn)
		lacks := col.Lacks(f)
		start := time.Now()
		_, err := e.RT.DoString(context.Background(), c.fn, c.lua)
		took := time.Since(start).Round(time.Millisecond)
		got := "works"
		if err != nil {
			got = err.Error()
		}
		fmt.Fprintf(&report, "%-32s %-18s %6s  %s\n", c.fn, orYes(lacks), took, firstLine(got))
		if lacks == "" {
			if err != nil {
				re, ok := err.(*luaapi.RunError)
				if ok && slices.Contains(c.answers, re.Code) {
					continue
				}
				assert.Fail(t, c.fn+" fails where docs/compatibility.md says it works",
					"Kafka %s: %v", col.Label(), err)
			}
			continue
		}
		re, ok := err.(*luaapi.RunError)
		if !assert.True(t, ok, "%s: docs/compatibility.md says %q on Kafka %s, but the call did not fail so: %v", c.fn, lacks, col.Label(), err) {
			continue
		}
		assert.Equal(t, "UNSUPPORTED_VERSION", re.Code, "%s on %s: %s", c.fn, col.Label(), re.Message)
		assert.Contains(t, re.Message, c.fn+": UNSUPPORTED_VERSION: ", "%s names its need", c.fn)
		assert.Contains(t, re.Message, needPrefix(lacks), "%s names its need", c.fn)
	}
	t.Logf("Kafka %s: every admin function in %s\n%s", col.Label(), time.Since(began).Round(time.Millisecond), report.String())

	// The check reads the cluster, not the table: where share groups are
	// only off (4.1), turning share.version on makes them work for the
	// next connection.
	if col.Lacks(luaapi.Lookup("describe_share_groups")) == "needs share.version" {
		e.Run(`update_features{{feature = "share.version", max_version_level = 1}}`)
		again := itlua.New(t, cfg, map[string]string{}, time.Minute)
		re := again.RunErr(`describe_share_groups("compat-share")`)
		assert.Equal(t, "GROUP_ID_NOT_FOUND", re.Code, "with share.version on: %s", re.Message)
	}
}

// needPrefix is how the refusal of a cell's need starts (engine/needs.go).
func needPrefix(cell string) string {
	switch {
	case cell == "needs KRaft":
		return "needs KRaft: this cluster runs ZooKeeper"
	case strings.HasPrefix(cell, "needs Kafka "):
		return cell
	}
	// A feature: "<what it enables> are not enabled on this cluster:
	// needs the <feature> feature".
	return "are not enabled on this cluster: needs the " + strings.TrimPrefix(cell, "needs ") + " feature"
}

func orYes(s string) string {
	if s == "" {
		return "yes"
	}
	return s
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// fixture makes what calls expect: topic compat (2 partitions, 5 records
// each), group compat-group committed at 2 on both, an open transaction of
// compat-tx on compat-tx-topic.
func fixture(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	adm := cluster.AdminT(t, kgo.RetryTimeout(20*time.Second))
	for topic, parts := range map[string]int32{"compat": 2, "compat-tx-topic": 1} {
		r, err := adm.CreateTopic(ctx, parts, 1, nil, topic)
		require.NoError(t, err)
		require.NoError(t, r.Err)
	}
	cl, err := cluster.Client(kgo.DefaultProduceTopic("compat"), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.UnknownTopicRetries(-1))
	require.NoError(t, err)
	defer cl.Close()
	var recs []*kgo.Record
	for p := range int32(2) {
		for i := range 5 {
			recs = append(recs, &kgo.Record{Partition: p, Value: fmt.Appendf(nil, "r%d", i)})
		}
	}
	require.NoError(t, cl.ProduceSync(ctx, recs...).FirstErr())
	offs := kadm.Offsets{}
	offs.AddOffset("compat", 0, 2, -1)
	offs.AddOffset("compat", 1, 2, -1)
	resp, err := adm.CommitOffsets(ctx, "compat-group", offs)
	require.NoError(t, err)
	require.NoError(t, resp.Error())

	tx, err := cluster.Client(kgo.TransactionalID("compat-tx"), kgo.DefaultProduceTopic("compat-tx-topic"),
		kgo.TransactionTimeout(time.Minute), kgo.UnknownTopicRetries(-1))
	require.NoError(t, err)
	t.Cleanup(tx.Close)
	require.NoError(t, tx.BeginTransaction())
	require.NoError(t, tx.ProduceSync(ctx, &kgo.Record{Value: []byte("open")}).FirstErr())
}

// TestMatrixIsTheTableColumns: `make matrix` (matrix.txt) and `make
// integration` (the harness's default release, KRaft) together run every
// column of docs/compatibility.md, and nothing else. It needs no broker.
func TestMatrixIsTheTableColumns(t *testing.T) {
	b, err := os.ReadFile("matrix.txt")
	require.NoError(t, err)
	runs := []string{kafkatest.DefaultVersion + " " + engine.ModeKRaft}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && !strings.HasPrefix(f[0], "#") {
			runs = append(runs, f[0]+" "+f[1])
		}
	}
	var cols []string
	for _, k := range luaapi.KafkaColumns {
		cols = append(cols, k.Version+" "+k.Mode)
	}
	assert.ElementsMatch(t, cols, runs)
	assert.Equal(t, engine.ModeZooKeeper, kafkatest.ModeZooKeeper)
	assert.Equal(t, engine.ModeKRaft, kafkatest.ModeKRaft)
}
