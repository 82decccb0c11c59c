package awscreds

import (
	"context"
	"crypto/sha1" //nolint:gosec // the SSO token cache's file name, as the AWS CLI computes it
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/kadmin-lua/kadmin-lua/internal/boundedfile"
)

// stsEndpointOverride is AWS_ENDPOINT_URL_STS, else AWS_ENDPOINT_URL, else a
// profile's endpoint_url ("" when none: the regional endpoint).
func (r *resolver) stsEndpointOverride(profileURL string) string {
	return firstOf(r.env("AWS_ENDPOINT_URL_STS"), r.env("AWS_ENDPOINT_URL"), profileURL)
}

func stsEndpoint(override, region string) (endpoint, signingRegion string) {
	if region == "" {
		region = "us-east-1" // the global endpoint signs as us-east-1
	}
	if override != "" {
		return override, region
	}
	suffix := "amazonaws.com"
	if strings.HasPrefix(region, "cn-") {
		suffix = "amazonaws.com.cn"
	}
	return "https://sts." + region + "." + suffix, region
}

// stsCredentials is the Credentials element of AssumeRole and
// AssumeRoleWithWebIdentity answers.
type stsCredentials struct {
	AccessKeyID     string    `xml:"AccessKeyId"`
	SecretAccessKey string    `xml:"SecretAccessKey"`
	SessionToken    string    `xml:"SessionToken"`
	Expiration      time.Time `xml:"Expiration"`
}

type stsAnswer struct {
	AssumeRole  stsCredentials `xml:"AssumeRoleResult>Credentials"`
	WebIdentity stsCredentials `xml:"AssumeRoleWithWebIdentityResult>Credentials"`
	Error       struct {
		Code    string `xml:"Code"`
		Message string `xml:"Message"`
	} `xml:"Error"`
}

