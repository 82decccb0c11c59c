package luaapi

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

func TestAPIVersionsMatchEachBroker(t *testing.T) {
	e := newEnv(t)
	vs, err := e.adm.ApiVersions(e.ctx())
	require.NoError(t, err)
	var want []string
	for _, b := range vs.Sorted() {
		require.NoError(t, b.Err)
		b.EachKeySorted(func(k, lo, hi int16) {
			want = append(want, fmt.Sprintf("%d %d %s %d-%d", b.NodeID, k, engine.APIName(k), lo, hi))
		})
	}
	got := e.run(`
		local out = {}
		for _, v in ipairs(api_versions()) do
			out[#out + 1] = string.format("%d %d %s %d-%d", v.broker, v.api, v.name, v.min_version, v.max_version)
		end
		return table.concat(out, "\n")
	`).String()
	require.NotEmpty(t, want)
	assert.Equal(t, joinLines(want), got)
	// Kafka's names (kafka-broker-api-versions), not franz-go's.
	for _, name := range []string{" SaslHandshake ", " InitProducerId ", " DescribeAcls ", " AlterPartitionReassignments "} {
		assert.Contains(t, got, name)
	}
	assert.NotContains(t, got, "SASLHandshake")
}

func joinLines(ss []string) string {
	out := ""
	for i, s := range ss {
		if i > 0 {
			out += "\n"
		}
		out += s
	}
	return out
}

// finalizedFeatures reads the finalized feature levels through the
// independent client.
func (e *env) finalizedFeatures() map[string]int16 {
	e.t.Helper()
	vs, err := e.adm.ApiVersions(e.ctx())
	require.NoError(e.t, err)
	out := map[string]int16{}
	for _, b := range vs.Sorted() {
		for _, f := range b.Raw().FinalizedFeatures {
			out[f.Name] = f.MaxVersionLevel
		}
		break
	}
	return out
}

