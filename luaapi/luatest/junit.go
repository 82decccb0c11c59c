package luatest

import (
	"encoding/xml"
	"fmt"
	"os"
	"strings"
)

// The JUnit XML that CI systems read (GitHub, GitLab, Jenkins): one
// testsuite per test file, one testcase per test, a failure element with
// the message.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

func seconds(d interface{ Seconds() float64 }) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// WriteJUnit writes the summary as JUnit XML to path.
func WriteJUnit(path string, s *Summary) error {
	out := junitSuites{Tests: len(s.Results), Failures: s.Failed, Time: seconds(s.Duration)}
	index := map[string]int{}
	for _, r := range s.Results {
		i, ok := index[r.File]
		if !ok {
			i = len(out.Suites)
			index[r.File] = i
			out.Suites = append(out.Suites, junitSuite{Name: r.File})
		}
		suite := &out.Suites[i]
		c := junitCase{Name: r.Name, ClassName: r.File, Time: seconds(r.Duration), SystemOut: r.Output}
		if r.Failed {
			first, _, _ := strings.Cut(r.Message, "\n")
			c.Failure = &junitFailure{Message: first, Text: r.Message}
			suite.Failures++
		}
		suite.Tests++
		suite.Cases = append(suite.Cases, c)
	}
	for i := range out.Suites {
		var total float64
		for _, c := range out.Suites[i].Cases {
			var f float64
			fmt.Sscan(c.Time, &f)
			total += f
		}
		out.Suites[i].Time = fmt.Sprintf("%.3f", total)
	}
	b, err := xml.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append([]byte(xml.Header), append(b, '\n')...), 0o644)
}
