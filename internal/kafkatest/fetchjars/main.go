// Command fetchjars fills the kafkatest jar cache ahead of the tests (CI
// calls it through internal/kafkatest/fetch-jars.sh) and prints the
// directory holding the broker classpath. It also fetches and compiles the
// Kafka Streams application of the streams-group tests, for releases with
// streams groups (a failure there is only reported). It honours the same environment
// as the tests: KADMIN_KAFKA_VERSION, KADMIN_KAFKA_JARS, XDG_CACHE_HOME.
package main

import (
	"fmt"
	"os"

	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

func main() {
	dir, err := kafkatest.JarsDir()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// The tiered storage test's jar too (it runs on the default version
	// only: integration/single), so no test waits on Maven.
	if os.Getenv(kafkatest.EnvJars) == "" && os.Getenv(kafkatest.EnvVersion) == "" {
		if _, err := kafkatest.TieredStorageJar(); err != nil {
			fmt.Fprintln(os.Stderr, "warning:", err)
		}
	}
	if _, ok := kafkatest.StreamsGroupProperties(kafkatest.Version()); ok {
		if _, err := kafkatest.StreamsClasspath(); err != nil {
			fmt.Fprintln(os.Stderr, "fetchjars: the Kafka Streams application:", err)
		}
	}
	fmt.Println(dir)
}
