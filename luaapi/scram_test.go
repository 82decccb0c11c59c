package luaapi

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/engine/login"
)

const scramSecret = "s3cret-Do-Not-Leak"

// clusterSCRAMs is user -> "MECHANISM=iterations=N" through the
// independent client.
func (e *env) clusterSCRAMs() map[string][]string {
	e.t.Helper()
	res, err := e.adm.DescribeUserSCRAMs(e.ctx())
	require.NoError(e.t, err)
	out := map[string][]string{}
	for _, d := range res.Sorted() {
		for _, ci := range d.CredInfos {
			out[d.User] = append(out[d.User], ci.String())
		}
	}
	return out
}

func TestAlterAndDescribeUserSCRAMCredentials(t *testing.T) {
	e := newEnv(t)
	out := e.json(`return alter_user_scram_credentials{upsert = {
		{user = "alice", password = "` + scramSecret + `"},
		{user = "alice", mechanism = "scram-sha-512", iterations = 8192, password = "` + scramSecret + `"},
		{user = "bob", mechanism = "SCRAM-SHA-512", password = "` + scramSecret + `"},
	}}`)
	assert.Equal(t, `[{"user":"alice"},{"user":"bob"}]`, out)
	assert.Equal(t, map[string][]string{
		"alice": {"SCRAM-SHA-256=iterations=4096", "SCRAM-SHA-512=iterations=8192"},
		"bob":   {"SCRAM-SHA-512=iterations=4096"},
	}, e.clusterSCRAMs())

	assert.Equal(t, `[{"iterations":4096,"mechanism":"SCRAM-SHA-256","user":"alice"},{"iterations":8192,"mechanism":"SCRAM-SHA-512","user":"alice"},{"iterations":4096,"mechanism":"SCRAM-SHA-512","user":"bob"}]`,
		e.json(`return describe_user_scram_credentials()`))
	e.run(`local r = describe_user_scram_credentials("bob"); assert(#r == 1 and r[1].mechanism == "SCRAM-SHA-512")`)
	re := e.runErr(`describe_user_scram_credentials{"bob", "nobody"}`)
	assert.Equal(t, "RESOURCE_NOT_FOUND", re.Code)
	assert.Contains(t, re.Message, "nobody")

	e.run(`alter_user_scram_credentials{delete = {{user = "alice", mechanism = "SCRAM-SHA-512"}, {user = "bob", mechanism = "SCRAM-SHA-512"}}}`)
	assert.Equal(t, map[string][]string{"alice": {"SCRAM-SHA-256=iterations=4096"}}, e.clusterSCRAMs())
	re = e.runErr(`alter_user_scram_credentials{delete = {{user = "bob"}}}`)
	assert.Equal(t, "RESOURCE_NOT_FOUND", re.Code)
}

func TestUpsertedSCRAMCredentialLogsIn(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.EnableSASL(), kfake.Superuser("SCRAM-SHA-256", "admin", "admin-pass"))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	as := func(user, pass string) *env {
		return newEnvOn(t, c, Options{Config: engine.Config{Timeout: 2 * time.Second,
			SASL: &login.SASLConfig{Mechanism: "SCRAM-SHA-512", Username: user, Password: engine.Secret(pass)}}})
	}
	admin := newEnvOn(t, c, Options{Config: engine.Config{SASL: &login.SASLConfig{Mechanism: "SCRAM-SHA-256", Username: "admin", Password: "admin-pass"}}})
	admin.run(`alter_user_scram_credentials{upsert = {{user = "carol", mechanism = "SCRAM-SHA-512", password = "` + scramSecret + `"}}}`)
	as("carol", scramSecret).run(`assert(#list_topics() >= 0)`)
	re := as("carol", "wrong").runErr(`list_topics()`)
	assert.Equal(t, KindKafka, re.Kind)
}

