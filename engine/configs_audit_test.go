package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
)

// alter_configs' intent line hides the value of a config Kafka marks
// sensitive even when its name says nothing (a PASSWORD-type config such
// as ssl.truststore.certificates), from the before-state read first.
func TestAlterConfigsArgsHideSensitiveConfigs(t *testing.T) {
	r := ConfigResource{Type: ConfigBroker, Name: "1"}
	certs := "-----BEGIN CERTIFICATE----- secret material"
	args := &alterConfigsArgs{Alterations: []ConfigAlteration{{Resource: r,
		Set: map[string]string{"ssl.truststore.certificates": certs, "log.cleaner.threads": "2"}}}}
	orig := args.Alterations
	args.hide([]ConfigsBefore{{Type: r.Type, Name: r.Name, Configs: map[string]ConfigValue{
		"ssl.truststore.certificates": {Sensitive: true}, "log.cleaner.threads": {}}}})
	b, err := auditlog.RedactedJSON(args)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "secret material")
	assert.Contains(t, string(b), `"ssl.truststore.certificates":"***"`)
	assert.Contains(t, string(b), `"log.cleaner.threads":"2"`)
	assert.Equal(t, certs, orig[0].Set["ssl.truststore.certificates"], "what is sent keeps the value")
}
