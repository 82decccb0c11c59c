package engine

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Config resource types, as the Lua API names them.
const (
	ConfigTopic         = "topic"
	ConfigBroker        = "broker"        // Name is the broker id, "" for the cluster-wide default
	ConfigBrokerLogger  = "broker_logger" // Name is the broker id
	ConfigGroup         = "group"
	ConfigClientMetrics = "client_metrics"
)

// ConfigTypes lists the resource types in their sort order.
var ConfigTypes = []string{ConfigBroker, ConfigBrokerLogger, ConfigClientMetrics, ConfigGroup, ConfigTopic}

var configTypeCodes = map[string]kmsg.ConfigResourceType{
	ConfigTopic:         kmsg.ConfigResourceTypeTopic,
	ConfigBroker:        kmsg.ConfigResourceTypeBroker,
	ConfigBrokerLogger:  kmsg.ConfigResourceTypeBrokerLogger,
	ConfigGroup:         kmsg.ConfigResourceTypeGroupConfig,
	ConfigClientMetrics: kmsg.ConfigResourceTypeClientMetrics,
}

func configTypeName(t kmsg.ConfigResourceType) string {
	switch t { // not a walk of configTypeCodes: a map walk per resource answered
	case kmsg.ConfigResourceTypeTopic:
		return ConfigTopic
	case kmsg.ConfigResourceTypeBroker:
		return ConfigBroker
	case kmsg.ConfigResourceTypeBrokerLogger:
		return ConfigBrokerLogger
	case kmsg.ConfigResourceTypeGroupConfig:
		return ConfigGroup
	case kmsg.ConfigResourceTypeClientMetrics:
		return ConfigClientMetrics
	}
	return t.String()
}

// ConfigResource names what configs belong to.
type ConfigResource struct {
	Type string `json:"type"` // one of the Config* constants
	Name string `json:"name"` // topic, group or subscription name; broker id ("" = cluster default)
}

// String names the resource in errors and plans: "topic:orders",
// "broker:1", "broker:default".
func (r ConfigResource) String() string {
	if r.Type == ConfigBroker && r.Name == "" {
		return "broker:default"
	}
	return r.Type + ":" + r.Name
}

func (r ConfigResource) validate() *Error {
	if _, ok := configTypeCodes[r.Type]; !ok {
		return Errorf(CodeInvalidArgument, "", "unknown config resource type %q (want %s)", r.Type, strings.Join(ConfigTypes, ", "))
	}
	switch r.Type {
	case ConfigBroker, ConfigBrokerLogger:
		if r.Name == "" && r.Type == ConfigBroker {
			return nil
		}
		if id, err := strconv.ParseInt(r.Name, 10, 32); err != nil || id < 0 {
			return Errorf(CodeInvalidArgument, "", "%s must be a broker id, got %q", r.Type, r.Name)
		}
	default:
		if r.Name == "" {
			return Errorf(CodeInvalidArgument, "", "%s name must not be empty", r.Type)
		}
	}
	return nil
}

// compareConfigResources orders by type, then name (broker ids
// numerically, the cluster default first).
func compareConfigResources(a, b ConfigResource) int {
	if c := strings.Compare(a.Type, b.Type); c != 0 {
		return c
	}
	if a.Type == ConfigBroker || a.Type == ConfigBrokerLogger {
		ai, _ := strconv.ParseInt(cmp.Or(a.Name, "-1"), 10, 64)
		bi, _ := strconv.ParseInt(cmp.Or(b.Name, "-1"), 10, 64)
		return cmp.Compare(ai, bi)
	}
	return strings.Compare(a.Name, b.Name)
}

// compareExact orders as compareConfigResources, and tells apart the
// names it reads as the same broker id ("1", "01").
func compareExact(a, b ConfigResource) int {
	return cmp.Or(compareConfigResources(a, b), strings.Compare(a.Name, b.Name))
}

