package mutation

import (
	"fmt"
	"go/ast"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Unreached is a block the run never reached, placed in its function.
type Unreached struct {
	File      string // path as printed (relative to the working directory)
	Func      string // enclosing function, or "(package level)"
	StartLine int
	EndLine   int
	Stmts     int
	Lines     []string // the block's source lines, trimmed, blank ones dropped
}

// UnreachedBlocks lists the blocks of pkg that never ran, in file order
// and source order within a file (so grouped by function).
func UnreachedBlocks(pkg *Package, prof *Profile) []Unreached {
	var out []Unreached
	for i, name := range pkg.Names {
		tf := pkg.Fset.File(pkg.Files[i].Pos())
		for _, b := range prof.Blocks(pkg.ImportPath, name) {
			if b.Count > 0 {
				continue
			}
			start := tf.LineStart(b.StartLine) + token.Pos(b.StartCol-1)
			end := tf.LineStart(b.EndLine) + token.Pos(b.EndCol-1)
			text := string(pkg.Src[i][tf.Offset(start):tf.Offset(end)])
			lines, first, last := blockLines(stripBraces(text), b.StartLine)
			out = append(out, Unreached{
				File: displayPath(pkg.Path(i)), Func: enclosingFunc(pkg.Files[i], start),
				StartLine: first, EndLine: last, Stmts: b.Stmts, Lines: lines,
			})
		}
	}
	return out
}

// stripBraces drops the braces of a body block: a block starts at its
// body's "{" or after the statement that split it, and ends at its body's
// "}" or at the header of the next splitting statement (never at another
// brace).
func stripBraces(text string) string {
	if t := strings.TrimLeft(text, " \t"); strings.HasPrefix(t, "{") {
		text = " " + t[1:]
	}
	if t := strings.TrimRight(text, " \t\n"); strings.HasSuffix(t, "}") {
		text = t[:len(t)-1]
	}
	return text
}

// blockLines trims each line of a block's text and drops blank ones (a
// block often starts right after a brace); first and last are the line
// numbers of the lines kept.
func blockLines(text string, startLine int) (lines []string, first, last int) {
	first, last = startLine, startLine
	for i, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if len(lines) == 0 {
			first = startLine + i
		}
		lines, last = append(lines, l), startLine+i
	}
	return lines, first, last
}

// enclosingFunc names the function declaration holding pos.
func enclosingFunc(f *ast.File, pos token.Pos) string {
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Pos() <= pos && pos < fd.End() {
			return funcName(fd)
		}
	}
	return "(package level)"
}

// displayPath is p relative to the working directory when it lies below it.
func displayPath(p string) string {
	wd, err := os.Getwd()
	if err != nil {
		return p
	}
	if rel, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}

// WriteCoverage prints the statement coverage of run's packages and every
// unreached block, grouped by function, against target (a percentage).
func WriteCoverage(w io.Writer, pkgs []*Package, run *CoverRun, what string, target float64) {
	allReached, allTotal := 0, 0
	for _, pkg := range pkgs {
		reached, total := run.Profile.Statements(pkg.ImportPath)
		allReached, allTotal = allReached+reached, allTotal+total
		fmt.Fprintf(w, "%-40s %5.1f%%  %d of %d statements reached\n", pkg.ImportPath, percent(reached, total), reached, total)
	}
	pct := percent(allReached, allTotal)
	verdict := "met"
	if pct < target {
		verdict = "NOT met"
	}
	fmt.Fprintf(w, "coverage    %.1f%% (%d of %d statements) reached by %s\n", pct, allReached, allTotal, what)
	fmt.Fprintf(w, "target      >= %g%%: %s\n", target, verdict)
	if run.ExitCode != 0 {
		fmt.Fprintf(w, "note        the run exited %d (coverage is of that run): %s\n", run.ExitCode, firstLine(run.Output))
	}
	for _, line := range run.Rarest { // each sweep's rarest conjunctions (sim/pairs.go)
		fmt.Fprintln(w, line)
	}
	for _, pkg := range pkgs {
		writeUnreached(w, UnreachedBlocks(pkg, run.Profile))
	}
}

func writeUnreached(w io.Writer, blocks []Unreached) {
	if len(blocks) == 0 {
		return
	}
	stmts := 0
	for _, b := range blocks {
		stmts += b.Stmts
	}
	fmt.Fprintf(w, "\nunreached   %d blocks, %d statements, by function:\n", len(blocks), stmts)
	group := ""
	for _, b := range blocks {
		if g := b.File + " " + b.Func; g != group {
			group = g
			fmt.Fprintf(w, "\n%s  %s\n", filepath.Base(b.File), b.Func)
		}
		loc := fmt.Sprintf("  %s:%d-%d  ", b.File, b.StartLine, b.EndLine)
		if len(b.Lines) == 0 {
			fmt.Fprintln(w, strings.TrimRight(loc, " "))
		}
		for i, l := range b.Lines {
			if i > 0 {
				loc = strings.Repeat(" ", len(loc))
			}
			fmt.Fprintf(w, "%s%s\n", loc, l)
		}
	}
}

func percent(n, total int) float64 {
	if total == 0 {
		return 100
	}
	return 100 * float64(n) / float64(total)
}
