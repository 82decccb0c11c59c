package luaapi

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestACLBundleCreatesAndDeletesKafkaAclsRows: acl_bundle's rows are
// kafka-acls --producer/--consumer's; create_acls creates exactly them and
// delete_acls removes exactly them (a separate client reads the cluster).
func TestACLBundleCreatesAndDeletesKafkaAclsRows(t *testing.T) {
	e := newEnv(t)
	e.run(`create_acls(acl_bundle{producer = "User:p", topics = {"orders", "refunds"}, idempotent = true, transactional_id = "tx-"} )
		create_acls(acl_bundle{consumer = "User:c", topics = "pay-", group = "billing-", pattern_type = "prefixed", hosts = {"10.0.0.1", "10.0.0.2"}})`)
	got := e.clusterACLs()
	slices.Sort(got)
	want := []string{
		"User:c READ ALLOW GROUP:billing-:PREFIXED", "User:c READ ALLOW GROUP:billing-:PREFIXED",
		"User:c DESCRIBE ALLOW TOPIC:pay-:PREFIXED", "User:c DESCRIBE ALLOW TOPIC:pay-:PREFIXED",
		"User:c READ ALLOW TOPIC:pay-:PREFIXED", "User:c READ ALLOW TOPIC:pay-:PREFIXED",
		"User:p IDEMPOTENT_WRITE ALLOW CLUSTER:kafka-cluster:LITERAL",
		"User:p CREATE ALLOW TOPIC:orders:LITERAL", "User:p DESCRIBE ALLOW TOPIC:orders:LITERAL", "User:p WRITE ALLOW TOPIC:orders:LITERAL",
		"User:p CREATE ALLOW TOPIC:refunds:LITERAL", "User:p DESCRIBE ALLOW TOPIC:refunds:LITERAL", "User:p WRITE ALLOW TOPIC:refunds:LITERAL",
		"User:p DESCRIBE ALLOW TRANSACTIONAL_ID:tx-:LITERAL", "User:p WRITE ALLOW TRANSACTIONAL_ID:tx-:LITERAL",
	}
	slices.Sort(want)
	assert.Equal(t, want, got)
	// Two hosts: each consumer row twice, once per host.
	hosts := e.json(`local hs = {}
		for _, a in ipairs(acl_bundle{consumer = "User:c", topics = "pay-", group = "billing-", hosts = {"10.0.0.1", "10.0.0.2"}}) do hs[#hs + 1] = a.host end
		table.sort(hs)
		return hs`)
	assert.JSONEq(t, `["10.0.0.1","10.0.0.1","10.0.0.1","10.0.0.2","10.0.0.2","10.0.0.2"]`, hosts)

	// delete_acls takes the same rows: only the consumer's go.
	e.run(`local r = delete_acls(acl_bundle{consumer = "User:c", topics = "pay-", group = "billing-", pattern_type = "prefixed", hosts = {"10.0.0.1", "10.0.0.2"}})
		assert(#r == 6, #r)
		for _, x in ipairs(r) do assert(#x.deleted == 1, #x.deleted) end`)
	got = e.clusterACLs()
	assert.Len(t, got, 9)
	for _, a := range got {
		assert.Contains(t, a, "User:p ")
	}

	// Producer and consumer together merge their topic rows.
	n := e.json(`return #acl_bundle{producer = "User:x", consumer = "User:x", topics = "t", group = "g"}`)
	assert.Equal(t, "5", n) // write, describe, create, read on t (describe once); read on g
}

// TestACLBundleRefusesWhatKafkaAclsRefuses: each refusal names the
// function and sends nothing.
func TestACLBundleRefusesWhatKafkaAclsRefuses(t *testing.T) {
	e := newEnv(t)
	for src, want := range map[string]string{
		`acl_bundle{topics = "t"}`:                                                           "name a producer or a consumer",
		`acl_bundle{producer = "User:p"}`:                                                    "topics is required",
		`acl_bundle{consumer = "User:c", topics = "t"}`:                                      "a consumer needs group",
		`acl_bundle{producer = "User:p", topics = "t", group = "g"}`:                         "group is a consumer's",
		`acl_bundle{consumer = "User:c", topics = "t", group = "g", idempotent = true}`:      "idempotent is a producer's",
		`acl_bundle{consumer = "User:c", topics = "t", group = "g", transactional_id = "x"}`: "transactional_id is a producer's",
		`acl_bundle{producer = "alice", topics = "t"}`:                                       "TYPE:NAME",
		`acl_bundle{producer = "User:p", topics = "t", pattern_type = "match"}`:              "pattern_type",
		`acl_bundle{producer = "User:p", topic = "t"}`:                                       "topic",
	} {
		re := e.runErr(src)
		require.NotNil(t, re, src)
		assert.Contains(t, re.Message, "acl_bundle", src)
		assert.Contains(t, re.Message, want, src)
	}
	assert.Empty(t, e.clusterACLs())
}
