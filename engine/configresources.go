package engine

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// ConfigResourceTypes maps the type names used here to Kafka's.
var ConfigResourceTypes = map[string]kmsg.ConfigResourceType{
	"topic":          kmsg.ConfigResourceTypeTopic,
	"broker":         kmsg.ConfigResourceTypeBroker,
	"broker_logger":  kmsg.ConfigResourceTypeBrokerLogger,
	"client_metrics": kmsg.ConfigResourceTypeClientMetrics,
	"group":          kmsg.ConfigResourceTypeGroupConfig,
}

func configTypeName(t kmsg.ConfigResourceType) string {
	for n, v := range ConfigResourceTypes {
		if v == t {
			return n
		}
	}
	return fmt.Sprintf("unknown(%d)", int8(t))
}

// ConfigResource is one row of ListConfigResources.
type ConfigResource struct {
	Type string `json:"type"`
	Name string `json:"name"`
}

// ListConfigResources lists the resources that have configs of the given
// types (every type when none), sorted by type then name. Brokers before
// Kafka 4.1 (ListConfigResources v0, once ListClientMetricsResources) only
// list client_metrics resources.
func (c *Client) ListConfigResources(ctx context.Context, types []string) ([]ConfigResource, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	var kinds []kmsg.ConfigResourceType
	for _, t := range types {
		k, ok := ConfigResourceTypes[t]
		if !ok {
			return nil, Errorf(CodeInvalidArgument, "", "unknown config resource type %q (topic, broker, broker_logger, client_metrics, group)", t)
		}
		kinds = append(kinds, k)
	}
	var out []ConfigResource
	if e := retryCall(ctx, "", func(ctx context.Context) error {
		res, err := c.adm.ListConfigResources(ctx, kinds...)
		if err == nil {
			err = res.Err
		}
		if err != nil {
			return err
		}
		out = out[:0]
		for _, r := range res.Resources {
			out = append(out, ConfigResource{Type: configTypeName(r.Type), Name: r.Name})
		}
		return nil
	}); e != nil {
		return nil, e
	}
	slices.SortFunc(out, func(a, b ConfigResource) int {
		return cmp.Or(cmp.Compare(a.Type, b.Type), cmp.Compare(a.Name, b.Name))
	})
	if out == nil {
		out = []ConfigResource{}
	}
	return slices.Compact(out), nil
}
