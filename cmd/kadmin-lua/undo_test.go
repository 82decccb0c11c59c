package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
)

func retention(t *testing.T, adm *kadm.Client, topic string) string {
	t.Helper()
	rc, err := adm.DescribeTopicConfigs(ctx(t), topic)
	require.NoError(t, err)
	r, err := rc.On(topic, nil)
	require.NoError(t, err)
	for _, c := range r.Configs {
		if c.Key == "retention.ms" {
			return c.MaybeValue()
		}
	}
	return ""
}

// undoWorld is a cluster whose topic orders has retention.ms=1000 set,
// and the path of an audit log yet to be written.
func undoWorld(t *testing.T) (*cluster, string) {
	t.Helper()
	cl := newCluster(t)
	cl.adm = cl.admin(t)
	_, err := cl.adm.CreateTopic(ctx(t), 1, 1, map[string]*string{"retention.ms": kadm.StringPtr("1000")}, "orders")
	require.NoError(t, err)
	return cl, filepath.Join(t.TempDir(), "audit.jsonl")
}

func TestUndoCommand(t *testing.T) {
	cl, audit := undoWorld(t)

	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "--audit-log", audit, "-e", `
		alter_configs{{topic = "orders", set = {["retention.ms"] = "2000"}}}
		create_topics{"scratch"}`), c.stderr.String())
	require.Equal(t, "2000", retention(t, cl.adm, "orders"))

	// --dry-run says what it would do and changes nothing.
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "--dry-run", "--yes", "undo", audit), c.stderr.String())
	assert.Contains(t, c.stdout.String(), "would revert")
	assert.Contains(t, c.stdout.String(), "set retention.ms=1000")
	assert.Equal(t, "2000", retention(t, cl.adm, "orders"))
	assert.Contains(t, topicNames(t, cl.adm), "scratch")

	// --throttle is a size per second; anything else is a usage error, before any change.
	require.Equal(t, ExitUsage, c.run("-b", cl.addrs, "undo", audit, "--throttle", "fast"), c.stderr.String())
	assert.Contains(t, c.stderr.String(), `invalid argument "fast" for "--throttle" flag`)
	assert.Equal(t, "2000", retention(t, cl.adm, "orders"))

	// Without --yes (and no terminal), the topic is not deleted: refused, exit 1.
	require.Equal(t, ExitScript, c.run("-b", cl.addrs, "undo", audit), c.stderr.String())
	assert.Contains(t, c.stdout.String(), "deleting a topic needs confirmation (--yes)")
	assert.Equal(t, "1000", retention(t, cl.adm, "orders"))
	assert.Contains(t, topicNames(t, cl.adm), "scratch")

	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "--yes", "-o", "json", "undo", audit, "--since", "2000-01-01"), c.stderr.String())
	var steps []map[string]string
	require.NoError(t, json.Unmarshal([]byte(c.stdout.String()), &steps), c.stdout.String())
	got := map[string]string{}
	for _, s := range steps {
		got[s["op"]+" "+s["resource"]] = s["action"]
	}
	assert.Equal(t, "reverted", got["create_topics scratch"])
	assert.Equal(t, "skipped", got["alter_configs topic:orders"], "already undone")
	assert.NotContains(t, topicNames(t, cl.admin(t)), "scratch", "a fresh client: kgo's cache may still list a deleted topic")

	b, err := os.ReadFile(audit)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"undo_of"`, "undo's own changes are audited in the same file")

	assert.Equal(t, ExitUsage, c.run("-b", cl.addrs, "undo", audit, "--since", "someday"))
	assert.Equal(t, ExitUsage, c.run("-b", cl.addrs, "undo", filepath.Join(t.TempDir(), "missing.jsonl")))
}

func TestAuditLogNamesTheProfile(t *testing.T) {
	cl := newCluster(t)
	c := newCLI(t)
	writeConfig(t, c, `{"profiles": {"ops": {"brokers": ["`+cl.addrs+`"], "timeout": "5s"}}}`)
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	require.Equal(t, ExitOK, c.run("--profile", "ops", "--audit-log", audit, "-e", `create_topics{"p"}`), c.stderr.String())
	b, err := os.ReadFile(audit)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"profile":"ops"`)
}

