package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Client quotas (KIP-546). An entity is a map from entity type, written
// user, client_id or ip, to a name; DefaultEntity names the default entity
// of that type (Kafka's null name, printed "<default>" by kafka-configs).

// DefaultEntity is the name of a type's default entity.
const DefaultEntity = "<default>"

// QuotaEntityTypes maps this package's entity type names to Kafka's.
var QuotaEntityTypes = map[string]string{"user": "user", "client_id": "client-id", "ip": "ip"}

func quotaTypeName(kafkaType string) string {
	for k, v := range QuotaEntityTypes {
		if v == kafkaType {
			return k
		}
	}
	return kafkaType
}

// QuotaEntity is an entity: type -> name (or DefaultEntity).
type QuotaEntity map[string]string

// String renders "client_id=app,user=alice" (types sorted).
func (e QuotaEntity) String() string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(e)) {
		parts = append(parts, k+"="+e[k])
	}
	return strings.Join(parts, ",")
}

func (e QuotaEntity) name(k string) *string {
	if e[k] == DefaultEntity {
		return nil
	}
	n := e[k]
	return &n
}

// QuotaMatchAny, as a filter's name, matches every named (non-default)
// entity of the type.
const QuotaMatchAny = "\x00any"

// QuotaFilter selects entities: type -> exact name, DefaultEntity or
// QuotaMatchAny. Types not in the filter are not constrained unless Strict.
type QuotaFilter map[string]string

// DescribedQuota is one entity's quotas.
type DescribedQuota struct {
	Entity QuotaEntity        `json:"entity"`
	Quotas map[string]float64 `json:"quotas"`
}

// DescribeClientQuotas describes the quotas of the entities matching any of
// filters (every entity with a quota when there are none), sorted by
// entity. strict leaves out entities with types a filter does not name.
func (c *Client) DescribeClientQuotas(ctx context.Context, filters []QuotaFilter, strict bool) ([]DescribedQuota, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	if len(filters) == 0 {
		filters = []QuotaFilter{{}}
	}
	byEntity := map[string]DescribedQuota{}
	for _, f := range filters {
		req := kmsg.NewPtrDescribeClientQuotasRequest()
		req.Strict = strict
		for _, k := range slices.Sorted(maps.Keys(f)) {
			rc := kmsg.NewDescribeClientQuotasRequestComponent()
			rc.EntityType = QuotaEntityTypes[k]
			switch n := f[k]; n {
			case DefaultEntity:
				rc.MatchType = kmsg.QuotasMatchTypeDefault
			case QuotaMatchAny:
				rc.MatchType = kmsg.QuotasMatchTypeAny
			default:
				rc.MatchType, rc.Match = kmsg.QuotasMatchTypeExact, &n
			}
			req.Components = append(req.Components, rc)
		}
		if e := retryCall(ctx, "", func(ctx context.Context) error {
			resp, err := req.RequestWith(ctx, c.kgo)
			if err != nil {
				return err
			}
			if e := kafkaErr(resp.ErrorCode, resp.ErrorMessage, ""); e != nil {
				return e
			}
			for _, d := range describedQuotas(resp) {
				byEntity[d.Entity.String()] = d
			}
			return nil
		}); e != nil {
			return nil, e
		}
	}
	out := make([]DescribedQuota, 0, len(byEntity))
	for _, k := range slices.Sorted(maps.Keys(byEntity)) {
		out = append(out, byEntity[k])
	}
	return out, nil
}

// DescribeClientQuotasOn is every quota entity as broker b alone describes
// it: quotas reach the brokers one by one, so one broker may not show a
// change yet (desired state's apply waits for each). Not retried.
func (c *Client) DescribeClientQuotasOn(ctx context.Context, b int32) ([]DescribedQuota, error) {
	req := kmsg.NewPtrDescribeClientQuotasRequest() // no component: every entity
	resp, err := req.RequestWith(ctx, c.kgo.Broker(int(b)))
	if err != nil {
		return nil, AsError(err, fmt.Sprintf("broker %d", b))
	}
	if e := kafkaErr(resp.ErrorCode, resp.ErrorMessage, fmt.Sprintf("broker %d", b)); e != nil {
		return nil, e
	}
	return describedQuotas(resp), nil
}

// describedQuotas are the entities of a DescribeClientQuotas answer.
func describedQuotas(resp *kmsg.DescribeClientQuotasResponse) []DescribedQuota {
	out := make([]DescribedQuota, 0, len(resp.Entries))
	for _, en := range resp.Entries {
		d := DescribedQuota{Entity: QuotaEntity{}, Quotas: map[string]float64{}}
		for _, c := range en.Entity {
			name := DefaultEntity
			if c.Name != nil {
				name = *c.Name
			}
			d.Entity[quotaTypeName(c.Type)] = name
		}
		for _, v := range en.Values {
			d.Quotas[v.Key] = v.Value
		}
		out = append(out, d)
	}
	return out
}

