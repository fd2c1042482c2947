// Package rivercover measures how much of River's own Go code each River
// mode of durasim executes: it builds the CLI with coverage over every
// River package it links (github.com/riverqueue/river/...: the river
// package, its internal/ packages, the drivers, rivermigrate), runs each
// mode's command lines ([Modes]) and prints the statements reached per
// package ([Write]), beside the parts of River's client logic durasim
// still re-enacts ([rivertarget.Parts]).
//
// make river-cover runs it (cmd/rivercover). A measurement: it exits 0
// whatever the figures.
package rivercover
