package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine/login"
)

// mskVerifier checks an AWS_MSK_IAM authentication payload the way MSK
// does: it signs the same request again with the secret key it knows for
// the access key, using the AWS SDK's own SigV4 signer, and compares.
func mskVerifier(secrets map[string]string) func(auth []byte) (string, []byte, error) {
	return func(auth []byte) (string, []byte, error) {
		var kv map[string]string
		if err := json.Unmarshal(auth, &kv); err != nil {
			return "", nil, fmt.Errorf("not JSON")
		}
		if kv["version"] != "2020_10_22" || kv["action"] != "kafka-cluster:Connect" {
			return "", nil, fmt.Errorf("bad version or action")
		}
		var accessKey, date, region, service string
		if _, err := fmt.Sscanf(replaceSlashes(kv["x-amz-credential"]), "%s %s %s %s", &accessKey, &date, &region, &service); err != nil {
			return "", nil, fmt.Errorf("bad credential scope")
		}
		secret, ok := secrets[accessKey]
		if !ok {
			return "", nil, fmt.Errorf("unknown access key")
		}
		at, err := time.Parse("20060102T150405Z", kv["x-amz-date"])
		if err != nil {
			return "", nil, fmt.Errorf("bad date")
		}
		q := url.Values{"Action": {kv["action"]}, "X-Amz-Expires": {kv["x-amz-expires"]}}
		if tok := kv["x-amz-security-token"]; tok != "" {
			q.Set("X-Amz-Security-Token", tok)
		}
		req, _ := http.NewRequest(http.MethodGet, "https://"+kv["host"]+"/?"+q.Encode(), nil)
		const emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
		signed, _, err := v4.NewSigner().PresignHTTP(context.Background(), aws.Credentials{AccessKeyID: accessKey, SecretAccessKey: secret,
			SessionToken: kv["x-amz-security-token"]}, req, emptySHA256, service, region, at)
		if err != nil {
			return "", nil, err
		}
		u, _ := url.Parse(signed)
		if u.Query().Get("X-Amz-Signature") != kv["x-amz-signature"] {
			return "", nil, fmt.Errorf("signature mismatch")
		}
		return accessKey + "/" + region + "/" + kv["x-amz-security-token"], []byte(`{"version":"2020_10_22","request-id":"test"}`), nil
	}
}

func replaceSlashes(s string) string {
	b := []byte(s)
	for i := range b {
		if b[i] == '/' {
			b[i] = ' '
		}
	}
	return string(b)
}

// isolateAWS points the SDK's chain at nothing but what the test sets.
func isolateAWS(t *testing.T) string {
	dir := t.TempDir()
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_ROLE_ARN", "AWS_WEB_IDENTITY_TOKEN_FILE"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	// The brokers are 127.0.0.1, which names no region: the signer takes it
	// from the environment, as with a broker behind a private DNS name.
	t.Setenv("AWS_REGION", "eu-west-1")
	return dir
}

func TestAWSMSKIAMSignsWithTheCredentialChain(t *testing.T) {
	dir := isolateAWS(t)
	b := newSASLBroker(t, "AWS_MSK_IAM", 0, mskVerifier(map[string]string{
		"AKIDENV": "env-secret", "AKIDPROFILE": "profile-secret", "AKIDWEB": "web-secret"}))
	cfg := func(a *login.AWSConfig) Config {
		return Config{Brokers: b.c.ListenAddrs(), Timeout: 3 * time.Second, SASL: &login.SASLConfig{Mechanism: "AWS_MSK_IAM", AWS: a}}
	}

	t.Run("environment", func(t *testing.T) {
		t.Setenv("AWS_ACCESS_KEY_ID", "AKIDENV")
		t.Setenv("AWS_SECRET_ACCESS_KEY", "env-secret")
		t.Setenv("AWS_SESSION_TOKEN", "session-1")
		require.NoError(t, listTopicsWith(t, cfg(nil)))
		assert.Contains(t, b.seen(), "AKIDENV/eu-west-1/session-1")
	})
	t.Run("shared credentials profile", func(t *testing.T) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "credentials"),
			[]byte("[ops]\naws_access_key_id = AKIDPROFILE\naws_secret_access_key = profile-secret\n"), 0o600))
		require.NoError(t, listTopicsWith(t, cfg(&login.AWSConfig{Profile: "ops"})))
		assert.Contains(t, b.seen(), "AKIDPROFILE/eu-west-1/")
	})
	t.Run("web identity token file with STS", func(t *testing.T) {
		sts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.FormValue("Action") != "AssumeRoleWithWebIdentity" || r.FormValue("WebIdentityToken") != "eks-jwt" {
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			fmt.Fprintf(w, `<AssumeRoleWithWebIdentityResponse><AssumeRoleWithWebIdentityResult><Credentials>
				<AccessKeyId>AKIDWEB</AccessKeyId><SecretAccessKey>web-secret</SecretAccessKey><SessionToken>web-session</SessionToken>
				<Expiration>%s</Expiration></Credentials></AssumeRoleWithWebIdentityResult></AssumeRoleWithWebIdentityResponse>`,
				time.Now().Add(time.Hour).UTC().Format(time.RFC3339))
		}))
		defer sts.Close()
		token := filepath.Join(dir, "web-token")
		require.NoError(t, os.WriteFile(token, []byte("eks-jwt"), 0o600))
		t.Setenv("AWS_ROLE_ARN", "arn:aws:iam::123456789012:role/msk")
		t.Setenv("AWS_WEB_IDENTITY_TOKEN_FILE", token)
		t.Setenv("AWS_ENDPOINT_URL_STS", sts.URL)
		require.NoError(t, listTopicsWith(t, cfg(nil)))
		assert.Contains(t, b.seen(), "AKIDWEB/eu-west-1/web-session")
	})
	t.Run("wrong secret", func(t *testing.T) {
		t.Setenv("AWS_ACCESS_KEY_ID", "AKIDENV")
		t.Setenv("AWS_SECRET_ACCESS_KEY", "not-the-secret")
		err := listTopicsWith(t, cfg(nil))
		require.Error(t, err)
		e := AsError(err, "")
		assert.Contains(t, e.Error(), "authentication failed")
		assert.Contains(t, e.Error(), "signature mismatch")
		assert.NotContains(t, e.Error(), "not-the-secret")
		named := WithMechanism(err, "AWS_MSK_IAM").Error()
		assert.True(t, strings.HasPrefix(named, "SASL_AUTHENTICATION_FAILED (AWS_MSK_IAM): authentication failed"), named)
		assert.NotContains(t, named, "not-the-secret")
	})
	t.Run("no credentials", func(t *testing.T) {
		err := listTopicsWith(t, cfg(&login.AWSConfig{Profile: "missing"}))
		require.Error(t, err)
		e := AsError(err, "")
		assert.Equal(t, CodeAuth, e.Code, "%v", err)
		assert.Contains(t, e.Error(), "AWS_MSK_IAM")
		assert.Contains(t, e.Error(), "profile missing")
		named := WithMechanism(err, "AWS_MSK_IAM").Error()
		assert.True(t, strings.HasPrefix(named, "AUTH (AWS_MSK_IAM): "), named)
		assert.Equal(t, 1, strings.Count(named, "AWS_MSK_IAM"), named)
	})
}
