package bglua

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// module is the import path of this module's root package.
const module = "github.com/bglua/bglua"

// layers are the arrows of docs/design.md, "Layers": what each package of the
// module may import of the module. Imports only point down; hw is the
// message layer's private model; the command, like the scripts, is an
// embedder and uses the root package alone. third_party is left out: it
// is vendored code, not a layer.
var layers = map[string][]string{
	"runtime":         {"internal/wire"},
	"hw":              {"internal/wire"},
	"stdlib":          {},
	"msglayer":        {"hw", "runtime", "internal/wire"},
	"bcs":             {"msglayer", "runtime"},
	"mpi":             {"bcs", "msglayer", "runtime", "internal/wire"},
	"observe":         {"runtime"},
	"luabind":         {"mpi", "bcs", "msglayer", "observe", "runtime", "stdlib"},
	"":                {"luabind", "mpi", "bcs", "msglayer", "observe", "runtime", "stdlib", "internal/mpinet", "internal/wire"},
	"internal/chart":  {},
	"internal/wire":   {},
	"internal/mpinet": {},
	"internal/sweep":  {"", "internal/chart"},
	"cmd/bglua":       {"", "internal/sweep"},
	"scripts/figures": {"", "internal/chart"},
}

// pending are imports against the arrows that are still being removed
// (hw reached around the message layer). Each is reported, not failed; an
// entry whose import is gone fails the test, so that the list only
// shrinks, to empty.
var pending = []string{}

// The packages of the module import along the arrows of docs/design.md only.
func TestLayers(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, ok := inModule(fields[0])
		if !ok || pkg == "third_party" || strings.HasPrefix(pkg, "third_party/") {
			continue
		}
		allowed, known := layers[pkg]
		if !known {
			t.Errorf("package %q has no place in the layers of docs/design.md: add it to layers", fields[0])
			continue
		}
		for _, imp := range fields[1:] {
			dep, ok := inModule(imp)
			if !ok || slices.Contains(allowed, dep) {
				continue
			}
			arrow := pkg + " -> " + dep
			if slices.Contains(pending, arrow) {
				seen[arrow] = true
				t.Logf("pending: %s imports %s", name(pkg), name(dep))
				continue
			}
			t.Errorf("%s imports %s: against the layers of docs/design.md (allowed: %s)", name(pkg), name(dep), names(allowed))
		}
	}
	for _, arrow := range pending {
		if !seen[arrow] {
			t.Errorf("pending %q is no longer imported: take it off the pending list", arrow)
		}
	}
}

// inModule is path relative to the module ("" for the root package), and
// whether path is in the module at all.
func inModule(path string) (string, bool) {
	if path == module {
		return "", true
	}
	rel, ok := strings.CutPrefix(path, module+"/")
	return rel, ok
}

// name is a package of the module as docs/design.md names it.
func name(pkg string) string {
	if pkg == "" {
		return "the root package"
	}
	return pkg
}

func names(pkgs []string) string {
	if len(pkgs) == 0 {
		return "nothing of the module"
	}
	l := make([]string, len(pkgs))
	for i, p := range pkgs {
		l[i] = name(p)
	}
	return strings.Join(l, ", ")
}
