// Package testnet has network stand-ins for tests.
package testnet

import (
	"net"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// SilentBroker is a "broker" that accepts connections and never answers: a
// call to it waits until its deadline, a cancel or a signal. Its address is
// returned; the listener and every accepted connection close with the test.
func SilentBroker(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return l.Addr().String()
}
