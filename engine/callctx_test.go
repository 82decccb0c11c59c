package engine

import (
	"context"
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
	ctx, end := ct.begin(context.Background())
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
