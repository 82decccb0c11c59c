package luaapi

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

var compatDocPath = filepath.Join("..", "docs", "compatibility.md")

// TestCompatibilityDocIsFresh: docs/compatibility.md is what the
// declarations' Needs generate (`make docs` rewrites it).
func TestCompatibilityDocIsFresh(t *testing.T) {
	want := CompatibilityDoc()
	if *updateDocs || os.Getenv("KADMIN_UPDATE_DOCS") == "1" {
		require.NoError(t, os.WriteFile(compatDocPath, []byte(want), 0o644))
		t.Logf("wrote %s", compatDocPath)
	}
	got, err := os.ReadFile(compatDocPath)
	require.NoError(t, err, "docs/compatibility.md is missing: run `make docs`")
	if string(got) != want {
		t.Fatalf("docs/compatibility.md is stale: run `make docs`\nfirst difference: %s", firstDiff(string(got), want))
	}
	for _, f := range Funcs() {
		if f.IsAdmin() {
			has(t, string(got), "| ["+f.Name+"](api.md#"+f.Name+") |", "every admin function has a row")
		}
	}
}

// TestCompatibilityCells: the table's cells follow the needs: KRaft-only
// requests on ZooKeeper, a request newer than the release, a feature a
// release does not finalize at format time.
func TestCompatibilityCells(t *testing.T) {
	zk, kraft39, k40, k41, k44 := KafkaColumns[0], KafkaColumns[1], KafkaColumns[2], KafkaColumns[3], KafkaColumns[4]
	cell := func(k KafkaColumn, fn string) string { return k.Lacks(Lookup(fn)) }
	assert.Equal(t, "needs KRaft", cell(zk, "describe_quorum"))
	assert.Equal(t, "", cell(kraft39, "describe_quorum"))
	assert.Equal(t, "needs Kafka 4.1+", cell(kraft39, "list_config_resources"))
	assert.Equal(t, "", cell(k41, "list_config_resources"))
	assert.Equal(t, "needs Kafka 4.1+", cell(k40, "describe_share_groups"))
	assert.Equal(t, "needs share.version", cell(k41, "describe_share_groups"))
	assert.Equal(t, "", cell(k44, "describe_share_groups"))
	assert.Equal(t, "", cell(zk, "create_topics"))
	assert.True(t, releaseBefore("3.9.1", "4.1") && releaseBefore("4.0.2", "4.1") && !releaseBefore("4.1.2", "4.1") && !releaseBefore("4.4.0", "4.1"))
	assert.Equal(t, "3.9.1 ZooKeeper", zk.Label())
	assert.Equal(t, "3.9.1 KRaft", kraft39.Label())
	assert.Equal(t, "4.4.0", k44.Label())
}

// countKeys counts the requests of keys that reach c.
func countKeys(c *kfake.Cluster, keys ...kmsg.Key) *atomic.Int64 {
	var n atomic.Int64
	for _, k := range keys {
		c.ControlKey(int16(k), func(kmsg.Request) (kmsg.Response, error, bool) {
			c.KeepControl()
			n.Add(1)
			return nil, nil, false
		})
	}
	return &n
}

var needKeys = []kmsg.Key{kmsg.DescribeQuorum, kmsg.UnregisterBroker, kmsg.ListConfigResources, kmsg.ShareGroupDescribe,
	kmsg.DescribeShareGroupOffsets, kmsg.AlterShareGroupOffsets, kmsg.DeleteShareGroupOffsets}

