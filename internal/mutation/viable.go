package mutation

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
)

// Checker type-checks mutated versions of a package, so a mutant that
// would not compile is found without running the compiler. Dependencies
// are read from the export data the go command builds (go list -export),
// so it works for any module. Safe for concurrent use.
type Checker struct {
	pkg *Package
	mu  sync.Mutex
	imp types.Importer
}

// NewChecker prepares a checker for pkg: it builds the export data of
// pkg's dependencies once.
func NewChecker(pkg *Package, env []string) (*Checker, error) {
	// os and strconv: the schema's added file imports them (schema.go).
	out, err := goOutputEnv(env, "list", "-export", "-deps", "-f", "{{.ImportPath}}={{.Export}}", pkg.Dir, "os", "strconv")
	if err != nil {
		return nil, err
	}
	exports := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if path, file, ok := strings.Cut(line, "="); ok && file != "" {
			exports[path] = file
		}
	}
	lookup := func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %q", path)
		}
		return os.Open(file)
	}
	return &Checker{pkg: pkg, imp: importer.ForCompiler(token.NewFileSet(), "gc", lookup)}, nil
}

// Info type-checks the unmutated package and returns the type of every
// expression (Enumerate uses it to leave string concatenation alone).
func (c *Checker) Info() (*types.Info, error) {
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	conf := types.Config{Importer: c.imp}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := conf.Check(c.pkg.ImportPath, c.pkg.Fset, c.pkg.Files, info); err != nil {
		return nil, fmt.Errorf("type-checking %s: %v", c.pkg.ImportPath, err)
	}
	return info, nil
}

// Check type-checks the package with m applied and returns the first
// error, or nil when the mutant compiles.
func (c *Checker) Check(m *Mutant) error {
	i := c.pkg.index(m.File)
	if i < 0 {
		return fmt.Errorf("%s is not a file of %s", m.File, c.pkg.ImportPath)
	}
	return c.CheckFiles(map[int][]byte{i: m.Apply(c.pkg.Src[i])}, nil)
}

// CheckFiles type-checks the package with some files' sources replaced
// and extra files (by path) added, and returns the first error.
func (c *Checker) CheckFiles(replace map[int][]byte, extra map[string][]byte) error {
	// Only the changed files are parsed again (into the package's file
	// set, which is safe for concurrent use); type checking does not
	// change the other files' syntax trees, so they are shared.
	files := slices.Clone(c.pkg.Files)
	for i := range files {
		if src, ok := replace[i]; ok {
			f, err := parser.ParseFile(c.pkg.Fset, c.pkg.Path(i), src, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			files[i] = f
		}
	}
	for _, path := range slices.Sorted(maps.Keys(extra)) {
		f, err := parser.ParseFile(c.pkg.Fset, path, extra[path], parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	var first error
	conf := types.Config{Importer: c.imp, Error: func(err error) {
		if first == nil {
			first = err
		}
	}}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, _ = conf.Check(c.pkg.ImportPath, c.pkg.Fset, files, nil)
	return first
}

// index is the position of file name in p.Names (-1: none).
func (p *Package) index(name string) int {
	for i, n := range p.Names {
		if n == name {
			return i
		}
	}
	return -1
}
