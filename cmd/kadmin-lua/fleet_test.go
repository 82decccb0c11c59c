package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"
)

// fleetWorld is two SASL clusters, eu (one topic) and us (two), each with
// its own admin password in its own variable, and a config file whose
// profiles are eu, us and dr, a cluster nobody answers for.
type fleetWorld struct {
	eu, us *loginCluster
	c      *cli
}

const (
	euPassword = "eu-pa55"
	usPassword = "us-pa55"
)

func newFleetWorld(t *testing.T) *fleetWorld {
	t.Helper()
	w := &fleetWorld{eu: newLoginCluster(t, euPassword), us: newLoginCluster(t, usPassword), c: newCLI(t)}
	mk := func(lc *loginCluster, pw string, topics ...string) {
		adm := lc.admin(t, kgo.SASL(plain.Auth{User: "admin", Pass: pw}.AsMechanism()))
		_, err := adm.CreateTopics(ctx(t), 2, 1, nil, topics...)
		require.NoError(t, err)
		lc.mu.Lock()
		lc.attempts = nil // the setup's own logins
		lc.mu.Unlock()
	}
	mk(w.eu, euPassword, "orders")
	mk(w.us, usPassword, "orders", "payments")
	writeConfig(t, w.c, fmt.Sprintf(`{"profiles": {
		"eu": {"brokers": [%q], "sasl": {"mechanism": "PLAIN", "username": "admin", "password_env": "EU_PW"}},
		"us": {"brokers": [%q], "sasl": {"mechanism": "PLAIN", "username": "admin", "password_env": "US_PW"}},
		"dr": {"brokers": [%q]},
		"broken": {"brokers": [%q], "sasl": {"mechanism": "NTLM", "username": "admin"}}}}`,
		w.eu.addrs, w.us.addrs, closedPort(t), w.eu.addrs))
	w.c.env["EU_PW"], w.c.env["US_PW"] = euPassword, usPassword
	return w
}

// countTopics prints, declares and returns the cluster's topic count; more
// than one fails a check.
const countTopics = `
local n = #list_topics()
print("topics: " .. n)
kafka.metric("kafka_topics", n, {}, "Topics")
kafka.check(n < 2, "too many topics")
return {{topics = n}}`

var summaryRE = regexp.MustCompile(`(?m)^\S+Z (INFO|WARN|ERROR) (?:run=(\d+) )?profile=(\S+) exit=(\d+) duration=(\S+) checks_failed=(\d+)(?: error="(.*)")?$`)

func TestFleetRunsEachClusterWithItsOwnCredentials(t *testing.T) {
	w := newFleetWorld(t)
	script := writeFile(t, "count.lua", countTopics)
	began := time.Now()
	code := w.c.run("--timeout", "30s", "run", "--profiles", "eu,us,dr", script)
	took := time.Since(began)
	require.Equal(t, ExitKafka, code, "the worst of 0, 4 and 3:\n%s", w.c.stderr.String())
	assert.Less(t, took, 15*time.Second, "the unreachable cluster fails fast and holds up no one")

	assert.Equal(t, []string{"admin:" + euPassword}, w.eu.logins(), "eu saw only its own credentials")
	assert.Equal(t, []string{"admin:" + usPassword}, w.us.logins(), "us saw only its own credentials")

	out := w.c.stdout.String()
	assert.Equal(t, "== eu ==\ntopics: 1\nTOPICS\n1\n== us ==\ntopics: 2\nTOPICS\n2\n== dr ==\n", out, "grouped per cluster, in the order asked")

	errs := w.c.stderr.String()
	assert.Contains(t, errs, "us: check failed: too many topics\n", "a cluster's stderr lines say whose they are")
	lines := summaryRE.FindAllStringSubmatch(errs, -1)
	require.Len(t, lines, 3, errs)
	assert.Equal(t, []string{"INFO", "", "eu", "0"}, lines[0][1:5])
	assert.Equal(t, []string{"WARN", "", "us", "4"}, lines[1][1:5])
	assert.Equal(t, "1", lines[1][6])
	assert.Equal(t, []string{"ERROR", "", "dr", "3"}, lines[2][1:5])
	assert.Contains(t, lines[2][7], "list_topics: NETWORK: the seed broker cannot be reached")
	assert.True(t, strings.HasSuffix(errs, "kadmin-lua: 2 of 3 clusters did not succeed (exit 3)\n"), errs)
	for _, s := range []string{euPassword, usPassword} {
		assert.NotContains(t, out+errs, s)
	}
	t.Logf("fleet of 3 (one unreachable) in %s", took.Round(time.Millisecond))
}

