// Package clientconfig is the command line's connection configuration: the
// JSON config file with its named profiles, Java client.properties files
// (--command-config, a profile's command_config, kafka.connect's
// command_config) with their sasl.jaas.config login modules, and the rules
// that bind credentials to their brokers. It turns all of that into an
// engine.Config, which is all the engine needs to connect; the engine knows
// nothing of files, profiles or environment variables.
package clientconfig
