package model

import "strconv"

// enumName is the text name of v among names, the names of an enum in its
// order; a value past them (a corrupted byte, a newer enum) prints as
// "kind(n)" instead of panicking.
func enumName[T ~uint8](names []string, v T, kind string) string {
	if int(v) < len(names) {
		return names[v]
	}
	return kind + "(" + strconv.Itoa(int(v)) + ")"
}
