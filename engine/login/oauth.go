package login

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/oauth"

	"github.com/kadmin-lua/kadmin-lua/engine/redact"
	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
	"github.com/kadmin-lua/kadmin-lua/internal/boundedfile"
)

// OAuthConfig says where OAUTHBEARER tokens come from. Exactly one source is
// set:
//
//   - Token: a fixed token (from an environment variable).
//   - TokenFile: a file holding the token, read again at every login (a
//     sidecar or Kubernetes may rotate it).
//   - TokenCommand: a shell command printing the token, or an OIDC token
//     response ({"access_token": ..., "expires_in": ...}); run again when
//     the token nears its expiry (a JWT's exp, or expires_in), or after a
//     minute when the expiry is unknown. It runs with a minimal
//     environment (TokenCommandBaseEnv) plus the variables TokenCommandEnv
//     names, never the whole of the process's: other clusters' passwords
//     stay out of it.
//   - TokenEndpoint: the OIDC client-credentials grant as Kafka's
//     OAuthBearerLoginCallbackHandler does it: ClientID and ClientSecret in
//     HTTP Basic auth, Scope when set; the token is fetched again when it
//     nears its expiry.
//   - UnsecuredClaims: an unsigned JWT made here with these string claims
//     ("sub" among them), for brokers with Kafka's unsecured validator
//     (OAuthBearerUnsecuredLoginCallbackHandler).
//
// A token is refreshed once RefreshFactor (default 0.8, Kafka's
// sasl.login.refresh.window.factor) of its lifetime has passed, or earlier
// to keep 5 minutes (half a shorter token's lifetime) in hand; the broker's
// session lifetime (connections.max.reauth.ms, capped by the token's expiry)
// makes the client log in again on each connection with the fresh token
// (KIP-368).
type OAuthConfig struct {
	Token        vocab.Secret
	TokenFile    string
	TokenCommand string
	// TokenCommandEnv names the variables of the process's environment
	// that the token command gets besides TokenCommandBaseEnv.
	TokenCommandEnv []string
	// LookupEnv reads those variables; nil: os.LookupEnv. The CLI takes
	// its secrets out of the process's environment at start and reads
	// them from where it keeps them (cmd/kadmin-lua/seal.go).
	LookupEnv     func(name string) (string, bool)
	TokenEndpoint string
	ClientID      string
	ClientSecret  vocab.Secret
	Scope         string

	UnsecuredClaims   map[string]string
	UnsecuredLifetime time.Duration // default 1h

	Extensions    map[string]string // SASL extensions (Kafka's extension_NAME options)
	RefreshFactor float64

	// HTTPClient fetches from TokenEndpoint; nil is a client with a 30 s
	// timeout.
	HTTPClient *http.Client
}

// Source names the token source in messages (never the token).
func (o *OAuthConfig) Source() string {
	switch {
	case o.TokenEndpoint != "":
		return "token endpoint " + redact.Endpoint(o.TokenEndpoint)
	case o.TokenCommand != "":
		return "token command"
	case o.TokenFile != "":
		return "token file " + o.TokenFile
	case len(o.UnsecuredClaims) > 0:
		return "unsecured token"
	}
	return "token"
}

func (o *OAuthConfig) check() error {
	n := 0
	for _, set := range []bool{o.Token != "", o.TokenFile != "", o.TokenCommand != "", o.TokenEndpoint != "", len(o.UnsecuredClaims) > 0} {
		if set {
			n++
		}
	}
	switch {
	case n == 0:
		return vocab.Errorf(vocab.CodeInvalidArgument, "", "SASL OAUTHBEARER has no token: set a token (KADMIN_SASL_OAUTH_TOKEN), a token file, a token command or a token endpoint")
	case n > 1:
		return vocab.Errorf(vocab.CodeInvalidArgument, "", "SASL OAUTHBEARER has more than one token source (token, token file, token command, token endpoint): keep one")
	case o.TokenEndpoint != "" && o.ClientID == "":
		return vocab.Errorf(vocab.CodeInvalidArgument, "", "SASL OAUTHBEARER token endpoint %s needs a client id", redact.Endpoint(o.TokenEndpoint))
	case len(o.UnsecuredClaims) > 0 && o.UnsecuredClaims["sub"] == "":
		return vocab.Errorf(vocab.CodeInvalidArgument, "", "SASL OAUTHBEARER unsecured token needs a subject (unsecuredLoginStringClaim_sub)")
	}
	if o.TokenEndpoint != "" {
		u, err := url.Parse(o.TokenEndpoint)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return vocab.Errorf(vocab.CodeInvalidArgument, "", "SASL OAUTHBEARER token endpoint %s is not an http(s) URL", redact.Endpoint(o.TokenEndpoint))
		}
	}
	return nil
}

