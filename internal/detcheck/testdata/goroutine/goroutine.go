// Package goroutine starts goroutines.
package goroutine

func work() {}

func Uses() {
	go work()   // want goroutine
	go func() { // want goroutine
		work()
	}()
	//det:sorted
	go work() // want goroutine
}
