// Package schemas is the Schema Registry beside a cluster: its connection
// (URLs, basic or bearer auth, TLS), its REST API as the admin functions
// use it, and the codecs that read and write records framed for it
// (Avro, Protobuf, JSON Schema, or a local schema file), speaking HTTP
// and no Kafka.
package schemas
