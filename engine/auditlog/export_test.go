package auditlog

import (
	"os"
	"time"
)

// What the tests (package auditlog_test, which imports internal/testaudit)
// reach of the log's insides.

// Sealed is sealed: a line's hash and the body it covers.
func Sealed(line []byte) (sum string, body []byte, ok bool) { return sealed(line) }

// FollowPath is followPath, under the log's lock.
func (a *Log) FollowPath() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.followPath()
}

// Sum is sum: the hash of a line's bytes under alg.
func (o Options) Sum(alg string, b []byte) string { return o.sum(alg, b) }

// OnFile is a log around an open file, without Open's checks (a device,
// to make every write fail).
func OnFile(path string, f *os.File) *Log { return &Log{path: path, f: f, now: time.Now, size: -1} }
