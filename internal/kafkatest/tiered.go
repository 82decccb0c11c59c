package kafkatest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Tiered storage (KIP-405) for a test node: Kafka's LocalTieredStorage, the
// remote storage its own tests use, keeps "remote" segments in a local
// directory. It ships in kafka-storage's test jar, which the broker pom
// does not bring (every version of the matrix would refetch for it), so it
// is fetched on its own, once, into the cache beside the broker's libs.

// TieredStorageJar returns the path of kafka-storage's test jar for
// Version(), fetching it with mvn on first use.
func TieredStorageJar() (string, error) {
	version := Version()
	libs, err := CacheDir(version)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(filepath.Dir(libs), "extra")
	jar := filepath.Join(dir, "kafka-storage-"+version+"-test.jar")
	if isFile(jar) {
		return jar, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("kafkatest: %w", err)
	}
	unlock, err := lockFile(filepath.Join(dir, ".lock"))
	if err != nil {
		return "", fmt.Errorf("kafkatest: lock %s: %w", dir, err)
	}
	defer unlock()
	if isFile(jar) {
		return jar, nil
	}
	mvn, err := exec.LookPath("mvn")
	if err != nil {
		return "", fmt.Errorf("kafkatest: %s is missing and mvn is not installed", jar)
	}
	cmd := exec.Command(mvn, "-q", "-B", "dependency:copy",
		"-Dartifact=org.apache.kafka:kafka-storage:"+version+":jar:test", "-DoutputDirectory="+dir)
	cmd.Dir = dir
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("kafkatest: mvn dependency:copy kafka-storage %s test jar: %v\n%s", version, err, tail(buf.String(), 20))
	}
	if !isFile(jar) {
		return "", fmt.Errorf("kafkatest: mvn did not write %s", jar)
	}
	return jar, nil
}

// tieredProperties turns on remote log storage with LocalTieredStorage in
// dir, and the quick cadences a test needs: segments are copied and local
// ones deleted within a second or two (defaults: 30 s and 5 min). The
// remote log metadata topic has one partition and one replica, which a
// one-node cluster can host (defaults: 50 and 3).
func tieredProperties(dir, listener string) [][2]string {
	return [][2]string{
		{"remote.log.storage.system.enable", "true"},
		{"remote.log.storage.manager.class.name", "org.apache.kafka.server.log.remote.storage.LocalTieredStorage"},
		{"remote.log.storage.manager.impl.prefix", "rsm.config."},
		{"rsm.config.dir", dir},
		{"remote.log.metadata.manager.impl.prefix", "rlmm.config."},
		{"remote.log.metadata.manager.listener.name", listener},
		{"rlmm.config.remote.log.metadata.topic.replication.factor", "1"},
		{"rlmm.config.remote.log.metadata.topic.num.partitions", "1"},
		{"remote.log.manager.task.interval.ms", "500"},
		{"log.retention.check.interval.ms", "1000"},
	}
}
