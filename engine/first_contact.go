package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// contact follows a client's connections (it is the client's kgo hook): has
// any broker answered yet, and how did each seed's last dial fail. When the
// cluster has never answered and every seed failed to dial for a reason
// that retrying will not fix within the call (connection refused, no such
// host, no route), the calls in flight end at once with one NETWORK error
// naming each seed and its reason. Once a broker has answered, the same
// failures are a broker restarting: calls retry until their deadline.
//
// With a verbose writer it also logs each connection attempt and each
// request sent and answered: broker, request name, sizes and times, never
// the contents (a SASL request carries the password).
type contact struct {
	seeds   []string
	verbose io.Writer
	mech    string // the SASL mechanism; "" without SASL
	// costs counts every request by API: sent, bytes both ways, round
	// trips (cost.go).
	costs costs

	mu       sync.Mutex
	answered bool
	failed   map[int]seedFailure // by seed index
	// loggedIn: a connection got past its SASL login (or had none to do).
	// saslDropped counts the logins since then that the broker answered
	// by closing the connection right after a SaslAuthenticate request.
	loggedIn    bool
	saslDropped int
	// The calls in flight, a list through callContext.prev and next. One
	// timer ends them at their deadlines: it is armed for the earliest
	// deadline (or an earlier one, of a call already over: it then arms
	// itself again), so a call that ends before its deadline costs no
	// timer of its own. watch follows the caller context the last calls
	// came from, so that each call does not register with it anew.
	calls   *callContext
	timer   *time.Timer
	timerAt time.Time // zero: not armed
	watch   *parentWatch
}

// parentWatch ends the calls made under one caller context when it ends.
type parentWatch struct {
	done <-chan struct{} // the caller context's
	stop func() bool
	n    int // calls in flight under it
}

type seedFailure struct {
	reason string
	final  bool // refused, no such host, no route: not worth retrying at first contact
}

func newContact(seeds []string, verbose io.Writer) *contact {
	return &contact{seeds: seeds, verbose: verbose, failed: map[int]seedFailure{}}
}

var (
	_ kgo.HookBrokerConnect = (*contact)(nil)
	_ kgo.HookBrokerWrite   = (*contact)(nil)
	_ kgo.HookBrokerRead    = (*contact)(nil)
)

// seedIndex is the position in the seed list of a broker kgo dialed as a
// seed (kgo numbers seeds from math.MinInt32), or -1.
func (ct *contact) seedIndex(meta kgo.BrokerMetadata) int {
	i := int64(meta.NodeID) - math.MinInt32
	if meta.NodeID < 0 && i >= 0 && i < int64(len(ct.seeds)) {
		return int(i)
	}
	return -1
}

func (ct *contact) name(meta kgo.BrokerMetadata) string {
	addr := net.JoinHostPort(meta.Host, strconv.Itoa(int(meta.Port)))
	if ct.seedIndex(meta) >= 0 {
		return "seed " + addr
	}
	return fmt.Sprintf("broker %d %s", meta.NodeID, addr)
}

// OnBrokerConnect records a dial; it ends the calls in flight when no seed
// can be reached at first contact.
func (ct *contact) OnBrokerConnect(meta kgo.BrokerMetadata, took time.Duration, _ net.Conn, err error) {
	if err != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, kgo.ErrClientClosed) || errors.Is(err, errCallEnded)) {
		return // our own cancellation, not the broker's answer
	}
	if ct.verbose != nil {
		if err != nil {
			ct.logf("connect %s: failed after %s: %v", ct.name(meta), short(took), err)
		} else {
			// The hook runs once the connection is ready: after the TLS,
			// ApiVersions and SASL exchanges logged above it.
			ct.logf("connect %s: ready in %s", ct.name(meta), short(took))
		}
	}
	if err == nil {
		ct.mu.Lock()
		ct.loggedIn, ct.saslDropped = true, 0
		ct.mu.Unlock()
	}
	i := ct.seedIndex(meta)
	if i < 0 {
		return
	}
	ct.mu.Lock()
	defer ct.mu.Unlock()
	if err == nil {
		delete(ct.failed, i)
		return
	}
	if ct.saslDropped > 0 && !ct.loggedIn {
		return // a refused login (OnBrokerRead), not a dial that failed
	}
	reason, final := dialFailure(err)
	ct.failed[i] = seedFailure{reason: reason, final: final}
	if e := ct.unreachableLocked(); e != nil {
		for c := ct.calls; c != nil; c = c.next {
			c.end(e)
		}
	}
}