func TestFleetJSONIsOneLinePerCluster(t *testing.T) {
	w := newFleetWorld(t)
	script := writeFile(t, "count.lua", countTopics)
	require.Equal(t, ExitCheck, w.c.run("-o", "json", "run", "--profiles", "us,eu", script))
	lines := strings.Split(strings.TrimSuffix(w.c.stdout.String(), "\n"), "\n")
	require.Len(t, lines, 2, w.c.stdout.String())
	var recs []map[string]any
	for _, l := range lines {
		var r map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &r), l)
		delete(r, "duration_seconds")
		recs = append(recs, r)
	}
	assert.Equal(t, []map[string]any{
		{"profile": "us", "exit": 4.0, "checks_failed": []any{"too many topics"}, "error": nil,
			"result": []any{map[string]any{"topics": 2.0}}, "stdout": "topics: 2\n"},
		{"profile": "eu", "exit": 0.0, "checks_failed": []any{}, "error": nil,
			"result": []any{map[string]any{"topics": 1.0}}, "stdout": "topics: 1\n"},
	}, recs)

	// Several returned values come as an array; none as null.
	multi := writeFile(t, "multi.lua", `if #list_topics() == 1 then return 1, "two" end`)
	require.Equal(t, ExitOK, w.c.run("-o", "json", "run", "--profiles", "eu,us", multi))
	assert.Contains(t, w.c.stdout.String(), `"profile":"eu","exit":0,`)
	assert.Contains(t, w.c.stdout.String(), `"result":[1,"two"]}`)
	assert.Contains(t, w.c.stdout.String(), `"profile":"us","exit":0,`)
	assert.Contains(t, w.c.stdout.String(), `"result":null}`)
}

func TestFleetGlobsAndMistakes(t *testing.T) {
	w := newFleetWorld(t)
	script := writeFile(t, "count.lua", `return #list_topics()`)
	require.Equal(t, ExitOK, w.c.run("run", "--profiles", "[eu]*,u?,eu", script), w.c.stderr.String())
	assert.Equal(t, "== eu ==\n1\n== us ==\n2\n", w.c.stdout.String(), "a profile named twice runs once")
	w.eu.mu.Lock()
	w.eu.attempts = nil
	w.eu.mu.Unlock()

	for args, want := range map[string]string{
		"run --profiles nope x.lua":               `--profiles: no profile "nope" (profiles: broken, dr, eu, us)`,
		"run --profiles prod-* x.lua":             `--profiles: "prod-*" matches no profile`,
		"run --profiles [ x.lua":                  `--profiles: bad pattern "["`,
		"-b localhost:9092 run --profiles eu x":   "--profiles takes each cluster's brokers and credentials from its profile: leave out --brokers",
		"--profile eu run --profiles eu x":        "leave out --profile",
		"--sasl-username bob run --profiles eu x": "leave out --sasl-username",
		"--embedded run --profiles eu x":          "leave out --embedded",
	} {
		require.Equal(t, ExitUsage, w.c.run(strings.Fields(args)...), args)
		assert.Contains(t, w.c.stderr.String(), want, args)
		assert.Empty(t, w.eu.logins(), args)
	}

	// A profile that cannot be used fails its own run; the others run.
	require.Equal(t, ExitUsage, w.c.run("run", "--profiles", "broken,eu", script))
	assert.Equal(t, "== broken ==\n== eu ==\n1\n", w.c.stdout.String())
	lines := summaryRE.FindAllStringSubmatch(w.c.stderr.String(), -1)
	require.Len(t, lines, 2, w.c.stderr.String())
	assert.Equal(t, []string{"ERROR", "", "broken", "2"}, lines[0][1:5])
	assert.Contains(t, lines[0][7], `unsupported SASL mechanism \"NTLM\"`)
	assert.Equal(t, []string{"INFO", "", "eu", "0"}, lines[1][1:5])
}

