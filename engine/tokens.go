package engine

import (
	"context"
	"encoding/base64"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
)

// Delegation tokens. The HMAC is the token's secret: CreateDelegationToken
// returns it (the caller needs it to authenticate), nothing else does, and
// it never goes into errors.

// CreatedToken is the result of CreateDelegationToken.
type CreatedToken struct {
	TokenID   string `json:"token_id"`
	HMAC      string `json:"hmac"` // base64, the secret
	Owner     string `json:"owner"`
	Requester string `json:"requester"`
	IssuedMs  int64  `json:"issue_timestamp"`
	ExpiryMs  int64  `json:"expiry_timestamp"`
	MaxMs     int64  `json:"max_timestamp"`
}

// TokenInfo is one row of DescribeDelegationTokens (no HMAC).
type TokenInfo struct {
	TokenID   string   `json:"token_id"`
	Owner     string   `json:"owner"`
	Requester string   `json:"requester"`
	Renewers  []string `json:"renewers"`
	IssuedMs  int64    `json:"issue_timestamp"`
	ExpiryMs  int64    `json:"expiry_timestamp"`
	MaxMs     int64    `json:"max_timestamp"`
}

// TokenExpiry is the result of renewing or expiring a token.
type TokenExpiry struct {
	ExpiryMs int64 `json:"expiry_timestamp"`
}

// CreateTokenOptions describe a new token.
type CreateTokenOptions struct {
	Owner       string // "User:name" or "name"; empty: the caller
	Renewers    []string
	MaxLifetime time.Duration // 0: the broker's maximum
}

// ParsePrincipal reads "Type:name" ("name" alone is a User).
func ParsePrincipal(s string) kadm.Principal {
	if t, n, ok := strings.Cut(s, ":"); ok {
		return kadm.Principal{Type: t, Name: n}
	}
	return kadm.Principal{Type: "User", Name: s}
}

func principal(p kadm.Principal) string {
	if p.Name == "" {
		return ""
	}
	return p.Type + ":" + p.Name
}

// CreateDelegationToken creates a token. It is not retried: a second
// attempt after an unknown outcome would create a second token.
func (c *Client) CreateDelegationToken(ctx context.Context, o CreateTokenOptions) (CreatedToken, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	req := kadm.CreateDelegationToken{MaxLifetime: o.MaxLifetime}
	if o.Owner != "" {
		p := ParsePrincipal(o.Owner)
		req.Owner = &p
	}
	for _, r := range o.Renewers {
		req.Renewers = append(req.Renewers, ParsePrincipal(r))
	}
	return mutate(ctx, c, mutation[struct{}, CreatedToken]{
		op: "create_delegation_token", keys: []string{"token"},
		args: struct {
			Owner         string   `json:"owner,omitempty"`
			Renewers      []string `json:"renewers,omitempty"`
			MaxLifetimeMs int64    `json:"max_lifetime_ms,omitempty"`
		}{o.Owner, o.Renewers, o.MaxLifetime.Milliseconds()},
		send: func(ctx context.Context, _ struct{}) (CreatedToken, error) { return c.createToken(ctx, req) },
		items: func(t CreatedToken) []Item {
			if t.TokenID == "" {
				return nil
			}
			return oneItem("token", nil)
		},
		detail: func(_ struct{}, t CreatedToken, _ string) any {
			return struct {
				TokenID string `json:"token_id"`
			}{t.TokenID}
		},
	})
}

// createToken sends one CreateDelegationToken (never again: see above).
func (c *Client) createToken(ctx context.Context, req kadm.CreateDelegationToken) (CreatedToken, error) {
	t, err := c.adm.CreateDelegationToken(ctx, req)
	if err != nil {
		return CreatedToken{}, AsError(err, "")
	}
	return CreatedToken{TokenID: t.TokenID, HMAC: base64.StdEncoding.EncodeToString(t.HMAC), Owner: principal(t.Owner),
		Requester: principal(t.TokenRequesterPrincipal), IssuedMs: t.IssueTimestamp.UnixMilli(),
		ExpiryMs: t.ExpiryTimestamp.UnixMilli(), MaxMs: t.MaxTimestamp.UnixMilli()}, nil
}

// DecodeHMAC reads a base64 HMAC; the error never includes the value.
func DecodeHMAC(s string) ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(b) == 0 {
		return nil, Errorf(CodeInvalidArgument, "", "hmac must be the base64 HMAC from create_delegation_token")
	}
	return b, nil
}

// RenewDelegationToken extends a token's expiry by period (0: the broker's
// renew period); retried, as renewing twice only renews.
func (c *Client) RenewDelegationToken(ctx context.Context, hmac []byte, period time.Duration) (TokenExpiry, error) {
	return c.tokenExpiry(ctx, "renew_delegation_token", period, func(ctx context.Context) (time.Time, error) {
		return c.adm.RenewDelegationToken(ctx, hmac, period)
	})
}

// ExpireDelegationToken sets a token to expire after period (0 or
// negative: now).
func (c *Client) ExpireDelegationToken(ctx context.Context, hmac []byte, period time.Duration) (TokenExpiry, error) {
	return c.tokenExpiry(ctx, "expire_delegation_token", period, func(ctx context.Context) (time.Time, error) {
		return c.adm.ExpireDelegationToken(ctx, hmac, period)
	})
}

// tokenExpiry renews or expires a token (op says which); the HMAC is not
// in the audit log.
func (c *Client) tokenExpiry(ctx context.Context, op string, period time.Duration, fn func(context.Context) (time.Time, error)) (TokenExpiry, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	return mutate(ctx, c, mutation[struct{}, TokenExpiry]{
		op: op, keys: []string{"token"},
		args: struct {
			HMAC     Secret `json:"hmac"`
			PeriodMs int64  `json:"period_ms"`
		}{"***", period.Milliseconds()},
		send: func(ctx context.Context, _ struct{}) (TokenExpiry, error) {
			var at time.Time
			if err := retryCall(ctx, "", func(ctx context.Context) error {
				var err error
				at, err = fn(ctx)
				return err
			}); err != nil {
				return TokenExpiry{}, err
			}
			return TokenExpiry{ExpiryMs: at.UnixMilli()}, nil
		},
		items: func(TokenExpiry) []Item { return oneItem("token", nil) },
	})
}

// DescribeDelegationTokens lists tokens (of the given owners, or all the
// caller may see), sorted by token id, without their HMACs.
func (c *Client) DescribeDelegationTokens(ctx context.Context, owners []string) ([]TokenInfo, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	var ps []kadm.Principal
	for _, o := range owners {
		ps = append(ps, ParsePrincipal(o))
	}
	var ts kadm.DelegationTokens
	if err := retryCall(ctx, "", func(ctx context.Context) error {
		var err error
		ts, err = c.adm.DescribeDelegationTokens(ctx, ps...)
		return err
	}); err != nil {
		return nil, err
	}
	out := []TokenInfo{}
	for _, t := range ts {
		ti := TokenInfo{TokenID: t.TokenID, Owner: principal(t.Owner), Requester: principal(t.TokenRequesterPrincipal), Renewers: []string{},
			IssuedMs: t.IssueTimestamp.UnixMilli(), ExpiryMs: t.ExpiryTimestamp.UnixMilli(), MaxMs: t.MaxTimestamp.UnixMilli()}
		for _, r := range t.Renewers {
			ti.Renewers = append(ti.Renewers, principal(r))
		}
		out = append(out, ti)
	}
	slices.SortFunc(out, func(a, b TokenInfo) int { return strings.Compare(a.TokenID, b.TokenID) })
	return out, nil
}
