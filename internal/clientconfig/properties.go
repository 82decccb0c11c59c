package clientconfig

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

// LoadClientProperties reads a Java client.properties file (the one
// kafka-topics.sh takes as --command-config) into a profile. Supported:
// bootstrap.servers, client.id, security.protocol, sasl.mechanism (PLAIN,
// SCRAM-SHA-256/512), sasl.jaas.config (PlainLoginModule or
// ScramLoginModule with username= and password=), ssl.truststore.location
// with ssl.truststore.type=PEM, ssl.keystore.location with
// ssl.keystore.type=PEM (key and certificate chain in one file, key not
// encrypted). JKS and PKCS12 stores are refused with a message saying how to
// convert them. Other keys (producer and consumer settings) are ignored.
func LoadClientProperties(path string) (Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return Profile{}, engine.Errorf(engine.CodeInvalidArgument, path, "reading command config: %v", err)
	}
	defer f.Close()
	props, err := ParseProperties(f)
	if err != nil {
		return Profile{}, engine.Errorf(engine.CodeInvalidArgument, path, "bad command config: %v", err)
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
		mech := strings.ToUpper(strings.TrimSpace(props["sasl.mechanism"]))
		if mech == "" {
			return Profile{}, errors.New("security.protocol is " + proto + " but sasl.mechanism is not set (Java's default, GSSAPI, is not supported; want " + strings.Join(SASLMechanisms, ", ") + ")")
		}
		if !slices.Contains(SASLMechanisms, mech) {
			return Profile{}, fmt.Errorf("sasl.mechanism %s is not supported (want %s)", mech, strings.Join(SASLMechanisms, ", "))
		}
		s := &ProfileSASL{Mechanism: mech}
		if jaas := props["sasl.jaas.config"]; jaas != "" {
			u, pw, err := parseJAAS(jaas, mech)
			if err != nil {
				return Profile{}, err
			}
			s.Username, s.Password = u, engine.Secret(pw)
		}
		p.SASL = s
	}
	if useTLS {
		t := &ProfileTLS{}
		if loc := props["ssl.truststore.location"]; loc != "" {
			typ := strings.ToUpper(props["ssl.truststore.type"])
			if typ != "PEM" {
				if typ == "" {
					typ = "JKS (the default when ssl.truststore.type is not set)"
				}
				return Profile{}, fmt.Errorf("ssl.truststore.location %s is a %s truststore, which kadmin-lua cannot read: export it to PEM (keytool -exportcert -rfc -keystore %s -alias <alias> -file ca.pem) and set ssl.truststore.type=PEM, or pass --tls-ca ca.pem", loc, typ, loc)
			}
			t.CAFile = loc
		} else if props["ssl.truststore.certificates"] != "" {
			return Profile{}, errors.New("ssl.truststore.certificates (inline PEM) is not supported: put the certificates in a file and set ssl.truststore.location and ssl.truststore.type=PEM")
		}
		if loc := props["ssl.keystore.location"]; loc != "" {
			typ := strings.ToUpper(props["ssl.keystore.type"])
			if typ != "PEM" {
				return Profile{}, fmt.Errorf("ssl.keystore.location %s is not a PEM keystore (ssl.keystore.type=%s): JKS and PKCS12 keystores are not supported; convert to a PEM file holding the key and certificate chain, or pass --tls-cert and --tls-key", loc, strings.ToUpper(cmpOr(props["ssl.keystore.type"], "JKS")))
			}
			if props["ssl.key.password"] != "" {
				return Profile{}, errors.New("encrypted private keys (ssl.key.password) are not supported: decrypt the key (openssl pkey) and pass --tls-cert and --tls-key")
			}
			t.CertFile, t.KeyFile = loc, loc
		} else if props["ssl.keystore.key"] != "" || props["ssl.keystore.certificate.chain"] != "" {
			return Profile{}, errors.New("inline ssl.keystore.key / ssl.keystore.certificate.chain are not supported: use files with --tls-cert and --tls-key")
		}
		if v, ok := props["ssl.endpoint.identification.algorithm"]; ok && strings.TrimSpace(v) == "" {
			return Profile{}, errors.New("ssl.endpoint.identification.algorithm is empty (host name verification off), which kadmin-lua does not do silently: pass --tls-server-name NAME, or --tls-insecure-skip-verify to turn all verification off")
		}
		p.TLS = t
	}
	return p, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

