package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/durasim/durasim/internal/pgtest"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	usage := func() int {
		fmt.Fprintln(stderr, "usage: pgserver up|down [-dir .pg]")
		return 2
	}
	if len(args) < 1 {
		return usage()
	}
	fs := flag.NewFlagSet("pgserver "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", ".pg", "directory holding the server's data, socket and log")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	switch args[0] {
	case "up":
		s, err := pgtest.Start(*dir)
		if err != nil {
			fmt.Fprintf(stderr, "pgserver up: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "export %s='%s'\n", pgtest.EnvURL, s.URL())
	case "down":
		if err := pgtest.StopDir(*dir); err != nil {
			fmt.Fprintf(stderr, "pgserver down: %v\n", err)
			return 1
		}
	default:
		return usage()
	}
	return 0
}
