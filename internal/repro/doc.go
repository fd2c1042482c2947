// Package repro turns a configuration struct into what reproduces a run
// of it: command-line flags where every setting has one, and otherwise a
// repro file that holds every setting. Both come from the struct itself,
// by reflection, so a setting added to the struct cannot be left out of
// either: it has a flag, or it has a key in the file, or [New] fails
// (a field of a type with no text form).
//
// # Schema
//
// [New] walks a struct type, nested structs included, down to its leaf
// settings. Each leaf is named by its path ("Model.Retry.Base") — its key
// in a repro file — and may be bound to a flag ([Flag]). Leaves of kinds
// bool, the integers, string and slices of integers have a text form of
// their own; [Duration] shows an integer of nanoseconds as a Go duration;
// [Text] gives a type (an enum, a plan, a struct read as one spec) its
// text form; [Mode] marks a field that the command running a reproduction
// sets itself (whether to keep a trace), which is then not reproduced.
//
// [Schema.Diff] lists the settings in which a value differs from a base
// (the defaults), each with its text and its flag; [Args] renders them as
// flags and says which have none. [Schema.Set] and [Schema.SetFlag] set a
// setting from its text, as a command line or a file gives it.
//
// # Repro files
//
// A repro file is text, one setting per line, in the struct's field order,
// after a header (format version, kind, seed, the version of the program
// that wrote it) and comment lines:
//
//	# durasim repro file: replay with `durasim replay -repro FILE`
//	repro 1
//	kind sim
//	seed 17
//	Workers 4
//	Plan "crash after_lease nth=1 worker=*"
//
// Every setting is written, so a file replays the same run after the
// defaults change; a value is quoted (Go syntax) when it is empty, has
// surrounding spaces, a quote or a byte that is not printable. [Schema.WriteFile]
// writes one and [Schema.ReadFile] reads it back over a base value: a key
// the schema does not know, a value that does not parse or a missing
// header is an error naming the line.
//
// # Where the user is
//
// [TestCLI] and [SelfCLI] say how the user runs a module's command from
// where they are (go run from the module's root, else the installed
// binary) and how to install it at the version in use, from the build
// information of the running binary.
package repro
