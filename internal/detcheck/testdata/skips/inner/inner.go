// Package inner shows that Scan walks down into subdirectories.
package inner

func Uses() { go Uses() } // want goroutine