// --parallel bounds how many clusters run at once.
func TestFleetParallelIsABound(t *testing.T) {
	clusters := []*cluster{newCluster(t), newCluster(t), newCluster(t)}
	c := newCLI(t)
	writeConfig(t, c, fmt.Sprintf(`{"profiles": {"a": {"brokers": [%q]}, "b": {"brokers": [%q]}, "c": {"brokers": [%q]}}}`,
		clusters[0].addrs, clusters[1].addrs, clusters[2].addrs))
	trace := writeFile(t, "trace.txt", "")
	script := writeFile(t, "slow.lua", fmt.Sprintf(`
local f = io.open(%q, "a") f:write("+") f:close()
kafka.sleep(150)
f = io.open(%q, "a") f:write("-") f:close()
return #list_topics()`, trace, trace))
	maxConcurrent := func() int {
		raw := readFile(t, trace)
		n, most := 0, 0
		for _, ch := range raw {
			if ch == '+' {
				n++
			} else {
				n--
			}
			most = max(most, n)
		}
		return most
	}
	require.Equal(t, ExitOK, c.run("run", "--profiles", "a,b,c", "--parallel", "1", script), c.stderr.String())
	assert.Equal(t, "+-+-+-", readFile(t, trace), "one at a time")

	require.NoError(t, os.WriteFile(trace, nil, 0o600))
	require.Equal(t, ExitOK, c.run("run", "--profiles", "*", "--parallel", "3", script))
	assert.Greater(t, maxConcurrent(), 1, "side by side: %s", readFile(t, trace))
	assert.Equal(t, "== a ==\n0\n== b ==\n0\n== c ==\n0\n", c.stdout.String())
}

// A fleet in a loop writes one metrics file for every cluster, each series
// with its profile.
func TestFleetLoopWritesMetricsPerProfile(t *testing.T) {
	w := newFleetWorld(t)
	script := writeFile(t, "count.lua", countTopics)
	prom := filepath.Join(t.TempDir(), "fleet.prom")
	require.Equal(t, ExitCheck, w.c.run("run", "--profiles", "eu,us", "--every", "20ms", "--max-runs", "2",
		"--metrics-file", prom, script))
	lines := summaryRE.FindAllStringSubmatch(w.c.stderr.String(), -1)
	require.Len(t, lines, 4, w.c.stderr.String())
	var got []string
	for _, l := range lines {
		got = append(got, l[2]+" "+l[3]+" "+l[4])
	}
	assert.Equal(t, []string{"1 eu 0", "1 us 4", "2 eu 0", "2 us 4"}, got)
	assert.Equal(t, 2, strings.Count(w.c.stdout.String(), "== eu =="))

	samples, _ := parseOpenMetrics(t, prom)
	assert.Equal(t, []string{"profile=eu 1", "profile=us 2"}, samples["kafka_topics"])
	assert.Equal(t, []string{"profile=eu,script=count.lua 0", "profile=us,script=count.lua 4"}, samples["kadmin_lua_run_exit_code"])
	assert.Equal(t, []string{"profile=eu,script=count.lua 0", "profile=us,script=count.lua 1"}, samples["kadmin_lua_check_failures"])
	require.Len(t, samples["kadmin_lua_last_success_timestamp_seconds"], 1, "only eu has succeeded")
	assert.True(t, strings.HasPrefix(samples["kadmin_lua_last_success_timestamp_seconds"][0], "profile=eu,script=count.lua "))
	assert.Len(t, w.eu.logins(), 1, "one connection per cluster across the runs")
}