// TestNeedsRefuseBeforeSending: on a cluster without what a function
// needs, the call fails with UNSUPPORTED_VERSION naming the need, asks no
// confirmation and sends none of its requests.
func TestNeedsRefuseBeforeSending(t *testing.T) {
	refused := func(t *testing.T, e *env, src, want string) {
		t.Helper()
		re := e.runErr(src)
		assert.Equal(t, "UNSUPPORTED_VERSION", re.Code, "%s: %s", src, re.Message)
		assert.Contains(t, re.Message, want)
		assert.NotContains(t, re.Message, "?", "no guess")
	}
	t.Run("Kafka 4.0: no ListConfigResources v1, no share group requests", func(t *testing.T) {
		e := newEnv(t, kfake.MaxVersions(kversion.V4_0_0()))
		sent := countKeys(e.cluster, needKeys...)
		refused(t, e, `list_config_resources()`, "list_config_resources: UNSUPPORTED_VERSION: needs Kafka 4.1+ (ListConfigResources v1): this cluster's brokers advertise ListConfigResources up to v0")
		refused(t, e, `describe_share_groups("q")`, "needs Kafka 4.1+ (ShareGroupDescribe v1): this cluster's brokers do not advertise ShareGroupDescribe")
		refused(t, e, `alter_share_group_offsets("q", {{topic = "t", partition = 0, offset = 0}})`, "needs Kafka 4.1+ (AlterShareGroupOffsets)")
		assert.Zero(t, sent.Load())
	})
	t.Run("Kafka 4.1: share.version not finalized", func(t *testing.T) {
		e := newEnv(t, kfake.MaxVersions(kversion.V4_1_0()))
		sent := countKeys(e.cluster, needKeys...)
		for _, src := range []string{`describe_share_groups("q")`, `describe_share_group_offsets("q")`,
			`alter_share_group_offsets("q", {{topic = "t", partition = 0, offset = 0}})`, `delete_share_group_offsets("q", "t")`} {
			refused(t, e, src, "share groups are not enabled on this cluster: needs the share.version feature at level 1 or above (it is not finalized; update_features raises it)")
		}
		assert.Zero(t, sent.Load())
		// Once the feature is on, the same client's next call goes through:
		// the answer is read per client, and a new client reads it again.
		e.run(`update_features{{feature = "share.version", max_version_level = 1}}`)
		other := newEnvOn(t, e.cluster, Options{})
		other.run(`local r = describe_share_groups("q", {partial = true}); assert(r[1].error.code == "GROUP_ID_NOT_FOUND", tostring(r[1].error))`)
		assert.Equal(t, int64(1), sent.Load(), "sent once share.version is finalized")
	})
	t.Run("ZooKeeper mode: no metadata.version", func(t *testing.T) {
		c, err := kfake.NewCluster(kfake.NumBrokers(1))
		require.NoError(t, err)
		t.Cleanup(c.Close)
		zookeeperMode(t, c)
		var asked []string
		e := newEnvOn(t, c, Options{Confirm: func(p string) bool { asked = append(asked, p); return true }})
		sent := countKeys(c, needKeys...)
		refused(t, e, `describe_quorum()`, "describe_quorum: UNSUPPORTED_VERSION: needs KRaft: this cluster runs ZooKeeper (DescribeQuorum is answered by KRaft clusters only)")
		refused(t, e, `unregister_broker(1)`, "needs KRaft: this cluster runs ZooKeeper")
		assert.Empty(t, asked, "a call the cluster cannot answer asks nothing")
		assert.Zero(t, sent.Load())
		e.run(`assert(#list_topics() == 0)`) // functions without needs are not checked
	})
}

// zookeeperMode makes c answer ApiVersions as a ZooKeeper-mode broker of
// Kafka 3.9 does: no finalized features (no metadata.version), no KRaft
// requests.
func zookeeperMode(t *testing.T, c *kfake.Cluster) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	require.NoError(t, err)
	defer cl.Close()
	real, err := kmsg.NewPtrApiVersionsRequest().RequestWith(t.Context(), cl)
	require.NoError(t, err)
	real.FinalizedFeatures, real.FinalizedFeaturesEpoch = nil, -1
	var keys []kmsg.ApiVersionsResponseApiKey
	for _, k := range real.ApiKeys {
		if k.ApiKey != int16(kmsg.DescribeQuorum) && k.ApiKey != int16(kmsg.UnregisterBroker) {
			keys = append(keys, k)
		}
	}
	real.ApiKeys = keys
	c.ControlKey(int16(kmsg.ApiVersions), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		resp := *real
		resp.SetVersion(req.GetVersion())
		return &resp, nil, true
	})
}

// TestNeedsInDocs: help, `doc --json` and docs/api.md say what a function
// needs.
func TestNeedsInDocs(t *testing.T) {
	f := Lookup("list_config_resources")
	assert.Contains(t, FuncHelp(f), "Needs: Kafka 4.1+ (ListConfigResources v1); elsewhere it fails with UNSUPPORTED_VERSION before sending anything")
	assert.Equal(t, []string{"Kafka 4.1+ (ShareGroupDescribe v1)", "feature share.version >= 1 (share groups)"}, DocOf(Lookup("describe_share_groups")).Needs)
	assert.Equal(t, []string{"KRaft, Kafka 3.3+ (DescribeQuorum)"}, DocOf(Lookup("describe_quorum")).Needs)
	assert.Equal(t, []string{}, DocOf(Lookup("create_topics")).Needs)
	has(t, ReferenceMarkdown(), "Needs: KRaft, Kafka 3.3+ (UnregisterBroker); elsewhere")
	assert.False(t, strings.Contains(FuncHelp(Lookup("create_topics")), "Needs:"))
}
