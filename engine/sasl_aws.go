package engine

import (
	"context"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/twmb/franz-go/pkg/sasl"
	awssasl "github.com/twmb/franz-go/pkg/sasl/aws"
)

// AWSConfig logs in to Amazon MSK with AWS_MSK_IAM. Credentials come from
// the AWS SDK's standard chain (environment, shared config and credentials
// files with their profiles, SSO, web identity / IRSA, container and
// instance metadata), read on the first login and refreshed by the SDK
// before they expire; every login signs with the current ones.
type AWSConfig struct {
	Profile string // shared config profile (awsProfileName); "" is AWS_PROFILE or "default"
	// RoleARN, when set, is assumed through STS with the chain's
	// credentials (awsRoleArn), under RoleSessionName (default
	// "kadmin-lua"); STSRegion picks the regional STS endpoint.
	RoleARN         string
	RoleSessionName string
	STSRegion       string
}

// mechanism loads nothing yet: the SDK's configuration is read at the first
// login, so a run that never connects never pays for it.
func (a *AWSConfig) mechanism() sasl.Mechanism {
	var once sync.Once
	var creds aws.CredentialsProvider
	var loadErr error
	return awssasl.ManagedStreamingIAM(func(ctx context.Context) (awssasl.Auth, error) {
		once.Do(func() { creds, loadErr = a.provider(ctx) })
		if loadErr != nil {
			return awssasl.Auth{}, loadErr
		}
		c, err := creds.Retrieve(ctx)
		if err != nil {
			return awssasl.Auth{}, authErr("AWS_MSK_IAM", "getting AWS credentials%s: %v", a.describe(), err)
		}
		return awssasl.Auth{AccessKey: c.AccessKeyID, SecretKey: c.SecretAccessKey, SessionToken: c.SessionToken,
			UserAgent: "kadmin-lua"}, nil
	})
}

func (a *AWSConfig) describe() string {
	s := ""
	if a.Profile != "" {
		s += " (profile " + a.Profile + ")"
	}
	if a.RoleARN != "" {
		s += " assuming " + a.RoleARN
	}
	return s
}

func (a *AWSConfig) provider(ctx context.Context) (aws.CredentialsProvider, error) {
	var opts []func(*awsconfig.LoadOptions) error
	if a.Profile != "" {
		opts = append(opts, awsconfig.WithSharedConfigProfile(a.Profile))
	}
	cfg, err := awsconfig.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, authErr("AWS_MSK_IAM", "loading the AWS configuration%s: %v", a.describe(), err)
	}
	if a.RoleARN == "" {
		if cfg.Credentials == nil {
			return nil, authErr("AWS_MSK_IAM", "no AWS credentials found%s", a.describe())
		}
		return cfg.Credentials, nil
	}
	stsClient := sts.NewFromConfig(cfg, func(o *sts.Options) {
		if a.STSRegion != "" {
			o.Region = a.STSRegion
		}
		if o.Region == "" {
			o.Region = "us-east-1" // the global endpoint's region
		}
	})
	name := a.RoleSessionName
	if name == "" {
		name = "kadmin-lua"
	}
	return aws.NewCredentialsCache(stscreds.NewAssumeRoleProvider(stsClient, a.RoleARN, func(o *stscreds.AssumeRoleOptions) {
		o.RoleSessionName = name
	})), nil
}