func TestSCRAMPasswordsNeverLeak(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	path := filepath.Join(t.TempDir(), "audit.log")
	audit, err := auditlog.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { _ = audit.Close() })
	e := newEnvOn(t, c, Options{Config: engine.Config{Audit: audit}})

	e.run(`alter_user_scram_credentials{upsert = {{user = "dave", password = "` + scramSecret + `"}}}`)
	// A failing user: the error and its results carry no password.
	h := c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.AlterUserSCRAMCredentials}, Resource: "erin", Err: kerr.UnacceptableCredential, Count: -1})
	defer h.Remove()
	re := e.runErr(`alter_user_scram_credentials{upsert = {{user = "erin", password = "` + scramSecret + `"}}}`)
	assert.Equal(t, "UNACCEPTABLE_CREDENTIAL", re.Code)
	assert.NotContains(t, re.Message, scramSecret)
	re = e.runErr(`alter_user_scram_credentials{upsert = {{user = "erin", password = "` + scramSecret + `", iterations = 10}}}`)
	assert.Equal(t, "alter_user_scram_credentials: upsert #1: iterations: must be a SCRAM iteration count between 4096 and 16384, got 10", re.Message)
	assert.NotContains(t, re.Message, scramSecret)
	// A password of the wrong type, or next to a bad field, is never echoed.
	for _, src := range []string{
		`alter_user_scram_credentials{upsert = {{user = "erin", password = 12345}}}`,
		`alter_user_scram_credentials{upsert = {{user = "erin", password = {"12345"}}}}`,
		`alter_user_scram_credentials{upsert = {{user = "erin", password = ""}}}`,
	} {
		re = e.runErr(src)
		assert.Equal(t, "alter_user_scram_credentials: upsert #1: password: must be a non-empty string (the value is not shown)", re.Message, src)
	}
	for _, src := range []string{
		`alter_user_scram_credentials{upsert = {{user = "erin", password = "` + scramSecret + `", mechanism = "MD5"}}}`,
		`alter_user_scram_credentials{upsert = {{user = "erin", password = "` + scramSecret + `", iterations = 2^31}}}`,
		`alter_user_scram_credentials{upsert = {{user = "erin", password = "` + scramSecret + `", pasword = "x"}}}`,
		`alter_user_scram_credentials({upsert = {{user = "erin", password = "` + scramSecret + `"}}}, {partial = "yes"})`,
		`alter_user_scram_credentials({upsert = {{user = "erin", password = "` + scramSecret + `"}}}, {}, 1)`,
	} {
		re = e.runErr(src)
		assert.Equal(t, "INVALID_ARGUMENT", re.Code, src)
		assert.NotContains(t, re.Message, scramSecret, src)
	}
	e.run(`
		kafka.dry_run(true)
		local r = alter_user_scram_credentials{upsert = {{user = "frank", password = "` + scramSecret + `"}}}
		assert(r[1].dry_run == true and r[1].user == "frank")
		kafka.dry_run(false)
	`)
	assert.Contains(t, e.stderr.String(), "dry-run: alter_user_scram_credentials: set SCRAM-SHA-256 credential for frank (iterations 4096)")
	assert.NotContains(t, e.json(`return describe_user_scram_credentials()`), scramSecret)

	require.NoError(t, audit.Close())
	log, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(log), `"op":"alter_user_scram_credentials"`)
	assert.Contains(t, string(log), `"password":"***"`)
	assert.NotContains(t, string(log), scramSecret)
	assert.NotContains(t, e.stderr.String(), scramSecret)
	assert.NotContains(t, e.stdout.String(), scramSecret)

	res, err := e.adm.DescribeUserSCRAMs(e.ctx())
	require.NoError(t, err)
	assert.Contains(t, res, "dave")
	assert.NotContains(t, res, "frank")
	assert.NotContains(t, res, "erin")
}

