package engine

import (
	"context"
	"encoding/base64"
	"slices"

	"github.com/twmb/franz-go/pkg/kadm"
)

// FormatTopicID renders a topic ID the way Kafka's tools do (URL-safe base64
// without padding); "" for the all-zero ID of brokers without topic IDs.
func FormatTopicID(id [16]byte) string {
	if id == [16]byte{} {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString(id[:])
}

// metadata issues a fresh Metadata request (never kgo's cache) for topics,
// or for all topics when topics is nil, retrying retriable failures.
func (c *Client) metadata(ctx context.Context, topics []string) (kadm.Metadata, *Error) {
	var m kadm.Metadata
	err := retryCall(ctx, "", func(ctx context.Context) error {
		var err error
		m, err = c.adm.Metadata(ctx, topics...)
		return err
	})
	return m, err
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