func (o *OAuthConfig) mechanism() (sasl.Mechanism, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	ts := &tokenSource{cfg: o, now: time.Now}
	return oauth.Oauth(func(ctx context.Context) (oauth.Auth, error) {
		tok, err := ts.get(ctx)
		if err != nil {
			return oauth.Auth{}, err
		}
		return oauth.Auth{Token: tok, Extensions: o.Extensions}, nil
	}), nil
}

// tokenSource caches a token until it is due for refresh.
type tokenSource struct {
	cfg       *OAuthConfig
	now       func() time.Time
	mu        sync.Mutex
	token     string
	refreshAt time.Time // zero: fetch at every login
}

// unknownLifetime is how long a command's token whose expiry is unknown is
// reused.
const unknownLifetime = time.Minute

func (ts *tokenSource) get(ctx context.Context) (string, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	now := ts.now()
	if ts.token != "" && !ts.refreshAt.IsZero() && now.Before(ts.refreshAt) {
		return ts.token, nil
	}
	o := ts.cfg
	var tok string
	var lifetime time.Duration // 0: unknown
	var err error
	switch {
	case o.Token != "":
		tok = o.Token.Reveal()
	case o.TokenFile != "":
		var b []byte
		if b, err = boundedfile.Read(o.TokenFile, boundedfile.Token); err != nil {
			return "", authErr("OAUTHBEARER", "reading token file: %v", err)
		}
		tok = strings.TrimSpace(string(b))
	case o.TokenCommand != "":
		tok, lifetime, err = runTokenCommand(ctx, o.TokenCommand, o.TokenCommandEnv, o.LookupEnv)
	case o.TokenEndpoint != "":
		tok, lifetime, err = o.clientCredentials(ctx)
	default:
		tok, lifetime = unsecuredJWT(o.UnsecuredClaims, o.UnsecuredLifetime, now)
	}
	if err != nil {
		return "", err
	}
	if tok == "" {
		return "", authErr("OAUTHBEARER", "the %s gave an empty token", o.Source())
	}
	if exp, ok := JWTExpiry(tok); ok && lifetime == 0 {
		lifetime = exp.Sub(now)
	}
	factor := o.RefreshFactor
	if factor <= 0 || factor > 1 {
		factor = 0.8
	}
	switch {
	case o.TokenFile != "":
		ts.refreshAt = time.Time{} // read at every login
	case lifetime > 0:
		ts.refreshAt = now.Add(refreshAfter(lifetime, factor))
	case o.Token != "":
		ts.refreshAt = now.Add(100 * 365 * 24 * time.Hour)
	default:
		ts.refreshAt = now.Add(unknownLifetime)
	}
	ts.token = tok
	return tok, nil
}

// refreshAfter is when a token of this lifetime is fetched again: after
// factor of it, but leaving at least Kafka's sasl.login.refresh.buffer.seconds
// (300 s) or, for a short token, half its lifetime. A login near the end of
// a token's life gets a session that short, and Kafka refuses a second
// re-authentication within a second (KafkaChannel), so the token a
// re-authentication sends must have time left.
func refreshAfter(lifetime time.Duration, factor float64) time.Duration {
	after := time.Duration(float64(lifetime) * factor)
	if buffer := min(300*time.Second, lifetime/2); lifetime-after < buffer {
		after = lifetime - buffer
	}
	return after
}

