package awscreds

import (
	"context"
	"crypto/sha1" //nolint:gosec // the SSO cache file name
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeAWS is a stub STS, SSO portal, container endpoint and IMDS on one
// httptest server; it records what each call carried.
type fakeAWS struct {
	srv   *httptest.Server
	mu    sync.Mutex
	calls []string
}

func newFakeAWS(t *testing.T) *fakeAWS {
	f := &fakeAWS{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		note := r.Method + " " + r.URL.Path
		exp := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
		switch {
		case r.Form.Get("Action") == "AssumeRoleWithWebIdentity":
			note += fmt.Sprintf(" web-identity role=%s token=%s", r.Form.Get("RoleArn"), r.Form.Get("WebIdentityToken"))
			if r.Form.Get("WebIdentityToken") != "jwt-from-eks" {
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprint(w, `<ErrorResponse><Error><Code>InvalidIdentityToken</Code><Message>bad token</Message></Error></ErrorResponse>`)
				break
			}
			fmt.Fprintf(w, `<AssumeRoleWithWebIdentityResponse><AssumeRoleWithWebIdentityResult><Credentials>
				<AccessKeyId>AKIDWEB</AccessKeyId><SecretAccessKey>web-secret</SecretAccessKey><SessionToken>web-token</SessionToken>
				<Expiration>%s</Expiration></Credentials></AssumeRoleWithWebIdentityResult></AssumeRoleWithWebIdentityResponse>`, exp)
		case r.Form.Get("Action") == "AssumeRole":
			auth := r.Header.Get("Authorization")
			note += fmt.Sprintf(" assume-role role=%s session=%s signed-by=%s", r.Form.Get("RoleArn"), r.Form.Get("RoleSessionName"),
				between(auth, "Credential=", "/"))
			if !strings.Contains(auth, "/sts/aws4_request") {
				w.WriteHeader(http.StatusForbidden)
				fmt.Fprint(w, `<ErrorResponse><Error><Code>IncompleteSignature</Code><Message>unsigned</Message></Error></ErrorResponse>`)
				break
			}
			fmt.Fprintf(w, `<AssumeRoleResponse><AssumeRoleResult><Credentials><AccessKeyId>AKIDROLE</AccessKeyId>
				<SecretAccessKey>role-secret</SecretAccessKey><SessionToken>role-token</SessionToken><Expiration>%s</Expiration>
				</Credentials></AssumeRoleResult></AssumeRoleResponse>`, exp)
		case r.URL.Path == "/federation/credentials":
			note += fmt.Sprintf(" sso account=%s role=%s bearer=%s", r.Form.Get("account_id"), r.Form.Get("role_name"), r.Header.Get("x-amz-sso_bearer_token"))
			_ = json.NewEncoder(w).Encode(map[string]any{"roleCredentials": map[string]any{"accessKeyId": "AKIDSSO",
				"secretAccessKey": "sso-secret", "sessionToken": "sso-token", "expiration": time.Now().Add(time.Hour).UnixMilli()}})
		case r.URL.Path == "/container":
			note += " container auth=" + r.Header.Get("Authorization")
			_ = json.NewEncoder(w).Encode(map[string]string{"AccessKeyId": "AKIDECS", "SecretAccessKey": "ecs-secret", "Token": "ecs-token", "Expiration": exp})
		case r.URL.Path == "/latest/api/token":
			fmt.Fprint(w, "imds-session")
		case r.URL.Path == "/latest/meta-data/iam/security-credentials/":
			fmt.Fprint(w, "ec2-role")
		case r.URL.Path == "/latest/meta-data/iam/security-credentials/ec2-role":
			_ = json.NewEncoder(w).Encode(map[string]string{"Code": "Success", "AccessKeyId": "AKIDEC2", "SecretAccessKey": "ec2-secret",
				"Token": "ec2-token", "Expiration": exp, "LastUpdated": time.Now().UTC().Format(time.RFC3339), "Type": "AWS-HMAC"})
		default:
			http.NotFound(w, r)
		}
		f.mu.Lock()
		f.calls = append(f.calls, note)
		f.mu.Unlock()
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func between(s, from, to string) string {
	_, after, _ := strings.Cut(s, from)
	v, _, _ := strings.Cut(after, to)
	return v
}

func (f *fakeAWS) seen() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.calls, "\n")
}

type world struct {
	t    *testing.T
	home string
	env  map[string]string
	aws  *fakeAWS
}

func newWorld(t *testing.T) *world {
	home := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".aws", "sso", "cache"), 0o700))
	f := newFakeAWS(t)
	return &world{t: t, home: home, aws: f, env: map[string]string{"HOME": home, "AWS_EC2_METADATA_DISABLED": "true",
		"AWS_ENDPOINT_URL_STS": f.srv.URL, "AWS_ENDPOINT_URL_SSO": f.srv.URL}}
}

func (w *world) file(rel, content string) string {
	p := filepath.Join(w.home, rel)
	require.NoError(w.t, os.WriteFile(p, []byte(content), 0o600))
	return p
}

func (w *world) creds(o Options) (string, error) {
	o.Getenv = func(k string) string { return w.env[k] }
	p, err := Provider(o)
	if err != nil {
		return "", err
	}
	c, err := p.Retrieve(context.Background())
	if err != nil {
		return "", err
	}
	return c.AccessKeyID + ":" + c.SecretAccessKey + ":" + c.SessionToken, nil
}

