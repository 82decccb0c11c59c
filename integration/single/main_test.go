package single

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/login"
	"github.com/kadmin-lua/kadmin-lua/integration/internal/itlua"
	"github.com/kadmin-lua/kadmin-lua/internal/clientconfig"
	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

// cluster is the one SASL node every test of the package shares; bin is
// the kadmin-lua binary built for the package. Both are unset when the
// real-Kafka tests are skipped.
var (
	cluster *kafkatest.Cluster
	bin     string
)

var mechanisms = []string{kafkatest.MechPlain, kafkatest.MechScram256, kafkatest.MechScram512}

func TestMain(m *testing.M) {
	os.Exit(kafkatest.RunSuite(m, "integration/single", kafkatest.StartSingle,
		func(c *kafkatest.Cluster, binary string) { cluster, bin = c, binary }))
}

// lacksOnThisKafka is what docs/compatibility.md says function fn lacks
// on the Kafka release and mode this suite runs ("" when it works there,
// or when the release is no column of the table).
func lacksOnThisKafka(fn string) string {
	if col := luaapi.LookupColumn(cluster.Version, cluster.Mode); col != nil {
		return col.Lacks(luaapi.Lookup(fn))
	}
	return ""
}

// need skips t when the real-Kafka tests are skipped (TestMain fails the
// package when they must run and cannot).
func need(t *testing.T) {
	t.Helper()
	if cluster == nil {
		t.Skipf("real Kafka tests skipped (%s)", kafkatest.SkipReason())
	}
}

var seq atomic.Int64

// unique returns a name no other test uses.
func unique(prefix string) string {
	return fmt.Sprintf("%s-%d-%d", prefix, time.Now().UnixNano()%1e6, seq.Add(1))
}

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// admin is an independent kadm client (admin over PLAIN) for checking what
// really happened.
func admin(t *testing.T) *kadm.Client {
	t.Helper()
	return cluster.AdminT(t, kgo.RetryTimeout(20*time.Second))
}

// topics lists topics through a brand-new client (no metadata cache).
func topics(t *testing.T) kadm.TopicDetails {
	t.Helper()
	adm, err := cluster.Admin()
	require.NoError(t, err)
	defer adm.Close()
	td, err := adm.ListTopics(ctxT(t, 20*time.Second))
	require.NoError(t, err)
	return td
}

// gone is waitTopic's partition count for a topic that must not be listed.
const gone = -1

// waitTopic polls, through brand-new clients, until the broker's metadata
// lists topic with that many partitions (gone: does not list it). A create,
// create_partitions or delete returns once the controller has committed it;
// the broker answers other clients from its own copy of the metadata log a
// moment later, so a check through another client must wait for it.
func waitTopic(t *testing.T, topic string, partitions int) {
	t.Helper()
	waitTopicIn(t, cluster, topic, partitions)
}

// waitTopicIn is waitTopic for the node c (one a test started itself),
// through its admin client.
func waitTopicIn(t *testing.T, c *kafkatest.Cluster, topic string, partitions int) {
	t.Helper()
	what := fmt.Sprintf("%s in the broker's metadata with partitions: %d", topic, partitions)
	if partitions == gone {
		what = topic + " gone from the broker's metadata"
	}
	kafkatest.WaitFor(t, what, 20*time.Second, func() (bool, string) {
		adm, err := c.Admin()
		if err != nil {
			return false, err.Error()
		}
		defer adm.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		td, err := adm.ListTopics(ctx)
		if err != nil {
			return false, err.Error()
		}
		d, ok := td[topic]
		switch {
		case partitions == gone:
			return !ok, fmt.Sprintf("listed: %t", ok)
		case !ok:
			return false, "not listed"
		case d.Err != nil:
			return false, d.Err.Error()
		}
		return len(d.Partitions) == partitions, fmt.Sprintf("partitions: %d", len(d.Partitions))
	})
}

// lrt is a Lua runtime logged in to the cluster.
type lrt struct{ *itlua.Env }

// runtimeAs builds a runtime whose default client logs in as user with
// mech. KADMIN_SASL_PASSWORD in its environment is password too, for
// kafka.connect.
func runtimeAs(t *testing.T, mech, user, password string) *lrt {
	t.Helper()
	return runtimeWith(t, engine.Config{
		Brokers: cluster.Brokers(),
		Timeout: 20 * time.Second,
		SASL:    &login.SASLConfig{Mechanism: mech, Username: user, Password: engine.Secret(password)},
	}, map[string]string{clientconfig.PasswordEnv: password})
}

// runtimeWith builds a runtime for cfg whose kafka.env (and so the password
// kafka.connect reads) is env.
func runtimeWith(t *testing.T, cfg engine.Config, env map[string]string) *lrt {
	t.Helper()
	return &lrt{itlua.New(t, cfg, env, time.Minute)}
}

func adminRT(t *testing.T, mech string) *lrt {
	return runtimeAs(t, mech, kafkatest.AdminUser, kafkatest.AdminPassword)
}

// json runs Lua whose chunk returns one value and decodes it (through
// kafka.json.encode) into out.
func (r *lrt) json(src string, out any) {
	r.T.Helper()
	vals := r.Run("return kafka.json.encode((function() " + src + " end)())")
	require.Len(r.T, vals, 1)
	require.NoError(r.T, json.Unmarshal([]byte(vals[0].String()), out), "json: %s", vals[0].String())
}

// runBin runs the built binary against the cluster as user with mech;
// password goes in KADMIN_SASL_PASSWORD. args follow the connection flags.
func runBin(t *testing.T, mech, user, password string, args ...string) kafkatest.BinResult {
	t.Helper()
	full := append([]string{"-b", cluster.Bootstrap(), "--sasl-mechanism", mech, "--sasl-username", user,
		"--timeout", "20s"}, args...)
	return kafkatest.RunBinary(ctxT(t, 2*time.Minute), t, bin, []string{clientconfig.PasswordEnv + "=" + password}, "", full...)
}

// produce writes n records (values "v0".."v<n-1>") to each partition of
// topic, once the broker's metadata shows the topic (a producer gives up on
// a topic it is told is unknown after a few metadata refreshes).
func produce(t *testing.T, topic string, partitions int32, n int) {
	t.Helper()
	waitTopic(t, topic, int(partitions))
	cl, err := cluster.Client(kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.DefaultProduceTopic(topic))
	require.NoError(t, err)
	defer cl.Close()
	var recs []*kgo.Record
	for p := int32(0); p < partitions; p++ {
		for i := 0; i < n; i++ {
			recs = append(recs, &kgo.Record{Partition: p, Value: []byte(fmt.Sprintf("v%d", i))})
		}
	}
	require.NoError(t, cl.ProduceSync(ctxT(t, time.Minute), recs...).FirstErr())
}