// The cluster a dry run plans for is named on each plan line: a fleet's
// profile.
func TestFleetDryRunPlansNameTheirCluster(t *testing.T) {
	w := newFleetWorld(t)
	script := writeFile(t, "create.lua", `create_topics{{name = "new-topic", partitions = 3}}`)
	require.Equal(t, ExitOK, w.c.run("--dry-run", "run", "--profiles", "eu,us", script), w.c.stderr.String())
	errs := w.c.stderr.String()
	assert.Contains(t, errs, "eu: dry-run: create_topics: create topic new-topic (partitions 3, replication factor broker default, 0 configs) (on eu)\n")
	assert.Contains(t, errs, "us: dry-run: create_topics: create topic new-topic (partitions 3, replication factor broker default, 0 configs) (on us)\n")
	assert.NotContains(t, errs, "would apply", "the plan is said once")
	for _, lc := range []*loginCluster{w.eu, w.us} {
		adm := lc.admin(t, kgo.SASL(plain.Auth{User: "admin", Pass: map[*loginCluster]string{w.eu: euPassword, w.us: usPassword}[lc]}.AsMechanism()))
		assert.NotContains(t, topicNames(t, adm), "new-topic", "a dry run changes nothing")
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

// A profile name from the config file reaches the terminal escaped and
// cannot forge a log field or line: in the fleet header, the stderr
// prefix and the summary line.
func TestFleetProfileNamesAreEscaped(t *testing.T) {
	cl := newCluster(t)
	c := newCLI(t)
	writeConfig(t, c, fmt.Sprintf(`{"profiles": {"ev\u001b[31mil x=1\nINFO forged": {"brokers": [%q]}}}`, cl.addrs))
	script := writeFile(t, "n.lua", `io.stderr:write("from the script\n") return 1`)
	c.run("run", "--profiles", "*", script)
	out := c.stdout.String() + c.stderr.String()
	assert.NotContains(t, out, "\x1b", "no raw ESC reaches the terminal")
	assert.NotContains(t, out, "\nINFO forged", "no forged line")
	assert.Contains(t, c.stdout.String(), `== ev\x1b[31mil x=1\nINFO forged ==`)
	assert.Contains(t, c.stderr.String(), `profile="ev\x1b[31mil x=1\nINFO forged" exit=`)
}

// The fleet rule: a member's script reads its own profile's credential
// variables, never another member's, with os.getenv as with kafka.env; a
// variable no profile names is read as anywhere.
func TestFleetMemberCannotReadOtherMembersCredentials(t *testing.T) {
	w := newFleetWorld(t)
	w.c.env["SLACK_URL"] = "https://hooks.example/x"
	script := writeFile(t, "peek.lua", `
local function show(name) return tostring(os.getenv(name)) .. "/" .. tostring(kafka.env(name, "-")) end
print("EU_PW=" .. show("EU_PW"), "US_PW=" .. show("US_PW"),
  "SLACK_URL=" .. show("SLACK_URL"), "AUDIT=" .. show("KADMIN_AUDIT_KEY"))`)
	w.c.env["KADMIN_AUDIT_KEY"] = "chain-key-123"
	code := w.c.run("--timeout", "30s", "run", "--profiles", "eu,us", script)
	require.Equal(t, ExitOK, code, w.c.stderr.String())
	out := w.c.stdout.String()
	assert.Contains(t, out, "== eu ==\nEU_PW="+euPassword+"/"+euPassword+"\tUS_PW=nil/-\tSLACK_URL=https://hooks.example/x/https://hooks.example/x\tAUDIT=nil/-\n")
	assert.Contains(t, out, "== us ==\nEU_PW=nil/-\tUS_PW="+usPassword+"/"+usPassword+"\t")
	assert.NotContains(t, out, "chain-key-123")
}
