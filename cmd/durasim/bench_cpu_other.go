//go:build !unix

package main

// cpuSeconds is unknown off unix.
func cpuSeconds() float64 { return -1 }
