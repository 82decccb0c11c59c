package engine

import (
	"cmp"
	"context"
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// ListedConfigResource is one row of ListConfigResources.
type ListedConfigResource struct {
	Type string `json:"type"`
	Name string `json:"name"`
}

// ListConfigResources lists the resources that have configs of the given
// types (every type when none), sorted by type then name. Brokers before
// Kafka 4.1 (ListConfigResources v0, once ListClientMetricsResources) only
// list client_metrics resources.
func (c *Client) ListConfigResources(ctx context.Context, types []string) ([]ListedConfigResource, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	var kinds []kmsg.ConfigResourceType
	for _, t := range types {
		k, ok := configTypeCodes[t]
		if !ok {
			return nil, Errorf(CodeInvalidArgument, "", "unknown config resource type %q (topic, broker, broker_logger, client_metrics, group)", t)
		}
		kinds = append(kinds, k)
	}
	var out []ListedConfigResource
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
			out = append(out, ListedConfigResource{Type: configTypeName(r.Type), Name: r.Name})
		}
		return nil
	}); e != nil {
		return nil, e
	}
	slices.SortFunc(out, func(a, b ListedConfigResource) int {
		return cmp.Or(cmp.Compare(a.Type, b.Type), cmp.Compare(a.Name, b.Name))
	})
	if out == nil {
		out = []ListedConfigResource{}
	}
	return slices.Compact(out), nil
}
