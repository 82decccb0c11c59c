package main

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// --state kafka:TOPIC keeps the samples in the cluster itself: a run with
// no file (a CronJob's pod) judges from the run before it.
func TestStateInKafkaJudgesAcrossPods(t *testing.T) {
	c, _ := stateWorld(t)
	cwd := t.TempDir()
	t.Chdir(cwd)
	pod := func() *cli { return newCLI(t) } // a fresh process each time: nothing in common but the cluster
	first := lagStatusRun(t, pod(), c, "kafka:kadmin-state/lag")
	assert.Equal(t, "OK", first["status"])
	assert.Equal(t, 1.0, first["samples"])
	assert.Equal(t, true, first["state_file"], "the samples are kept for the next run")
	topics := topicNames(t, c.admin(t))
	assert.Contains(t, topics, "kadmin-state")
	entries, err := os.ReadDir(cwd)
	require.NoError(t, err)
	assert.Empty(t, entries, "no file written")

	time.Sleep(1100 * time.Millisecond) // past the samples' min-distance (the CLI has no driven clock)
	second := lagStatusRun(t, pod(), c, "kafka:kadmin-state/lag")
	assert.Equal(t, "ERR", second["status"])
	assert.Equal(t, 2.0, second["samples"])
	assert.Contains(t, second["reason"], "orders[0] is STOP (stopped)")

	// Another key is another state: this job starts afresh.
	other := lagStatusRun(t, pod(), c, "kafka:kadmin-state/other-job")
	assert.Equal(t, 1.0, other["samples"])

	// KADMIN_STATE names it too; check-lag fails the stopped group.
	cli := pod()
	cli.env["KADMIN_STATE"] = "kafka:kadmin-state/lag"
	assert.Equal(t, ExitCheck, cli.run("-b", c.addrs, "--state-window", "1s", "run", "check-lag", "orders-app"), cli.stderr.String())
	assert.Contains(t, cli.stderr.String(), "orders-app: ERR: orders[0] is STOP (stopped)")
}

// Under --dry-run the state is read, never written, and no topic is made.
func TestStateInKafkaDryRunWritesNothing(t *testing.T) {
	c, _ := stateWorld(t)
	cli := newCLI(t)
	require.Equal(t, ExitOK, cli.run("-b", c.addrs, "--dry-run", "--state", "kafka:kadmin-state", "-e", `lag_status("orders-app")`), cli.stderr.String())
	assert.Contains(t, cli.stderr.String(), "kadmin-lua: WARN dry-run: the state is read from kafka:kadmin-state/default, not written\n")
	assert.NotContains(t, topicNames(t, c.admin(t)), "kadmin-state")
}

func TestStateInKafkaBadLocationIsAUsageError(t *testing.T) {
	c, _ := stateWorld(t)
	for loc, want := range map[string]string{
		"kafka:":            "--state kafka:: the topic:",
		"kafka:a b":         "--state kafka:a b: the topic:",
		"kafka:state/x/y":   `the key must be 1 to 200 of a-z, A-Z, 0-9, '.', '_' and '-', got "x/y"`,
		"kafka:state/naïve": `got "naïve"`,
	} {
		cli := newCLI(t)
		assert.Equal(t, ExitUsage, cli.run("-b", c.addrs, "--state", loc, "-e", `lag_status()`), loc)
		assert.Contains(t, cli.stderr.String(), want, loc)
	}
	assert.NotContains(t, topicNames(t, c.admin(t)), "state")
}

// A principal that may not use the state topic fails the run as a Kafka
// error (exit 3), saying what to grant; nothing is judged.
func TestStateInKafkaRefusedIsAKafkaError(t *testing.T) {
	c := newCluster(t, kfake.EnableSASL(), kfake.EnableACLs(),
		kfake.Superuser("SCRAM-SHA-256", "admin", "admin-pass"), kfake.User("SCRAM-SHA-256", "eve", "eve-pass"))
	adm := c.admin(t, kgo.SASL(scram.Auth{User: "admin", Pass: "admin-pass"}.AsSha256Mechanism()))
	_, err := adm.CreateTopic(ctx(t), 1, 1, nil, "kadmin-state")
	require.NoError(t, err)
	cli := newCLI(t)
	cli.env["KADMIN_SASL_PASSWORD"] = "eve-pass"
	code := cli.run("-b", c.addrs, "--sasl-mechanism", "SCRAM-SHA-256", "--sasl-username", "eve", "--state", "kafka:kadmin-state/lag", "-o", "json", "-e", `lag_status()`)
	assert.Equal(t, ExitKafka, code, cli.stderr.String())
	assert.Contains(t, cli.stderr.String(), "state kafka:kadmin-state/lag")
	assert.Contains(t, cli.stderr.String(), "DESCRIBE and WRITE on transactional id kadmin-lua-state/kadmin-state/lag")
	assert.Empty(t, cli.stdout.String(), "no verdict")
	assert.NotContains(t, cli.stdout.String()+cli.stderr.String(), "eve-pass")
}

