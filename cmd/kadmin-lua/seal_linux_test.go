package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"

	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
)

// TestBinarySealsSecrets: the real process, started with a SASL password,
// a profile's password and the audit log's key in its environment, logs
// in and writes a keyed audit log with them; yet neither its script
// (through any path into /proc) nor another process of the same user
// (reading /proc/PID/environ) finds their values.
func TestBinarySealsSecrets(t *testing.T) {
	const (
		password      = "sasl-pw-6f1d2c"
		otherPassword = "other-pw-93ab7e"
		auditKey      = "audit-key-5c0e8a41d7"
	)
	lc := newLoginCluster(t, password)
	bin := buildBinary(t)
	dir := t.TempDir()
	audit := filepath.Join(dir, "audit.jsonl")
	config := writeFile(t, "config.json", `{"profiles": {"other": {"brokers": ["127.0.0.1:1"],
		"sasl": {"mechanism": "PLAIN", "username": "x", "password_env": "OTHER_PW"}}}}`)
	script := writeFile(t, "peek.lua", `
create_topics({"sealed"})
local function try(path)
  local f, err = io.open(path)
  if f then local s = f:read("*a"); f:close(); return "READ " .. s end
  return tostring(err)
end
for _, p in ipairs{"/proc/self/environ", "/proc/self/cmdline", "/proc/thread-self/environ", "/dev/fd/../environ", "/proc/self/mem"} do
  print(try(p))
end
print("kafka.env", kafka.env("KADMIN_SASL_PASSWORD") == "`+password+`", kafka.env("KADMIN_AUDIT_KEY", "hidden"))
print("ready")
local pid = io.read("*l")
print(try("/proc/" .. pid .. "/environ"))
print(try("/proc/" .. pid .. "/cmdline"))
`)
	cmd := exec.Command(bin, "--config", config, "-b", lc.addrs, "--sasl-mechanism", "PLAIN", "--sasl-username", "admin",
		"--audit-log", audit, "run", script)
	cmd.Env = []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH"), "KADMIN_SASL_PASSWORD=" + password,
		"OTHER_PW=" + otherPassword, "KADMIN_AUDIT_KEY=" + auditKey}
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	br := bufio.NewReader(stdout)
	var out []string
	for {
		line, err := br.ReadString('\n')
		require.NoError(t, err, "stdout so far: %q; stderr: %s", out, stderr.String())
		if line == "ready\n" {
			break
		}
		out = append(out, strings.TrimSuffix(line, "\n"))
	}

	// Another process of the same user (this test) reads what /proc shows.
	pid := cmd.Process.Pid
	environ, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	require.NoError(t, err)
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	require.NoError(t, err)
	for _, s := range []string{password, otherPassword, auditKey} {
		assert.NotContains(t, string(environ), s)
		assert.NotContains(t, string(cmdline), s)
	}
	entries := strings.Split(string(environ), "\x00")
	for _, name := range []string{"KADMIN_SASL_PASSWORD=", "OTHER_PW=", "KADMIN_AUDIT_KEY="} {
		assert.Contains(t, entries, name, "the name stays, its value is gone")
	}
	assert.Contains(t, entries, "HOME="+dir, "the rest is untouched")

	_, err = fmt.Fprintf(stdin, "%d\n", pid)
	require.NoError(t, err)
	require.NoError(t, stdin.Close())
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			break
		}
		out = append(out, strings.TrimSuffix(line, "\n"))
	}
	require.NoError(t, cmd.Wait(), stderr.String())

	refused := func(p string) string {
		return "open " + p + ": a file of /proc (procfs), which holds the process's environment and memory: scripts may not open it"
	}
	assert.Equal(t, []string{
		refused("/proc/self/environ"), refused("/proc/self/cmdline"), refused("/proc/thread-self/environ"),
		refused("/dev/fd/../environ"), refused("/proc/self/mem"),
		"kafka.env\ttrue\thidden", // kafka.env reads what it read before
		refused(fmt.Sprintf("/proc/%d/environ", pid)), refused(fmt.Sprintf("/proc/%d/cmdline", pid)),
	}, out)
	for _, s := range []string{password, otherPassword, auditKey} {
		assert.NotContains(t, strings.Join(out, "\n")+stderr.String(), s)
	}

	// The sealed secrets still work: the login used the password, and the
	// audit log is keyed with the key.
	assert.Contains(t, lc.logins(), "admin:"+password)
	adm := lc.admin(t, kgo.SASL(plain.Auth{User: "admin", Pass: password}.AsMechanism()))
	assert.True(t, slices.Contains(topicNames(t, adm), "sealed"))
	changes, problems, err := auditlog.ReadFile(audit, auditlog.Options{Key: auditKey})
	require.NoError(t, err)
	assert.Empty(t, problems)
	require.Len(t, changes, 1)
	assert.Empty(t, changes[0].Untrusted)
}
