package schemas

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/twmb/franz-go/pkg/sr"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// Registry is a connection to one Schema Registry. It is safe for
// concurrent use and dials nothing until the first request. Schemas read
// by id are kept for its life (ids are immutable in a registry): a run
// decoding 10,000 records of one schema asks for it once.
type Registry struct {
	cfg Config
	cl  *sr.Client

	mu   sync.Mutex
	byID map[int]*idEntry
}

// idEntry is one schema id: fetched once, its codec compiled once
// (codec.go); the other callers wait for the first.
type idEntry struct {
	once   sync.Once
	schema Schema
	err    *vocab.Error

	compileOnce sync.Once
	codec       Codec
	codecErr    *vocab.Error
}

// maxResponse bounds one registry answer: a schema of a few megabytes is
// already unusual, and a registry (or something in its place) answering
// garbage without end must not grow the process until the kernel kills it.
const maxResponse = 16 << 20

// New builds a client for cfg's registry. It checks cfg and reads the TLS
// files; it sends nothing.
func New(cfg Config) (*Registry, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil // the registry is reached directly, as the brokers are
	if cfg.TLS != nil {
		tc, err := cfg.TLS.Build()
		if err != nil {
			return nil, err
		}
		tr.TLSClientConfig = tc
	}
	origins := map[string]bool{}
	for _, u := range cfg.URLs {
		if p, err := url.Parse(u); err == nil {
			origins[p.Scheme+"://"+p.Host] = true
		}
	}
	httpcl := &http.Client{
		Transport: boundedTransport{tr},
		Timeout:   cfg.timeout(),
		// Credentials and requests go to the configured registry only: a
		// redirect elsewhere (a registry behind a misconfigured proxy, or
		// one that is not what it claims) is refused, not followed.
		CheckRedirect: func(req *http.Request, _ []*http.Request) error {
			if !origins[req.URL.Scheme+"://"+req.URL.Host] {
				return fmt.Errorf("the registry redirected to %s://%s, which is not the configured registry: not followed", req.URL.Scheme, req.URL.Host)
			}
			return nil
		},
	}
	opts := []sr.ClientOpt{sr.URLs(cfg.URLs...), sr.HTTPClient(httpcl), sr.UserAgent("kadmin-lua")}
	switch {
	case cfg.Username != "":
		opts = append(opts, sr.BasicAuth(cfg.Username, cfg.Password.Reveal()))
	case cfg.Token != "":
		opts = append(opts, sr.BearerToken(cfg.Token.Reveal()))
	}
	cl, err := sr.NewClient(opts...)
	if err != nil {
		return nil, vocab.Errorf(vocab.CodeInvalidArgument, "", "schema registry: %v", err)
	}
	return &Registry{cfg: cfg, cl: cl, byID: map[int]*idEntry{}}, nil
}

// Config is the configuration r was built from.
func (r *Registry) Config() Config { return r.cfg }

// boundedTransport cuts every answer at maxResponse bytes.
type boundedTransport struct{ next http.RoundTripper }

func (t boundedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &boundedBody{rc: resp.Body, left: maxResponse}
	return resp, nil
}

type boundedBody struct {
	rc   io.ReadCloser
	left int64
}

// errTooLarge is an answer over maxResponse.
var errTooLarge = fmt.Errorf("the registry's answer is larger than %d MiB", maxResponse>>20)

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, errTooLarge
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *boundedBody) Close() error { return b.rc.Close() }

// Error codes of registry calls besides the registry's own error names
// (SUBJECT_NOT_FOUND, INCOMPATIBLE_SCHEMA, ...: sr's Error names).
const (
	// CodeNoRegistry: the call needs a registry and the client has none.
	CodeNoRegistry = "NO_SCHEMA_REGISTRY"
	// CodeRegistryUnavailable: the registry answered 5xx or 429.
	CodeRegistryUnavailable = "SCHEMA_REGISTRY_UNAVAILABLE"
	// CodeBadResponse: the registry's answer is not what its API says.
	CodeBadResponse = "SCHEMA_REGISTRY_BAD_RESPONSE"
)