func TestAlterSCRAMRetriesAndBadArguments(t *testing.T) {
	e := newEnv(t)
	h := e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.AlterUserSCRAMCredentials}, Err: kerr.NotController, Count: 2})
	defer h.Remove()
	e.run(`alter_user_scram_credentials{upsert = {user = "gina", password = "pw"}}`)
	assert.Equal(t, 2, h.Hits())
	res, err := e.adm.DescribeUserSCRAMs(e.ctx(), "gina")
	require.NoError(t, err)
	assert.Equal(t, []kadm.CredInfo{{Mechanism: kadm.ScramSha256, Iterations: 4096}}, res["gina"].CredInfos)

	requests := countRequests(e.cluster)
	for src, want := range map[string]string{
		`alter_user_scram_credentials{}`: `alter_user_scram_credentials: changes: must upsert or delete at least one credential`,
		`alter_user_scram_credentials{upsert = {{user = "x", password = "p", mechanism = "MD5"}}}`:         `alter_user_scram_credentials: upsert #1: mechanism: must be "SCRAM-SHA-256" or "SCRAM-SHA-512", got "MD5"`,
		`alter_user_scram_credentials{upsert = {{user = "x", password = "p", mechanism = "SCRAM-SHA-5"}}}`: `(did you mean "SCRAM-SHA-256"?)`,
		`alter_user_scram_credentials{upsert = {{user = "x", password = "p", iterations = 16385}}}`:        `alter_user_scram_credentials: upsert #1: iterations: must be a SCRAM iteration count between 4096 and 16384, got 16385`,
		`alter_user_scram_credentials{upsert = {{user = "x", password = "p", iterations = 4096.5}}}`:       `alter_user_scram_credentials: upsert #1: iterations: must be a SCRAM iteration count between 4096 and 16384, got 4096.5`,
		`alter_user_scram_credentials{upsert = {{password = "p"}}}`:                                        `alter_user_scram_credentials: upsert #1: user: is required`,
		`alter_user_scram_credentials{delete = {{mechanism = "SCRAM-SHA-256"}}}`:                           `alter_user_scram_credentials: delete #1: user: is required`,
		`alter_user_scram_credentials{delete = {{user = ""}}}`:                                             `alter_user_scram_credentials: delete #1: user: must not be empty`,
		`alter_user_scram_credentials{add = {}}`:                                                           `alter_user_scram_credentials: changes: unknown key "add" (allowed: upsert, delete)`,
		`alter_user_scram_credentials{delet = {}}`:                                                         `alter_user_scram_credentials: changes: unknown key "delet" (did you mean "delete"?)`,
		`alter_user_scram_credentials({delete = {{user = "x"}}}, {partial = 1})`:                           `alter_user_scram_credentials: options: partial: must be true or false, got 1`,
		`describe_user_scram_credentials(5)`:                                                               `describe_user_scram_credentials: users: must be a non-empty string, or an array of them, got 5`,
		`describe_user_scram_credentials({"a", ""})`:                                                       `describe_user_scram_credentials: users #2: must not be empty`,
		`describe_user_scram_credentials("a", {partal = true})`:                                            `describe_user_scram_credentials: options: unknown key "partal" (did you mean "partial"?)`,
	} {
		re := e.runErr(src)
		assert.Equal(t, "INVALID_ARGUMENT", re.Code, src)
		assert.Contains(t, re.Message, want, src)
	}
	assert.Zero(t, requests.Load(), "refused calls send nothing")
	res, err = e.adm.DescribeUserSCRAMs(e.ctx())
	require.NoError(t, err)
	assert.Equal(t, []string{"gina"}, slices.Sorted(maps.Keys(res)), "refused calls change nothing")

	// Mechanisms are read as Kafka's tools spell them.
	e.run(`alter_user_scram_credentials{upsert = {user = "hal", mechanism = "sha512", password = "pw"}}
		assert(describe_user_scram_credentials("hal")[1].mechanism == "SCRAM-SHA-512")`)
}
