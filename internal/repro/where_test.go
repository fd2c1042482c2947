package repro

import (
	"path/filepath"
	"runtime/debug"
	"testing"
)

var prog = Prog{Module: "github.com/durasim/durasim", Dir: "cmd/durasim"}

// The CLI itself prints go run in its own module (from the root or below
// it), what the user typed elsewhere, go run pkg@version for a released
// go-run binary, and the installed name otherwise.
func TestSelfCLI(t *testing.T) {
	root, mod := ModuleRoot()
	if mod != prog.Module {
		t.Fatalf("the test runs in module %q, want %s", mod, prog.Module)
	}
	devel := &debug.BuildInfo{Main: debug.Module{Path: prog.Module, Version: "(devel)"}}
	released := &debug.BuildInfo{Main: debug.Module{Path: prog.Module, Version: "v1.4.0"}}
	tmp := t.TempDir()
	for _, tc := range []struct {
		wd, arg0, exe string
		bi            *debug.BuildInfo
		want          CLI
	}{
		{root, "bin/durasim", "/x/bin/durasim", devel, CLI{Command: "go run ./cmd/durasim"}},
		{filepath.Join(root, "internal", "repro"), "durasim", "/x/durasim", devel, CLI{Command: "go run ../../cmd/durasim"}},
		{tmp, "/opt/my bin/durasim", "/opt/my bin/durasim", devel, CLI{Command: "'/opt/my bin/durasim'"}},
		{tmp, "durasim", "/usr/local/bin/durasim", devel, CLI{Command: "durasim"}},
		{tmp, "durasim", "/tmp/go-build123/b001/exe/durasim", released, CLI{Command: "go run github.com/durasim/durasim/cmd/durasim@v1.4.0"}},
	} {
		if got := selfCLI(prog, tc.wd, tc.arg0, tc.exe, tc.bi); got != tc.want {
			t.Errorf("%s, %s: %+v, want %+v", tc.wd, tc.arg0, got, tc.want)
		}
	}
	if got := selfCLI(prog, tmp, "durasim", "/tmp/go-build1/exe/durasim", devel); got.Command != "durasim" || got.Install == "" {
		t.Errorf("a go-run build of a checkout, run elsewhere: %+v, want durasim and how to install it", got)
	}
}

// A test binary of another module installs the version its go.mod
// requires, or builds the checkout a replace names.
func TestTestCLI(t *testing.T) {
	for _, tc := range []struct{ gomod, want string }{
		{"module m\nrequire github.com/durasim/durasim v1.2.3\n", "install the version in use: go install github.com/durasim/durasim/cmd/durasim@v1.2.3"},
		{"module m\nrequire (\n\tgithub.com/x/y v1.0.0\n\tgithub.com/durasim/durasim v0.0.0-00010101000000-000000000000 // indirect\n)\nreplace github.com/durasim/durasim => ../durasim\n",
			"install the one this module uses (github.com/durasim/durasim is replaced by /home/u/durasim): go -C /home/u/durasim install ./cmd/durasim"},
		{"module m\nrequire github.com/durasim/durasim v1.2.3\nreplace (\n\tgithub.com/durasim/durasim v1.2.3 => github.com/fork/durasim v1.2.4\n)\n",
			"this module replaces github.com/durasim/durasim by github.com/fork/durasim@v1.2.4: build cmd/durasim from that source"},
	} {
		got := install(prog, requirement(tc.gomod, prog.Module), "/home/u/m")
		if got != tc.want {
			t.Errorf("go.mod %q:\n got %s\nwant %s", tc.gomod, got, tc.want)
		}
	}
	if got := testCLI(prog, "/r", prog.Module, nil); got.Command != "go run ./cmd/durasim" {
		t.Errorf("durasim's own tests: %+v", got)
	}
}