// tokenResponse is an OIDC token endpoint's answer (RFC 6749 5.1 and 5.2).
type tokenResponse struct {
	AccessToken string      `json:"access_token"`
	ExpiresIn   json.Number `json:"expires_in"`
	Error       string      `json:"error"`
	ErrorDesc   string      `json:"error_description"`
}

func (r tokenResponse) lifetime() time.Duration {
	if n, err := r.ExpiresIn.Float64(); err == nil && n > 0 {
		return time.Duration(n * float64(time.Second))
	}
	return 0
}

// TokenCommandBaseEnv are the variables a token command gets from the
// process's environment whatever the configuration: what a shell and the
// usual CLIs (vault, gcloud, az, aws) need to find their binaries, their
// configuration and the locale. PATH is /usr/local/bin:/usr/bin:/bin when
// unset.
var TokenCommandBaseEnv = []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TMPDIR", "TZ", "LANG", "LC_ALL", "LC_CTYPE"}

// tokenCommandEnv is the token command's environment: the base variables
// and those named, read with lookup (nil: from the process's).
func tokenCommandEnv(names []string, lookup func(string) (string, bool)) (env, secrets []string) {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	seen := map[string]bool{}
	for _, n := range append(append([]string{}, TokenCommandBaseEnv...), names...) {
		if seen[n] {
			continue
		}
		seen[n] = true
		v, ok := lookup(n)
		if n == "PATH" && !ok {
			v, ok = "/usr/local/bin:/usr/bin:/bin", true
		}
		if ok {
			env = append(env, n+"="+v)
			if !slices.Contains(TokenCommandBaseEnv, n) {
				secrets = append(secrets, v) // a named variable may be a credential (VAULT_TOKEN)
			}
		}
	}
	return env, secrets
}

// stderrSummaryMax caps the part of a token command's stderr an error shows.
const stderrSummaryMax = 200

// summarizeStderr is what an error shows of a failed command's stderr: its
// first non-empty line, credentials hidden (redact.Text, with the values
// of the variables it was given), cut at stderrSummaryMax bytes with the
// number of lines left out said.
func summarizeStderr(stderr string, secrets []string) string {
	var lines []string
	for _, l := range strings.Split(stderr, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return ""
	}
	first := redact.Text(lines[0], secrets...)
	if len(first) > stderrSummaryMax {
		cut := stderrSummaryMax
		for cut > 0 && !utf8.RuneStart(first[cut]) {
			cut--
		}
		first = first[:cut] + "..."
	}
	if more := len(lines) - 1; more > 0 {
		first += fmt.Sprintf(" (%d more stderr lines not shown)", more)
	}
	return first
}

// runTokenCommand runs a shell command that prints a token, or an OIDC
// token response in JSON, with the minimal environment and the variables
// pass names.
func runTokenCommand(ctx context.Context, command string, pass []string, lookup func(string) (string, bool)) (string, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", command)
	var secrets []string
	cmd.Env, secrets = tokenCommandEnv(pass, lookup)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := summarizeStderr(stderr.String(), append(secrets, strings.TrimSpace(stdout.String())))
		if msg != "" {
			msg = ": " + msg
		}
		return "", 0, authErr("OAUTHBEARER", "token command failed (%v)%s", err, msg)
	}
	out := strings.TrimSpace(stdout.String())
	if strings.HasPrefix(out, "{") {
		var r tokenResponse
		if err := json.Unmarshal([]byte(out), &r); err != nil || r.AccessToken == "" {
			return "", 0, authErr("OAUTHBEARER", "token command printed JSON without an access_token")
		}
		return r.AccessToken, r.lifetime(), nil
	}
	return out, 0, nil
}