func TestDescribeAndUpdateFeatures(t *testing.T) {
	e := newEnv(t)
	fin := e.finalizedFeatures()
	require.Contains(t, fin, "transaction.version")
	e.run(fmt.Sprintf(`
		local byName = {}
		for _, f in ipairs(describe_features()) do byName[f.feature] = f end
		local tv = byName["transaction.version"]
		assert(tv.finalized_level == %d, tostring(tv.finalized_level))
		assert(tv.supported_max >= tv.finalized_level and tv.supported_min <= tv.finalized_level)
		assert(byName["metadata.version"].finalized_level == %d)
	`, fin["transaction.version"], fin["metadata.version"]))

	// A downgrade needs an explicit upgrade_type.
	re := e.runErr(`update_features{{feature = "transaction.version", max_version_level = 1}}`)
	assert.Equal(t, "INVALID_UPDATE_VERSION", re.Code)
	e.run(`local r = update_features({feature = "transaction.version", max_version_level = 1, upgrade_type = "safe_downgrade"}, {validate_only = true})
		assert(r[1].error == nil and r[1].max_version_level == 1)`)
	assert.Equal(t, fin["transaction.version"], e.finalizedFeatures()["transaction.version"], "validate_only changes nothing")
	e.run(`kafka.dry_run(true)
		update_features{{feature = "transaction.version", max_version_level = 1, upgrade_type = "safe_downgrade"}}
		kafka.dry_run(false)`)
	assert.Contains(t, e.stderr.String(), "dry-run: update_features: set transaction.version to level 1 (safe_downgrade)")
	assert.Equal(t, fin["transaction.version"], e.finalizedFeatures()["transaction.version"])

	e.run(`update_features{{feature = "transaction.version", max_version_level = 1, upgrade_type = "safe_downgrade"}}`)
	assert.Equal(t, int16(1), e.finalizedFeatures()["transaction.version"])
	e.run(`update_features{{feature = "transaction.version", max_version_level = 2}}`)
	assert.Equal(t, int16(2), e.finalizedFeatures()["transaction.version"])

	re = e.runErr(`update_features{{feature = "no.such.feature", max_version_level = 1}}`)
	assert.Equal(t, "FEATURE_UPDATE_FAILED", re.Code)
	for src, want := range map[string]string{
		`update_features{{feature = "x", max_version_level = 1, upgrade_type = "sideways"}}`: `update_features: update #1: upgrade_type: must be "upgrade", "safe_downgrade" or "unsafe_downgrade", got "sideways"`,
		`update_features{{feature = "x", max_version_level = 1, upgrade_type = "upgrad"}}`:   `(did you mean "upgrade"?)`,
		`update_features{{feature = "x"}}`:                                                   `update_features: update #1: max_version_level: is required`,
		`update_features{{feature = "x", max_version_level = 2^15}}`:                         `update_features: update #1: max_version_level: must be a feature level between 0 and 32767, got 32768`,
		`update_features{{feature = "x", max_version_level = 1.5}}`:                          `update_features: update #1: max_version_level: must be a feature level between 0 and 32767, got 1.5`,
		`update_features{{feature = "", max_version_level = 1}}`:                             `update_features: update #1: feature: must not be empty`,
		`update_features{}`: `update_features: updates: must name at least one`,
		`update_features({feature = "transaction.version", max_version_level = 0, upgrade_type = "unsafe_downgrade"}, {validate_only = "yes"})`: `update_features: options: validate_only: must be true or false, got "yes"`,
		`update_features({{feature = "transaction.version", max_version_level = 0, upgrade_type = "unsafe_downgrade"}}, {validate_only = 1})`:   `update_features: options: validate_only: must be true or false, got 1`,
	} {
		re := e.runErr(src)
		assert.Equal(t, "INVALID_ARGUMENT", re.Code, src)
		assert.Contains(t, re.Message, want, src)
	}
	assert.Equal(t, int16(2), e.finalizedFeatures()["transaction.version"], "refused updates change nothing")
	for _, src := range []string{`api_versions(1)`, `describe_features{}`} {
		re := e.runErr(src)
		assert.Equal(t, "INVALID_ARGUMENT", re.Code, src)
		assert.Contains(t, re.Message, "takes no arguments", src)
	}
}

func TestUpdateFeaturesRetries(t *testing.T) {
	e := newEnv(t)
	h := e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.UpdateFeatures}, Err: kerr.NotController, Count: 2, TopLevel: true})
	defer h.Remove()
	e.run(`update_features{{feature = "group.version", max_version_level = 0, upgrade_type = "unsafe_downgrade"}}`)
	assert.Equal(t, 2, h.Hits())
	_, finalized := e.finalizedFeatures()["group.version"]
	assert.False(t, finalized, "level 0 removes the feature")
}

func TestListConfigResources(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{"cfg-a", "cfg-b"}`)
	res, err := e.adm.ListConfigResources(e.ctx())
	require.NoError(t, err)
	var want []string
	for _, r := range res.Sorted() {
		want = append(want, r.Name)
	}
	require.Contains(t, want, "cfg-a")
	e.run(`
		local r = list_config_resources("topic")
		assert(#r == 2 and r[1].type == "topic" and r[1].name == "cfg-a" and r[2].name == "cfg-b")
		local all = list_config_resources()
		local types = {}
		for _, x in ipairs(all) do types[x.type] = (types[x.type] or 0) + 1 end
		assert(types.topic == 2 and types.broker == 3, tostring(types.broker))
		assert(#list_config_resources{"broker", "topic"} == 5)
	`)
	re := e.runErr(`list_config_resources{"topics"}`)
	assert.Contains(t, re.Message, `list_config_resources: types #1: must be "topic", "broker", "broker_logger", "client_metrics" or "group", got "topics" (did you mean "topic"?)`)
	re = e.runErr(`list_config_resources("topic", {})`)
	assert.Contains(t, re.Message, `list_config_resources: takes at most 1 argument`)
}
