package single

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

// tool finds an independent client installed from Debian (by .ci/run); a
// missing one fails the test, as a missing broker would.
func tool(t *testing.T, path string) string {
	t.Helper()
	p, err := exec.LookPath(path)
	require.NoError(t, err, "%s is needed for the cross-checks (.ci/run installs it from Debian)", path)
	return p
}

// TestCrossCheckKcat: kcat -L sees the topics and partition counts
// kadmin-lua created.
func TestCrossCheckKcat(t *testing.T) {
	need(t)
	kcat := tool(t, "kcat")
	a, b := unique("kcat-a"), unique("kcat-b")
	r := adminRT(t, kafkatest.MechScram256)
	r.Run(fmt.Sprintf(`create_topics{{name=%q, partitions=5}, {name=%q, partitions=1}}; create_partitions{[%q]=3}`, a, b, b))

	var md struct {
		Topics []struct {
			Topic      string `json:"topic"`
			Partitions []struct {
				Partition int `json:"partition"`
				Leader    int `json:"leader"`
			} `json:"partitions"`
		} `json:"topics"`
	}
	counts := func() map[string]int {
		ctx := ctxT(t, time.Minute)
		out, err := exec.CommandContext(ctx, kcat, "-L", "-J", "-b", cluster.Bootstrap(),
			"-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanisms=PLAIN",
			"-X", "sasl.username="+kafkatest.AdminUser, "-X", "sasl.password="+kafkatest.AdminPassword,
			"-m", "20").Output()
		require.NoError(t, err, "kcat -L: %s", out)
		require.NoError(t, json.Unmarshal(out, &md), "%s", out)
		got := map[string]int{}
		for _, tp := range md.Topics {
			got[tp.Topic] = len(tp.Partitions)
			for _, p := range tp.Partitions {
				assert.Equal(t, 1, p.Leader, "%s[%d]", tp.Topic, p.Partition)
			}
		}
		return got
	}
	// create_partitions returns when the controller committed the change;
	// the broker answers Metadata from its own copy a moment later: poll.
	var got map[string]int
	assert.Eventually(t, func() bool { got = counts(); return got[a] == 5 && got[b] == 3 }, 20*time.Second, 200*time.Millisecond)
	assert.Equal(t, 5, got[a], "kcat sees %v", got)
	assert.Equal(t, 3, got[b], "kcat sees %v", got)

	r.Run(fmt.Sprintf(`delete_topics{%q}`, a))
	assert.Eventually(t, func() bool { _, ok := counts()[a]; return !ok }, 20*time.Second, 200*time.Millisecond)
}

// TestCrossCheckPythonKafka: python3-kafka's KafkaAdminClient sees the
// topic and broker configs kadmin-lua altered.
func TestCrossCheckPythonKafka(t *testing.T) {
	need(t)
	py := tool(t, "/usr/bin/python3") // Debian's, which has python3-kafka; not the pyenv one on PATH
	topic := unique("py")
	r := adminRT(t, kafkatest.MechScram512)
	r.Run(fmt.Sprintf(`
		create_topics{{name=%q, partitions=2, configs={["retention.ms"]="123456"}}}
		alter_configs{{topic=%q, set={["max.message.bytes"]="65536", ["cleanup.policy"]="compact"}}}
		alter_configs{{broker=1, set={["log.cleaner.threads"]="2"}}}
	`, topic, topic))
	t.Cleanup(func() { r.Run(`alter_configs{{broker=1, delete={"log.cleaner.threads"}}}`) })

	const script = `
import json, sys
from kafka.admin import KafkaAdminClient, ConfigResource, ConfigResourceType
bootstrap, user, password, topic = sys.argv[1:5]
adm = KafkaAdminClient(bootstrap_servers=bootstrap, security_protocol="SASL_PLAINTEXT",
    sasl_mechanism="PLAIN", sasl_plain_username=user, sasl_plain_password=password,
    request_timeout_ms=20000)
out = {}
res = adm.describe_configs([ConfigResource(ConfigResourceType.TOPIC, topic), ConfigResource(ConfigResourceType.BROKER, "1")])
for r in res:
    for rsrc in r.resources:
        # (error_code, error_message, resource_type, resource_name, config_entries)
        name = rsrc[3]
        out[name] = {e[0]: e[1] for e in rsrc[4]}
        out[name + ".error"] = rsrc[0]
adm.close()
print(json.dumps(out))
`
	var got map[string]any
	ok := assert.Eventually(t, func() bool {
		out, err := exec.CommandContext(ctxT(t, time.Minute), py, "-c", script,
			cluster.Bootstrap(), kafkatest.AdminUser, kafkatest.AdminPassword, topic).Output()
		if err != nil {
			if ee, ok := err.(*exec.ExitError); ok {
				t.Logf("python3-kafka: %v\n%s", err, ee.Stderr)
			}
			return false
		}
		got = nil
		require.NoError(t, json.Unmarshal(out, &got), "%s", out)
		tc, _ := got[topic].(map[string]any)
		bc, _ := got["1"].(map[string]any)
		return tc["max.message.bytes"] == "65536" && bc["log.cleaner.threads"] == "2"
	}, 30*time.Second, 500*time.Millisecond)
	require.True(t, ok, "python3-kafka sees %v", got)
	tc := got[topic].(map[string]any)
	assert.Equal(t, "123456", tc["retention.ms"])
	assert.Equal(t, "compact", tc["cleanup.policy"])
	assert.EqualValues(t, 0, got[topic+".error"])
	assert.True(t, strings.Contains(fmt.Sprint(got["1"]), "log.cleaner.threads"))
}