// QuotaAlteration sets and removes quotas of one entity.
type QuotaAlteration struct {
	Entity QuotaEntity        `json:"entity"`
	Set    map[string]float64 `json:"set,omitempty"`
	Remove []string           `json:"remove,omitempty"`
}

// AlteredQuota is one result of AlterClientQuotas.
type AlteredQuota struct {
	Entity QuotaEntity `json:"entity"`
	Err    *Error      `json:"error,omitempty"`
}

func (a AlteredQuota) Key() string     { return a.Entity.String() }
func (a AlteredQuota) Failure() *Error { return a.Err }

// AlterClientQuotas applies alterations, one result per entity in the
// order given. Setting or removing a quota is idempotent, so an entity
// whose outcome is unknown (REQUEST_TIMED_OUT) is simply sent again.
func (c *Client) AlterClientQuotas(ctx context.Context, alts []QuotaAlteration, validateOnly bool) ([]AlteredQuota, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	byKey := map[string]int{}
	idx := make([]int, len(alts))
	for i, a := range alts {
		k := a.Entity.String()
		if _, dup := byKey[k]; dup {
			return nil, Errorf(CodeInvalidArgument, k, "entity %s given twice", k)
		}
		byKey[k], idx[i] = i, i
	}
	keys := make([]string, len(alts))
	for i, a := range alts {
		keys[i] = a.Entity.String()
	}
	return mutate(ctx, c, mutation[[]DescribedQuota, []AlteredQuota]{
		op: "alter_client_quotas", keys: keys, validateOnly: validateOnly,
		args: struct {
			Alterations  []QuotaAlteration `json:"alterations"`
			ValidateOnly bool              `json:"validate_only,omitempty"`
		}{alts, validateOnly},
		before: func(ctx context.Context) ([]DescribedQuota, error) { return c.quotasOf(ctx, alts) },
		send: func(ctx context.Context, _ []DescribedQuota) ([]AlteredQuota, error) {
			return c.alterClientQuotas(ctx, alts, idx, byKey, validateOnly), nil
		},
		items: asItems[AlteredQuota],
		look:  c.lookAlteredQuotas(alts),
		detail: func(before []DescribedQuota, _ []AlteredQuota, key string) any {
			return quotasAfter(before, alts, key)
		},
	})
}

func (c *Client) alterClientQuotas(ctx context.Context, alts []QuotaAlteration, idx []int, byKey map[string]int, validateOnly bool) []AlteredQuota {
	errs := retryItems(ctx, idx, func(i int) string { return alts[i].Entity.String() }, func(ctx context.Context, pending []int) (map[int]*Error, error) {
		req := kmsg.NewPtrAlterClientQuotasRequest()
		req.ValidateOnly = validateOnly
		for _, i := range pending {
			a := alts[i]
			re := kmsg.NewAlterClientQuotasRequestEntry()
			for _, k := range slices.Sorted(maps.Keys(a.Entity)) {
				ee := kmsg.NewAlterClientQuotasRequestEntryEntity()
				ee.Type, ee.Name = QuotaEntityTypes[k], a.Entity.name(k)
				re.Entity = append(re.Entity, ee)
			}
			for _, k := range slices.Sorted(maps.Keys(a.Set)) {
				op := kmsg.NewAlterClientQuotasRequestEntryOp()
				op.Key, op.Value = k, a.Set[k]
				re.Ops = append(re.Ops, op)
			}
			for _, k := range slices.Sorted(slices.Values(a.Remove)) {
				op := kmsg.NewAlterClientQuotasRequestEntryOp()
				op.Key, op.Remove = k, true
				re.Ops = append(re.Ops, op)
			}
			req.Entries = append(req.Entries, re)
		}
		resp, err := req.RequestWith(ctx, c.kgo)
		if err != nil {
			return nil, err
		}
		answers := map[int]*Error{}
		for _, en := range resp.Entries {
			ent := QuotaEntity{}
			for _, c := range en.Entity {
				name := DefaultEntity
				if c.Name != nil {
					name = *c.Name
				}
				ent[quotaTypeName(c.Type)] = name
			}
			i, ok := byKey[ent.String()]
			if !ok {
				continue
			}
			e := kafkaErr(en.ErrorCode, en.ErrorMessage, ent.String())
			if e != nil && en.ErrorCode == kerr.RequestTimedOut.Code {
				e.Retriable = true // setting the same values again is harmless
			}
			answers[i] = e
		}
		return answers, nil
	})
	out := make([]AlteredQuota, len(alts))
	for i, a := range alts {
		out[i] = AlteredQuota{Entity: a.Entity, Err: errs[i]}
	}
	return out
}
