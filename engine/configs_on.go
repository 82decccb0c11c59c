package engine

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// DescribeTopicConfigsOn is the configs set on topics themselves (Kafka's
// DYNAMIC_TOPIC_CONFIG, what kafka-configs --describe shows) as broker b
// alone describes them. A broker answers DescribeConfigs from its own copy of the cluster's
// metadata, a moment behind the controller's after a change, and the core's
// DescribeConfigs asks any broker: desired state's apply asks each broker
// until it shows what was applied, so that a plan made right after does not
// list the change again. A topic the broker does not know carries its
// error. Not retried; sensitive values are never returned.
func (c *Client) DescribeTopicConfigsOn(ctx context.Context, b int32, topics []string) ([]DescribedConfigs, error) {
	req := kmsg.NewPtrDescribeConfigsRequest()
	for _, t := range topics {
		rr := kmsg.NewDescribeConfigsRequestResource()
		rr.ResourceType, rr.ResourceName = kmsg.ConfigResourceTypeTopic, t
		req.Resources = append(req.Resources, rr)
	}
	resp, err := req.RequestWith(ctx, c.kgo.Broker(int(b)))
	if err != nil {
		return nil, AsError(err, fmt.Sprintf("broker %d", b))
	}
	out := make([]DescribedConfigs, 0, len(resp.Resources))
	for _, rr := range resp.Resources {
		r := ConfigResource{Type: ConfigTopic, Name: rr.ResourceName}
		if e := kafkaErr(rr.ErrorCode, rr.ErrorMessage, r.String()); e != nil {
			out = append(out, DescribedConfigs{Type: r.Type, Name: r.Name, Configs: map[string]ConfigEntry{}, Err: e})
			continue
		}
		out = append(out, onlyDynamic(describedConfigs(r, rr.Configs, false)))
	}
	return out, nil
}