// AsError turns an error of a registry call into the engine's error, with
// the registry's error name as code where it gave one.
func AsError(err error, resource string) *vocab.Error {
	if err == nil {
		return nil
	}
	var e *vocab.Error
	if errors.As(err, &e) {
		return e
	}
	var re *sr.ResponseError
	if errors.As(err, &re) {
		msg := strings.TrimSpace(re.Message)
		if msg == "" {
			msg = strings.TrimSpace(string(re.Raw))
		}
		if len(msg) > 500 {
			msg = msg[:500] + "..."
		}
		out := &vocab.Error{Code: CodeBadResponse, Message: fmt.Sprintf("HTTP %d: %s", re.StatusCode, msg), Resource: resource, Err: err}
		switch se := re.SchemaError(); {
		case re.StatusCode == http.StatusUnauthorized || re.StatusCode == http.StatusForbidden:
			out.Code = vocab.CodeAuth
			out.Message = fmt.Sprintf("the schema registry refused the login (HTTP %d): %s", re.StatusCode, msg)
		case re.StatusCode >= 500 || re.StatusCode == http.StatusTooManyRequests:
			out.Code, out.Retriable = CodeRegistryUnavailable, true
		case se != nil:
			out.Code, out.Message = se.Name, msg
		case re.StatusCode == http.StatusNotFound:
			out.Code = vocab.CodeNotFound
		}
		return out
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return &vocab.Error{Code: vocab.CodeTimeout, Message: "the schema registry did not answer in time", Resource: resource, Retriable: true, Err: err}
	case errors.Is(err, context.Canceled):
		return &vocab.Error{Code: vocab.CodeCanceled, Message: "canceled", Resource: resource, Err: err}
	case errors.Is(err, errTooLarge):
		return &vocab.Error{Code: CodeBadResponse, Message: errTooLarge.Error(), Resource: resource, Err: err}
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "not the configured registry"):
		return &vocab.Error{Code: CodeBadResponse, Message: msg, Resource: resource, Err: err}
	case strings.Contains(msg, "unable to decode ok response body"):
		return &vocab.Error{Code: CodeBadResponse, Message: "the schema registry's answer is not its API's JSON: " + msg, Resource: resource, Err: err}
	case strings.Contains(msg, "tls:") || strings.Contains(msg, "x509:") || strings.Contains(msg, "certificate"):
		return &vocab.Error{Code: vocab.CodeTLS, Message: "schema registry: " + msg, Resource: resource, Err: err}
	}
	var ue *url.Error
	if errors.As(err, &ue) && ue.Timeout() {
		return &vocab.Error{Code: vocab.CodeTimeout, Message: "the schema registry did not answer in time", Resource: resource, Retriable: true, Err: err}
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		return &vocab.Error{Code: vocab.CodeNetwork, Message: "cannot reach the schema registry: " + msg, Resource: resource, Retriable: true, Err: err}
	}
	return &vocab.Error{Code: vocab.CodeNetwork, Message: "schema registry: " + err.Error(), Resource: resource, Retriable: true, Err: err}
}

// read runs a read, retried with backoff while its error is retriable and
// ctx lasts.
func (r *Registry) read(ctx context.Context, resource string, fn func(ctx context.Context) error) *vocab.Error {
	for attempt := 0; ; attempt++ {
		err := AsError(fn(ctx), resource)
		if err == nil || !err.Retriable {
			return err
		}
		if !vocab.Backoff(ctx, attempt) {
			return err
		}
	}
}

// write runs a mutation once: its outcome when it fails is the caller's to
// find out (engine's mutate looks), never a blind retry.
func (r *Registry) write(ctx context.Context, resource string, fn func(ctx context.Context) error) *vocab.Error {
	return AsError(fn(ctx), resource)
}

// bounded gives ctx the request timeout when it has no deadline.
func (r *Registry) bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, r.cfg.timeout())
}