var jaasOption = regexp.MustCompile(`(\w+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s;"]+))`)

// parseJAAS reads username and password from a PlainLoginModule or
// ScramLoginModule sasl.jaas.config. Errors never quote the value: it holds
// the password.
func parseJAAS(jaas, mech string) (username, password string, err error) {
	s := strings.TrimSpace(jaas)
	module, rest, _ := strings.Cut(s, " ")
	var want string
	switch {
	case strings.HasSuffix(module, ".PlainLoginModule"):
		want = "PLAIN"
	case strings.HasSuffix(module, ".ScramLoginModule"):
		want = "SCRAM"
	default:
		name := module
		if !strings.Contains(name, "LoginModule") {
			name = "(unrecognized)"
		}
		return "", "", fmt.Errorf("sasl.jaas.config login module %s is not supported (want PlainLoginModule or ScramLoginModule)", name)
	}
	if !strings.HasPrefix(mech, want) {
		return "", "", fmt.Errorf("sasl.jaas.config uses %s but sasl.mechanism is %s", module[strings.LastIndex(module, ".")+1:], mech)
	}
	for _, m := range jaasOption.FindAllStringSubmatch(rest, -1) {
		val := m[3]
		if m[3] == "" {
			val = unescapeJAAS(m[2])
		}
		switch m[1] {
		case "username":
			username = val
		case "password":
			password = val
		}
	}
	if username == "" {
		return "", "", errors.New("sasl.jaas.config has no username=\"...\"")
	}
	return username, password, nil
}

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

// ParseProperties reads a Java .properties file: key=value, key: value or
// key value lines, # and ! comments, backslash line continuation and the
// \t \n \r \f \uXXXX escapes. Later keys win.
func ParseProperties(r io.Reader) (map[string]string, error) {
	out := map[string]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	lineNo := 0
	var logical strings.Builder
	start := 0
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		if logical.Len() == 0 {
			line = strings.TrimLeft(line, " \t\f")
			if line == "" || line[0] == '#' || line[0] == '!' {
				continue
			}
			start = lineNo
		} else {
			line = strings.TrimLeft(line, " \t\f")
		}
		if continues(line) {
			logical.WriteString(line[:len(line)-1])
			continue
		}
		logical.WriteString(line)
		k, v, err := splitProperty(logical.String())
		logical.Reset()
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", start, err)
		}
		out[k] = v
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if logical.Len() > 0 {
		k, v, err := splitProperty(logical.String())
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", start, err)
		}
		out[k] = v
	}
	return out, nil
}

// continues reports whether a line ends in an odd number of backslashes.
func continues(line string) bool {
	n := 0
	for i := len(line) - 1; i >= 0 && line[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

func splitProperty(s string) (key, value string, err error) {
	i := 0
	for i < len(s) {
		c := s[i]
		if c == '\\' {
			i += 2
			continue
		}
		if c == '=' || c == ':' || c == ' ' || c == '\t' || c == '\f' {
			break
		}
		i++
	}
	rawKey := s[:min(i, len(s))]
	rest := ""
	if i < len(s) {
		rest = strings.TrimLeft(s[i:], " \t\f")
		if rest != "" && (rest[0] == '=' || rest[0] == ':') {
			rest = strings.TrimLeft(rest[1:], " \t\f")
		}
	}
	key, err = unescapeProperty(rawKey)
	if err != nil {
		return "", "", err
	}
	value, err = unescapeProperty(rest)
	if err != nil {
		// Never quote the value: it may be a password.
		return "", "", fmt.Errorf("%s: %v", key, err)
	}
	return key, value, nil
}

func unescapeProperty(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+5 > len(s) {
				return "", errors.New(`malformed \uXXXX escape`)
			}
			n, err := strconv.ParseUint(s[i+1:i+5], 16, 32)
			if err != nil {
				return "", errors.New(`malformed \uXXXX escape`)
			}
			var buf [4]byte
			b.Write(buf[:utf8.EncodeRune(buf[:], rune(n))])
			i += 4
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), nil
}

// SplitList splits a comma-separated list, trimming spaces and dropping
// empty entries: "a:9092, b:9092" -> [a:9092 b:9092].
func SplitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}