// clientCredentials fetches a token with the OIDC client-credentials grant,
// as Kafka's OAuthBearerLoginCallbackHandler does: the client id and secret
// URL-encoded in HTTP Basic auth, grant_type and scope in the form body. A
// network error or a 5xx answer is tried three times.
func (o *OAuthConfig) clientCredentials(ctx context.Context) (string, time.Duration, error) {
	form := url.Values{"grant_type": {"client_credentials"}}
	if o.Scope != "" {
		form.Set("scope", o.Scope)
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	var lastErr error
	for attempt := range 3 {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return "", 0, authErr("OAUTHBEARER", "token endpoint %s: %v", redact.Endpoint(o.TokenEndpoint), ctx.Err())
			case <-time.After(time.Duration(attempt) * 200 * time.Millisecond):
			}
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.TokenEndpoint, strings.NewReader(form.Encode()))
		if err != nil {
			return "", 0, authErr("OAUTHBEARER", "token endpoint %s: %v", redact.Endpoint(o.TokenEndpoint), err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Accept", "application/json")
		req.SetBasicAuth(url.QueryEscape(o.ClientID), url.QueryEscape(o.ClientSecret.Reveal()))
		resp, err := hc.Do(req)
		if err != nil {
			lastErr = authErr("OAUTHBEARER", "token endpoint %s: %v", redact.Endpoint(o.TokenEndpoint), scrubURLErr(err))
			continue
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		_ = resp.Body.Close()
		if err != nil {
			lastErr = authErr("OAUTHBEARER", "token endpoint %s: reading the answer: %v", redact.Endpoint(o.TokenEndpoint), err)
			continue
		}
		var r tokenResponse
		jerr := json.Unmarshal(body, &r)
		if resp.StatusCode >= 500 {
			lastErr = authErr("OAUTHBEARER", "token endpoint %s answered %s", redact.Endpoint(o.TokenEndpoint), resp.Status)
			continue
		}
		if resp.StatusCode != http.StatusOK {
			detail := ""
			if r.Error != "" {
				detail = ": " + r.Error
				if r.ErrorDesc != "" {
					detail += " (" + r.ErrorDesc + ")"
				}
			}
			return "", 0, authErr("OAUTHBEARER", "token endpoint %s refused client %q: %s%s", redact.Endpoint(o.TokenEndpoint), o.ClientID, resp.Status, detail)
		}
		if jerr != nil || r.AccessToken == "" {
			return "", 0, authErr("OAUTHBEARER", "token endpoint %s answered without an access_token", redact.Endpoint(o.TokenEndpoint))
		}
		return r.AccessToken, r.lifetime(), nil
	}
	return "", 0, lastErr
}

// scrubURLErr drops the URL that net/http puts in its errors (it is in the
// message already).
func scrubURLErr(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// JWTExpiry reads a JWT's exp claim without checking its signature (the
// broker does that); ok is false when tok is not a JWT with exp.
func JWTExpiry(tok string) (time.Time, bool) {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return time.Time{}, false
	}
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return time.Time{}, false
	}
	var claims struct {
		Exp json.Number `json:"exp"`
	}
	if json.Unmarshal(payload, &claims) != nil {
		return time.Time{}, false
	}
	exp, err := claims.Exp.Float64()
	if err != nil || exp <= 0 {
		return time.Time{}, false
	}
	return time.Unix(0, int64(exp*1e9)), true
}

// unsecuredJWT makes the unsigned token Kafka's
// OAuthBearerUnsecuredLoginCallbackHandler makes: {"alg":"none"}, the
// claims, iat and exp; the scope claim is a list of the space-separated
// scopes.
func unsecuredJWT(claims map[string]string, lifetime time.Duration, now time.Time) (string, time.Duration) {
	if lifetime <= 0 {
		lifetime = time.Hour
	}
	c := map[string]any{}
	for k, v := range claims {
		c[k] = v
	}
	if s, ok := claims["scope"]; ok {
		c["scope"] = strings.Fields(s)
	}
	c["iat"] = float64(now.UnixMilli()) / 1000
	c["exp"] = float64(now.Add(lifetime).UnixMilli()) / 1000
	body, _ := json.Marshal(c)
	enc := base64.RawURLEncoding
	return enc.EncodeToString([]byte(`{"alg":"none"}`)) + "." + enc.EncodeToString(body) + ".", lifetime
}

// String never shows the token or the client secret.
func (o OAuthConfig) String() string { return fmt.Sprintf("OAUTHBEARER(%s)", o.Source()) }
