package luaapi

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

// Config names for completion: what a topic and a broker of the cluster
// report; Kafka's documented topic configs when the cluster cannot say.
func TestConfigNamesForCompletion(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{"orders"}`)
	src, ok := e.rt.DefaultNames()
	require.True(t, ok)
	names, err := src.Names(e.ctx(), NameConfig)
	require.NoError(t, err)
	assert.Contains(t, names, "retention.ms", "a topic config")
	assert.Contains(t, names, "log.retention.ms", "a broker config")
	assert.IsNonDecreasing(t, names)

	h := e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.DescribeConfigs}, Err: kerr.ClusterAuthorizationFailed, Count: -1})
	defer h.Remove()
	names, err = src.Names(e.ctx(), NameConfig)
	require.NoError(t, err)
	assert.Equal(t, engine.TopicConfigNames, names, "not allowed to describe configs: Kafka's documented names")
}
