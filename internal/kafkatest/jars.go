package kafkatest

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// DefaultVersion is the Apache Kafka version the harness runs unless
// KADMIN_KAFKA_VERSION says otherwise. It is the newest 4.1.x on Maven Central.
const DefaultVersion = "4.1.2"

// Environment variables understood by the harness.
const (
	// EnvSkip set to "1" skips every real-Kafka test. Nothing else does:
	// without it a missing java/mvn/jar is a test failure.
	EnvSkip = "KADMIN_SKIP_KAFKA"
	// EnvVersion overrides DefaultVersion (a kafka_2.13 version on Maven Central).
	EnvVersion = "KADMIN_KAFKA_VERSION"
	// EnvJars points at a directory that already holds the broker classpath
	// (all jars, flat). Maven is then never called.
	EnvJars = "KADMIN_KAFKA_JARS"
	// EnvJVMOpts holds extra JVM options for the brokers, split on spaces.
	EnvJVMOpts = "KADMIN_KAFKA_JVM_OPTS"
	// EnvKeep set to "1" keeps the cluster directories (configs, data, logs)
	// after Close instead of deleting them.
	EnvKeep = "KADMIN_KAFKA_KEEP"
)

//go:embed pom.xml
var pomXML []byte

// Version returns the Kafka version the harness uses.
func Version() string {
	if v := strings.TrimSpace(os.Getenv(EnvVersion)); v != "" {
		return v
	}
	return DefaultVersion
}

var (
	availOnce sync.Once
	availJava string
	availJars string
	availErr  error
)

// Available reports whether a real broker can be started: java >= 17 is
// installed and the Kafka jars are present. Missing jars are fetched with
// Maven (once; later runs use the cache and do not touch the network).
// The result is computed once per process.
func Available() error {
	_, _, err := runtimeDeps()
	return err
}

func runtimeDeps() (java, jars string, err error) {
	availOnce.Do(func() {
		availJava, availErr = findJava()
		if availErr != nil {
			return
		}
		availJars, availErr = JarsDir()
	})
	return availJava, availJars, availErr
}

// findJava locates a java >= 17 binary ($JAVA_HOME/bin/java, else PATH).
func findJava() (string, error) {
	java := ""
	if home := os.Getenv("JAVA_HOME"); home != "" {
		if p := filepath.Join(home, "bin", "java"); isFile(p) {
			java = p
		}
	}
	if java == "" {
		p, err := exec.LookPath("java")
		if err != nil {
			return "", errors.New("kafkatest: java not found (need a JDK/JRE >= 17 on PATH or in JAVA_HOME)")
		}
		java = p
	}
	out, err := exec.Command(java, "-version").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("kafkatest: %s -version: %v: %s", java, err, out)
	}
	m := regexp.MustCompile(`version "(\d+)(?:\.(\d+))?`).FindSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("kafkatest: cannot parse %s -version output: %s", java, out)
	}
	major, _ := strconv.Atoi(string(m[1]))
	if major == 1 && len(m[2]) > 0 { // 1.8 style
		major, _ = strconv.Atoi(string(m[2]))
	}
	if major < 17 {
		return "", fmt.Errorf("kafkatest: %s is Java %d; Kafka 4 brokers need Java 17 or newer", java, major)
	}
	return java, nil
}

// CacheDir is the directory JarsDir fills for the given Kafka version:
// $XDG_CACHE_HOME/kadmin-lua/kafka-<version>/libs (~/.cache/... when
// XDG_CACHE_HOME is unset).
func CacheDir(version string) (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("kafkatest: no cache dir: %w", err)
	}
	return filepath.Join(base, "kadmin-lua", "kafka-"+version, "libs"), nil
}

// stampName marks a complete libs directory; it holds a hash of the pom and
// the version so that a pom change refetches.
const stampName = ".kadmin-lua-complete"

func stamp(version string) string {
	h := sha256.Sum256(append(append([]byte(nil), pomXML...), version...))
	return hex.EncodeToString(h[:])
}

// JarsDir returns a directory holding the complete broker classpath for
// Version(): $KADMIN_KAFKA_JARS if set, else the cache dir, fetching the jars
// with mvn on first use. Concurrent callers (parallel test binaries) are
// serialised with a file lock.
func JarsDir() (string, error) {
	version := Version()
	if dir := os.Getenv(EnvJars); dir != "" {
		if err := checkJars(dir, version); err != nil {
			return "", fmt.Errorf("kafkatest: %s=%s: %w", EnvJars, dir, err)
		}
		return dir, nil
	}
	dir, err := CacheDir(version)
	if err != nil {
		return "", err
	}
	want := stamp(version)
	if complete(dir, want) {
		return dir, nil
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("kafkatest: %w", err)
	}
	unlock, err := lockFile(filepath.Join(parent, ".lock"))
	if err != nil {
		return "", fmt.Errorf("kafkatest: lock jar cache: %w", err)
	}
	defer unlock()
	if complete(dir, want) { // another process fetched while we waited
		return dir, nil
	}
	if err := fetchJars(pomXML, parent, dir, version, checkJars); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, stampName), []byte(want+"\n"), 0o644); err != nil {
		return "", fmt.Errorf("kafkatest: %w", err)
	}
	return dir, nil
}

func complete(dir, want string) bool {
	b, err := os.ReadFile(filepath.Join(dir, stampName))
	return err == nil && strings.TrimSpace(string(b)) == want
}

// fetchJars copies the runtime classpath of pom (for Kafka version) into
// dir with Maven, through a work directory under parent, and checks it.
func fetchJars(pom []byte, parent, dir, version string, check func(dir, version string) error) error {
	mvn, err := exec.LookPath("mvn")
	if err != nil {
		return fmt.Errorf("kafkatest: Kafka %s jars are not in %s and mvn is not installed "+
			"(install Maven, run internal/kafkatest/fetch-jars.sh, or point %s at a directory of jars)",
			version, dir, EnvJars)
	}
	work, err := os.MkdirTemp(parent, "fetch-")
	if err != nil {
		return fmt.Errorf("kafkatest: %w", err)
	}
	defer os.RemoveAll(work)
	if err := os.WriteFile(filepath.Join(work, "pom.xml"), pom, 0o644); err != nil {
		return fmt.Errorf("kafkatest: %w", err)
	}
	out := filepath.Join(work, "libs")
	cmd := exec.Command(mvn, "-q", "-B", "dependency:copy-dependencies",
		"-DoutputDirectory="+out, "-DincludeScope=runtime", "-Dkafka.version="+version)
	cmd.Dir = work
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("kafkatest: mvn dependency:copy-dependencies (Kafka %s): %v\n%s", version, err, tail(buf.String(), 40))
	}
	if err := check(out, version); err != nil {
		return fmt.Errorf("kafkatest: after mvn: %w", err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("kafkatest: %w", err)
	}
	if err := os.Rename(out, dir); err != nil {
		return fmt.Errorf("kafkatest: %w", err)
	}
	return nil
}

func checkJars(dir, version string) error {
	for _, name := range []string{"kafka_2.13-" + version + ".jar", "kafka-clients-" + version + ".jar", "log4j-slf4j-impl-*.jar"} {
		m, _ := filepath.Glob(filepath.Join(dir, name))
		if len(m) == 0 {
			return fmt.Errorf("%s missing from %s", name, dir)
		}
	}
	return nil
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