// alterations are AlterConfigs' alterations sorted by resource
// (compareExact), each resource once. A map of them was a twentieth of an
// alter_configs call's CPU (hashing two strings to insert one entry).
type alterations []ConfigAlteration

// of is the alteration of r.
func (as alterations) of(r ConfigResource) ConfigAlteration {
	i, ok := slices.BinarySearchFunc(as, r, func(a ConfigAlteration, r ConfigResource) int { return compareExact(a.Resource, r) })
	if !ok {
		return ConfigAlteration{}
	}
	return as[i]
}

// SortedResources is rs in the order of every result (by type, then name),
// each resource once.
func SortedResources(rs []ConfigResource) []ConfigResource {
	if len(rs) == 1 {
		return rs
	}
	out := slices.Clone(rs)
	slices.SortFunc(out, compareConfigResources)
	return slices.Compact(out)
}

// ConfigEntry is one config's value and where it comes from.
type ConfigEntry struct {
	Value     *string         `json:"value"`  // nil when sensitive or unset
	Source    string          `json:"source"` // Kafka's name: DYNAMIC_TOPIC_CONFIG, DEFAULT_CONFIG, ...
	Sensitive bool            `json:"sensitive"`
	ReadOnly  bool            `json:"read_only"`
	Synonyms  []ConfigSynonym `json:"synonyms,omitempty"` // with DescribeConfigsOptions.Synonyms, highest precedence first
}

// ConfigSynonym is a config a value may come from, e.g. log.retention.ms
// for a topic's retention.ms.
type ConfigSynonym struct {
	Name   string  `json:"name"`
	Value  *string `json:"value"`
	Source string  `json:"source"`
}

// DescribedConfigs is one resource's configs.
type DescribedConfigs struct {
	Type    string                 `json:"type"`
	Name    string                 `json:"name"`
	Configs map[string]ConfigEntry `json:"configs"`
	Err     *Error                 `json:"error,omitempty"`
}

func (d DescribedConfigs) Key() string {
	return ConfigResource{d.Type, d.Name}.String()
}
func (d DescribedConfigs) Failure() *Error { return d.Err }

// DescribeConfigsOptions modify DescribeConfigs.
type DescribeConfigsOptions struct {
	Synonyms bool     // include each config's synonyms
	Keys     []string // only these configs (all when empty)
	// Dynamic keeps only the values set on the resource itself, what
	// kafka-configs --describe shows without --all (configs_dynamic.go).
	Dynamic bool
}

// DescribeConfigs describes resources' configs, one result per resource
// sorted by type then name. Sensitive values are never returned. Broker
// resources are asked of that broker, as Kafka requires; a broker id not
// in the cluster fails with BROKER_NOT_AVAILABLE.
func (c *Client) DescribeConfigs(ctx context.Context, resources []ConfigResource, o DescribeConfigsOptions) ([]DescribedConfigs, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	for _, r := range resources {
		if err := r.validate(); err != nil {
			return nil, err
		}
	}
	resources = SortedResources(resources)
	ask, missing, err := c.checkBrokers(ctx, resources)
	if err != nil {
		return nil, err
	}
	got := map[ConfigResource]DescribedConfigs{}
	errs := retryItems(ctx, ask, ConfigResource.String, func(ctx context.Context, pending []ConfigResource) (map[ConfigResource]*Error, error) {
		req := kmsg.NewPtrDescribeConfigsRequest()
		req.IncludeSynonyms = o.Synonyms
		for _, r := range pending {
			rr := kmsg.NewDescribeConfigsRequestResource()
			rr.ResourceType, rr.ResourceName = configTypeCodes[r.Type], r.Name
			if len(o.Keys) > 0 {
				rr.ConfigNames = o.Keys
			}
			req.Resources = append(req.Resources, rr)
		}
		answers := map[ConfigResource]*Error{}
		for _, shard := range c.kgo.RequestSharded(ctx, req) {
			if shard.Err != nil {
				for _, rr := range shard.Req.(*kmsg.DescribeConfigsRequest).Resources {
					r := ConfigResource{configTypeName(rr.ResourceType), rr.ResourceName}
					answers[r] = AsError(shard.Err, r.String())
				}
				continue
			}
			for _, rr := range shard.Resp.(*kmsg.DescribeConfigsResponse).Resources {
				r := ConfigResource{configTypeName(rr.ResourceType), rr.ResourceName}
				if e := kafkaErr(rr.ErrorCode, rr.ErrorMessage, r.String()); e != nil {
					answers[r] = e
					continue
				}
				answers[r] = nil
				got[r] = describedConfigs(r, rr.Configs, o.Synonyms)
				if o.Dynamic {
					got[r] = onlyDynamic(got[r])
				}
			}
		}
		return answers, nil
	})
	out := make([]DescribedConfigs, 0, len(resources))
	for _, r := range resources {
		d, ok := got[r]
		if e, bad := missing[r]; bad {
			errs[r] = e
		}
		if !ok || errs[r] != nil {
			d = DescribedConfigs{Type: r.Type, Name: r.Name, Configs: map[string]ConfigEntry{}}
		}
		d.Err = errs[r]
		out = append(out, d)
	}
	return out, nil
}

