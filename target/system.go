package target

import (
	"context"
	"flag"
	"fmt"
	"slices"
)

// System is a kind of queue durasim can test, as a command line names it
// (-target Name). A system registers itself ([Register]) from its
// package's init, and a reproduce command names the system of the queue
// that ran — never a system chosen by the caller.
type System interface {
	// Name is the -target value, and the Name of the queues it opens.
	Name() string
	// About says in one line what it is, for -target's help.
	About() string
	// Args are the flags, beyond the run's own, that open a queue like q
	// (one of this system's): its settings that differ from the defaults
	// the CLI opens it with. An error names a setting no flag gives.
	Args(q Queue) ([]string, error)
}

// CLISystem is a System compiled into durasim's CLI, which opens it by
// its name: a failure of one of its queues prints a durasim command. A
// system of the user's own is not one (durasim's CLI does not link it):
// its failures are reproduced by their go test line alone.
//
// The CLI owns the settings every system shares (-backend, checked
// against Backends; -db and -scratch-db, a PostgreSQL database's); the
// system owns its own (River's -rescue-after), registered by Flags. What
// Args prints for a queue must be what those flags parse back to.
type CLISystem interface {
	System
	// Backends are the databases the system runs on ("sqlite",
	// "postgres"), the CLI's default first.
	Backends() []string
	// Flags registers the system's own settings on fs and returns what
	// opens a queue with them, once fs is parsed.
	Flags(fs *flag.FlagSet) Opener
}

// Opener opens a queue on backend (one of its system's Backends); url is
// the database's ("" for an in-memory database). An error is the
// caller's to report: a bad setting or a database that does not open.
type Opener func(ctx context.Context, backend, url string) (Queue, error)

// systems are the registered systems by name. They are registered from
// init functions only, before anything reads them, so reads need no lock.
var systems = map[string]System{}

// Register adds s to the systems -target resolves; call it from an init
// function. A second system of the same name, or one without a name, is
// a programming error (a panic at init).
func Register(s System) {
	name := s.Name()
	if name == "" {
		panic("target: Register of a system without a name")
	}
	if _, dup := systems[name]; dup {
		panic(fmt.Sprintf("target: Register called twice for system %q", name))
	}
	systems[name] = s
}

// Lookup is the registered system named name.
func Lookup(name string) (System, bool) {
	s, ok := systems[name]
	return s, ok
}

// Systems lists the registered systems' names, sorted.
func Systems() []string {
	names := make([]string, 0, len(systems))
	//det:sorted
	for n := range systems {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