// In a fleet, each cluster's state is kept in its own topic, reached with
// its own credentials: never another cluster's.
func TestStateInKafkaFleetKeepsEachClusterInItself(t *testing.T) {
	w := newFleetWorld(t)
	script := writeFile(t, "status.lua", `return #lag_status()`)
	require.Equal(t, ExitOK, w.c.run("--state", "kafka:kadmin-state/fleet", "run", "--profiles", "eu,us", script), w.c.stderr.String())
	assert.Equal(t, []string{"admin:" + euPassword}, uniq(w.eu.logins()), "eu saw only its own credentials")
	assert.Equal(t, []string{"admin:" + usPassword}, uniq(w.us.logins()), "us saw only its own credentials")
	for lc, pw := range map[*loginCluster]string{w.eu: euPassword, w.us: usPassword} {
		adm := lc.admin(t, kgo.SASL(plain.Auth{User: "admin", Pass: pw}.AsMechanism()))
		assert.Contains(t, topicNames(t, adm), "kadmin-state")
	}
}

func uniq(ss []string) []string {
	var out []string
	for _, s := range ss {
		if len(out) == 0 || out[len(out)-1] != s {
			out = append(out, s)
		}
	}
	return out
}

// A state whose records are gone (compacted away by a topic that is not
// compacted, retention, delete_records) is said plainly and never judged
// from: the run starts with no samples, as a first run, and the version it
// writes is the one the run after judges from.
func TestStateInKafkaGoneIsSaidAndNotJudged(t *testing.T) {
	c, _ := stateWorld(t)
	adm := c.admin(t)
	checkLag := func() (*cli, int) {
		cli := newCLI(t)
		return cli, cli.run("-b", c.addrs, "--state", "kafka:kadmin-state/lag", "--state-window", "1s", "run", "check-lag", "orders-app")
	}
	first := lagStatusRun(t, newCLI(t), c, "kafka:kadmin-state/lag")
	assert.Equal(t, 1.0, first["samples"])
	// Delete the version's part, keep its head and commit marker.
	ends, err := adm.ListEndOffsets(ctx(t), "kadmin-state")
	require.NoError(t, err)
	end, _ := ends.Lookup("kadmin-state", 0)
	to := kadm.Offsets{}
	to.AddOffset("kadmin-state", 0, end.Offset-2, -1)
	_, err = adm.DeleteRecords(ctx(t), to)
	require.NoError(t, err)

	time.Sleep(1100 * time.Millisecond) // past the samples' min-distance (the CLI has no driven clock)
	lost, code := checkLag()
	require.Equal(t, ExitOK, code, "the consumer stopped, but a state that cannot be read judges nothing: %s", lost.stderr.String())
	assert.Contains(t, lost.stderr.String(), "are gone")
	assert.Contains(t, lost.stderr.String(), "kadmin-state[0]")
	assert.Contains(t, lost.stdout.String(), "INCOMPLETE")
	assert.NotContains(t, lost.stdout.String()+lost.stderr.String(), "STOP")

	time.Sleep(1100 * time.Millisecond)
	judged, code := checkLag()
	assert.Equal(t, ExitCheck, code, "the version the last run wrote is read: %s", judged.stderr.String())
	assert.Contains(t, judged.stderr.String(), "orders-app: ERR: orders[0] is STOP (stopped)")
	assert.NotContains(t, judged.stderr.String(), "are gone")
}

// A fleet's runs make their kafka.connect clients at once, each client's
// configuration with its cluster's state (engineConfig): the stores by
// cluster are made and found under a lock (a race -race finds, and a
// concurrent map write that ended the process).
func TestStateInKafkaFleetConnectsAtOnce(t *testing.T) {
	w := newFleetWorld(t)
	script := writeFile(t, "connect.lua", `
local dr = kafka.connect{profile = "dr"}
dr:close()
return #lag_status()`)
	require.Equal(t, ExitOK, w.c.run("--state", "kafka:kadmin-state/fleet", "run", "--profiles", "eu,us", script), w.c.stderr.String())
}
