// Package boundary is durasim's one vocabulary of named boundaries: the
// points between two steps of an actor (or, inside one transaction,
// between two of its statements) where a fault strikes: a crash, a pause,
// a real process's SIGKILL.
//
// # One name, one meaning
//
// Every boundary of every system under test is declared here once, with
// its name (part of the plan format and of traces: never rename one), the
// kind of actor that crosses it ([Actor]) and what has happened when it is
// crossed ([Boundary.Doc]). The pipeline's model (package model), the
// pipeline's SQL store under real processes (package chaos), the target
// seam (package targetsim) and the targets' real-process workloads each
// declare the [Set] of boundaries they have; a fault plan is parsed
// against one system's set (package faults), and a plan that names a
// boundary the system does not have is refused with the same one-line
// error for every system.
//
// # Numbers
//
// A boundary's number is part of the model's trace hash (sim hashes the
// enum value of each crash and pause): new boundaries are appended,
// existing ones never move.
package boundary
