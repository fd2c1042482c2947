// Command cover measures which statements of some packages one run of a
// program reaches — by default model/ under the standard sweep, `durasim
// run -seeds 1:2000`, the CLI's own path:
//
//	cover [-pkg ./model[,./other]] [-main ./cmd/durasim] [-target 95] [-dir DIR] [args...]
//
// The arguments after the flags are the program's (default: run -seeds
// 1:2000 ; mutants -seeds 1:1000): a lone ";" separates runs of the
// program, whose coverage adds up. It prints the statement coverage, the target and whether it is
// met, and every block never reached as file:line-line and its source,
// grouped by function. It exits 0 whatever the figure (it is a
// measurement); 2 for bad usage or a build that fails.
package main
