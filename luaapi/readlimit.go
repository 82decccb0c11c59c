package luaapi

import (
	"fmt"
	"io"
	"os"
)

// MaxScriptBytes bounds a script, a plugin or stdin read as a script: far
// above any real one (the largest runbook is about 10 kB), and low enough
// that `kadmin-lua run /dev/zero` fails at once instead of growing until
// the kernel kills the process (--max-memory cannot bound a read that
// happens before any chunk runs).
const MaxScriptBytes = 16 << 20

// ReadBounded reads r to its end, refusing more than limit bytes.
func ReadBounded(r io.Reader, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("larger than %d MiB; refusing to read more", limit>>20)
	}
	return b, nil
}

// readFileBounded is os.ReadFile with ReadBounded's limit.
func readFileBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := ReadBounded(f, limit)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}
