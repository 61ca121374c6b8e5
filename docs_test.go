package bglua

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	mdLink    = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)
	mdCited   = regexp.MustCompile(`[A-Za-z0-9_./-]*[A-Za-z0-9_]\.md\b`)
	mdHeading = regexp.MustCompile("(?m)^#{1,6} +(.*)$")
	mdFence   = regexp.MustCompile("(?ms)^```.*?^```")
)

// Every document a file cites is in the repository: the relative links of
// the Markdown files (and the headings their #anchors name), and the
// Markdown files named in their text, in Go comments and in Lua comments.
// A name is looked up next to the file that cites it, then at the root.
func TestCitedDocumentsExist(t *testing.T) {
	checked := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "third_party" || path == filepath.Join("bench", "out")) {
				return filepath.SkipDir
			}
			return nil
		}
		var text string
		switch filepath.Ext(path) {
		case ".md":
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			text = checkLinks(t, path, string(b))
		case ".go":
			text = goComments(t, path)
		case ".lua":
			text = luaComments(t, path)
		default:
			return nil
		}
		for _, name := range mdCited.FindAllString(text, -1) {
			checked++
			if !exists(filepath.Join(filepath.Dir(path), name)) && !exists(name) {
				t.Errorf("%s cites %s, which is not in the repository", path, name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 10 {
		t.Fatalf("only %d citations found: is the walk reading the repository?", checked)
	}
}

// checkLinks checks the relative links of a Markdown file and returns its
// text without them (text and target), for the names cited in the rest.
func checkLinks(t *testing.T, path, text string) string {
	t.Helper()
	for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
		target := m[1]
		if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
			continue
		}
		file, anchor, _ := strings.Cut(target, "#")
		if file == "" {
			file = path
		} else {
			file = filepath.Join(filepath.Dir(path), file)
		}
		if !exists(file) {
			t.Errorf("%s links to %s, which is not in the repository", path, target)
			continue
		}
		if anchor != "" && strings.HasSuffix(file, ".md") && !hasAnchor(t, file, anchor) {
			t.Errorf("%s links to %s, which has no heading for #%s", path, file, anchor)
		}
	}
	return mdLink.ReplaceAllString(text, "")
}

// hasAnchor reports whether a Markdown file has a heading whose GitHub
// anchor is anchor: lower case, punctuation dropped, spaces as hyphens.
func hasAnchor(t *testing.T, file, anchor string) bool {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	text := mdFence.ReplaceAllString(string(b), "")
	for _, m := range mdHeading.FindAllStringSubmatch(text, -1) {
		var slug strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(m[1])) {
			switch {
			case r == ' ':
				slug.WriteRune('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
				slug.WriteRune(r)
			}
		}
		if slug.String() == anchor {
			return true
		}
	}
	return false
}

func goComments(t *testing.T, path string) string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, g := range f.Comments {
		b.WriteString(g.Text())
	}
	return b.String()
}

func luaComments(t *testing.T, path string) string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, line := range strings.Split(string(src), "\n") {
		if _, c, ok := strings.Cut(line, "--"); ok {
			b.WriteString(c + "\n")
		}
	}
	return b.String()
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
