// Package awscreds finds AWS credentials the way the AWS SDKs' default
// chain does, for AWS_MSK_IAM logins: environment variables, web identity
// (IRSA), the shared config and credentials files with their profiles
// (static keys, credential_process, role_arn with source_profile or
// credential_source, web_identity_token_file, IAM Identity Center / SSO from
// the token cache of `aws sso login`), container credentials (ECS, EKS Pod
// Identity) and EC2 instance metadata (IMDSv2); a role may be assumed on
// top through STS.
//
// It uses the AWS SDK's light packages (credential types and cache, the
// SigV4 signer, the process, container and IMDS providers) and calls STS
// and the SSO portal over their small HTTP APIs itself: the SDK's config
// package links the STS, SSO, SSO-OIDC and sign-in service clients, whose
// package initializers alone cost every kadmin-lua run, MSK or not, more
// than a millisecond of start-up.
package awscreds

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials/ec2rolecreds"
	"github.com/aws/aws-sdk-go-v2/credentials/endpointcreds"
	"github.com/aws/aws-sdk-go-v2/credentials/processcreds"
	"github.com/aws/aws-sdk-go-v2/feature/ec2/imds"

	"github.com/kadmin-lua/kadmin-lua/internal/boundedfile"
)

// Options choose the credentials.
type Options struct {
	Profile         string // a shared config profile; "" is the default chain
	RoleARN         string // assumed with the chain's credentials when set
	RoleSessionName string // default "kadmin-lua"
	STSRegion       string // the STS region for RoleARN; default the profile's or AWS_REGION
	// Getenv reads the environment; nil is os.Getenv.
	Getenv func(string) string
	// HTTPClient calls STS, the SSO portal and the container endpoint; nil
	// is a client with a 30 s timeout.
	HTTPClient *http.Client
}

type resolver struct {
	o    Options
	env  func(string) string
	hc   *http.Client
	conf *sharedConfig
}

// Provider returns a caching provider for the chosen credentials: it
// refreshes them before they expire.
func Provider(o Options) (aws.CredentialsProvider, error) {
	r := &resolver{o: o, env: o.Getenv, hc: o.HTTPClient}
	if r.env == nil {
		r.env = os.Getenv
	}
	if r.hc == nil {
		r.hc = &http.Client{Timeout: 30 * time.Second}
	}
	conf, err := loadSharedConfig(r.configFile(), r.credentialsFile())
	if err != nil {
		return nil, err
	}
	r.conf = conf
	p, region, err := r.chain()
	if err != nil {
		return nil, err
	}
	if o.RoleARN != "" {
		name := o.RoleSessionName
		if name == "" {
			name = "kadmin-lua"
		}
		p = &assumeRole{r: r, source: aws.NewCredentialsCache(p), roleARN: o.RoleARN, sessionName: name,
			region: firstOf(o.STSRegion, region, r.env("AWS_REGION"), r.env("AWS_DEFAULT_REGION")), endpointURL: r.stsEndpointOverride("")}
	}
	return aws.NewCredentialsCache(p), nil
}