// describedConfigs maps a response; synonyms are kept only when asked for
// (some brokers send them regardless).
func describedConfigs(r ConfigResource, cfgs []kmsg.DescribeConfigsResponseResourceConfig, synonyms bool) DescribedConfigs {
	d := DescribedConfigs{Type: r.Type, Name: r.Name, Configs: make(map[string]ConfigEntry, len(cfgs))}
	for _, rc := range cfgs {
		e := ConfigEntry{Value: rc.Value, Source: ConfigSourceName(rc.Source), Sensitive: rc.IsSensitive, ReadOnly: rc.ReadOnly}
		if rc.Source == kmsg.ConfigSourceUnknown && rc.IsDefault {
			e.Source = ConfigSourceName(kmsg.ConfigSourceDefaultConfig) // DescribeConfigs v0
		}
		for _, s := range rc.ConfigSynonyms {
			if !synonyms {
				break
			}
			e.Synonyms = append(e.Synonyms, ConfigSynonym{Name: s.Name, Value: s.Value, Source: ConfigSourceName(s.Source)})
		}
		if e.Sensitive {
			e.Value = nil
			for i := range e.Synonyms {
				e.Synonyms[i].Value = nil
			}
		}
		d.Configs[rc.Name] = e
	}
	return d
}

// checkBrokers splits resources into those to ask and those naming a broker
// that is not in the cluster (kgo would retry an unknown broker forever).
func (c *Client) checkBrokers(ctx context.Context, resources []ConfigResource) ([]ConfigResource, map[ConfigResource]*Error, error) {
	if !slices.ContainsFunc(resources, func(r ConfigResource) bool {
		return (r.Type == ConfigBroker || r.Type == ConfigBrokerLogger) && r.Name != ""
	}) {
		return resources, nil, nil // no broker to look for
	}
	var ask []ConfigResource
	missing := map[ConfigResource]*Error{}
	var ids map[int32]bool
	for _, r := range resources {
		if (r.Type == ConfigBroker || r.Type == ConfigBrokerLogger) && r.Name != "" {
			if ids == nil {
				var err *Error
				if ids, err = c.brokerIDs(ctx); err != nil {
					return nil, nil, err
				}
			}
			id, _ := strconv.ParseInt(r.Name, 10, 32)
			if !ids[int32(id)] {
				known := make([]int32, 0, len(ids))
				for id := range ids {
					known = append(known, id)
				}
				slices.Sort(known)
				missing[r] = &Error{Code: kerr.BrokerNotAvailable.Message, Resource: r.String(),
					Message: fmt.Sprintf("no broker %d in the cluster (brokers: %v)", id, known)}
				continue
			}
		}
		ask = append(ask, r)
	}
	return ask, missing, nil
}
