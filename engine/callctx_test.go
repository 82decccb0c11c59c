package engine

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kgo hangs functions on a request's context (context.AfterFunc) and
// derives contexts from it; through callContext.AfterFunc they run when
// the call ends, and derived contexts report the call's own error.
func TestCallContextAfterFuncAndDerivedContexts(t *testing.T) {
	ct := newContact([]string{"127.0.0.1:1"}, nil)
	ctx, end := ct.begin(context.Background(), time.Minute)
	derived, cancel := context.WithCancel(ctx)
	defer cancel()
	ran := make(chan struct{})
	stop := context.AfterFunc(ctx, func() { close(ran) })
	stopped := context.AfterFunc(ctx, func() { t.Error("a stopped function ran") })
	require.True(t, stopped())

	want := &Error{Code: CodeNetwork, Message: "unreachable", Err: errCallEnded}
	ctx.(*callContext).end(want)
	select {
	case <-ran:
	case <-time.After(5 * time.Second):
		t.Fatal("the function hung on the call's context did not run")
	}
	assert.False(t, stop(), "it ran already")
	<-derived.Done()
	assert.Equal(t, error(want), derived.Err(), "a derived context says why the call ended")
	end()
	assert.Equal(t, error(want), ctx.Err(), "the first end counts")
}

func TestCallContextDeadlineAndCancel(t *testing.T) {
	ct := newContact([]string{"127.0.0.1:1"}, nil)

	ctx, end1 := ct.begin(context.Background(), 30*time.Millisecond)
	derived, cancel := context.WithCancel(ctx)
	defer cancel()
	dl, ok := ctx.Deadline()
	require.True(t, ok)
	assert.WithinDuration(t, time.Now().Add(30*time.Millisecond), dl, 25*time.Millisecond)
	<-ctx.Done()
	assert.Equal(t, context.DeadlineExceeded, ctx.Err())
	<-derived.Done()
	assert.Equal(t, context.DeadlineExceeded, derived.Err())
	end1()
	assert.Equal(t, context.DeadlineExceeded, ctx.Err(), "the first end counts")

	// A caller's earlier deadline wins; its cancellation ends the call.
	parent, cancelParent := context.WithTimeout(context.Background(), time.Hour)
	ctx, end2 := ct.begin(parent, 2*time.Hour)
	pdl, _ := parent.Deadline()
	dl, _ = ctx.Deadline()
	assert.Equal(t, pdl, dl)
	cancelParent()
	<-ctx.Done()
	assert.Equal(t, context.Canceled, ctx.Err())
	end2()

	// Ending the call is a cancellation, and stops the timer.
	ctx, end3 := ct.begin(context.Background(), time.Hour)
	end3()
	<-ctx.Done()
	assert.Equal(t, context.Canceled, ctx.Err())
	assert.Nil(t, ct.calls, "no call is left in flight")
}

// A stopped function is let go at once: kgo's hold a request's response,
// which must not live until the call ends.
func TestCallContextReleasesStoppedFunctions(t *testing.T) {
	ct := newContact(nil, nil)
	ctx, end := ct.begin(context.Background(), time.Hour)
	defer end()
	released := make(chan struct{})
	stop := hangBig(ctx, released)
	require.True(t, stop())
	for range 50 {
		runtime.GC()
		select {
		case <-released:
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatal("the stopped function (and what it holds) is still reachable")
}

// hangBig hangs on ctx a function holding a megabyte that closes released
// when it is collected.
func hangBig(ctx context.Context, released chan struct{}) func() bool {
	big := new([1 << 20]byte)
	runtime.SetFinalizer(big, func(*[1 << 20]byte) { close(released) })
	return context.AfterFunc(ctx, func() { big[0]++ })
}
