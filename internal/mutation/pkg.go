package mutation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Package is one Go package's non-test source, parsed.
type Package struct {
	ImportPath string
	Dir        string
	Fset       *token.FileSet
	Names      []string    // file names in Dir, sorted (as go list gives them)
	Files      []*ast.File // parsed with comments, in Names order
	Src        [][]byte    // each file's bytes, in Names order
}

// Path is the absolute path of file i.
func (p *Package) Path(i int) string { return filepath.Join(p.Dir, p.Names[i]) }

// LoadPackage asks the go command for pattern's directory and non-test
// files (so build constraints apply) and parses them.
func LoadPackage(pattern string) (*Package, error) {
	out, err := goOutput("list", "-json", pattern)
	if err != nil {
		return nil, err
	}
	var listed struct {
		ImportPath, Dir string
		GoFiles         []string
	}
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(&listed); err != nil {
		return nil, fmt.Errorf("go list -json %s: %v", pattern, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: want exactly one package", pattern)
	}
	p := &Package{ImportPath: listed.ImportPath, Dir: listed.Dir, Fset: token.NewFileSet(), Names: listed.GoFiles}
	for i := range p.Names {
		src, err := os.ReadFile(p.Path(i))
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(p.Fset, p.Path(i), src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		p.Src, p.Files = append(p.Src, src), append(p.Files, f)
	}
	return p, nil
}

// goOutput runs the go command and returns its standard output; a failure
// carries its standard error.
func goOutput(args ...string) (string, error) { return goOutputEnv(nil, args...) }

// goOutputEnv is goOutput with extra environment.
func goOutputEnv(env []string, args ...string) (string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(goTool(), args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go %s: %v: %s", strings.Join(args, " "), err, firstLine(stderr.String()))
	}
	return stdout.String(), nil
}

// goTool is the go command: $GO if set (as the Makefile's GO), else "go".
func goTool() string {
	if g := os.Getenv("GO"); g != "" {
		return g
	}
	return "go"
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// funcName names a function declaration as a reader finds it: Name, or
// Type.Name / (*Type).Name for a method.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	star := false
	if s, ok := t.(*ast.StarExpr); ok {
		star, t = true, s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	name := "?"
	if id, ok := t.(*ast.Ident); ok {
		name = id.Name
	}
	if star {
		return "(*" + name + ")." + fd.Name.Name
	}
	return name + "." + fd.Name.Name
}

// Rel is the package's directory as printed: relative to the working
// directory when below it.
func (p *Package) Rel() string { return displayPath(p.Dir) }
