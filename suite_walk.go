package bglua

import (
	"io/fs"
	"path/filepath"
	"strings"
)

// findSuites walks dir for *_test.lua and *_spec.lua (busted's name) files, skipping hidden directories
// and, as go test does, directories named testdata below dir.
func findSuites(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != dir && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && IsSuiteFile(d.Name()) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, usage("%v", unwrapPath(err))
	}
	return files, nil
}

// IsSuiteFile says whether a file's name makes it a suite: *_test.lua, or
// *_spec.lua as busted names them.
func IsSuiteFile(name string) bool {
	return strings.HasSuffix(name, "_test.lua") || strings.HasSuffix(name, "_spec.lua")
}
