package compat

import (
	"os"
	"testing"

	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

// cluster is the one SASL node of the package (nil when the real-Kafka
// tests are skipped).
var cluster *kafkatest.Cluster

func TestMain(m *testing.M) {
	os.Exit(kafkatest.RunSuite(m, "integration/compat", kafkatest.StartSingle,
		func(c *kafkatest.Cluster, _ string) { cluster = c }))
}