// A bad line in the log is a refused step (resource "line N"); the rest
// is undone.
func TestUndoCommandGoesOnPastABadLine(t *testing.T) {
	cl, audit := undoWorld(t)
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "--audit-log", audit, "-e", `alter_configs{{topic = "orders", set = {["retention.ms"] = "2000"}}}`), c.stderr.String())
	f, err := os.OpenFile(audit, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("not json at all\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())

	require.Equal(t, ExitScript, c.run("-b", cl.addrs, "-o", "json", "undo", audit), c.stderr.String())
	var steps []map[string]string
	require.NoError(t, json.Unmarshal([]byte(c.stdout.String()), &steps), c.stdout.String())
	require.Len(t, steps, 2)
	assert.Equal(t, "line 3", steps[0]["resource"])
	assert.Equal(t, "refused", steps[0]["action"])
	assert.Contains(t, steps[0]["message"], "not an audit record")
	assert.Equal(t, "reverted", steps[1]["action"])
	assert.Equal(t, "1000", retention(t, cl.adm, "orders"))
}

func TestUndoCommandWithAKey(t *testing.T) {
	cl := newCluster(t)
	cl.adm = cl.admin(t)
	_, err := cl.adm.CreateTopic(ctx(t), 1, 1, map[string]*string{"retention.ms": kadm.StringPtr("1000")}, "orders")
	require.NoError(t, err)
	const key = "s3cret-audit-key-0123456789"
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	c := newCLI(t)
	c.env["KADMIN_AUDIT_KEY"] = key
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "--audit-log", audit, "-e", `
		alter_configs{{topic = "orders", set = {["retention.ms"] = "2000"}}}
		return kafka.env("KADMIN_AUDIT_KEY", "hidden")`), c.stderr.String())
	assert.Equal(t, "hidden\n", c.stdout.String(), "scripts do not see the key")
	b, err := os.ReadFile(audit)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"chain":"hmac-sha256"`)
	assert.NotContains(t, string(b), key)

	// Without the key: nothing is trusted, and the log is not appended to.
	delete(c.env, "KADMIN_AUDIT_KEY")
	require.Equal(t, ExitUsage, c.run("-b", cl.addrs, "undo", audit), c.stderr.String())
	assert.Contains(t, c.stderr.String(), "is keyed")
	require.Equal(t, ExitScript, c.run("-b", cl.addrs, "--dry-run", "undo", audit), c.stderr.String())
	assert.Contains(t, c.stdout.String(), "give the log's key")
	assert.Equal(t, "2000", retention(t, cl.adm, "orders"))

	// With it: undone; the key appears in no output.
	c.env["KADMIN_AUDIT_KEY"] = key
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "undo", audit), c.stderr.String())
	assert.Equal(t, "1000", retention(t, cl.adm, "orders"))
	assert.NotContains(t, c.stdout.String()+c.stderr.String(), key)

	c.env["KADMIN_AUDIT_KEY"] = "short"
	require.Equal(t, ExitUsage, c.run("-b", cl.addrs, "undo", audit))
	assert.Contains(t, c.stderr.String(), "at least 16")
	assert.NotContains(t, c.stderr.String(), "short\n")
}

// A fleet's log holds each profile's lines; undo through one profile acts
// on that profile's only and says what it skipped, also when the clusters
// share an id (kfake's and docker-compose's are fixed), where the cluster
// check cannot tell them apart.
func TestFleetUndoActsOnItsOwnProfilesLines(t *testing.T) {
	clusters := map[string]*cluster{}
	for name, before := range map[string]string{"east": "1000", "west": "5000"} {
		cl := newCluster(t, kfake.ClusterID("fixed-id"))
		cl.adm = cl.admin(t)
		_, err := cl.adm.CreateTopic(ctx(t), 1, 1, map[string]*string{"retention.ms": kadm.StringPtr(before)}, "orders")
		require.NoError(t, err)
		clusters[name] = cl
	}
	c := newCLI(t)
	writeConfig(t, c, fmt.Sprintf(`{"profiles": {"east": {"brokers": [%q]}, "west": {"brokers": [%q]}}}`,
		clusters["east"].addrs, clusters["west"].addrs))
	audit := filepath.Join(t.TempDir(), "fleet.jsonl")
	script := writeFile(t, "raise.lua", `alter_configs{{topic = "orders", set = {["retention.ms"] = "2000"}}}`)
	require.Equal(t, ExitOK, c.run("--audit-log", audit, "run", "--profiles", "east,west", script), c.stderr.String())

	// Without a profile: the lines written to the brokers it names.
	require.Equal(t, ExitOK, c.run("-b", clusters["east"].addrs, "--dry-run", "undo", audit), c.stderr.String())
	assert.Regexp(t, `alter_configs +- +skipped +written through profile west \(brokers [^)]+\), none of which this undo names: run undo --profile west\n`, c.stdout.String())
	assert.Regexp(t, `alter_configs +topic:orders +would revert +set retention.ms=1000\n`, c.stdout.String())

	require.Equal(t, ExitOK, c.run("--profile", "east", "undo", audit), c.stderr.String())
	assert.Regexp(t, `alter_configs +- +skipped +written through profile west, not east: run undo --profile west\n`, c.stdout.String())
	assert.Regexp(t, `alter_configs +topic:orders +reverted +set retention.ms=1000\n`, c.stdout.String())
	assert.Equal(t, "1000", retention(t, clusters["east"].adm, "orders"))
	assert.Equal(t, "2000", retention(t, clusters["west"].adm, "orders"), "west's change is west's to undo")

	require.Equal(t, ExitOK, c.run("--profile", "west", "undo", audit), c.stderr.String())
	assert.Regexp(t, `alter_configs +topic:orders +reverted +set retention.ms=5000\n`, c.stdout.String())
	assert.Equal(t, "5000", retention(t, clusters["west"].adm, "orders"))
	assert.Equal(t, "1000", retention(t, clusters["east"].adm, "orders"))
}

// A keyed log is appended to only under its key: a run with another key
// is refused before it sends anything (exit 2), so it leaves no change
// that undo with the log's key would refuse.
func TestAppendUnderAnotherKeyIsRefused(t *testing.T) {
	cl, audit := undoWorld(t)
	const key, other = "first-audit-key-0123456789", "second-audit-key-0123456789"
	c := newCLI(t)
	c.env["KADMIN_AUDIT_KEY"] = key
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "--audit-log", audit, "-e", `create_topics{"mine"}`), c.stderr.String())
	before, err := os.ReadFile(audit)
	require.NoError(t, err)

	c.env["KADMIN_AUDIT_KEY"] = other
	require.Equal(t, ExitUsage, c.run("-b", cl.addrs, "--audit-log", audit, "-e", `create_topics{"theirs"}`), c.stderr.String())
	assert.Contains(t, c.stderr.String(), audit+" is keyed with another key")
	assert.NotContains(t, topicNames(t, cl.adm), "theirs")
	// undo under that key would append its own changes: refused too; a
	// dry run (which appends nothing) says the key vouches for nothing.
	require.Equal(t, ExitUsage, c.run("-b", cl.addrs, "--yes", "undo", audit), c.stderr.String())
	assert.Contains(t, c.stderr.String(), "is keyed with another key")
	require.Equal(t, ExitScript, c.run("-b", cl.addrs, "--dry-run", "undo", audit), c.stderr.String())
	assert.Contains(t, c.stdout.String(), "does not verify with the key")
	assert.NotContains(t, c.stdout.String(), "would revert")
	after, err := os.ReadFile(audit)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "nothing appended")
	assert.NotContains(t, c.stdout.String()+c.stderr.String(), key)
	assert.NotContains(t, c.stdout.String()+c.stderr.String(), other)
	assert.Contains(t, topicNames(t, cl.adm), "mine")
}

// A hand-written line's id and op reach the terminal escaped, and an intent
// without cluster_id is refused by its id.
func TestUndoCommandEscapesForgedIDs(t *testing.T) {
	cl := newCluster(t)
	audit := filepath.Join(t.TempDir(), "forged.jsonl")
	require.NoError(t, os.WriteFile(audit, []byte(
		`{"type":"intent","id":"evil\u001b[31m","op":"create_topics\u0007","args":{"specs":[{"name":"x"}]}}`+"\n"+
			`{"type":"outcome","id":"evil\u001b[31m","op":"create_topics\u0007","items":[{"key":"x","outcome":"ok"}]}`+"\n"), 0o600))
	c := newCLI(t)
	require.Equal(t, ExitScript, c.run("-b", cl.addrs, "--dry-run", "undo", audit), c.stderr.String())
	out := c.stdout.String()
	assert.NotContains(t, out, "\x1b")
	assert.NotContains(t, out, "\x07")
	assert.Contains(t, out, `evil\x1b[31m`)
	assert.Contains(t, out, "no cluster_id")
}
