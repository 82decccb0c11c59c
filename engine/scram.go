package engine

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// SCRAM credentials (KIP-554). Passwords are Secrets: they are salted
// here (kadm derives the salted password) and never leave in results,
// errors, plans or logs.

// ParseSCRAMMechanism reads "SCRAM-SHA-256" / "SCRAM-SHA-512" (any case,
// with or without the "SCRAM-" prefix).
func ParseSCRAMMechanism(s string) (kadm.ScramMechanism, error) {
	n := strings.ToUpper(strings.ReplaceAll(s, "_", "-"))
	n = strings.TrimPrefix(n, "SCRAM-")
	switch n {
	case "SHA-256", "SHA256":
		return kadm.ScramSha256, nil
	case "SHA-512", "SHA512":
		return kadm.ScramSha512, nil
	}
	return 0, fmt.Errorf("unknown mechanism %q (SCRAM-SHA-256 or SCRAM-SHA-512)", s)
}

// SCRAMCredential is one row of DescribeUserSCRAMCredentials: a user's
// credential for one mechanism (no secret is ever returned by Kafka).
type SCRAMCredential struct {
	User       string `json:"user"`
	Mechanism  string `json:"mechanism,omitempty"`
	Iterations int32  `json:"iterations,omitempty"`
	Err        *Error `json:"error,omitempty"`
}

func (s SCRAMCredential) Key() string {
	if s.Mechanism == "" {
		return s.User
	}
	return s.User + "/" + s.Mechanism
}
func (s SCRAMCredential) Failure() *Error { return s.Err }

// DescribeUserSCRAMCredentials describes users' SCRAM credentials (every
// user's when users is empty), a row per user and mechanism, sorted. A
// named user without credentials gets a row with RESOURCE_NOT_FOUND.
func (c *Client) DescribeUserSCRAMCredentials(ctx context.Context, users []string) ([]SCRAMCredential, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	users = slices.Compact(slices.Sorted(slices.Values(users)))
	var res kadm.DescribedUserSCRAMs
	if e := retryCall(ctx, "", func(ctx context.Context) error {
		var err error
		res, err = c.adm.DescribeUserSCRAMs(ctx, users...)
		return err
	}); e != nil {
		return nil, e
	}
	out := []SCRAMCredential{}
	for _, d := range res.Sorted() {
		if d.Err != nil {
			e := AsError(d.Err, d.User)
			if d.ErrMessage != "" {
				e.Message = d.ErrMessage
			}
			out = append(out, SCRAMCredential{User: d.User, Err: e})
			continue
		}
		for _, ci := range d.CredInfos {
			out = append(out, SCRAMCredential{User: d.User, Mechanism: ci.Mechanism.String(), Iterations: ci.Iterations})
		}
	}
	slices.SortFunc(out, func(a, b SCRAMCredential) int {
		return cmp.Or(cmp.Compare(a.User, b.User), cmp.Compare(a.Mechanism, b.Mechanism))
	})
	return out, nil
}

// SCRAMUpsert creates or replaces a user's credential for a mechanism.
type SCRAMUpsert struct {
	User       string
	Mechanism  kadm.ScramMechanism
	Iterations int32 // 0: 4096
	Password   Secret
}

// SCRAMDeletion deletes a user's credential for a mechanism.
type SCRAMDeletion struct {
	User      string
	Mechanism kadm.ScramMechanism
}

// AlteredSCRAM is one result of AlterUserSCRAMCredentials. Kafka answers
// per user, so a user with several changes has one result.
type AlteredSCRAM struct {
	User string `json:"user"`
	Err  *Error `json:"error,omitempty"`
}

func (a AlteredSCRAM) Key() string     { return a.User }
func (a AlteredSCRAM) Failure() *Error { return a.Err }

// CheckSCRAMIterations is Kafka's allowed range.
func CheckSCRAMIterations(n int32) error {
	if n != 0 && (n < 4096 || n > 16384) {
		return fmt.Errorf("iterations must be between 4096 and 16384, got %d", n)
	}
	return nil
}