// unreachableLocked is the error to end calls with, or nil while a seed may
// still answer (or one already did).
func (ct *contact) unreachableLocked() *Error {
	if ct.answered || len(ct.seeds) == 0 {
		return nil
	}
	parts := make([]string, len(ct.seeds))
	for i, s := range ct.seeds {
		f, ok := ct.failed[i]
		if !ok || !f.final {
			return nil
		}
		parts[i] = s + ": " + f.reason
	}
	msg := "no seed broker can be reached: " + strings.Join(parts, "; ")
	if len(ct.seeds) == 1 {
		msg = "the seed broker cannot be reached: " + parts[0]
	}
	return &Error{Code: CodeNetwork, Message: msg, Err: errCallEnded}
}

// OnBrokerWrite counts a request sent, and logs it (verbose only).
func (ct *contact) OnBrokerWrite(meta kgo.BrokerMetadata, key int16, n int, _, _ time.Duration, err error) {
	ct.costs.wrote(key, n, err)
	if ct.verbose == nil {
		return
	}
	if err != nil {
		ct.logf("-> %s %s: write failed: %v", ct.name(meta), APIName(key), err)
		return
	}
	ct.logf("-> %s %s (%d bytes)", ct.name(meta), APIName(key), n)
}

// saslRefusalsToTrust is how many logins in a row the broker must close
// right after a SaslAuthenticate request, with none accepted before, for
// the calls in flight to end with AUTH: one could be a broker going down
// at that moment; a second one, a retry later, is the broker's answer.
const saslRefusalsToTrust = 2

// OnBrokerRead notes that the cluster answered, and ends the calls in
// flight when the broker keeps closing the connection right after the
// client's SaslAuthenticate request and no login was ever accepted: a
// broker that refuses a login this way (kfake, some proxies) says nothing
// else, and retrying until the deadline cannot change the credentials.
// Only a failed SaslAuthenticate read counts: a connection dropped at any
// other request is left to the retries.
func (ct *contact) OnBrokerRead(meta kgo.BrokerMetadata, key int16, n int, wait, took time.Duration, err error) {
	ct.costs.read(key, n, wait+took, err)
	if err == nil {
		ct.mu.Lock()
		ct.answered = true
		ct.mu.Unlock()
	} else if key == saslAuthenticateKey && ct.mech != "" && connectionDropped(err) {
		ct.mu.Lock()
		if !ct.loggedIn {
			if ct.saslDropped++; ct.saslDropped >= saslRefusalsToTrust {
				e := &Error{Code: CodeAuth, Mechanism: ct.mech, Err: errCallEnded,
					Message: fmt.Sprintf("authentication failed: %s closed the connection right after the login, %d times in a row (wrong user name or password?)",
						ct.name(meta), ct.saslDropped)}
				for c := ct.calls; c != nil; c = c.next {
					c.end(e)
				}
			}
		}
		ct.mu.Unlock()
	}
	if ct.verbose == nil {
		return
	}
	if err != nil {
		ct.logf("<- %s %s: read failed: %v", ct.name(meta), APIName(key), err)
		return
	}
	ct.logf("<- %s %s (%d bytes, %s)", ct.name(meta), APIName(key), n, short(wait+took))
}

// saslAuthenticateKey is the SaslAuthenticate request's API key.
const saslAuthenticateKey = 36

