package repro

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
)

// CLI is how the user runs a module's command from where they are.
type CLI struct {
	// Command is the command as the user types it there: "go run
	// ./cmd/durasim" at the module's root, else the installed name or the
	// path the user ran.
	Command string
	// Install, when Command is the installed name, is how to install it at
	// the version in use (one line; "" when Command builds it from source).
	Install string
}

// Prog names a module's command: the module's path and the command's
// directory in it.
type Prog struct {
	Module string // "github.com/durasim/durasim"
	Dir    string // "cmd/durasim"
}

// Name is the command's binary name.
func (p Prog) Name() string { return filepath.Base(p.Dir) }

// SelfCLI is how the user at the current directory runs p, when the
// running program is p itself: go run from p's module (its root or below
// it), else what the user typed to run this binary — its name when it
// came from PATH, its path otherwise, or `go run p@version` for a
// go-run binary of a released version.
func SelfCLI(p Prog) CLI {
	wd, _ := os.Getwd()
	exe, _ := os.Executable()
	bi, _ := debug.ReadBuildInfo()
	return selfCLI(p, wd, os.Args[0], exe, bi)
}

func selfCLI(p Prog, wd, arg0, exe string, bi *debug.BuildInfo) CLI {
	if root, mod := moduleRoot(wd); mod == p.Module {
		rel, err := filepath.Rel(wd, root)
		if err != nil || rel == "." {
			return CLI{Command: "go run ./" + p.Dir}
		}
		return CLI{Command: "go run " + ShellQuote(filepath.ToSlash(filepath.Join(rel, p.Dir)))}
	}
	goRun := strings.Contains(filepath.ToSlash(exe), "/go-build")
	switch {
	case goRun && bi != nil && released(bi.Main.Version):
		return CLI{Command: "go run " + p.Module + "/" + p.Dir + "@" + bi.Main.Version}
	case !goRun && strings.ContainsRune(arg0, '/'):
		return CLI{Command: ShellQuote(arg0)}
	case !goRun:
		return CLI{Command: p.Name()} // from PATH: the user has it
	}
	return CLI{Command: p.Name(), Install: install(p, mainModule(bi), "")}
}

// TestCLI is how the user runs p when the running program is a test
// binary run by go test: from the root of the module under test (the
// directory go test's package paths are relative to), go run if that
// module is p's own, else the installed command, with how to install
// the version of p the test uses.
func TestCLI(p Prog) CLI {
	wd, _ := os.Getwd()
	bi, _ := debug.ReadBuildInfo()
	root, mod := moduleRoot(wd)
	return testCLI(p, root, mod, bi)
}

func testCLI(p Prog, root, mod string, bi *debug.BuildInfo) CLI {
	if mod == p.Module {
		return CLI{Command: "go run ./" + p.Dir}
	}
	var dep *debug.Module
	if bi != nil {
		for _, d := range bi.Deps {
			if d.Path == p.Module {
				dep = d
			}
		}
	}
	if dep == nil && root != "" {
		// A test binary's build information lists no dependencies: read
		// the module's go.mod instead.
		if b, err := os.ReadFile(filepath.Join(root, "go.mod")); err == nil {
			dep = requirement(string(b), p.Module)
		}
	}
	return CLI{Command: p.Name(), Install: install(p, dep, root)}
}

// requirement is what go.mod text says of module mod: the version it
// requires and what replaces it (nil: it does not require mod).
func requirement(gomod, mod string) *debug.Module {
	var m, repl *debug.Module
	block := ""
	for _, line := range strings.Split(gomod, "\n") {
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		verb := block
		switch {
		case f[0] == ")":
			block = ""
			continue
		case (f[0] == "require" || f[0] == "replace") && len(f) == 2 && f[1] == "(":
			block = f[0]
			continue
		case f[0] == "require" || f[0] == "replace":
			verb, f = f[0], f[1:]
		}
		switch {
		case verb == "require" && len(f) >= 2 && f[0] == mod:
			m = &debug.Module{Path: mod, Version: f[1]}
		case verb == "replace" && len(f) >= 3 && f[0] == mod:
			to := f[2:] // mod => path [version]
			if f[1] != "=>" && len(f) >= 4 {
				to = f[3:] // mod version => path [version]
			}
			repl = &debug.Module{Path: to[0]}
			if len(to) > 1 {
				repl.Version = to[1]
			}
		}
	}
	if m != nil {
		m.Replace = repl
	}
	return m
}

// install says how to install p at the version of m (p's module as the
// running program has it; nil: unknown). A module that replaces p's by a
// directory cannot `go install p@version`: that version is not what it
// runs; the command is built from the directory instead.
func install(p Prog, m *debug.Module, root string) string {
	pkg := p.Module + "/" + p.Dir
	switch {
	case m == nil:
		return "install it: go install " + pkg + "@latest (the version in use is unknown)"
	case m.Replace != nil && m.Replace.Version == "":
		dir := m.Replace.Path
		if !filepath.IsAbs(dir) && root != "" {
			dir = filepath.Join(root, dir)
		}
		return "install the one this module uses (" + p.Module + " is replaced by " + dir + "): go -C " + ShellQuote(dir) + " install ./" + p.Dir
	case m.Replace != nil:
		return "this module replaces " + p.Module + " by " + m.Replace.Path + "@" + m.Replace.Version + ": build " + p.Dir + " from that source"
	case released(m.Version):
		return "install the version in use: go install " + pkg + "@" + m.Version
	}
	return "install it from the source this binary was built from: go install ./" + p.Dir + " in its checkout"
}

// Version is the version of module mod in the running program: the
// module's version, or for a build from a checkout "(devel)" with its
// revision; "" when unknown.
func Version(mod string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	m := mainModule(bi)
	for _, d := range bi.Deps {
		if d.Path == mod {
			m = d
		}
	}
	if m == nil || m.Path != mod {
		return ""
	}
	v := m.Version
	if m.Replace != nil {
		v += " (replaced by " + m.Replace.Path
		if m.Replace.Version != "" {
			v += "@" + m.Replace.Version
		}
		v += ")"
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && m == &bi.Main {
			v += " revision " + s.Value
		}
	}
	return v
}

func mainModule(bi *debug.BuildInfo) *debug.Module {
	if bi == nil {
		return nil
	}
	return &bi.Main
}

// released reports whether v is a version go install can fetch (a
// release or a pseudo-version), not "(devel)".
func released(v string) bool { return strings.HasPrefix(v, "v") }

// moduleRoot finds the module dir is in: its root and its path ("" when
// none).
func moduleRoot(dir string) (root, module string) {
	for d := dir; d != ""; d = filepath.Dir(d) {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil {
			return d, modulePath(string(b))
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return "", ""
}

// ModuleRoot is the root of the module the current directory is in
// ("" when none) and that module's path.
func ModuleRoot() (root, module string) {
	wd, err := os.Getwd()
	if err != nil {
		return "", ""
	}
	return moduleRoot(wd)
}

func modulePath(gomod string) string {
	for _, line := range strings.Split(gomod, "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}
