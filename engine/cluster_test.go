package engine

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

// kgo fails a request to a broker whose connection died (a broker killed
// under it, or one that stayed listed after it died) with its unexported
// errChosenBrokerDead. It is the network's failure, which another broker
// may not share: with a quorum lost, describe_topics died of it as an
// UNKNOWN error (exit 1) instead of asking the broker that answers.
func TestBrokerConnectionDiedIsANetworkError(t *testing.T) {
	e := AsError(errors.New("the broker connection has died and the request will be retried on a new connection"), "")
	assert.Equal(t, CodeNetwork, e.Code)
	assert.True(t, e.Retriable)
}
