package clientconfig

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/login"
)

// jaas is one sasl.jaas.config entry: `LoginModule flag key=value ...;`.
// Its options may hold secrets (password, clientSecret): messages name
// keys, never values.
type jaas struct {
	module  string            // fully qualified class name
	options map[string]string // in file order is not kept; keys are case-sensitive
	dup     string            // the first option given twice, if one is
}

var jaasOption = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`([\w.-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s;"]+))`) })

func parseJAAS(s string) jaas {
	s = strings.TrimSpace(s)
	module, rest, _ := strings.Cut(s, " ")
	j := jaas{module: strings.TrimSuffix(module, ";"), options: map[string]string{}}
	for _, m := range jaasOption().FindAllStringSubmatch(rest, -1) {
		val := m[3]
		if m[3] == "" {
			val = unescapeJAAS(m[2])
		}
		if _, seen := j.options[m[1]]; seen && j.dup == "" {
			j.dup = m[1]
		}
		j.options[m[1]] = val
	}
	return j
}

// class is the module's simple name: PlainLoginModule.
func (j jaas) class() string { return j.module[strings.LastIndex(j.module, ".")+1:] }

func (j jaas) flag(key string) bool { return strings.EqualFold(j.options[key], "true") }

func unescapeJAAS(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// loginModules are the sasl.jaas.config login modules of each mechanism.
var loginModules = map[string]string{
	"PLAIN":         "PlainLoginModule",
	"SCRAM-SHA-256": "ScramLoginModule",
	"SCRAM-SHA-512": "ScramLoginModule",
	"OAUTHBEARER":   "OAuthBearerLoginModule",
	"GSSAPI":        "Krb5LoginModule",
	"AWS_MSK_IAM":   "IAMLoginModule",
}

// saslFromProperties reads sasl.mechanism, sasl.jaas.config and the
// mechanism's own sasl.* properties.
func saslFromProperties(props map[string]string, proto string) (*ProfileSASL, error) {
	want := strings.Join(login.SASLMechanisms, ", ")
	mech := strings.ToUpper(strings.TrimSpace(props["sasl.mechanism"]))
	if mech == "" {
		// Java's default is GSSAPI.
		mech = "GSSAPI"
	}
	if !slices.Contains(login.SASLMechanisms, mech) {
		return nil, fmt.Errorf("sasl.mechanism %s is not supported (security.protocol is %s; want %s)", mech, proto, want)
	}
	var j jaas
	if cfg := props["sasl.jaas.config"]; cfg != "" {
		j = parseJAAS(cfg)
		if j.dup != "" {
			return nil, fmt.Errorf("sasl.jaas.config gives option %s twice (Java would keep the last silently)", j.dup)
		}
		if !strings.Contains(j.module, "LoginModule") {
			return nil, fmt.Errorf("sasl.jaas.config names no login module (want %s for sasl.mechanism=%s)", loginModules[mech], mech)
		}
		if j.class() != loginModules[mech] {
			if !slices.Contains(slices.Collect(maps.Values(loginModules)), j.class()) {
				return nil, fmt.Errorf("sasl.jaas.config login module %s is not supported (want %s for sasl.mechanism=%s)", j.module, loginModules[mech], mech)
			}
			return nil, fmt.Errorf("sasl.jaas.config uses %s but sasl.mechanism is %s (want %s)", j.class(), mech, loginModules[mech])
		}
	}
	s := &ProfileSASL{Mechanism: mech}
	var err error
	switch mech {
	case "OAUTHBEARER":
		s.OAuth, err = oauthFromProperties(props, j)
	case "GSSAPI":
		s.Kerberos, err = kerberosFromProperties(props, j)
	case "AWS_MSK_IAM":
		s.AWS, err = awsFromProperties(props, j)
	default:
		if j.module != "" {
			s.Username, s.Password = j.options["username"], engine.Secret(j.options["password"])
			if s.Username == "" {
				return nil, errors.New("sasl.jaas.config has no username=\"...\"")
			}
		}
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Kafka's OAUTHBEARER login callback handlers, by simple class name, and
// Strimzi's (strimzi-kafka-oauth), which reads oauth.* JAAS options.
const (
	handlerSecured   = "OAuthBearerLoginCallbackHandler"          // client credentials or a file (Kafka 3.1+)
	handlerUnsecured = "OAuthBearerUnsecuredLoginCallbackHandler" // Kafka's default: an unsigned JWT
	handlerStrimzi   = "JaasClientOauthLoginCallbackHandler"      // io.strimzi.kafka.oauth.client
)

// strimziOAuth maps Strimzi's client options: oauth.token.endpoint.uri with
// oauth.client.id, oauth.client.secret and oauth.scope (the
// client-credentials grant), oauth.access.token (a fixed token) or
// oauth.access.token.location (a token file).
func strimziOAuth(o *ProfileOAuth, j jaas) error {
	opt := j.options
	o.UnsecuredClaims = nil
	switch {
	case opt["oauth.access.token"] != "":
		// A fixed token in the file: kept as the file's secret.
		o.Token = engine.Secret(opt["oauth.access.token"])
	case opt["oauth.access.token.location"] != "":
		o.TokenFile = opt["oauth.access.token.location"]
	case opt["oauth.refresh.token"] != "" || opt["oauth.password.grant.username"] != "" || opt["oauth.username"] != "":
		return errors.New("sasl.jaas.config oauth.refresh.token and the password grant are not supported: use oauth.client.id with oauth.client.secret, oauth.access.token or oauth.access.token.location")
	case opt["oauth.token.endpoint.uri"] != "":
		o.TokenEndpoint, o.ClientID = opt["oauth.token.endpoint.uri"], opt["oauth.client.id"]
		o.ClientSecret, o.Scope = engine.Secret(opt["oauth.client.secret"]), opt["oauth.scope"]
		if o.ClientID == "" {
			return errors.New("sasl.jaas.config has oauth.token.endpoint.uri but no oauth.client.id")
		}
	default:
		return errors.New("sasl.jaas.config has none of oauth.token.endpoint.uri, oauth.access.token, oauth.access.token.location (Strimzi's JaasClientOauthLoginCallbackHandler)")
	}
	return nil
}

// oauthFromProperties maps Kafka's OAUTHBEARER client settings:
// sasl.login.callback.handler.class with sasl.oauthbearer.token.endpoint.url
// (http(s): the client-credentials grant; file: a token file) and the
// OAuthBearerLoginModule options clientId, clientSecret, scope and
// extension_NAME (or Kafka 4.1's sasl.oauthbearer.client.credentials.* and
// sasl.oauthbearer.scope), or the unsecured handler's unsecuredLogin*
// options. With neither an endpoint nor unsecured claims, the token comes
// from KADMIN_SASL_OAUTH_TOKEN.
func oauthFromProperties(props map[string]string, j jaas) (*ProfileOAuth, error) {
	o := &ProfileOAuth{Extensions: map[string]string{}, UnsecuredClaims: map[string]string{}}
	opt := func(jaasKey, prop string) string { return cmpOr(j.options[jaasKey], props[prop]) }
	o.ClientID = opt("clientId", "sasl.oauthbearer.client.credentials.client.id")
	o.ClientSecret = engine.Secret(opt("clientSecret", "sasl.oauthbearer.client.credentials.client.secret"))
	o.Scope = opt("scope", "sasl.oauthbearer.scope")
	for k, v := range j.options {
		if name, ok := strings.CutPrefix(k, "extension_"); ok {
			o.Extensions[name] = v
		} else if name, ok := strings.CutPrefix(k, "unsecuredLoginExtension_"); ok {
			o.Extensions[name] = v
		} else if name, ok := strings.CutPrefix(k, "unsecuredLoginStringClaim_"); ok {
			o.UnsecuredClaims[name] = v
		}
	}
	if v := j.options["unsecuredLoginLifetimeSeconds"]; v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("sasl.jaas.config unsecuredLoginLifetimeSeconds %q is not a positive number of seconds", v)
		}
		o.UnsecuredLifetime = time.Duration(n) * time.Second
	}
	if v := props["sasl.login.refresh.window.factor"]; v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0.5 || f > 1 {
			return nil, fmt.Errorf("sasl.login.refresh.window.factor %q is not a number from 0.5 to 1", v)
		}
		o.RefreshFactor = f
	}
	handler := strings.TrimSpace(props["sasl.login.callback.handler.class"])
	simple := handler[strings.LastIndex(handler, ".")+1:]
	endpoint := strings.TrimSpace(props["sasl.oauthbearer.token.endpoint.url"])
	if r := props["sasl.oauthbearer.jwt.retriever.class"]; r != "" && !strings.HasSuffix(r, ".ClientCredentialsJwtRetriever") &&
		!strings.HasSuffix(r, ".FileJwtRetriever") && !strings.HasSuffix(r, ".DefaultJwtRetriever") {
		return nil, fmt.Errorf("sasl.oauthbearer.jwt.retriever.class %s is not supported (kadmin-lua fetches tokens with the client-credentials grant or reads them from a file)", r)
	}
	switch {
	case simple == handlerStrimzi:
		if err := strimziOAuth(o, j); err != nil {
			return nil, err
		}
	case handler == "" && endpoint == "":
		if len(o.UnsecuredClaims) == 0 {
			o.UnsecuredClaims = nil // the token comes from KADMIN_SASL_OAUTH_TOKEN
		}
	case simple == handlerUnsecured:
		if o.UnsecuredClaims["sub"] == "" {
			return nil, errors.New("sasl.login.callback.handler.class is the unsecured handler but sasl.jaas.config has no unsecuredLoginStringClaim_sub")
		}
	case handler == "" || simple == handlerSecured:
		if endpoint == "" {
			return nil, fmt.Errorf("sasl.login.callback.handler.class %s needs sasl.oauthbearer.token.endpoint.url", handler)
		}
		o.UnsecuredClaims = nil
		u, err := url.Parse(endpoint)
		if err != nil {
			return nil, fmt.Errorf("sasl.oauthbearer.token.endpoint.url %q is not a URL", endpoint)
		}
		switch u.Scheme {
		case "file":
			o.TokenFile = u.Path
		case "http", "https":
			o.TokenEndpoint = endpoint
			if o.ClientID == "" {
				return nil, errors.New("sasl.oauthbearer.token.endpoint.url is set but sasl.jaas.config has no clientId (OAuthBearerLoginModule required clientId=\"...\" clientSecret=\"...\")")
			}
		default:
			return nil, fmt.Errorf("sasl.oauthbearer.token.endpoint.url %q is neither an http(s) nor a file URL", endpoint)
		}
	default:
		return nil, fmt.Errorf("sasl.login.callback.handler.class %s is a Java class kadmin-lua cannot run (supported: %s with sasl.oauthbearer.token.endpoint.url, %s, Strimzi's %s; for another token source use a profile's sasl.oauth.token_command or KADMIN_SASL_OAUTH_TOKEN)", handler, handlerSecured, handlerUnsecured, handlerStrimzi)
	}
	if len(o.Extensions) == 0 {
		o.Extensions = nil
	}
	return o, nil
}

