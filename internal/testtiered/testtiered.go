// Package testtiered makes a kfake cluster answer as a broker with tiered
// storage (KIP-405) does, for the tests of lag and check-lag: kfake keeps
// every record local and knows no remote.storage.enable.
package testtiered

import (
	"strconv"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Model makes kfake answer as a broker with tiered storage: the
// topics in tiered have remote.storage.enable=true (kfake knows no such
// config, so DescribeConfigs of topics is answered here, with cfg for the
// others it asks), and their earliest local offset (ListOffsets -4) is
// Local[partition], or the error code ErrCode when it is not 0.
type Model struct {
	Tiered  map[string]bool
	Cfg     map[string]string
	Local   map[int32]int64
	ErrCode int16
}

// Install makes c answer so until the test ends.
func (m Model) Install(c *kfake.Cluster) {
	c.ControlKey(int16(kmsg.DescribeConfigs), func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req := r.(*kmsg.DescribeConfigsRequest)
		resp := req.ResponseKind().(*kmsg.DescribeConfigsResponse)
		for _, rr := range req.Resources {
			if rr.ResourceType != kmsg.ConfigResourceTypeTopic {
				return nil, nil, false
			}
			res := kmsg.NewDescribeConfigsResponseResource()
			res.ResourceType, res.ResourceName = rr.ResourceType, rr.ResourceName
			for _, k := range rr.ConfigNames {
				v, ok := m.Cfg[k]
				if k == "remote.storage.enable" {
					v, ok = strconv.FormatBool(m.Tiered[rr.ResourceName]), true
				}
				if !ok {
					continue
				}
				e := kmsg.NewDescribeConfigsResponseResourceConfig()
				e.Name, e.Value = k, kmsg.StringPtr(v)
				res.Configs = append(res.Configs, e)
			}
			resp.Resources = append(resp.Resources, res)
		}
		return resp, nil, true
	})
	c.ControlKey(int16(kmsg.ListOffsets), func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req := r.(*kmsg.ListOffsetsRequest)
		resp := req.ResponseKind().(*kmsg.ListOffsetsResponse)
		for _, rt := range req.Topics {
			st := kmsg.NewListOffsetsResponseTopic()
			st.Topic = rt.Topic
			for _, rp := range rt.Partitions {
				if rp.Timestamp != -4 {
					return nil, nil, false // kfake answers the rest
				}
				sp := kmsg.NewListOffsetsResponseTopicPartition()
				sp.Partition, sp.Offset, sp.Timestamp, sp.LeaderEpoch, sp.ErrorCode = rp.Partition, m.Local[rp.Partition], -1, 0, m.ErrCode
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})
}
