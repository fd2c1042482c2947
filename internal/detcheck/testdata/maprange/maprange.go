// Package maprange ranges over maps in every shape the rule knows.
package maprange

import (
	"maps"
	"net/url"
)

type set map[string]bool

type holder struct{ byID map[int]int }

func table() map[string]int { return nil }

func Uses(h holder, s set, v url.Values) int {
	m := map[string]int{"a": 1}
	var total int
	for k := range m { // want map-range
		total += len(k)
	}
	for range s { // want map-range
		total++
	}
	for _, n := range h.byID { // want map-range
		total += n
	}
	for range table() { // want map-range
		total++
	}
	for range map[int]bool{1: true} { // want map-range
		total++
	}
	for range make(map[int]int) { // want map-range
		total++
	}
	for range v { // want map-range
		total++
	}
	for range maps.Keys(m) { // want map-range
		total++
	}
	for range maps.All(m) { // want map-range
		total++
	}
	//det:sorted
	for _, n := range m { // summing: order cannot matter
		total += n
	}
	//det:sorted

	for range m { // want map-range
		total++
	}
	return total
}

func Generic[M ~map[K]V, K comparable, V any](m M) int {
	n := 0
	for range m { // want map-range
		n++
	}
	return n
}