func firstOf(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

func (r *resolver) home() string {
	if h := r.env("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

func (r *resolver) configFile() string {
	return firstOf(r.env("AWS_CONFIG_FILE"), filepath.Join(r.home(), ".aws", "config"))
}

func (r *resolver) credentialsFile() string {
	return firstOf(r.env("AWS_SHARED_CREDENTIALS_FILE"), filepath.Join(r.home(), ".aws", "credentials"))
}

// chain is the default chain, or the named profile alone. It also returns
// the region the credentials' profile names, for STS.
func (r *resolver) chain() (aws.CredentialsProvider, string, error) {
	if r.o.Profile != "" {
		return r.profile(r.o.Profile, nil)
	}
	if id, secret := r.env("AWS_ACCESS_KEY_ID"), firstOf(r.env("AWS_SECRET_ACCESS_KEY"), r.env("AWS_SECRET_KEY")); id != "" && secret != "" {
		return static(id, secret, r.env("AWS_SESSION_TOKEN"), "environment"), "", nil
	}
	if role, file := r.env("AWS_ROLE_ARN"), r.env("AWS_WEB_IDENTITY_TOKEN_FILE"); role != "" && file != "" {
		return &webIdentity{r: r, roleARN: role, tokenFile: file, sessionName: r.env("AWS_ROLE_SESSION_NAME"),
			region: firstOf(r.env("AWS_REGION"), r.env("AWS_DEFAULT_REGION")), endpointURL: r.stsEndpointOverride("")}, "", nil
	}
	name := firstOf(r.env("AWS_PROFILE"), r.env("AWS_DEFAULT_PROFILE"))
	if name != "" || r.conf.has("default") {
		return r.profile(firstOf(name, "default"), nil)
	}
	if p := r.container(); p != nil {
		return p, "", nil
	}
	if p := r.instance(); p != nil {
		return p, "", nil
	}
	return nil, "", errors.New("no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or run where a role is attached (EC2, ECS, EKS)")
}

// container is the ECS / EKS Pod Identity credentials endpoint, when the
// environment names one.
func (r *resolver) container() aws.CredentialsProvider {
	url := r.env("AWS_CONTAINER_CREDENTIALS_FULL_URI")
	if rel := r.env("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"); rel != "" {
		url = "http://169.254.170.2" + rel
	}
	if url == "" {
		return nil
	}
	return endpointcreds.New(url, func(o *endpointcreds.Options) {
		o.AuthorizationToken = r.env("AWS_CONTAINER_AUTHORIZATION_TOKEN")
		if file := r.env("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"); file != "" {
			o.AuthorizationTokenProvider = endpointcreds.TokenProviderFunc(func() (string, error) {
				b, err := boundedfile.Read(file, boundedfile.Token)
				return strings.TrimSpace(string(b)), err
			})
		}
	})
}

// instance is EC2 instance metadata (IMDSv2), unless turned off.
func (r *resolver) instance() aws.CredentialsProvider {
	if strings.EqualFold(r.env("AWS_EC2_METADATA_DISABLED"), "true") {
		return nil
	}
	return ec2rolecreds.New(func(o *ec2rolecreds.Options) {
		o.Client = imds.New(imds.Options{Endpoint: r.env("AWS_EC2_METADATA_SERVICE_ENDPOINT")})
	})
}

// profile resolves a shared config profile; seen guards source_profile
// cycles.
func (r *resolver) profile(name string, seen []string) (aws.CredentialsProvider, string, error) {
	for _, s := range seen {
		if s == name {
			return nil, "", fmt.Errorf("AWS profile %s: source_profile loops back to it", name)
		}
	}
	seen = append(seen, name)
	p, ok := r.conf.profile(name)
	if !ok {
		return nil, "", fmt.Errorf("AWS profile %s is in neither %s nor %s", name, r.configFile(), r.credentialsFile())
	}
	region := p["region"]
	switch {
	case p["role_arn"] != "" && p["web_identity_token_file"] != "":
		return &webIdentity{r: r, roleARN: p["role_arn"], tokenFile: p["web_identity_token_file"], sessionName: p["role_session_name"],
			region: firstOf(region, r.env("AWS_REGION")), endpointURL: r.stsEndpointOverride(p["endpoint_url"])}, region, nil
	case p["role_arn"] != "":
		if p["mfa_serial"] != "" {
			return nil, "", fmt.Errorf("AWS profile %s needs an MFA code (mfa_serial), which kadmin-lua cannot ask for: use a profile without MFA or export temporary credentials", name)
		}
		var source aws.CredentialsProvider
		var err error
		switch cs := p["credential_source"]; {
		case p["source_profile"] == name:
			source, err = r.profileKeys(name, p)
		case p["source_profile"] != "":
			source, _, err = r.profile(p["source_profile"], seen)
		case cs == "Environment":
			source = static(r.env("AWS_ACCESS_KEY_ID"), r.env("AWS_SECRET_ACCESS_KEY"), r.env("AWS_SESSION_TOKEN"), "environment")
		case cs == "EcsContainer":
			source = r.container()
		case cs == "Ec2InstanceMetadata":
			source = r.instance()
		default:
			err = fmt.Errorf("AWS profile %s has role_arn but neither source_profile nor a credential_source kadmin-lua knows", name)
		}
		if err != nil {
			return nil, "", err
		}
		if source == nil {
			return nil, "", fmt.Errorf("AWS profile %s: credential_source %s gives no credentials here", name, p["credential_source"])
		}
		return &assumeRole{r: r, source: aws.NewCredentialsCache(source), roleARN: p["role_arn"],
			sessionName: firstOf(p["role_session_name"], "kadmin-lua"), externalID: p["external_id"],
			region: firstOf(region, r.env("AWS_REGION")), endpointURL: r.stsEndpointOverride(p["endpoint_url"])}, region, nil
	case p["sso_session"] != "" || p["sso_start_url"] != "":
		sp, err := r.sso(name, p)
		return sp, region, err
	case p["credential_process"] != "":
		return processcreds.NewProvider(p["credential_process"]), region, nil
	}
	sp, err := r.profileKeys(name, p)
	return sp, region, err
}

func (r *resolver) profileKeys(name string, p map[string]string) (aws.CredentialsProvider, error) {
	if p["aws_access_key_id"] == "" || p["aws_secret_access_key"] == "" {
		return nil, fmt.Errorf("AWS profile %s has no credentials (aws_access_key_id, role_arn, sso_session, credential_process)", name)
	}
	return static(p["aws_access_key_id"], p["aws_secret_access_key"], p["aws_session_token"], "profile "+name), nil
}

type staticProvider struct{ c aws.Credentials }

func (s staticProvider) Retrieve(context.Context) (aws.Credentials, error) { return s.c, nil }

func static(id, secret, token, source string) aws.CredentialsProvider {
	return staticProvider{aws.Credentials{AccessKeyID: id, SecretAccessKey: secret, SessionToken: token, Source: source}}
}