// AlterUserSCRAMCredentials upserts and deletes SCRAM credentials, one
// result per user, sorted. Upserting again is harmless, and a deletion
// retried after an unknown outcome (REQUEST_TIMED_OUT) that then finds
// nothing to delete counts as done.
func (c *Client) AlterUserSCRAMCredentials(ctx context.Context, upserts []SCRAMUpsert, dels []SCRAMDeletion) ([]AlteredSCRAM, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	var users []string
	for _, u := range upserts {
		if err := CheckSCRAMIterations(u.Iterations); err != nil {
			return nil, Errorf(CodeInvalidArgument, u.User, "%v", err)
		}
		if u.User == "" || u.Password == "" {
			return nil, Errorf(CodeInvalidArgument, u.User, "user and password must not be empty")
		}
		users = append(users, u.User)
	}
	for _, d := range dels {
		users = append(users, d.User)
	}
	users = slices.Compact(slices.Sorted(slices.Values(users)))
	// Kafka refuses a user named twice in one request (DUPLICATE_RESOURCE),
	// so a user's second change goes in a second round, and so on.
	var rounds []map[string]scramChange
	seen := map[string]int{}
	add := func(user string, ch scramChange) {
		r := seen[user]
		seen[user]++
		if r == len(rounds) {
			rounds = append(rounds, map[string]scramChange{})
		}
		rounds[r][user] = ch
	}
	for i := range dels {
		add(dels[i].User, scramChange{del: &dels[i]})
	}
	for i := range upserts {
		add(upserts[i].User, scramChange{up: &upserts[i]})
	}
	type change struct {
		User       string `json:"user"`
		Mechanism  string `json:"mechanism"`
		Iterations int32  `json:"iterations,omitempty"`
		Password   Secret `json:"password,omitempty"`
	}
	var ups, ds []change
	for _, u := range upserts {
		ups = append(ups, change{u.User, u.Mechanism.String(), u.Iterations, u.Password})
	}
	for _, d := range dels {
		ds = append(ds, change{User: d.User, Mechanism: d.Mechanism.String()})
	}
	return mutate(ctx, c, mutation[[]SCRAMCredential, []AlteredSCRAM]{
		op: "alter_user_scram_credentials", keys: users,
		args: struct {
			Upsertions []change `json:"upsertions,omitempty"`
			Deletions  []change `json:"deletions,omitempty"`
		}{ups, ds},
		before: func(ctx context.Context) ([]SCRAMCredential, error) {
			return c.DescribeUserSCRAMCredentials(ctx, users)
		},
		send: func(ctx context.Context, _ []SCRAMCredential) ([]AlteredSCRAM, error) {
			return c.alterSCRAM(ctx, users, rounds), nil
		},
		items: asItems[AlteredSCRAM],
	})
}

// alterSCRAM sends the rounds in turn; a user whose change failed gets no
// more.
func (c *Client) alterSCRAM(ctx context.Context, users []string, rounds []map[string]scramChange) []AlteredSCRAM {
	errs := map[string]*Error{}
	for _, round := range rounds {
		var keys []string
		for _, u := range slices.Sorted(maps.Keys(round)) {
			if errs[u] == nil {
				keys = append(keys, u)
			}
		}
		for u, e := range c.alterSCRAMRound(ctx, keys, round) {
			errs[u] = e
		}
	}
	out := make([]AlteredSCRAM, 0, len(users))
	for _, u := range users {
		out = append(out, AlteredSCRAM{User: u, Err: errs[u]})
	}
	return out
}

// scramChange is one upsert or deletion.
type scramChange struct {
	up  *SCRAMUpsert
	del *SCRAMDeletion
}

// alterSCRAMRound sends one change per user (users sorted, each in round).
func (c *Client) alterSCRAMRound(ctx context.Context, users []string, round map[string]scramChange) map[string]*Error {
	maybeDeleted := map[string]bool{}
	return retryItems(ctx, users, func(u string) string { return u }, func(ctx context.Context, pending []string) (map[string]*Error, error) {
		var ups []kadm.UpsertSCRAM
		var ds []kadm.DeleteSCRAM
		for _, u := range pending {
			switch ch := round[u]; {
			case ch.up != nil:
				ups = append(ups, kadm.UpsertSCRAM{User: u, Mechanism: ch.up.Mechanism, Iterations: ch.up.Iterations, Password: ch.up.Password.Reveal()})
			case ch.del != nil:
				ds = append(ds, kadm.DeleteSCRAM{User: u, Mechanism: ch.del.Mechanism})
			}
		}
		res, err := c.adm.AlterUserSCRAMs(ctx, ds, ups)
		if err != nil {
			return nil, err
		}
		answers := map[string]*Error{}
		for _, r := range res {
			e := AsError(r.Err, r.User)
			if e != nil && r.ErrMessage != "" {
				e.Message = r.ErrMessage
			}
			switch {
			case r.Err == kerr.RequestTimedOut:
				maybeDeleted[r.User] = true
				e.Retriable = true
			case r.Err == kerr.ResourceNotFound && maybeDeleted[r.User]:
				e = nil
			}
			answers[r.User] = e
		}
		return answers, nil
	})
}

// DescribeUserSCRAMCredentialsOn is users' SCRAM credentials as broker b
// alone describes them, a row per user and mechanism (a user without any
// has no row): a broker answers from its own copy of the cluster's
// metadata, a moment behind the controller's after a change (desired
// state's apply waits until each broker shows what it applied). Not
// retried.
func (c *Client) DescribeUserSCRAMCredentialsOn(ctx context.Context, b int32, users []string) ([]SCRAMCredential, error) {
	req := kmsg.NewPtrDescribeUserSCRAMCredentialsRequest()
	for _, u := range users {
		ru := kmsg.NewDescribeUserSCRAMCredentialsRequestUser()
		ru.Name = u
		req.Users = append(req.Users, ru)
	}
	resp, err := req.RequestWith(ctx, c.kgo.Broker(int(b)))
	if err != nil {
		return nil, AsError(err, fmt.Sprintf("broker %d", b))
	}
	if e := kafkaErr(resp.ErrorCode, resp.ErrorMessage, fmt.Sprintf("broker %d", b)); e != nil {
		return nil, e
	}
	var out []SCRAMCredential
	for _, r := range resp.Results {
		for _, ci := range r.CredentialInfos {
			out = append(out, SCRAMCredential{User: r.User, Mechanism: kadm.ScramMechanism(ci.Mechanism).String(), Iterations: ci.Iterations})
		}
	}
	return out, nil
}
