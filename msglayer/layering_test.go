package msglayer

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestOnlyMsglayerDrivesHW: hw is the message layer's private model
// (docs/design.md): the packages above it reach the hardware through msglayer's
// primitives and import no hw themselves (their tests may).
func TestOnlyMsglayerDrivesHW(t *testing.T) {
	for _, dir := range []string{"../mpi", "../bcs", "../luabind"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, im := range af.Imports {
				if p, _ := strconv.Unquote(im.Path.Value); p == "github.com/bglua/bglua/hw" {
					t.Errorf("%s imports %s: only msglayer drives hw", f, p)
				}
			}
		}
	}
}
