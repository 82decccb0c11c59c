package desired

import (
	"cmp"
	"context"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
	"github.com/kadmin-lua/kadmin-lua/internal/boundedfile"
)

// The SCRAM users of a spec: a user's credential for one mechanism, its
// password read from an environment variable or a file, never written in
// a spec or a plan (docs/reconcile.md).

// SCRAMUserSpec is a user's SCRAM credential for one mechanism. The
// password is never in a spec or a plan: it is read from the environment
// variable PasswordEnv or the file PasswordFile, when planning (to
// fingerprint it) and again when applying.
type SCRAMUserSpec struct {
	User         string `json:"user"`
	Mechanism    string `json:"mechanism"`            // SCRAM-SHA-256 or SCRAM-SHA-512
	Iterations   int32  `json:"iterations,omitempty"` // 0: 4096
	PasswordEnv  string `json:"password_env,omitempty"`
	PasswordFile string `json:"password_file,omitempty"`
}

// Key names the credential: "alice/SCRAM-SHA-512".
func (s SCRAMUserSpec) Key() string { return s.User + "/" + s.Mechanism }

func (s SCRAMUserSpec) iterations() int32 { return cmp.Or(s.Iterations, 4096) }

func planSCRAM(spec Spec, st *clusterState, prune bool, salt []byte, env func(string) string) ([]Change, []string) {
	var out []Change
	var errs []string
	listed := map[string]bool{}
	for _, u := range spec.SCRAMUsers {
		k := u.Key()
		listed[k] = true
		iters, ok := st.scram[k]
		if ok && iters == u.iterations() {
			continue // Kafka returns no password: a credential with the iterations asked for is as the spec says
		}
		pw, err := u.password(env)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%sscram_user %s: %v", spec.where(KindSCRAMUser, k), k, err))
			continue
		}
		u := u
		action := ActionAlter
		if !ok {
			action = ActionCreate
		}
		out = append(out, Change{Kind: KindSCRAMUser, Name: k, Action: action, SCRAM: &u, PasswordFingerprint: fingerprint(salt, u.User, pw),
			Against: Observed{Exists: ok, Iterations: iters}})
	}
	if prune && spec.Owns.SCRAMUsers != nil {
		for _, k := range slices.Sorted(maps.Keys(st.scram)) {
			user, mech, _ := strings.Cut(k, "/")
			if listed[k] || !spec.Owns.SCRAMUsers.Contains(user) {
				continue
			}
			out = append(out, Change{Kind: KindSCRAMUser, Name: k, Action: ActionDelete, SCRAM: &SCRAMUserSpec{User: user, Mechanism: mech},
				Against: Observed{Exists: true, Iterations: st.scram[k]}})
		}
	}
	return out, errs
}

// password reads the credential's password from its environment variable
// or file (a regular file of at most boundedfile.Token bytes: a FIFO must
// not hang a plan); errors name the source, never the value.
func (s SCRAMUserSpec) password(env func(string) string) (string, error) {
	switch {
	case s.PasswordEnv != "":
		pw := env(s.PasswordEnv)
		if pw == "" {
			return "", fmt.Errorf("password_env: the environment variable %s is not set", s.PasswordEnv)
		}
		return pw, nil
	case s.PasswordFile != "":
		b, err := boundedfile.Read(s.PasswordFile, boundedfile.Token)
		if err != nil {
			return "", fmt.Errorf("password_file: %v", err)
		}
		pw := strings.TrimRight(string(b), "\r\n")
		if pw == "" {
			return "", fmt.Errorf("password_file: %s is empty", s.PasswordFile)
		}
		return pw, nil
	}
	return "", fmt.Errorf("password_env or password_file must be given")
}

// newSalt is a plan's salt for its password fingerprints.
func newSalt() []byte {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return b
}

// fingerprint is what a plan records of a password: PBKDF2-SHA256 (4096
// rounds, as SCRAM's minimum) salted with the plan's salt and the user, so
// a plan file says whether the password at apply is the one planned
// without holding it, and two plans never share a fingerprint.
func fingerprint(salt []byte, user, pw string) string {
	k, _ := pbkdf2.Key(sha256.New, pw, append(slices.Clone(salt), user...), 4096, 32)
	return "pbkdf2-sha256:4096:" + base64.RawStdEncoding.EncodeToString(k)
}

// passwordFor reads a SCRAM change's password again at apply and checks
// it is the one planned.
func passwordFor(ch Change, salt []byte, env func(string) string) (string, *vocab.Error) {
	pw, err := ch.SCRAM.password(env)
	if err != nil {
		return "", vocab.Errorf(vocab.CodeInvalidArgument, ch.Name, "%v", err)
	}
	if fingerprint(salt, ch.SCRAM.User, pw) != ch.PasswordFingerprint {
		return "", vocab.Errorf("STALE_PLAN", ch.Name, "scram_user %s: the password in %s is not the one planned; plan again", ch.Name, ch.SCRAM.passwordSource())
	}
	return pw, nil
}

// passwordSource says where the password is read: "$VAR" or the file.
func (s SCRAMUserSpec) passwordSource() string {
	if s.PasswordEnv != "" {
		return "$" + s.PasswordEnv
	}
	return s.PasswordFile
}

// applySCRAM sends one step of SCRAM changes: one
// AlterUserSCRAMCredentials.
func (c client) applySCRAM(ctx context.Context, p Plan, action string, chs []AppliedChange, idx []int, errs map[int]*vocab.Error, env func(string) string) error {
	var ups []engine.SCRAMUpsert
	var dels []engine.SCRAMDeletion
	users := map[string][]int{}
	salt, _ := base64.RawStdEncoding.DecodeString(p.Salt)
	for _, i := range idx {
		s := chs[i].SCRAM
		mech, err := engine.ParseSCRAMMechanism(s.Mechanism)
		if err != nil {
			errs[i] = vocab.Errorf(vocab.CodeInvalidArgument, chs[i].Name, "%v", err)
			continue
		}
		if action == ActionDelete {
			dels = append(dels, engine.SCRAMDeletion{User: s.User, Mechanism: mech})
		} else {
			pw, e := passwordFor(chs[i].Change, salt, env)
			if e != nil {
				errs[i] = e
				continue
			}
			ups = append(ups, engine.SCRAMUpsert{User: s.User, Mechanism: mech, Iterations: s.Iterations, Password: vocab.Secret(pw)})
		}
		users[s.User] = append(users[s.User], i)
	}
	if len(ups)+len(dels) == 0 {
		return nil
	}
	res, err := c.AlterUserSCRAMCredentials(ctx, ups, dels)
	for _, r := range res {
		for _, i := range users[r.User] {
			if r.Err != nil {
				errs[i] = r.Err
			}
		}
	}
	return err
}

// scramString is Change.String for a SCRAM change.
func (ch Change) scramString() string {
	switch ch.Action {
	case ActionDelete:
		return "delete scram_user " + ch.Name
	case ActionAlter:
		return fmt.Sprintf("alter scram_user %s iterations %d -> %d (password from %s)", ch.Name, ch.Against.Iterations, ch.SCRAM.iterations(), ch.SCRAM.passwordSource())
	}
	return fmt.Sprintf("create scram_user %s (iterations %d, password from %s)", ch.Name, ch.SCRAM.iterations(), ch.SCRAM.passwordSource())
}