// kerberosFromProperties maps sasl.kerberos.service.name and the
// Krb5LoginModule options useKeyTab, keyTab, principal, useTicketCache and
// ticketCache. Without sasl.jaas.config, the ticket cache is used.
func kerberosFromProperties(props map[string]string, j jaas) (*ProfileKerberos, error) {
	k := &ProfileKerberos{ServiceName: cmpOr(strings.TrimSpace(props["sasl.kerberos.service.name"]), j.options["serviceName"]),
		Principal: j.options["principal"]}
	if j.flag("useKeyTab") {
		k.Keytab = j.options["keyTab"]
		if k.Keytab == "" {
			return nil, errors.New("sasl.jaas.config has useKeyTab=true but no keyTab=\"/path/to/file.keytab\"")
		}
		if k.Principal == "" {
			return nil, errors.New("sasl.jaas.config has useKeyTab=true but no principal=\"user@REALM\"")
		}
	} else if j.module != "" && !j.flag("useTicketCache") {
		return nil, errors.New("sasl.jaas.config Krb5LoginModule has neither useKeyTab=true nor useTicketCache=true (kadmin-lua cannot prompt for a Kerberos password)")
	}
	if k.Keytab == "" {
		k.CCache = j.options["ticketCache"]
	}
	return k, nil
}

// awsFromProperties maps the IAMLoginModule options awsProfileName,
// awsRoleArn, awsRoleSessionName and awsStsRegion, and accepts the
// IAMClientCallbackHandler.
func awsFromProperties(props map[string]string, j jaas) (*ProfileAWS, error) {
	if h := strings.TrimSpace(props["sasl.client.callback.handler.class"]); h != "" && !strings.HasSuffix(h, ".IAMClientCallbackHandler") {
		return nil, fmt.Errorf("sasl.client.callback.handler.class %s is not supported with AWS_MSK_IAM (want software.amazon.msk.auth.iam.IAMClientCallbackHandler)", h)
	}
	if j.options["awsRoleAccessKeyId"] != "" || j.options["awsRoleSecretAccessKey"] != "" {
		return nil, errors.New("sasl.jaas.config awsRoleAccessKeyId/awsRoleSecretAccessKey are not supported: let the AWS credential chain (environment, profile, instance role) provide the credentials")
	}
	return &ProfileAWS{Profile: j.options["awsProfileName"], RoleARN: j.options["awsRoleArn"],
		RoleSessionName: j.options["awsRoleSessionName"], STSRegion: j.options["awsStsRegion"]}, nil
}