func TestChainSources(t *testing.T) {
	t.Run("environment first", func(t *testing.T) {
		w := newWorld(t)
		w.env["AWS_ACCESS_KEY_ID"], w.env["AWS_SECRET_ACCESS_KEY"], w.env["AWS_SESSION_TOKEN"] = "AKIDENV", "env-secret", "env-token"
		w.file(".aws/credentials", "[default]\naws_access_key_id = AKIDFILE\naws_secret_access_key = file-secret\n")
		got, err := w.creds(Options{})
		require.NoError(t, err)
		assert.Equal(t, "AKIDENV:env-secret:env-token", got)
	})
	t.Run("web identity from the environment (IRSA)", func(t *testing.T) {
		w := newWorld(t)
		w.env["AWS_ROLE_ARN"] = "arn:aws:iam::1:role/msk"
		w.env["AWS_WEB_IDENTITY_TOKEN_FILE"] = w.file("token", "jwt-from-eks\n")
		got, err := w.creds(Options{})
		require.NoError(t, err)
		assert.Equal(t, "AKIDWEB:web-secret:web-token", got)
		assert.Contains(t, w.aws.seen(), "web-identity role=arn:aws:iam::1:role/msk token=jwt-from-eks")

		w.file("token", "a-wrong-jwt")
		_, err = w.creds(Options{})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "InvalidIdentityToken: bad token")
	})
	t.Run("profile with source_profile, role and then awsRoleArn", func(t *testing.T) {
		w := newWorld(t)
		w.file(".aws/config", "[profile ops]\nrole_arn = arn:aws:iam::1:role/ops\nsource_profile = base\nrole_session_name = me\nregion = eu-west-1\n")
		w.file(".aws/credentials", "[base]\naws_access_key_id = AKIDBASE\naws_secret_access_key = base-secret\n")
		got, err := w.creds(Options{Profile: "ops"})
		require.NoError(t, err)
		assert.Equal(t, "AKIDROLE:role-secret:role-token", got)
		assert.Contains(t, w.aws.seen(), "assume-role role=arn:aws:iam::1:role/ops session=me signed-by=AKIDBASE")

		got, err = w.creds(Options{Profile: "base", RoleARN: "arn:aws:iam::1:role/kafka-admin"})
		require.NoError(t, err)
		assert.Equal(t, "AKIDROLE:role-secret:role-token", got)
		assert.Contains(t, w.aws.seen(), "assume-role role=arn:aws:iam::1:role/kafka-admin session=kadmin-lua signed-by=AKIDBASE")
	})
	t.Run("credential_process", func(t *testing.T) {
		w := newWorld(t)
		w.file(".aws/config", `[default]
credential_process = echo '{"Version": 1, "AccessKeyId": "AKIDPROC", "SecretAccessKey": "proc-secret"}'
`)
		got, err := w.creds(Options{})
		require.NoError(t, err)
		assert.Equal(t, "AKIDPROC:proc-secret:", got)
	})
	t.Run("SSO from the cached login", func(t *testing.T) {
		w := newWorld(t)
		w.file(".aws/config", "[profile dev]\nsso_session = corp\nsso_account_id = 111122223333\nsso_role_name = KafkaAdmin\n"+
			"[sso-session corp]\nsso_region = eu-west-1\nsso_start_url = https://corp.awsapps.com/start\n")
		_, err := w.creds(Options{Profile: "dev"})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "run `aws sso login --profile dev`")
		sum := sha1.Sum([]byte("corp")) //nolint:gosec
		w.file(".aws/sso/cache/"+hex.EncodeToString(sum[:])+".json",
			fmt.Sprintf(`{"accessToken": "sso-access", "expiresAt": %q}`, time.Now().Add(time.Hour).UTC().Format(time.RFC3339)))
		got, err := w.creds(Options{Profile: "dev"})
		require.NoError(t, err)
		assert.Equal(t, "AKIDSSO:sso-secret:sso-token", got)
		assert.Contains(t, w.aws.seen(), "sso account=111122223333 role=KafkaAdmin bearer=sso-access")
	})
	t.Run("container endpoint", func(t *testing.T) {
		w := newWorld(t)
		w.env["AWS_CONTAINER_CREDENTIALS_FULL_URI"] = w.aws.srv.URL + "/container"
		w.env["AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"] = w.file("pod-token", "pod-identity-token\n")
		got, err := w.creds(Options{})
		require.NoError(t, err)
		assert.Equal(t, "AKIDECS:ecs-secret:ecs-token", got)
		assert.Contains(t, w.aws.seen(), "container auth=pod-identity-token")
	})
	t.Run("instance metadata", func(t *testing.T) {
		w := newWorld(t)
		delete(w.env, "AWS_EC2_METADATA_DISABLED")
		w.env["AWS_EC2_METADATA_SERVICE_ENDPOINT"] = w.aws.srv.URL
		got, err := w.creds(Options{})
		require.NoError(t, err)
		assert.Equal(t, "AKIDEC2:ec2-secret:ec2-token", got)
	})
}

func TestChainRefusals(t *testing.T) {
	for name, tc := range map[string]struct {
		config, profile, want string
	}{
		"no credentials anywhere": {"", "", "no AWS credentials"},
		"unknown profile":         {"", "nope", "AWS profile nope is in neither"},
		"MFA":                     {"[profile p]\nrole_arn = r\nsource_profile = p\nmfa_serial = m\n", "p", "needs an MFA code"},
		"source_profile loop":     {"[profile a]\nrole_arn = r\nsource_profile = b\n[profile b]\nrole_arn = r\nsource_profile = a\n", "a", "loops back"},
		"profile without keys":    {"[profile p]\nregion = eu-west-1\n", "p", "has no credentials"},
		"bad file":                {"aws_access_key_id = x\n", "", "outside any [section]"},
	} {
		t.Run(name, func(t *testing.T) {
			w := newWorld(t)
			w.file(".aws/config", tc.config)
			_, err := w.creds(Options{Profile: tc.profile})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
