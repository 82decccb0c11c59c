package engine

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// APIVersion is one row of APIVersions: one API a broker supports.
// A broker that could not be asked has one row with API -1 and the error.
type APIVersion struct {
	Broker     int32  `json:"broker"`
	API        int16  `json:"api"`
	Name       string `json:"name"`
	MinVersion int16  `json:"min_version"`
	MaxVersion int16  `json:"max_version"`
	Err        *Error `json:"error,omitempty"`
}

func (a APIVersion) Key() string {
	if a.API < 0 {
		return brokerKey(a.Broker)
	}
	return fmt.Sprintf("broker %d %s", a.Broker, a.Name)
}
func (a APIVersion) Failure() *Error { return a.Err }

// APIVersions asks every broker which API versions it supports: a row per
// broker and API key, sorted by broker then key (greppable, and easy to
// compare across brokers during a rolling upgrade).
func (c *Client) APIVersions(ctx context.Context) ([]APIVersion, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	brokers, e := c.sortedBrokerIDs(ctx)
	if e != nil {
		return nil, e
	}
	got := map[int32]*kmsg.ApiVersionsResponse{}
	errs := retryItems(ctx, brokers, brokerKey, func(ctx context.Context, pending []int32) (map[int32]*Error, error) {
		answers := map[int32]*Error{}
		for _, b := range pending {
			req := kmsg.NewPtrApiVersionsRequest()
			req.ClientSoftwareName, req.ClientSoftwareVersion = "kadmin-lua", "0"
			resp, err := req.RequestWith(ctx, c.kgo.Broker(int(b)))
			if err == nil {
				if e := kafkaErr(resp.ErrorCode, nil, brokerKey(b)); e != nil {
					answers[b] = e
					continue
				}
				got[b] = resp
			}
			answers[b] = AsError(err, brokerKey(b))
		}
		return answers, nil
	})
	var out []APIVersion
	for _, b := range brokers {
		if errs[b] != nil {
			out = append(out, APIVersion{Broker: b, API: -1, Err: errs[b]})
			continue
		}
		keys := slices.Clone(got[b].ApiKeys)
		slices.SortFunc(keys, func(x, y kmsg.ApiVersionsResponseApiKey) int { return cmp.Compare(x.ApiKey, y.ApiKey) })
		for _, k := range keys {
			out = append(out, APIVersion{Broker: b, API: k.ApiKey, Name: APIName(k.ApiKey), MinVersion: k.MinVersion, MaxVersion: k.MaxVersion})
		}
	}
	return out, nil
}

// Feature is one row of DescribeFeatures (KIP-584): a feature the cluster
// knows, the version range the brokers support, and the finalized level
// in force (0 when not finalized). Epoch is the finalized features' epoch,
// the same on every row.
type Feature struct {
	Feature        string `json:"feature"`
	FinalizedLevel int16  `json:"finalized_level"`
	SupportedMin   int16  `json:"supported_min"`
	SupportedMax   int16  `json:"supported_max"`
	Epoch          int64  `json:"epoch"`
}

// askAPIVersions asks one broker (any) for its ApiVersions answer,
// retried up to the call's deadline.
func (c *Client) askAPIVersions(ctx context.Context) (*kmsg.ApiVersionsResponse, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	var resp *kmsg.ApiVersionsResponse
	if e := retryCall(ctx, "", func(ctx context.Context) (err error) {
		req := kmsg.NewPtrApiVersionsRequest()
		req.ClientSoftwareName, req.ClientSoftwareVersion = "kadmin-lua", "0"
		if resp, err = req.RequestWith(ctx, c.kgo); err == nil {
			if e := kafkaErr(resp.ErrorCode, nil, ""); e != nil {
				return e
			}
		}
		return err
	}); e != nil {
		return nil, e
	}
	return resp, nil
}

// DescribeFeatures reads the cluster's features from a broker's
// ApiVersions answer (as the Java admin client does), sorted by name.
func (c *Client) DescribeFeatures(ctx context.Context) ([]Feature, error) {
	resp, err := c.askAPIVersions(ctx)
	if err != nil {
		return nil, err
	}
	byName := map[string]*Feature{}
	get := func(n string) *Feature {
		if f, ok := byName[n]; ok {
			return f
		}
		f := &Feature{Feature: n, Epoch: resp.FinalizedFeaturesEpoch}
		byName[n] = f
		return f
	}
	for _, s := range resp.SupportedFeatures {
		f := get(s.Name)
		f.SupportedMin, f.SupportedMax = s.MinVersion, s.MaxVersion
	}
	for _, fin := range resp.FinalizedFeatures {
		get(fin.Name).FinalizedLevel = fin.MaxVersionLevel
	}
	out := make([]Feature, 0, len(byName))
	for _, n := range slices.Sorted(maps.Keys(byName)) {
		out = append(out, *byName[n])
	}
	return out, nil
}

