package kafkatest

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A cluster's working directory, ids and ports: dirs left by test processes
// that died are swept at the next start; cluster and directory ids are
// Kafka's (URL-safe base64 uuids); ports are free ones on 127.0.0.1.

const (
	dirPrefix = "kadmin-kafka-"
	ownerFile = "owner.pid" // pid of the test process that owns the dir
)

// sweepStale removes cluster dirs left in the temp dir by test processes that
// died without Close (timeout, Ctrl-C; their JVMs died with them).
func sweepStale() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), dirPrefix+"*"))
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, ownerFile))
		if err != nil {
			continue // being created, kept (KADMIN_KAFKA_KEEP) or not ours
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 0 || processAlive(pid) {
			continue
		}
		_ = os.RemoveAll(d)
	}
}

// newClusterID returns a random KRaft cluster id (a base64url Uuid).
// newDirectoryID is a random directory id as Kafka prints it (a Uuid in
// URL-safe base64), never one of the reserved ones (first 8 bytes zero).
func newDirectoryID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[0] = b[0]&0x7f | 0x40 // nor one starting with "-" or "_" (Kafka avoids those too)
	return base64.RawURLEncoding.EncodeToString(b[:])
}

func newClusterID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[0] &= 0x7f // keep clear of the reserved ids (all zero, all ones)
	b[0] |= 0x01
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// freePorts returns n distinct free TCP ports on 127.0.0.1, avoiding the
// ports developers' own brokers usually listen on.
func freePorts(n int) ([]int, error) {
	reserved := map[int]bool{9092: true, 9093: true, 9094: true, 19092: true, 19093: true, 19094: true}
	var ports []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for tries := 0; len(ports) < n; tries++ {
		if tries > 10*n {
			return nil, errors.New("kafkatest: cannot find free ports on 127.0.0.1")
		}
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("kafkatest: pick port: %w", err)
		}
		ls = append(ls, l) // hold it until all are picked, so they are distinct
		p := l.Addr().(*net.TCPAddr).Port
		if !reserved[p] {
			ports = append(ports, p)
		}
	}
	return ports, nil
}
