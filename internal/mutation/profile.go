package mutation

import (
	"bufio"
	"fmt"
	"io"
	"path"
	"slices"
	"strconv"
	"strings"
)

// Block is one basic block of a coverage profile: a source range, its
// statement count and how often it ran (0: never).
type Block struct {
	File                string // import path of the package + "/" + file name
	StartLine, StartCol int
	EndLine, EndCol     int
	Stmts               int
	Count               int
}

// contains reports whether line:col lies in [start, end) of b.
func (b Block) contains(line, col int) bool {
	after := line > b.StartLine || line == b.StartLine && col >= b.StartCol
	before := line < b.EndLine || line == b.EndLine && col < b.EndCol
	return after && before
}

// size orders blocks by extent, so the innermost one containing a
// position wins.
func (b Block) size() int { return (b.EndLine-b.StartLine)<<16 + b.EndCol - b.StartCol }

// Profile is a parsed coverage profile: every block, per file, in source
// order, with the counts of repeated blocks added up.
type Profile struct {
	Mode   string
	blocks map[string][]Block
}

// ParseProfile reads the text format `go tool covdata textfmt` writes.
func ParseProfile(r io.Reader) (*Profile, error) {
	p := &Profile{blocks: map[string][]Block{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if n == 1 {
			mode, ok := strings.CutPrefix(line, "mode: ")
			if !ok {
				return nil, fmt.Errorf("coverage profile: line 1 is %q, want \"mode: ...\"", line)
			}
			p.Mode = mode
			continue
		}
		if line == "" {
			continue
		}
		b, err := parseBlock(line)
		if err != nil {
			return nil, fmt.Errorf("coverage profile line %d: %v", n, err)
		}
		p.blocks[b.File] = append(p.blocks[b.File], b)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if p.Mode == "" {
		return nil, fmt.Errorf("coverage profile is empty")
	}
	for f, bs := range p.blocks {
		p.blocks[f] = mergeBlocks(bs)
	}
	return p, nil
}

// parseBlock parses "file:l0.c0,l1.c1 stmts count".
func parseBlock(line string) (Block, error) {
	bad := fmt.Errorf("malformed block %q", line)
	colon := strings.LastIndexByte(line, ':')
	if colon < 0 {
		return Block{}, bad
	}
	f := strings.Fields(line[colon+1:])
	if len(f) != 3 {
		return Block{}, bad
	}
	var nums [6]int
	parts := strings.FieldsFunc(f[0], func(r rune) bool { return r == '.' || r == ',' })
	if len(parts) != 4 {
		return Block{}, bad
	}
	for i, s := range append(parts, f[1], f[2]) {
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 {
			return Block{}, bad
		}
		nums[i] = v
	}
	return Block{File: line[:colon], StartLine: nums[0], StartCol: nums[1], EndLine: nums[2], EndCol: nums[3], Stmts: nums[4], Count: nums[5]}, nil
}

// mergeBlocks sorts blocks by position and adds up the counts of blocks
// with the same range (a profile lists a block once per run merged in).
func mergeBlocks(bs []Block) []Block {
	slices.SortFunc(bs, func(a, b Block) int {
		if c := compareInts(a.StartLine, b.StartLine, a.StartCol, b.StartCol); c != 0 {
			return c
		}
		return compareInts(a.EndLine, b.EndLine, a.EndCol, b.EndCol)
	})
	out := bs[:0]
	for _, b := range bs {
		if n := len(out); n > 0 && sameRange(out[n-1], b) {
			out[n-1].Count += b.Count
			continue
		}
		out = append(out, b)
	}
	return out
}

func compareInts(a1, b1, a2, b2 int) int {
	if a1 != b1 {
		return a1 - b1
	}
	return a2 - b2
}

func sameRange(a, b Block) bool {
	return a.StartLine == b.StartLine && a.StartCol == b.StartCol && a.EndLine == b.EndLine && a.EndCol == b.EndCol
}

// Files lists the profiled files of package importPath (their names), sorted.
func (p *Profile) Files(importPath string) []string {
	var out []string
	for f := range p.blocks { // sorted below
		if path.Dir(f) == importPath {
			out = append(out, path.Base(f))
		}
	}
	slices.Sort(out)
	return out
}

// Blocks returns file name's blocks in package importPath, in source order.
func (p *Profile) Blocks(importPath, name string) []Block { return p.blocks[importPath+"/"+name] }

// Statements counts the statements of package importPath and those that ran.
func (p *Profile) Statements(importPath string) (reached, total int) {
	for _, name := range p.Files(importPath) {
		for _, b := range p.Blocks(importPath, name) {
			total += b.Stmts
			if b.Count > 0 {
				reached += b.Stmts
			}
		}
	}
	return reached, total
}

// Reached reports whether the innermost block holding line:col of file
// name ran; found is false when no block holds it (code outside blocks,
// such as a case clause's expression).
func (p *Profile) Reached(importPath, name string, line, col int) (reached, found bool) {
	best := -1
	bs := p.Blocks(importPath, name)
	for i, b := range bs {
		if b.contains(line, col) && (best < 0 || b.size() < bs[best].size()) {
			best = i
		}
	}
	if best < 0 {
		return false, false
	}
	return bs[best].Count > 0, true
}
