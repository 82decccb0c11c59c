package kafkatest

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The Kafka Streams application the streams-group tests run: a word count
// compiled (once per Kafka version and source) from testdata/streamsapp
// against the kafka-streams jar of the broker's release, fetched with Maven
// like the broker's jars.

//go:embed streams-pom.xml
var streamsPomXML []byte

//go:embed testdata/streamsapp/WordCountApp.java
var wordCountSource []byte

var (
	streamsOnce sync.Once
	streamsCP   string // the classpath: jars and the compiled class
	streamsErr  error
)

// StreamsGroupProperties says whether Kafka version has streams groups
// (KIP-1071: from 4.1), and the server properties a node needs for them:
// 4.1 has them as early access, off unless the unstable API and feature
// versions are enabled (formatting with them finalizes streams.version 1).
func StreamsGroupProperties(version string) (props [][2]string, ok bool) {
	var major, minor int
	if _, err := fmt.Sscanf(version, "%d.%d", &major, &minor); err != nil || major < 4 || major == 4 && minor < 1 {
		return nil, false
	}
	if major == 4 && minor == 1 {
		props = [][2]string{{"unstable.api.versions.enable", "true"}, {"unstable.feature.versions.enable", "true"}}
	}
	return props, true
}

// StreamsClasspath fetches kafka-streams of Version() (later runs use the
// cache) and compiles the word count (once), and returns the classpath of
// the application StartStreamsApp runs.
func StreamsClasspath() (string, error) {
	streamsOnce.Do(func() { streamsCP, streamsErr = buildStreamsApp() })
	return streamsCP, streamsErr
}

func buildStreamsApp() (string, error) {
	java, _, err := runtimeDeps()
	if err != nil {
		return "", err
	}
	version := Version()
	libs, err := CacheDir(version)
	if err != nil {
		return "", err
	}
	parent := filepath.Dir(libs)
	jars := filepath.Join(parent, "streams-libs")
	want := stampOf(streamsPomXML, version)
	classes := filepath.Join(parent, "streams-app-"+stampOf(wordCountSource, version)[:12])
	if !complete(jars, want) || !isFile(filepath.Join(classes, "WordCountApp.class")) {
		unlock, err := lockFile(filepath.Join(parent, ".lock"))
		if err != nil {
			return "", fmt.Errorf("kafkatest: lock jar cache: %w", err)
		}
		defer unlock()
		if !complete(jars, want) {
			if err := fetchJars(streamsPomXML, parent, jars, version, checkStreamsJars); err != nil {
				return "", err
			}
			if err := os.WriteFile(filepath.Join(jars, stampName), []byte(want+"\n"), 0o644); err != nil {
				return "", fmt.Errorf("kafkatest: %w", err)
			}
		}
		if err := compileWordCount(java, jars, classes); err != nil {
			return "", err
		}
	}
	return filepath.Join(jars, "*") + string(os.PathListSeparator) + classes, nil
}

// stampOf marks what was made from b for version.
func stampOf(b []byte, version string) string {
	h := sha256.Sum256(append([]byte(version+"\x00"), b...))
	return hex.EncodeToString(h[:])
}

func checkStreamsJars(dir, version string) error {
	if !isFile(filepath.Join(dir, "kafka-streams-"+version+".jar")) {
		return fmt.Errorf("kafka-streams-%s.jar missing from %s", version, dir)
	}
	return nil
}

// compileWordCount compiles the word count into classes with the compiler
// module of java itself (a Debian JRE has it, without the javac command).
func compileWordCount(java, jars, classes string) error {
	if isFile(filepath.Join(classes, "WordCountApp.class")) {
		return nil
	}
	src, err := os.MkdirTemp(filepath.Dir(classes), "javac-")
	if err != nil {
		return fmt.Errorf("kafkatest: %w", err)
	}
	defer os.RemoveAll(src)
	file := filepath.Join(src, "WordCountApp.java")
	if err := os.WriteFile(file, wordCountSource, 0o644); err != nil {
		return fmt.Errorf("kafkatest: %w", err)
	}
	// javac, unlike the java launcher, does not expand "dir/*".
	cp, _ := filepath.Glob(filepath.Join(jars, "*.jar"))
	out := filepath.Join(src, "classes")
	cmd := exec.Command(java, "-m", "jdk.compiler/com.sun.tools.javac.Main", "-nowarn",
		"-cp", strings.Join(cp, string(os.PathListSeparator)), "-d", out, file)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("kafkatest: compile WordCountApp (%s -m jdk.compiler): %v\n%s", java, err, tail(string(b), 30))
	}
	return os.Rename(out, classes)
}

// StreamsApp is one instance of the word count application
// (testdata/streamsapp/WordCountApp.java), a JVM the test owns.
type StreamsApp struct {
	ID    string // its application.id: the streams group's name
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *SyncBuffer
	done  chan struct{}
}

// StartStreamsApp starts an instance of the word count with application.id
// id, reading input and writing output on c's PLAINTEXT listener, and
// returns once it has started to join its group (Kafka Streams' state
// REBALANCING). paused: it takes its tasks but processes nothing. It is
// stopped in t.Cleanup if the test has not stopped it.
func (c *Cluster) StartStreamsApp(t testing.TB, id, input, output string, paused bool) *StreamsApp {
	t.Helper()
	cp, err := StreamsClasspath()
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto", "-cp", cp,
		"WordCountApp", c.Bootstrap(), id, input, output, t.TempDir()}
	if paused {
		args = append(args, "paused")
	}
	a := &StreamsApp{ID: id, cmd: exec.Command(c.java, args...), out: &SyncBuffer{}, done: make(chan struct{})}
	a.cmd.Stdout, a.cmd.Stderr = a.out, a.out
	if a.stdin, err = a.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := startProcess(a.cmd); err != nil {
		t.Fatalf("kafkatest: start the streams application %s: %v", id, err)
	}
	go func() { _ = a.cmd.Wait(); close(a.done) }()
	t.Cleanup(func() { a.kill() })
	a.waitFor(t, "STATE REBALANCING")
	return a
}

// WaitRunning waits until the instance has its tasks and processes
// (Kafka Streams' state RUNNING; never, for a paused one).
func (a *StreamsApp) WaitRunning(t testing.TB) { t.Helper(); a.waitFor(t, "STATE RUNNING") }

// Stop closes the instance (it leaves its group) and waits for its exit.
func (a *StreamsApp) Stop(t testing.TB) {
	t.Helper()
	_ = a.stdin.Close()
	select {
	case <-a.done:
	case <-time.After(time.Minute):
		a.kill()
		t.Fatalf("kafkatest: the streams application %s did not close in a minute:\n%s", a.ID, tail(a.out.String(), 30))
	}
	if !strings.Contains(a.out.String(), "CLOSED") {
		t.Fatalf("kafkatest: the streams application %s exited without closing:\n%s", a.ID, tail(a.out.String(), 30))
	}
}

func (a *StreamsApp) waitFor(t testing.TB, line string) {
	t.Helper()
	WaitFor(t, fmt.Sprintf("streams application %s: %s", a.ID, line), time.Minute, func() (bool, string) {
		out := a.out.String()
		select {
		case <-a.done:
			t.Fatalf("kafkatest: the streams application %s exited:\n%s", a.ID, tail(out, 30))
		default:
		}
		return strings.Contains(out, line+"\n"), tail(out, 3)
	})
}

func (a *StreamsApp) kill() {
	select {
	case <-a.done:
	default:
		_ = signalGroup(a.cmd.Process.Pid, syscall.SIGKILL)
		<-a.done
	}
}
