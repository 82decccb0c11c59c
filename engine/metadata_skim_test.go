package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The skimming reader reads every Metadata version as kmsg writes it, and
// keeps what kmsg's full reader would give for the topics asked.
func TestSkimResponseReadsEveryVersion(t *testing.T) {
	resp := kmsg.NewPtrMetadataResponse()
	resp.ThrottleMillis = 7
	for i, host := range []string{"a", "bb"} {
		b := kmsg.NewMetadataResponseBroker()
		b.NodeID, b.Host, b.Port, b.Rack = int32(i), host, 9092, kmsg.StringPtr("r")
		b.UnknownTags.Set(9, []byte("tag"))
		resp.Brokers = append(resp.Brokers, b)
	}
	resp.ClusterID = kmsg.StringPtr("cluster")
	addTopic := func(name *string, code int16, id byte, parts [][]int32) {
		t := kmsg.NewMetadataResponseTopic()
		t.Topic, t.ErrorCode, t.TopicID, t.IsInternal = name, code, [16]byte{id}, id == 3
		for p, replicas := range parts {
			mp := kmsg.NewMetadataResponseTopicPartition()
			mp.Partition = int32(len(parts) - 1 - p) // partition 0 last
			mp.Replicas, mp.ISR, mp.OfflineReplicas = replicas, replicas[:1], replicas[1:]
			mp.UnknownTags.Set(3, []byte{1, 2})
			t.Partitions = append(t.Partitions, mp)
		}
		resp.Topics = append(resp.Topics, t)
	}
	addTopic(kmsg.StringPtr("one"), 0, 1, [][]int32{{1, 2}, {2, 3, 1}})
	addTopic(kmsg.StringPtr("not-asked"), 0, 2, [][]int32{{1}})
	addTopic(kmsg.StringPtr("internal"), 0, 3, [][]int32{{1}})
	addTopic(kmsg.StringPtr("missing"), 3, 0, nil)
	addTopic(kmsg.StringPtr("empty"), 0, 5, nil)
	asked := []string{"empty", "internal", "missing", "one", "absent"}

	for version := int16(0); version <= resp.MaxVersion(); version++ {
		resp.Version = version
		if version >= 12 {
			addTopic(nil, 100, 9, [][]int32{{1}}) // asked by id: no name
		}
		raw := resp.AppendTo(nil)
		full := kmsg.NewPtrMetadataResponse()
		full.Version = version
		require.NoError(t, full.ReadFrom(raw), "v%d", version)

		req := newSkimRequest(asked)
		req.Version = version
		skim := req.ResponseKind().(*skimResponse)
		require.NoError(t, skim.ReadFrom(raw), "v%d", version)
		assert.Equal(t, full.ThrottleMillis, skim.ThrottleMillis, "v%d", version)
		assert.Equal(t, full.ErrorCode, skim.ErrorCode, "v%d", version)
		for i, name := range asked {
			want := topicSkim{}
			for _, ft := range full.Topics {
				if ft.Topic == nil || *ft.Topic != name {
					continue
				}
				want = topicSkim{found: true, errorCode: ft.ErrorCode, id: ft.TopicID, internal: ft.IsInternal, partitions: len(ft.Partitions)}
				for _, p := range ft.Partitions {
					if p.Partition == 0 {
						want.rf = len(p.Replicas)
					}
				}
			}
			assert.Equal(t, want, skim.topics[i], "v%d %s", version, name)
		}
		assert.Error(t, req.ResponseKind().ReadFrom(raw[:len(raw)-1]), "v%d: a short response is an error", version)
	}
}