// UpgradeTypes are the ways a feature level may change.
var UpgradeTypes = map[string]int8{"upgrade": 1, "safe_downgrade": 2, "unsafe_downgrade": 3}

// FeatureUpdate sets a feature's finalized level; level 0 deletes the
// feature (a downgrade).
type FeatureUpdate struct {
	Feature         string `json:"feature"`
	MaxVersionLevel int16  `json:"max_version_level"`
	UpgradeType     string `json:"upgrade_type,omitempty"` // a key of UpgradeTypes; "" is "upgrade"
}

// UpdatedFeature is one result of UpdateFeatures.
type UpdatedFeature struct {
	Feature string `json:"feature"`
	Level   int16  `json:"max_version_level"`
	Err     *Error `json:"error,omitempty"`
}

func (u UpdatedFeature) Key() string     { return u.Feature }
func (u UpdatedFeature) Failure() *Error { return u.Err }

// UpdateFeatures changes finalized feature levels, a result per feature
// sorted by name. Setting a level again is harmless, so retriable errors
// are retried. Brokers answering UpdateFeatures v2 report one error for
// the whole request: every feature then carries it.
func (c *Client) UpdateFeatures(ctx context.Context, updates []FeatureUpdate, validateOnly bool) ([]UpdatedFeature, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	byName := map[string]FeatureUpdate{}
	for _, u := range updates {
		if _, dup := byName[u.Feature]; dup {
			return nil, Errorf(CodeInvalidArgument, u.Feature, "feature %s given twice", u.Feature)
		}
		if _, ok := UpgradeTypes[cmp.Or(u.UpgradeType, "upgrade")]; !ok {
			return nil, Errorf(CodeInvalidArgument, u.Feature, "unknown upgrade_type %q", u.UpgradeType)
		}
		byName[u.Feature] = u
	}
	names := slices.Sorted(maps.Keys(byName))
	sorted := make([]FeatureUpdate, len(names))
	for i, n := range names {
		sorted[i] = byName[n]
	}
	return mutate(ctx, c, mutation[[]Feature, []UpdatedFeature]{
		op: "update_features", keys: names, validateOnly: validateOnly,
		args: struct {
			Updates      []FeatureUpdate `json:"updates"`
			ValidateOnly bool            `json:"validate_only,omitempty"`
		}{sorted, validateOnly},
		before: func(ctx context.Context) ([]Feature, error) {
			fs, err := c.DescribeFeatures(ctx)
			return slices.DeleteFunc(fs, func(f Feature) bool { return byName[f.Feature] == (FeatureUpdate{}) }), err
		},
		send: func(ctx context.Context, _ []Feature) ([]UpdatedFeature, error) {
			return c.updateFeatures(ctx, names, byName, validateOnly), nil
		},
		items: asItems[UpdatedFeature],
	})
}

func (c *Client) updateFeatures(ctx context.Context, names []string, byName map[string]FeatureUpdate, validateOnly bool) []UpdatedFeature {
	errs := retryItems(ctx, names, func(n string) string { return n }, func(ctx context.Context, pending []string) (map[string]*Error, error) {
		var ups []kadm.FeatureUpdate
		for _, n := range pending {
			u := byName[n]
			ups = append(ups, kadm.FeatureUpdate{Feature: n, MaxVersionLevel: u.MaxVersionLevel, UpgradeType: UpgradeTypes[cmp.Or(u.UpgradeType, "upgrade")]})
		}
		res, err := c.adm.UpdateFeatures(ctx, validateOnly, ups...)
		if err != nil {
			return nil, err
		}
		answers := map[string]*Error{}
		for n, r := range res {
			e := AsError(r.Err, n)
			if r.Err == kerr.RequestTimedOut {
				e.Retriable = true
			}
			answers[n] = e
		}
		return answers, nil
	})
	out := make([]UpdatedFeature, 0, len(names))
	for _, n := range names {
		out = append(out, UpdatedFeature{Feature: n, Level: byName[n].MaxVersionLevel, Err: errs[n]})
	}
	return out
}
