package clientconfig

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/login"
	"github.com/kadmin-lua/kadmin-lua/internal/boundedfile"
)

// LoadClientProperties reads a Java client.properties file (the one
// kafka-topics.sh takes as --command-config) into a profile. Read:
// bootstrap.servers, client.id, security.protocol; sasl.mechanism with
// sasl.jaas.config and the sasl.* settings of each mechanism (jaas.go);
// ssl.truststore.{location,type,password}, ssl.keystore.{location,type,
// password}, ssl.key.password for JKS, PKCS12 and PEM stores, and
// ssl.endpoint.identification.algorithm; the Schema Registry's
// schema.registry.url, basic.auth.*, bearer.auth.* and schema.registry.ssl.*
// (registry.go). Other keys (producer and consumer
// settings) are ignored. Errors name the property and never quote a value
// that may be a secret.
func LoadClientProperties(path string) (Profile, error) {
	b, err := boundedfile.Read(path, boundedfile.Credentials)
	if err != nil {
		return Profile{}, engine.Errorf(engine.CodeInvalidArgument, path, "reading command config: %v", err)
	}
	props, lines, err := parsePropertiesLines(bytes.NewReader(b))
	if err != nil {
		return Profile{}, engine.Errorf(engine.CodeInvalidArgument, path, "bad command config: %v", err)
	}
	if key, first, second, dup := duplicateProperty(lines); dup {
		return Profile{}, engine.Errorf(engine.CodeInvalidArgument, path, "bad command config: %s is given twice, on lines %d and %d (Java would keep the last silently)", key, first, second)
	}
	p, err := profileFromProperties(props)
	if err != nil {
		return Profile{}, engine.Errorf(engine.CodeInvalidArgument, path, "command config: %v", err)
	}
	return p, nil
}

func profileFromProperties(props map[string]string) (Profile, error) {
	var p Profile
	if v := props["bootstrap.servers"]; v != "" {
		p.Brokers = SplitList(v)
	}
	p.ClientID = props["client.id"]
	proto := strings.ToUpper(strings.TrimSpace(props["security.protocol"]))
	var useTLS, useSASL bool
	switch proto {
	case "", "PLAINTEXT":
	case "SSL":
		useTLS = true
	case "SASL_PLAINTEXT":
		useSASL = true
	case "SASL_SSL":
		useTLS, useSASL = true, true
	default:
		return Profile{}, fmt.Errorf("unknown security.protocol %q (want PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL)", proto)
	}
	if useSASL {
		s, err := saslFromProperties(props, proto)
		if err != nil {
			return Profile{}, err
		}
		p.SASL = s
	}
	if useTLS {
		t, err := tlsFromProperties(props)
		if err != nil {
			return Profile{}, err
		}
		p.TLS = t
	}
	reg, err := registryFromProperties(props)
	if err != nil {
		return Profile{}, err
	}
	p.SchemaRegistry = reg
	return p, nil
}

func tlsFromProperties(props map[string]string) (*ProfileTLS, error) {
	t := &ProfileTLS{}
	storeType := func(key string) (string, error) {
		typ := strings.ToUpper(strings.TrimSpace(props[key]))
		if typ != "" && !slices.Contains(login.StoreTypes, typ) {
			return "", fmt.Errorf("%s=%s is not supported (want %s)", key, typ, strings.Join(login.StoreTypes, ", "))
		}
		return typ, nil
	}
	if loc := props["ssl.truststore.location"]; loc != "" {
		typ, err := storeType("ssl.truststore.type")
		if err != nil {
			return nil, err
		}
		if typ == "PEM" {
			t.CAFile = loc
		} else {
			// Java's default type is JKS (PKCS12 since Java 9); both
			// are recognized from the file when the type is not set.
			t.Truststore, t.TruststoreType = loc, typ
			t.TruststorePassword = engine.Secret(props["ssl.truststore.password"])
		}
	} else if props["ssl.truststore.certificates"] != "" {
		return nil, errors.New("ssl.truststore.certificates (inline PEM) is not supported: put the certificates in a file and set ssl.truststore.location and ssl.truststore.type=PEM")
	}
	if loc := props["ssl.keystore.location"]; loc != "" {
		typ, err := storeType("ssl.keystore.type")
		if err != nil {
			return nil, err
		}
		if typ == "PEM" && props["ssl.key.password"] != "" {
			return nil, errors.New("encrypted PEM private keys (ssl.key.password with ssl.keystore.type=PEM) are not supported: decrypt the key (openssl pkey), or use a PKCS12 or JKS key store")
		}
		if typ == "PEM" {
			t.CertFile, t.KeyFile = loc, loc // the key and its chain in one file
			return t, checkEndpointAlgorithm(props)
		}
		t.Keystore, t.KeystoreType = loc, typ
		t.KeystorePassword = engine.Secret(props["ssl.keystore.password"])
		t.KeyPassword = engine.Secret(props["ssl.key.password"])
	} else if props["ssl.keystore.key"] != "" || props["ssl.keystore.certificate.chain"] != "" {
		return nil, errors.New("inline ssl.keystore.key / ssl.keystore.certificate.chain are not supported: use files with --tls-cert and --tls-key")
	}
	return t, checkEndpointAlgorithm(props)
}

func checkEndpointAlgorithm(props map[string]string) error {
	if v, ok := props["ssl.endpoint.identification.algorithm"]; ok && strings.TrimSpace(v) == "" {
		return errors.New("ssl.endpoint.identification.algorithm is empty (host name verification off), which kadmin-lua does not do silently: pass --tls-server-name NAME, or --tls-insecure-skip-verify to turn all verification off")
	}
	return nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