// callSTS posts one STS Query API action; sign, when set, signs it.
func (r *resolver) callSTS(ctx context.Context, endpoint, region string, form url.Values, sign *aws.Credentials) (stsCredentials, error) {
	form.Set("Version", "2011-06-15")
	body := form.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(body))
	if err != nil {
		return stsCredentials{}, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
	if sign != nil {
		sum := sha256.Sum256([]byte(body))
		if err := v4.NewSigner().SignHTTP(ctx, *sign, req, hex.EncodeToString(sum[:]), "sts", region, time.Now()); err != nil {
			return stsCredentials{}, err
		}
	}
	resp, err := r.hc.Do(req)
	if err != nil {
		return stsCredentials{}, fmt.Errorf("STS %s: %w", form.Get("Action"), err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return stsCredentials{}, fmt.Errorf("STS %s: %w", form.Get("Action"), err)
	}
	var a stsAnswer
	xerr := xml.Unmarshal(b, &a)
	if resp.StatusCode != http.StatusOK {
		if a.Error.Code != "" {
			return stsCredentials{}, fmt.Errorf("STS %s: %s: %s", form.Get("Action"), a.Error.Code, a.Error.Message)
		}
		return stsCredentials{}, fmt.Errorf("STS %s: %s", form.Get("Action"), resp.Status)
	}
	c := a.AssumeRole
	if c.AccessKeyID == "" {
		c = a.WebIdentity
	}
	if xerr != nil || c.AccessKeyID == "" {
		return stsCredentials{}, fmt.Errorf("STS %s: an answer without credentials", form.Get("Action"))
	}
	return c, nil
}

func (c stsCredentials) aws(source string) aws.Credentials {
	return aws.Credentials{AccessKeyID: c.AccessKeyID, SecretAccessKey: c.SecretAccessKey, SessionToken: c.SessionToken,
		Source: source, CanExpire: !c.Expiration.IsZero(), Expires: c.Expiration}
}

// assumeRole is STS AssumeRole with the source's credentials.
type assumeRole struct {
	r                                                     *resolver
	source                                                aws.CredentialsProvider
	roleARN, sessionName, externalID, region, endpointURL string
}

func (a *assumeRole) Retrieve(ctx context.Context) (aws.Credentials, error) {
	src, err := a.source.Retrieve(ctx)
	if err != nil {
		return aws.Credentials{}, err
	}
	endpoint, region := stsEndpoint(a.endpointURL, a.region)
	form := url.Values{"Action": {"AssumeRole"}, "RoleArn": {a.roleARN}, "RoleSessionName": {a.sessionName}}
	if a.externalID != "" {
		form.Set("ExternalId", a.externalID)
	}
	c, err := a.r.callSTS(ctx, endpoint, region, form, &src)
	if err != nil {
		return aws.Credentials{}, fmt.Errorf("assuming %s: %w", a.roleARN, err)
	}
	return c.aws("assumed role " + a.roleARN), nil
}

// webIdentity is STS AssumeRoleWithWebIdentity with a token file (IRSA on
// EKS); the file is read at every refresh, as it rotates.
type webIdentity struct {
	r                                                    *resolver
	roleARN, tokenFile, sessionName, region, endpointURL string
}

func (w *webIdentity) Retrieve(ctx context.Context) (aws.Credentials, error) {
	tok, err := boundedfile.Read(w.tokenFile, boundedfile.Token)
	if err != nil {
		return aws.Credentials{}, fmt.Errorf("web identity token: %w", err)
	}
	name := w.sessionName
	if name == "" {
		name = "kadmin-lua-" + strconv.FormatInt(time.Now().Unix(), 10)
	}
	endpoint, region := stsEndpoint(w.endpointURL, w.region)
	c, err := w.r.callSTS(ctx, endpoint, region, url.Values{"Action": {"AssumeRoleWithWebIdentity"}, "RoleArn": {w.roleARN},
		"RoleSessionName": {name}, "WebIdentityToken": {strings.TrimSpace(string(tok))}}, nil)
	if err != nil {
		return aws.Credentials{}, fmt.Errorf("assuming %s with the web identity token %s: %w", w.roleARN, w.tokenFile, err)
	}
	return c.aws("web identity " + w.roleARN), nil
}

// ssoProvider gets role credentials from the IAM Identity Center portal
// with the access token `aws sso login` cached.
type ssoProvider struct {
	r                                   *resolver
	profile, cacheFile, region, account string
	role, endpointURL                   string
}

func (r *resolver) sso(name string, p map[string]string) (aws.CredentialsProvider, error) {
	s := &ssoProvider{r: r, profile: name, region: p["sso_region"], account: p["sso_account_id"], role: p["sso_role_name"],
		endpointURL: firstOf(r.env("AWS_ENDPOINT_URL_SSO"), r.env("AWS_ENDPOINT_URL"))}
	key := p["sso_start_url"]
	if sess := p["sso_session"]; sess != "" {
		cfg, ok := r.conf.ssoSessions[sess]
		if !ok {
			return nil, fmt.Errorf("AWS profile %s names sso_session %s, which the config file does not have", name, sess)
		}
		key, s.region = sess, firstOf(cfg["sso_region"], s.region)
	}
	if s.region == "" || s.account == "" || s.role == "" {
		return nil, fmt.Errorf("AWS profile %s needs sso_region, sso_account_id and sso_role_name", name)
	}
	sum := sha1.Sum([]byte(key)) //nolint:gosec // a file name, not a secret
	s.cacheFile = filepath.Join(r.home(), ".aws", "sso", "cache", hex.EncodeToString(sum[:])+".json")
	return s, nil
}

func (s *ssoProvider) Retrieve(ctx context.Context) (aws.Credentials, error) {
	login := fmt.Sprintf("run `aws sso login --profile %s`", s.profile)
	b, err := boundedfile.Read(s.cacheFile, boundedfile.Token)
	if err != nil {
		return aws.Credentials{}, fmt.Errorf("AWS profile %s: no SSO login cached (%s)", s.profile, login)
	}
	var tok struct {
		AccessToken string    `json:"accessToken"`
		ExpiresAt   time.Time `json:"expiresAt"`
	}
	if json.Unmarshal(b, &tok) != nil || tok.AccessToken == "" {
		return aws.Credentials{}, fmt.Errorf("AWS profile %s: the cached SSO login %s is unreadable (%s)", s.profile, s.cacheFile, login)
	}
	if time.Now().After(tok.ExpiresAt) {
		return aws.Credentials{}, fmt.Errorf("AWS profile %s: the SSO login has expired (%s)", s.profile, login)
	}
	endpoint := firstOf(s.endpointURL, "https://portal.sso."+s.region+".amazonaws.com")
	q := url.Values{"account_id": {s.account}, "role_name": {s.role}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(endpoint, "/")+"/federation/credentials?"+q.Encode(), nil)
	if err != nil {
		return aws.Credentials{}, err
	}
	req.Header.Set("x-amz-sso_bearer_token", tok.AccessToken)
	resp, err := s.r.hc.Do(req)
	if err != nil {
		return aws.Credentials{}, fmt.Errorf("AWS SSO GetRoleCredentials: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return aws.Credentials{}, fmt.Errorf("AWS SSO GetRoleCredentials for %s in %s: %s (%s)", s.role, s.account, resp.Status, login)
	}
	var out struct {
		RoleCredentials struct {
			AccessKeyID     string `json:"accessKeyId"`
			SecretAccessKey string `json:"secretAccessKey"`
			SessionToken    string `json:"sessionToken"`
			Expiration      int64  `json:"expiration"`
		} `json:"roleCredentials"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&out); err != nil || out.RoleCredentials.AccessKeyID == "" {
		return aws.Credentials{}, fmt.Errorf("AWS SSO GetRoleCredentials: an answer without credentials")
	}
	rc := out.RoleCredentials
	return aws.Credentials{AccessKeyID: rc.AccessKeyID, SecretAccessKey: rc.SecretAccessKey, SessionToken: rc.SessionToken,
		Source: "SSO " + s.profile, CanExpire: true, Expires: time.UnixMilli(rc.Expiration)}, nil
}
