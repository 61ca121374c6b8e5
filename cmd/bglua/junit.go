package main

import (
	"encoding/xml"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// JUnit XML as Jenkins and Ant write it (testdata/junit.xsd): counts and
// time on every suite, time on every case, <failure> for a failed
// expectation, <error> for an uncaught error, a deadlock or a limit,
// <skipped> for a pending case, and the ranks' output in <system-out>.
type junitReport struct {
	XMLName xml.Name `xml:"testsuites"`
	Name    string   `xml:"name,attr"`
	junitCounts
	Suites []junitSuite `xml:"testsuite"`
}

// junitCounts are the attributes of a suite, and of the whole report: its
// cases, how many went which way, and their host time in seconds.
type junitCounts struct {
	Tests    int    `xml:"tests,attr"`
	Failures int    `xml:"failures,attr"`
	Errors   int    `xml:"errors,attr"`
	Skipped  int    `xml:"skipped,attr"`
	Time     string `xml:"time,attr"`

	seconds float64
}

type junitSuite struct {
	Name string `xml:"name,attr"`
	junitCounts
	Timestamp string      `xml:"timestamp,attr,omitempty"`
	Hostname  string      `xml:"hostname,attr,omitempty"`
	Props     []junitProp `xml:"properties>property,omitempty"`
	Cases     []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Class     string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
	SystemErr string        `xml:"system-err,omitempty"`
}

type junitProp struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitSkipped struct {
	Message string `xml:"message,attr,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// newJUnitSuite starts the entry of the suite in file, with the settings
// every case of the run shares as its properties.
func newJUnitSuite(file string, props []junitProp) junitSuite {
	host, _ := os.Hostname()
	return junitSuite{
		Name:      file,
		Timestamp: time.Now().UTC().Format("2006-01-02T15:04:05"),
		Hostname:  host,
		Props:     props,
	}
}

// add records case c, ran for sec seconds of host time.
func (s *junitSuite) add(c junitCase, sec float64) {
	c.Time = junitTime(sec)
	n := junitCounts{Tests: 1, seconds: sec}
	switch {
	case c.Skipped != nil:
		n.Skipped++
	case c.Error != nil:
		n.Errors++
	case c.Failure != nil:
		n.Failures++
	}
	s.junitCounts.add(n)
	s.Cases = append(s.Cases, c)
}

func (n *junitCounts) add(m junitCounts) {
	n.Tests += m.Tests
	n.Failures += m.Failures
	n.Errors += m.Errors
	n.Skipped += m.Skipped
	n.seconds += m.seconds
	n.Time = junitTime(n.seconds)
}

// addSuite adds a finished suite to the report and its totals.
func (r *junitReport) addSuite(s junitSuite) {
	s.Time = junitTime(s.seconds)
	r.Suites = append(r.Suites, s)
	r.junitCounts.add(s.junitCounts)
}

// junitTime is a number of seconds with milliseconds, as Ant writes it.
func junitTime(sec float64) string {
	return strconv.FormatFloat(sec, 'f', 3, 64)
}

// junitClass is the classname of the cases of a suite file: its path
// without .lua, directories as packages (tests/p2p_test.lua:
// tests.p2p_test), so that CI tools do not take "lua" for the class.
func junitClass(file string) string {
	p := path.Clean(filepath.ToSlash(file))
	p = strings.TrimSuffix(p, ".lua")
	var parts []string
	for _, s := range strings.Split(p, "/") {
		if s == "" || s == "." || s == ".." {
			continue
		}
		parts = append(parts, strings.ReplaceAll(s, ".", "_"))
	}
	return strings.Join(parts, ".")
}

func (r *junitReport) write(file string) error {
	if r.Time == "" {
		r.Time = junitTime(0)
	}
	r.Name = "bglua test"
	b, err := xml.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(file, append([]byte(xml.Header), append(b, '\n')...), 0o644)
}
