// Package jsonl is the append-only history file of the real-crash mode
// (package crash's histories, which every workload's children write):
// one JSON line per entry, written with one write(2) and no buffering, so
// a line written is in the kernel when the process is killed, and read
// back ignoring a torn last line.
package jsonl
