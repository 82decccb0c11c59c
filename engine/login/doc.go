// Package login says how a client logs in to a cluster and builds what
// franz-go needs for it: TLS (PEM files, Java key and trust stores) and the
// SASL mechanisms (PLAIN, SCRAM, OAUTHBEARER with its token sources,
// GSSAPI, AWS_MSK_IAM with the AWS credential chain in awscreds). It
// imports franz-go's sasl mechanisms but no Kafka client: token endpoints
// are HTTP, token commands are processes, and the admin core (engine)
// hands the result to kgo.
package login