// connectionDropped: a read that failed because the peer closed the
// connection.
func connectionDropped(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

func short(d time.Duration) time.Duration { return d.Round(100 * time.Microsecond) }

var verboseMu sync.Mutex // one line at a time, from every client's hooks

func (ct *contact) logf(format string, args ...any) {
	verboseMu.Lock()
	defer verboseMu.Unlock()
	fmt.Fprintf(ct.verbose, "kadmin-lua: verbose: "+format+"\n", args...)
}

// dialFailure says why a dial failed, and whether the reason is final at
// first contact: the host has no address, or nothing listens there, or no
// route leads there. A dial timeout, a DNS server that did not answer, or a
// handshake that failed after the TCP connection are not.
func dialFailure(err error) (reason string, final bool) {
	var oe *net.OpError
	if !errors.As(err, &oe) || oe.Op != "dial" {
		return err.Error(), false
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		if dns.IsNotFound {
			return "no such host", true
		}
		return "name lookup failed: " + dns.Err, false
	}
	for _, errno := range []syscall.Errno{syscall.ECONNREFUSED, syscall.EHOSTUNREACH, syscall.ENETUNREACH, syscall.EADDRNOTAVAIL} {
		if errors.Is(err, errno) {
			return errno.Error(), true
		}
	}
	if oe.Timeout() {
		return "dial timed out", false
	}
	return oe.Err.Error(), false
}

// errCallEnded is under the error a call ends with when the client gives
// up on it: it is a cancellation for kgo (errors.Is context.Canceled), and
// the engine's *Error around it says why.
var errCallEnded = fmt.Errorf("call ended by the client: %w", context.Canceled)

// callContext is one call's context: the caller's, bounded by the call's
// timeout, which the client can also end with an error of its own.
// Err returns that error, so every layer (kgo, kadm, the engine's retries)
// reports it instead of a bare "context canceled". Done is its own channel,
// so contexts derived from it take their Err from it too.
//
// It keeps the deadline itself (a timer) and runs AfterFunc's functions
// itself: kgo derives contexts from every request's and hangs functions on
// it, and the context package can hook into neither a context.WithTimeout
// under a custom context cheaply nor a custom context without AfterFunc (it
// started a goroutine per derived context). A call costs one timer and,
// under a cancelable caller, one AfterFunc on it.
type callContext struct {
	context.Context // parent: Value, and its cancellation
	deadline        time.Time

	done   chan struct{}
	mu     sync.Mutex
	err    error
	afters []*afterFunc

	// contact.mu guards these: the list of calls in flight, and the watch
	// of the caller's context.
	prev, next *callContext
	watch      *parentWatch
}

type afterFunc struct {
	f    func()
	done bool // run or stopped
}

func (c *callContext) Done() <-chan struct{} { return c.done }

func (c *callContext) Deadline() (time.Time, bool) { return c.deadline, true }

func (c *callContext) Err() error {
	if err := c.Context.Err(); err != nil {
		c.end(err) // the caller's context ended: say so before its AfterFunc runs
	} else if !time.Now().Before(c.deadline) {
		c.end(context.DeadlineExceeded) // likewise for the timer
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// AfterFunc runs f in a goroutine of its own once the call has ended, as
// context.AfterFunc does; stop keeps it from running.
func (c *callContext) AfterFunc(f func()) (stop func() bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a := &afterFunc{f: f}
	if c.err != nil {
		a.done = true
		go f()
	} else {
		c.afters = append(c.afters, a)
	}
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		stopped := !a.done
		// Let go of f now: kgo's functions hold requests and responses
		// (lag of 100,000 partitions kept 80 MB more until the call
		// ended).
		a.done, a.f = true, nil
		return stopped
	}
}

// end ends the call with err; only the first end counts.
func (c *callContext) end(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
		close(c.done)
		for _, a := range c.afters {
			if !a.done {
				go a.f()
				a.done, a.f = true, nil
			}
		}
		c.afters = nil
	}
}

// begin starts a call under ct, bounded by timeout (or the caller's
// earlier deadline): it ends when that passes, when parent ends, when the
// returned function is called, or when the cluster turns out to be
// unreachable (only asked while no broker has answered yet).
//
// A call costs no timer and no registration with parent of its own (a
// runbook's 500 quick calls each armed and stopped a timer and hung a
// function on the caller's context and took it off again): the contact's
// one timer and one watch of the caller's context serve every call.
func (ct *contact) begin(parent context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	deadline := time.Now().Add(timeout)
	if d, ok := parent.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	c := &callContext{Context: parent, deadline: deadline, done: make(chan struct{})}
	ct.mu.Lock()
	if c.next = ct.calls; c.next != nil {
		c.next.prev = c
	}
	ct.calls = c
	switch {
	case ct.timer == nil:
		ct.timer, ct.timerAt = time.AfterFunc(time.Until(deadline), ct.expire), deadline
	case ct.timerAt.IsZero() || deadline.Before(ct.timerAt):
		ct.timer.Reset(time.Until(deadline))
		ct.timerAt = deadline
	}
	if done := parent.Done(); done != nil {
		w := ct.watch
		if w == nil || w.done != done {
			if w != nil && w.n == 0 {
				w.stop() // the previous caller's context, no call of it in flight
			}
			w = &parentWatch{done: done}
			w.stop = context.AfterFunc(parent, func() { ct.parentEnded(w, parent) })
			ct.watch = w
		}
		w.n++
		c.watch = w
	}
	ct.mu.Unlock()
	return c, func() {
		ct.mu.Lock()
		if c.prev != nil {
			c.prev.next = c.next
		} else if ct.calls == c {
			ct.calls = c.next
		}
		if c.next != nil {
			c.next.prev = c.prev
		}
		c.prev, c.next = nil, nil
		if w := c.watch; w != nil {
			if w.n--; w.n == 0 && w != ct.watch {
				w.stop()
			}
		}
		ct.mu.Unlock()
		c.end(context.Canceled)
	}
}

// close lets go of what the contact holds once its client is closed: its
// timer, armed for the latest call's deadline, and its watch of the last
// caller's context would otherwise keep the contact, that context and what
// hangs off it (a script's Lua state, through the context's values)
// reachable until the deadline passed: a loop making a client per run at
// 1 ms grew by a --timeout's worth of runs.
func (ct *contact) close() {
	ct.mu.Lock()
	defer ct.mu.Unlock()
	if ct.timer != nil {
		ct.timer.Stop()
		ct.timerAt = time.Time{}
	}
	if w := ct.watch; w != nil {
		w.stop()
		ct.watch = nil
	}
}

// expire ends the calls whose deadline has passed and arms the timer for
// the earliest deadline left.
func (ct *contact) expire() {
	var over []*callContext
	ct.mu.Lock()
	now := time.Now()
	var next time.Time
	for c := ct.calls; c != nil; c = c.next {
		switch {
		case !now.Before(c.deadline):
			over = append(over, c)
		case next.IsZero() || c.deadline.Before(next):
			next = c.deadline
		}
	}
	ct.timerAt = next
	if !next.IsZero() {
		ct.timer.Reset(next.Sub(now))
	}
	ct.mu.Unlock()
	for _, c := range over {
		c.end(context.DeadlineExceeded)
	}
}

// parentEnded ends the calls made under w's caller context, which ended.
func (ct *contact) parentEnded(w *parentWatch, parent context.Context) {
	var under []*callContext
	ct.mu.Lock()
	if ct.watch == w {
		ct.watch = nil
	}
	for c := ct.calls; c != nil; c = c.next {
		if c.watch == w {
			under = append(under, c)
		}
	}
	ct.mu.Unlock()
	for _, c := range under {
		c.end(parent.Err())
	}
}
