package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The REPL on a real terminal: the test binary runs itself as the CLI
// inside tmux, and the test types keys and reads the screen.

const asCLI = "KADMIN_LUA_TEST_AS_CLI"

func TestMain(m *testing.M) {
	if os.Getenv(asCLI) == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// terminal is a tmux session running the CLI on a private server.
type terminal struct {
	t    *testing.T
	sock string
}

// startTerminal runs the CLI with args in a 200x50 tmux window, with env
// set (and the test binary's own environment).
func startTerminal(t *testing.T, env map[string]string, args ...string) *terminal {
	t.Helper()
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed (the CI installs it)")
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "tmux.conf")
	// The pane stays after the CLI exits, to read what it printed last.
	require.NoError(t, os.WriteFile(conf, []byte("set -g remain-on-exit on\nset -g history-limit 5000\n"), 0o600))
	term := &terminal{t: t, sock: filepath.Join(dir, "tmux.sock")}
	cmd := []string{"env", asCLI + "=1"}
	for k, v := range env {
		cmd = append(cmd, k+"="+v)
	}
	cmd = append(cmd, os.Args[0])
	cmd = append(cmd, args...)
	for i, c := range cmd {
		cmd[i] = "'" + strings.ReplaceAll(c, "'", `'\''`) + "'"
	}
	out, err := exec.Command(tmux, "-S", term.sock, "-f", conf, "new-session", "-d", "-x", "200", "-y", "50",
		"-s", "kadmin", strings.Join(cmd, " ")+`; echo "[exit status $?]"`).CombinedOutput()
	require.NoError(t, err, "%s", out)
	t.Cleanup(func() { _ = exec.Command(tmux, "-S", term.sock, "kill-server").Run() })
	return term
}

func (term *terminal) tmux(args ...string) string {
	term.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", term.sock}, args...)...).CombinedOutput()
	require.NoError(term.t, err, "tmux %v: %s", args, out)
	return string(out)
}

// typeText types text literally; keys sends named keys (Tab, Enter, C-d).
func (term *terminal) typeText(text string) { term.tmux("send-keys", "-t", "kadmin", "-l", text) }
func (term *terminal) keys(keys ...string) {
	term.tmux(append([]string{"send-keys", "-t", "kadmin"}, keys...)...)
}

// screen is the window's text, scrollback included, wrapped lines joined.
func (term *terminal) screen() string {
	return term.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "kadmin")
}

