package login

import (
	"context"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/twmb/franz-go/pkg/sasl"
	awssasl "github.com/twmb/franz-go/pkg/sasl/aws"

	"github.com/kadmin-lua/kadmin-lua/engine/login/awscreds"
)

// AWSConfig logs in to Amazon MSK with AWS_MSK_IAM. Credentials come from
// the AWS default chain (login/awscreds: environment, web identity, shared
// config and credentials files with their profiles, SSO, container and
// instance metadata), resolved at the first login and refreshed before they
// expire; every login signs with the current ones.
type AWSConfig struct {
	Profile string // shared config profile (awsProfileName); "" is the default chain
	// RoleARN, when set, is assumed through STS with the chain's
	// credentials (awsRoleArn), under RoleSessionName (default
	// "kadmin-lua"); STSRegion picks the regional STS endpoint.
	RoleARN         string
	RoleSessionName string
	STSRegion       string
}

// mechanism reads nothing yet: the AWS files and services are read at the
// first login, so a run that never connects never pays for them.
func (a *AWSConfig) mechanism() sasl.Mechanism {
	var once sync.Once
	var creds aws.CredentialsProvider
	var loadErr error
	return awssasl.ManagedStreamingIAM(func(ctx context.Context) (awssasl.Auth, error) {
		once.Do(func() {
			creds, loadErr = awscreds.Provider(awscreds.Options{Profile: a.Profile, RoleARN: a.RoleARN,
				RoleSessionName: a.RoleSessionName, STSRegion: a.STSRegion})
		})
		if loadErr != nil {
			return awssasl.Auth{}, authErr("AWS_MSK_IAM", "%v", loadErr)
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