// waitFor waits until the screen shows want.
func (term *terminal) waitFor(want string) {
	term.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(term.screen(), want) {
		if time.Now().After(deadline) {
			term.t.Fatalf("the terminal never showed %q; it shows:\n%s", want, term.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// enter presses Enter and waits for the next prompt (keys typed ahead of
// it would be echoed in the middle of the output).
func (term *terminal) enter(prompt string) {
	term.t.Helper()
	n := strings.Count(term.screen(), prompt)
	term.keys("Enter")
	deadline := time.Now().Add(30 * time.Second)
	for strings.Count(term.screen(), prompt) <= n {
		if time.Now().After(deadline) {
			term.t.Fatalf("no prompt after Enter; the terminal shows:\n%s", term.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitExit waits for the CLI to exit and returns its exit status (the
// shell in the pane prints it: tmux may take its time to notice a process
// has ended). One still running after 30 s is sent SIGQUIT, and the test
// fails showing where its goroutines were.
func (term *terminal) waitExit() string {
	term.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		screen := term.screen()
		if i := strings.LastIndex(screen, "[exit status "); i >= 0 {
			status, _, _ := strings.Cut(screen[i+len("[exit status "):], "]")
			return status
		}
		if time.Now().After(deadline) {
			shell := strings.TrimSpace(term.tmux("display-message", "-p", "-t", "kadmin", "#{pane_pid}"))
			_ = exec.Command("pkill", "-QUIT", "-P", shell).Run()
			time.Sleep(2 * time.Second)
			term.t.Fatalf("the CLI did not exit; SIGQUIT shows:\n%s", term.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// complete presses Tab until the line reads want (the first Tab may come
// before the cluster's names: the REPL waits for them only briefly).
func (term *terminal) complete(want string) {
	term.t.Helper()
	for range 40 {
		term.keys("Tab")
		time.Sleep(250 * time.Millisecond)
		if strings.Contains(term.screen(), want) {
			return
		}
	}
	term.t.Fatalf("Tab never completed to %q; the terminal shows:\n%s", want, term.screen())
}

func TestREPLOnATerminal(t *testing.T) {
	cl := newCluster(t)
	adm := cl.admin(t)
	for _, topic := range []string{"orders", "billing", "shipping"} {
		_, err := adm.CreateTopic(ctx(t), 1, 1, nil, topic)
		require.NoError(t, err)
	}
	offsets := kadm.Offsets{}
	offsets.Add(kadm.Offset{Topic: "orders", Partition: 0, At: 0, LeaderEpoch: -1})
	_, err := adm.CommitOffsets(ctx(t), "billing-consumer", offsets)
	require.NoError(t, err)

	home := t.TempDir()
	config := filepath.Join(home, "config.json")
	require.NoError(t, os.WriteFile(config, fmt.Appendf(nil, `{"profiles": {"prod": {"brokers": [%q]}}}`, cl.addrs), 0o600))
	term := startTerminal(t, map[string]string{"HOME": home, "XDG_STATE_HOME": filepath.Join(home, "state")},
		"--config", config, "--profile", "prod")
	const prompt = "kadmin-lua prod> "
	term.waitFor(prompt)

	// A group name from the cluster, inside a string argument.
	term.typeText(`lag("billing-c`)
	term.complete(`lag("billing-consumer`)
	term.typeText(`")`)
	term.enter(prompt)
	term.waitFor("TOTAL_LAG")

	// A topic inside a table argument.
	term.typeText(`t = describe_topics{"shi`)
	term.complete(`describe_topics{"shipping`)
	term.typeText(`"}`)
	term.enter(prompt)

	// Fields of an indexed value, and of a declared result (not called).
	term.typeText(`t[1].partitions[1].isr[1] == t[1].partitions[1].lead`)
	term.complete(`t[1].partitions[1].leader`)
	term.enter(prompt)
	term.typeText(`list_topics()[1].replication_f`)
	term.complete(`list_topics()[1].replication_factor`)
	term.enter(prompt)

	// The question before a destructive call names the profile.
	term.typeText(`delete_topics{"billing"}`)
	term.keys("Enter")
	term.waitFor(`delete_topics(["billing"]) on profile prod (` + cl.addrs + `)? [y/N]`)
	term.typeText("n")
	term.enter(prompt)
	term.waitFor("not confirmed; nothing was changed")
	require.Contains(t, topicNames(t, adm), "billing")

	term.keys("C-d")
	require.Equal(t, "0", term.waitExit(), "Ctrl-D exits 0")
	screen := term.screen()
	require.Contains(t, screen, prompt+`t = describe_topics{"shipping"}`+"\n"+prompt)
	require.Contains(t, screen, prompt+"t[1].partitions[1].isr[1] == t[1].partitions[1].leader\ntrue\n")
	require.Contains(t, screen, prompt+"list_topics()[1].replication_factor\n1\n")
	require.Contains(t, screen, "cluster prod ("+cl.addrs+")")
}

// watch at the prompt redraws its block in place as the group's commits
// move, and Ctrl-C ends it with the session still there.
func TestWatchOnATerminal(t *testing.T) {
	cl := newCluster(t)
	adm := cl.admin(t)
	_, err := adm.CreateTopic(ctx(t), 1, 1, nil, "orders")
	require.NoError(t, err)
	producer, err := kgo.NewClient(kgo.SeedBrokers(cl.ListenAddrs()...))
	require.NoError(t, err)
	defer producer.Close()
	recs := make([]*kgo.Record, 50)
	for i := range recs {
		recs[i] = &kgo.Record{Topic: "orders", Value: []byte("x")}
	}
	require.NoError(t, producer.ProduceSync(ctx(t), recs...).FirstErr())
	commit := func(at int64) {
		t.Helper()
		o := kadm.Offsets{}
		o.Add(kadm.Offset{Topic: "orders", Partition: 0, At: at, LeaderEpoch: -1})
		resp, err := adm.CommitOffsets(ctx(t), "orders-app", o)
		require.NoError(t, err)
		require.NoError(t, resp.Error())
	}
	commit(10)

	home := t.TempDir()
	term := startTerminal(t, map[string]string{"HOME": home, "XDG_STATE_HOME": filepath.Join(home, "state")}, "-b", cl.addrs)
	const prompt = "kadmin-lua kfake> " // kfake's cluster id
	term.waitFor(prompt)
	term.typeText(`watch("lag('orders-app')", 0.2)`)
	term.keys("Enter")
	term.waitFor("refresh 3 ")
	term.waitFor("orders-app  Empty  total lag 40  ETA ") // the ETA right after the lag
	term.waitFor("  change 0")
	commit(30)
	term.waitFor("  change -20")
	term.waitFor("orders-app  Empty  total lag 20  ETA ")
	term.waitFor("  change 0")
	screen := term.screen()
	require.Equal(t, 1, strings.Count(screen, "every 200ms"), "one block, redrawn in place:\n%s", screen)
	require.Contains(t, screen, "(Ctrl-C ends)")
	require.Contains(t, screen, "  orders  0          20")
	require.Contains(t, screen, strings.Repeat("█", 30), "the largest lag has the whole bar")

	term.keys("C-c")
	term.waitFor("interrupted")
	term.typeText("1 + 1")
	term.enter(prompt)
	term.waitFor(prompt + "1 + 1\n2\n")
	term.keys("C-d")
	require.Equal(t, "0", term.waitExit(), "the session went on after the watch, and Ctrl-D exits 0")
}
